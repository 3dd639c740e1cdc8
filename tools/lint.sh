#!/usr/bin/env bash
# Lint every emitted Verilog file with Verilator (-Wall) and Yosys
# (hierarchy -check; proc; check -assert). Any warning fails, except those listed in
# tools/lint-waivers.txt as "<file> <tool> <regex>  # reason".
set -uo pipefail
dir=${1:-hdl_out}
waivers=$(dirname "$0")/lint-waivers.txt
fail=0
n=0
shopt -s nullglob
for f in "$dir"/*.v; do
  top=$(basename "$f" .v)
  n=$((n + 1))
  vl=$(verilator --lint-only -Wall --top-module "$top" "$f" 2>&1)
  vl_rc=$?
  ys=$(yosys -q -p "read_verilog $f; hierarchy -check -top $top; proc; check -assert" 2>&1)
  ys_rc=$?
  for tool in verilator yosys; do
    if [ $tool = verilator ]; then out=$vl; rc=$vl_rc; else out=$ys; rc=$ys_rc; fi
    # Drop waived lines.
    if [ -f "$waivers" ]; then
      while read -r wf wt wre; do
        [ -z "$wf" ] || [[ $wf == \#* ]] && continue
        [ "$wf" = "$(basename "$f")" ] || [ "$wf" = "*" ] || continue
        [ "$wt" = "$tool" ] || continue
        wre=${wre%%  #*}
        out=$(grep -Ev -- "$wre" <<<"$out" || true)
      done <"$waivers"
    fi
    if [ $rc -ne 0 ] || grep -qiE "warning|error" <<<"$out"; then
      echo "lint FAIL ($tool): $f"
      echo "$out" | sed 's/^/    /'
      fail=1
    fi
  done
done
if [ $n -eq 0 ]; then echo "lint: no Verilog in $dir"; exit 1; fi
[ $fail -eq 0 ] && echo "lint: $n files clean (verilator -Wall, yosys check -assert)"
exit $fail
