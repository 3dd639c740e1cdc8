"""The wire side's backpressure (docs/spec.md §10) on Icarus Verilog, from the rules, not
from the Rust code: a beat moves when valid and ready are both high; while ready is low
the beat's valid and contents hold; nothing is lost, duplicated or reordered.

- iblink_eth_txq: two queues take random frames from their users; the wire's m_axis_tready is
  random, with long stalls; every frame comes out whole, each queue's in order, and a
  beat offered while m_axis_tready is low is offered again unchanged.
- iblink_pfc_frame: PAUSE/PFC frames built under random stalls; each frame's 64 bytes are
  read back with scapy (EtherType 0x8808, opcode, enable vector, pause times as
  docs/spec.md §9 gives them) and their FCS checked with zlib's CRC-32.
"""

import pytest

from iblink_tb import run_icarus


@pytest.mark.parametrize("width", [32, 64])
def test_eth_txq_backpressure(width):
    run_icarus("iblink_eth_txq", {"QUEUES": 2, "DATA_WIDTH": width, "ADDR_BITS": 9}, "backpressure_tb", "backpressure", {"IBLINK_WIDTH": str(width)})


@pytest.mark.parametrize("width,pfc", [(32, 1), (64, 1), (64, 0)])
def test_pfc_frame_backpressure(width, pfc):
    run_icarus("iblink_pfc_frame", {"QUEUES": 4, "DATA_WIDTH": width}, "pfc_frame_tb", "backpressure", {"IBLINK_WIDTH": str(width), "IBLINK_PFC": str(pfc)})
