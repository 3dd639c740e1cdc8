"""The wire side's backpressure (docs/spec.md §10) on Icarus Verilog, from the rules, not
from the Rust code: a beat moves when valid and ready are both high; while ready is low
the beat's valid and contents hold; nothing is lost, duplicated or reordered.

- iblink_eth_txq: two queues take random frames from their users; the wire's tx_ready is
  random, with long stalls; every frame comes out whole, each queue's in order, and a
  beat offered while tx_ready is low is offered again unchanged.
- iblink_pfc_frame: PAUSE/PFC frames built under random stalls; each frame's 64 bytes are
  read back with scapy (EtherType 0x8808, opcode, enable vector, pause times as
  docs/spec.md §9 gives them) and their FCS checked with zlib's CRC-32.
"""

import os
import random
from pathlib import Path

import pytest

HDL = Path(__file__).resolve().parents[2] / "hdl_out"
HERE = Path(__file__).resolve().parent


def run(module, params, test_module, extra_env=None):
    from cocotb_tools.runner import get_runner

    runner = get_runner("icarus")
    tag = module + "".join(f"_{k}{v}" for k, v in params.items())
    build = Path(os.environ.get("IBLINK_COCOTB_BUILD", HDL.parent / "build" / "cocotb")) / "backpressure" / tag
    runner.build(
        sources=sorted(HDL.glob("*.v")),
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
        extra_env={"IBLINK_WIDTH": str(params.get("DATA_WIDTH", 64)), **(extra_env or {})},
        results_xml=str(build / "results.xml"),
    )


@pytest.mark.parametrize("width", [32, 64])
def test_eth_txq_backpressure(width):
    run("iblink_eth_txq", {"QUEUES": 2, "DATA_WIDTH": width, "ADDR_BITS": 9}, "backpressure_tb")


@pytest.mark.parametrize("width,pfc", [(32, 1), (64, 1), (64, 0)])
def test_pfc_frame_backpressure(width, pfc):
    run("iblink_pfc_frame", {"QUEUES": 4, "DATA_WIDTH": width}, "pfc_frame_tb", {"IBLINK_PFC": str(pfc)})
