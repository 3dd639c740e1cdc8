"""The cocotb side of test_reset.py: drive the module's inputs idle, reset it, and check
that no output holds an X or a Z afterwards."""

import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, RisingEdge


def unresolved(dut, names):
    """The outputs among `names` that hold X or Z, with their values."""
    bad = []
    for n in names:
        v = getattr(dut, n).value
        if not v.is_resolvable:
            bad.append(f"{n}={v}")
    return bad


@cocotb.test()
async def outputs_known_after_reset(dut):
    outputs = [n for n in os.environ["IBLINK_OUTPUTS"].split(",") if n]
    inputs = [n for n in os.environ["IBLINK_INPUTS"].split(",") if n]
    for n in inputs:
        getattr(dut, n).value = 0
    dut.reset.value = 1
    cocotb.start_soon(Clock(dut.clock, 10, unit="ns").start())
    for _ in range(3):
        await RisingEdge(dut.clock)
    await FallingEdge(dut.clock)
    dut.reset.value = 0
    bad = unresolved(dut, outputs)
    assert not bad, f"X/Z after three reset clocks: {', '.join(bad)}"
    for k in range(8):
        await FallingEdge(dut.clock)
        bad = unresolved(dut, outputs)
        assert not bad, f"X/Z {k + 1} clocks after reset: {', '.join(bad)}"
