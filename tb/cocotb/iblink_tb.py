"""What the cocotb testbenches share: the modules' ports as their headers declare them,
building and running a module of hdl_out/ on Icarus, and a wire whose ready stalls."""

import os
import re
from pathlib import Path

HDL = Path(__file__).resolve().parents[2] / "hdl_out"
HERE = Path(__file__).resolve().parent


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


def run_icarus(module, params, test_module, group, extra_env, extra_sources=()):
    """Build `module` of hdl_out/ at `params` with Icarus and run the cocotb tests of
    `test_module` on it, in build/cocotb/<group>/<module and params>/. `extra_sources`:
    testbench files beside hdl_out/'s (a wrapper that is `module`), relative to tb/cocotb/."""
    from cocotb_tools.runner import get_runner

    runner = get_runner("icarus")
    tag = module + "".join(f"_{k}{v}" for k, v in params.items())
    build = Path(os.environ.get("IBLINK_COCOTB_BUILD", HDL.parent / "build" / "cocotb")) / group / tag
    runner.build(
        sources=sorted(HDL.glob("*.v")) + [HERE / f for f in extra_sources],
        hdl_toplevel=module,
        parameters=params,
        build_dir=build,
        timescale=("1ns", "1ps"),
        build_args=["-g2012"],
        always=True,
    )
    runner.test(
        hdl_toplevel=module,
        test_module=test_module,
        test_dir=HERE,
        build_dir=build,
        extra_env=extra_env,
        results_xml=str(build / "results.xml"),
    )


class StallingReady:
    """A sink's ready: high with odds `p`, and now and then (odds `stall_p` a clock) low
    for a stall of `stall` (a range) clocks. `check` holds the AXI4-Stream rule: a beat
    offered while ready was low is offered again, unchanged, the next clock."""

    def __init__(self, rng, p, stall_p, stall):
        self.rng, self.p, self.stall_p, self.stall = rng, p, stall_p, stall
        self.left = 0
        self.offered = None

    def next(self):
        if self.left == 0 and self.rng.random() < self.stall_p:
            self.left = self.rng.randrange(*self.stall)
        ready = 0 if self.left else int(self.rng.random() < self.p)
        self.left = max(0, self.left - 1)
        return ready

    async def clock(self, dut, clk, fields):
        """Drive `dut.tx_ready` for this clock, then read the beat offered (the `fields`
        while `dut.tx_valid`, else None) once the clock's inputs have settled, and check
        it; returns (beat, ready)."""
        from cocotb.triggers import ReadOnly

        ready = self.next()
        dut.tx_ready.value = ready
        await ReadOnly()
        beat = tuple(int(getattr(dut, f).value) for f in fields) if int(dut.tx_valid.value) else None
        self.check(clk, beat, ready)
        return beat, ready

    def check(self, clk, beat, ready):
        """`beat`: what is offered this clock (None when valid is low)."""
        if self.offered is not None:
            assert beat == self.offered, f"clock {clk}: a beat offered under ready low changed: {self.offered} -> {beat}"
        self.offered = beat if beat is not None and not ready else None
