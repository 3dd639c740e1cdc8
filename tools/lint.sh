#!/usr/bin/env bash
# Lint every configuration of every module: Verilator (--lint-only -Wall) and Yosys
# (hierarchy -check; proc; check -assert), each configuration at its parameters, on the
# files as emitted in hdl_out/ and, for a hand-written module whose source in
# crates/rtl/src/ is not the emitted file's body byte for byte, on the source too. The
# configurations come from `iblink emit --manifest`; a module with a TARGET parameter is
# linted at its default and at TARGET = "ECP5".
# Any warning fails, except those listed in tools/lint-waivers.txt as
# "<file> <tool> <regex>  # reason" (there are none).
set -uo pipefail
dir=${1:-hdl_out}
root=$(cd "$(dirname "$0")/.." && pwd)
iblink=${IBLINK:-$root/target/release/iblink}
waivers=$root/tools/lint-waivers.txt
[ -x "$iblink" ] || { echo "lint: $iblink not built (cargo build --release -p iblink)"; exit 1; }
manifest=$("$iblink" emit --manifest) || { echo "lint: iblink emit --manifest failed"; exit 1; }
fail=0
n=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
files_seen=()

# lint_one NAME TOP PARAMS FILE...
lint_one() {
  local name=$1 top=$2 params=$3
  shift 3
  local gv=() ych=""
  if [ "$params" != "-" ]; then
    IFS=, read -ra kv <<<"$params"
    for p in "${kv[@]}"; do
      gv+=("-G$p")
      ych+="chparam -set ${p%%=*} ${p#*=} $top; "
    done
  fi
  local vl ys vl_rc ys_rc
  # Verilator and Yosys side by side (two cores).
  verilator --lint-only -Wall --top-module "$top" "${gv[@]}" "$@" >"$tmp" 2>&1 &
  local vp=$!
  ys=$(yosys -q -p "read_verilog $*; ${ych}hierarchy -check -top $top; proc; check -assert" 2>&1)
  ys_rc=$?
  wait $vp
  vl_rc=$?
  vl=$(<"$tmp")
  for tool in verilator yosys; do
    if [ $tool = verilator ]; then out=$vl; rc=$vl_rc; else out=$ys; rc=$ys_rc; fi
    if [ -f "$waivers" ]; then
      while read -r wf wt wre; do
        [ -z "$wf" ] || [[ $wf == \#* ]] && continue
        [ "$wt" = "$tool" ] || continue
        [ "$wf" = "*" ] || [[ " $* " == *"/$wf "* ]] || continue
        wre=${wre%%  #*}
        out=$(grep -Ev -- "$wre" <<<"$out" || true)
      done <"$waivers"
    fi
    if [ $rc -ne 0 ] || grep -qiE "warning|error" <<<"$out"; then
      echo "lint FAIL ($tool): $name ($top${params:+ $params}): $*"
      echo "$out" | sed 's/^/    /'
      fail=1
    fi
  done
}

while IFS=$'\t' read -r name top params files; do
  [ -z "$name" ] && continue
  emitted=()
  written=()
  hand=0
  for f in $files; do
    emitted+=("$dir/$f")
    src=$(find "$root/crates/rtl/src" -name "$f" -print -quit)
    if [ -n "$src" ]; then
      written+=("$src")
      # The emitted copy is the source under a comment header: if it ends with the
      # source byte for byte, linting it lints the source too.
      tail -n "$(wc -l <"$src")" "$dir/$f" | cmp -s - "$src" || hand=1
    else
      written+=("$dir/$f")
    fi
  done
  lint_one "$name" "$top" "$params" "${emitted[@]}"
  n=$((n + 1))
  # A module with a TARGET parameter (its netlist layout per device family) is also
  # linted in its ECP5 layout.
  if grep -q 'parameter TARGET = "GENERIC"' "${emitted[0]}"; then
    lint_one "$name" "$top" "${params:+$params,}TARGET=\"ECP5\"" "${emitted[@]}"
    n=$((n + 1))
  fi
  if [ $hand = 1 ]; then
    lint_one "$name" "$top" "$params" "${written[@]}"
    n=$((n + 1))
  fi
done <<<"$manifest"
if [ $n -eq 0 ]; then echo "lint: no configurations"; exit 1; fi
[ $fail -eq 0 ] && echo "lint: $n configurations clean (verilator -Wall, yosys check -assert; emitted, and as written where the source differs)"
exit $fail
