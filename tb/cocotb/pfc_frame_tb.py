"""iblink_pfc_frame under a stalling wire (see test_backpressure.py): every frame read
back with scapy and its FCS checked with zlib."""

import os
import random
import zlib

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import RisingEdge
from scapy.layers.l2 import Ether

from iblink_tb import StallingReady

QUEUES = 4


def expected_fields(pfc, masks, quanta, fq, fz):
    """(opcode, enable vector or None, the eight times or the one PAUSE time), per
    docs/spec.md §9."""
    if not pfc:
        return 0x0001, None, [0 if fz & 1 else quanta[0]]
    enable = 0
    times = [0] * 8
    for q in range(QUEUES):
        if fq >> q & 1:
            enable |= masks[q]
            if not fz >> q & 1:
                for p in range(8):
                    if masks[q] >> p & 1:
                        times[p] = quanta[q]
    return 0x0101, enable, times


@cocotb.test()
async def frames_decode_under_stalls(dut):
    width = int(os.environ["IBLINK_WIDTH"])
    pfc = int(os.environ["IBLINK_PFC"])
    n = width // 8
    rng = random.Random(11 + width + pfc)
    sa = bytes([0x02, 0x11, 0x22, 0x33, 0x44, 0x55])
    # Masks sharing no priority, as a port's configuration does.
    prios = list(range(8))
    rng.shuffle(prios)
    masks = [0] * QUEUES
    for k, p in enumerate(prios):
        masks[k % QUEUES] |= 1 << p
    quanta = [rng.randrange(1, 0xFFFF) for _ in range(QUEUES)]

    dut.reset.value = 1
    dut.cfg_pfc.value = pfc
    dut.cfg_sa.value = int.from_bytes(sa, "big")
    dut.cfg_priorities.value = sum(m << (8 * q) for q, m in enumerate(masks))
    dut.cfg_pause_quanta.value = sum(t << (16 * q) for q, t in enumerate(quanta))
    dut.frame_start.value = 0
    dut.frame_queues.value = 0
    dut.frame_zero.value = 0
    dut.tx_ready.value = 0
    cocotb.start_soon(Clock(dut.clock, 10, unit="ns").start())
    for _ in range(3):
        await RisingEdge(dut.clock)
    dut.reset.value = 0

    busy = False
    want = []
    got = []
    cur = bytearray()
    wire = StallingReady(rng, 0.5, 0.02, (5, 100))
    fq = fz = 0
    for clk in range(20000):
        start = 0
        if not busy and len(want) < 60 and rng.random() < 0.3:
            fq = rng.randrange(1, 1 << QUEUES) if pfc else 1
            fz = rng.randrange(0, 1 << QUEUES) & fq
            want.append(expected_fields(pfc, masks, quanta, fq, fz))
            start = 1
            busy = True
        dut.frame_start.value = start
        dut.frame_queues.value = fq
        dut.frame_zero.value = fz
        beat, ready = await wire.clock(dut, clk, ["tx_data", "tx_last"])
        valid = beat is not None
        await RisingEdge(dut.clock)
        if valid and ready:
            d, last = beat
            cur += d.to_bytes(n, "little")
            if last:
                got.append(bytes(cur))
                cur = bytearray()
                busy = False
        if len(got) == 60:
            break
    assert len(got) == 60, f"{len(got)} of 60 frames out"
    for k, (f, (opcode, enable, times)) in enumerate(zip(got, want)):
        assert len(f) == 64, f"frame {k}: {len(f)} bytes"
        assert zlib.crc32(f[:60]) == int.from_bytes(f[60:], "little"), f"frame {k}: bad FCS"
        e = Ether(f)
        assert e.dst == "01:80:c2:00:00:01" and e.src == "02:11:22:33:44:55" and e.type == 0x8808, f"frame {k}: {e.summary()}"
        body = bytes(e.payload)
        assert int.from_bytes(body[0:2], "big") == opcode, f"frame {k}: opcode {body[0:2].hex()}"
        if enable is None:
            assert int.from_bytes(body[2:4], "big") == times[0], f"frame {k}: pause time"
            assert body[4:46].count(0) == 42, f"frame {k}: padding"
        else:
            assert int.from_bytes(body[2:4], "big") == enable, f"frame {k}: enable vector {body[2:4].hex()} != {enable:04x}"
            read = [int.from_bytes(body[4 + 2 * p : 6 + 2 * p], "big") for p in range(8)]
            assert read == times, f"frame {k}: times {read} != {times}"
            assert body[20:46].count(0) == 26, f"frame {k}: padding"
