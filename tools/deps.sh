#!/usr/bin/env bash
# Install what iblink needs, only when it is missing (idempotent; safe to re-run).
# Debian packages: Verilator (co-simulation, lint), Yosys (lint, synthesis, and with
# yosys-smtbmc and z3, or yosys-abc, the formal proofs),
# nextpnr-ice40 + icestorm (place and route, bitstreams), Icarus Verilog, tshark (the
# capture test decodes iblink's ERF captures with it); and, if it can, ccache (the
# Verilator bridge compiles Verilator's runtime once through it, not once per build).
set -euo pipefail

need=()
have() { command -v "$1" >/dev/null 2>&1; }
have verilator     || need+=(verilator)
have yosys         || need+=(yosys)
have yosys-smtbmc  || need+=(yosys)
have yosys-abc     || need+=(yosys)
have z3            || need+=(z3)
have nextpnr-ice40 || need+=(nextpnr-ice40)
have icepack       || need+=(fpga-icestorm)
have iverilog      || need+=(iverilog)
have setpriv       || need+=(util-linux)
have tshark        || need+=(tshark)

# How to run apt-get: as root, through sudo, or not at all (as_root=no).
sudo=""
as_root=yes
if [ "$(id -u)" != 0 ]; then
  if have sudo; then sudo=sudo; else as_root=no; fi
fi

if ((${#need[@]})); then
  echo "deps: installing ${need[*]}"
  [ $as_root = yes ] || { echo "deps: need root (or sudo) to apt-get install ${need[*]}" >&2; exit 1; }
  $sudo apt-get update -qq
  if [[ " ${need[*]} " == *" tshark "* ]]; then
    # wireshark-common asks whether non-root users may capture; answer "no" up front so
    # the install never stops at a prompt (iblink only reads capture files).
    echo "wireshark-common wireshark-common/install-setuid boolean false" | $sudo debconf-set-selections
  fi
  # `env` so the setting survives sudo's environment reset.
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# ccache is optional: without it each Verilator build compiles Verilator's runtime again.
if ! have ccache; then
  if [ $as_root = yes ] &&
     $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ccache >/dev/null 2>&1; then
    echo "deps: installed ccache"
  else
    echo "deps: ccache not installed (optional; Verilator builds are slower without it)"
  fi
fi

# CryptoMiniSat for the proofs with engine = "cms" (`make formal`): PyPI's pycryptosat
# in a project-local virtual environment, .venv-formal/ (git-ignored), when missing.
venv=${IBLINK_FORMAL_VENV:-$(cd "$(dirname "$0")/.." && pwd)/.venv-formal}
if ! "$venv/bin/python" -c "import pycryptosat" >/dev/null 2>&1; then
  have python3 || { echo "deps: python3 is missing (the CryptoMiniSat proofs need it)" >&2; exit 1; }
  echo "deps: installing pycryptosat from PyPI into $venv"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check pycryptosat
fi

# cocotb, cocotbext-axi/-eth, scapy, pytest, FuseSoC and edalize (tb/requirements.txt) in
# .venv-tb/ (git-ignored): the cocotb testbenches and the FuseSoC lint of the cores.
root=$(cd "$(dirname "$0")/.." && pwd)
tbvenv=${IBLINK_TB_VENV:-$root/.venv-tb}
req=$root/tb/requirements.txt
if ! cmp -s "$req" "$tbvenv/requirements.installed" 2>/dev/null; then
  have python3 || { echo "deps: python3 is missing (the cocotb tests need it)" >&2; exit 1; }
  echo "deps: installing tb/requirements.txt from PyPI into $tbvenv"
  [ -x "$tbvenv/bin/python" ] || python3 -m venv "$tbvenv"
  "$tbvenv/bin/python" -m pip install -q --disable-pip-version-check -r "$req"
  cp "$req" "$tbvenv/requirements.installed"
fi

have cargo || { echo "deps: cargo is missing; install Rust with rustup" >&2; exit 1; }
echo "deps: $(verilator --version | head -1); $(yosys -V); $(z3 --version); pycryptosat $("$venv/bin/python" -c 'import pycryptosat; print(pycryptosat.__version__)'); cocotb $("$tbvenv/bin/python" -c 'import cocotb; print(cocotb.__version__)'), fusesoc $("$tbvenv/bin/fusesoc" --version 2>/dev/null); nextpnr-ice40 $(nextpnr-ice40 --version 2>&1 | head -1); $(tshark --version 2>/dev/null | head -1)"
