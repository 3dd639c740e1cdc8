"""Every clocked module of hdl_out/, on Icarus Verilog (four-state): after a synchronous
reset (reset high for three clocks with every input 0, the idle state of every
interface), no output is X or Z, in the reset clocks' wake and in the eight idle clocks
after them. Verilator's two-state model cannot show this; Icarus starts every register
at X, so a register that reset does not reach and that drives an output shows up here.

Run by pytest (tb/cocotb/, `make cocotb`); one test per module, at its default parameters
and at the ports' other sizes.
"""

import pytest

from iblink_tb import HDL, header_ports, run_icarus


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
    ports = header_ports(module)
    outputs = ",".join(n for d, n in ports if d == "output")
    inputs = ",".join(n for d, n in ports if d == "input" and n not in ("clock", "reset"))
    run_icarus(module, params, "reset_tb", "reset", {"IBLINK_OUTPUTS": outputs, "IBLINK_INPUTS": inputs})
