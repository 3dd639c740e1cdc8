"""Every clocked module of hdl_out/, on Icarus Verilog (four-state): after a synchronous
reset (reset high for three clocks with every input 0, the idle state of every
interface), no output is X or Z, in the reset clocks' wake and in the eight idle clocks
after them. Verilator's two-state model cannot show this; Icarus starts every register
at X, so a register that reset does not reach and that drives an output shows up here.

Run by pytest (tb/cocotb/, `make cocotb`); one test per module, at its default parameters
and at the ports' other sizes.
"""

import os
import re
from pathlib import Path

import pytest

HDL = Path(__file__).resolve().parents[2] / "hdl_out"


def header_ports(module):
    """(direction, name) of each port in the module's ANSI header."""
    text = (HDL / f"{module}.v").read_text()
    head = text[text.index(f"module {module} ") :]
    # The port list is the parenthesised list that follows the parameters, if any.
    body = head[: head.index(");")]
    ports = []
    for line in body.splitlines():
        code = line.split("//")[0].strip().rstrip(",")
        m = re.match(r"(input|output)\s+(?:wire|reg)?\s*(?:signed\s*)?(?:\[[^\]]*\])?\s*(\w+)$", code)
        if m:
            ports.append((m.group(1), m.group(2)))
    return ports


def clocked_modules():
    mods = []
    for f in sorted(HDL.glob("*.v")):
        ports = header_ports(f.stem)
        if ("input", "clock") in ports and ("input", "reset") in ports:
            mods.append(f.stem)
    return mods


# The ports at other sizes than their defaults (the block modules are also instances of
# the ports at every size the port passes them).
CASES = [(m, {}) for m in clocked_modules()] + [
    ("iblink_link_port", {"VLS": 15, "DATA_WIDTH": 64}),
    ("iblink_link_port", {"VLS": 1, "DATA_WIDTH": 32}),
    ("iblink_eth_port", {"QUEUES": 1, "DATA_WIDTH": 32, "RX_ADDR_BITS": 10, "TX_ADDR_BITS": 8}),
]


@pytest.mark.parametrize("module,params", CASES, ids=lambda x: x if isinstance(x, str) else "-".join(f"{k}{v}" for k, v in x.items()) or "default")
def test_reset(module, params):
    from cocotb_tools.runner import get_runner

    runner = get_runner("icarus")
    tag = module + "".join(f"_{k}{v}" for k, v in params.items())
    build = Path(os.environ.get("IBLINK_COCOTB_BUILD", HDL.parent / "build" / "cocotb")) / "reset" / tag
    runner.build(
        sources=sorted(HDL.glob("*.v")),
        hdl_toplevel=module,
        parameters=params,
        build_dir=build,
        timescale=("1ns", "1ps"),
        build_args=["-g2012"],
        always=True,
    )
    outputs = ",".join(n for d, n in header_ports(module) if d == "output")
    inputs = ",".join(n for d, n in header_ports(module) if d == "input" and n not in ("clock", "reset"))
    runner.test(
        hdl_toplevel=module,
        test_module="reset_tb",
        test_dir=Path(__file__).resolve().parent,
        build_dir=build,
        extra_env={"IBLINK_OUTPUTS": outputs, "IBLINK_INPUTS": inputs},
        results_xml=str(build / "results.xml"),
    )
