"""iblink_eth_txq under a stalling wire (see test_backpressure.py)."""

import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import RisingEdge

from iblink_tb import StallingReady


def word_of(frame, k, n):
    """Word k of a frame (bytes, lane 0 first) and its byte count."""
    chunk = frame[k * n : (k + 1) * n]
    return int.from_bytes(chunk, "little"), len(chunk)


@cocotb.test()
async def frames_whole_and_in_order(dut):
    width = int(os.environ["IBLINK_WIDTH"])
    n = width // 8
    rng = random.Random(7 + width)
    queues = 2
    frames = [[bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8 * n * 3))) for _ in range(40)] for _ in range(queues)]
    # The first byte of every frame names its queue and its number, to check the order.
    frames = [[bytes([q, k]) + f for k, f in enumerate(fs)] for q, fs in enumerate(frames)]

    dut.reset.value = 1
    dut.cfg_tx_words.value = 256
    for name in ["cfg_priorities", "s_axis_tvalid", "s_axis_tdata", "s_axis_tkeep", "s_axis_tlast", "paused", "ctrl", "ctrl_data", "ctrl_last", "m_axis_tready"]:
        getattr(dut, name).value = 0
    cocotb.start_soon(Clock(dut.clock, 10, unit="ns").start())
    for _ in range(3):
        await RisingEdge(dut.clock)
    dut.reset.value = 0

    # Users: per queue, the next word of the next frame, held until taken.
    at = [[0, 0] for _ in range(queues)]  # frame, word
    received = [[] for _ in range(queues)]
    cur = bytearray()
    wire = StallingReady(rng, 0.6, 0.005, (20, 300))
    for clk in range(40000):
        # Drive this clock's inputs.
        sv = sd = sk = sl = 0
        for q in range(queues):
            f, w = at[q]
            if f < len(frames[q]) and rng.random() < 0.8:
                fr = frames[q][f]
                d, c = word_of(fr, w, n)
                last = (w + 1) * n >= len(fr)
                sv |= 1 << q
                sd |= d << (width * q)
                sk |= ((1 << c) - 1) << (n * q)
                sl |= int(last) << q
        dut.s_axis_tvalid.value = sv
        dut.s_axis_tdata.value = sd
        dut.s_axis_tkeep.value = sk
        dut.s_axis_tlast.value = sl
        beat, ready = await wire.clock(dut, clk, ["m_axis_tdata", "m_axis_tkeep", "m_axis_tlast"], "m_axis_tvalid", "m_axis_tready")
        valid = beat is not None
        taken = int(dut.s_axis_tready.value) & sv
        await RisingEdge(dut.clock)
        for q in range(queues):
            if taken >> q & 1:
                f, w = at[q]
                if (w + 1) * n >= len(frames[q][f]):
                    at[q] = [f + 1, 0]
                else:
                    at[q] = [f, w + 1]
        if valid and ready:
            d, keep, last = beat
            lanes = bin(keep).count("1")
            cur += d.to_bytes(n, "little")[:lanes]
            if last:
                q = cur[0]
                assert q < queues, f"clock {clk}: a frame with no queue's mark: {bytes(cur[:4]).hex()}"
                received[q].append(bytes(cur))
                cur = bytearray()
        if all(len(received[q]) == len(frames[q]) for q in range(queues)):
            break
    for q in range(queues):
        assert received[q] == frames[q][: len(received[q])], f"queue {q}: a frame changed, lost or out of order"
        assert len(received[q]) == len(frames[q]), f"queue {q}: {len(received[q])} of {len(frames[q])} frames out"
