"""Two iblink_link_ports back to back (see test_link_b2b.py): the cocotb side. Written
from docs/spec.md (§1-§5, §10) and the modules' headers.

The testbench is both ports' users and the wire between them (link_b2b_top, made by
iblink_tb.twin_top from the port's header, brings both ports out side by side):
- A's user side: per data VL a queue of IBA packets (LRH, BTH, payload, ICRC; PktLen
  words of 4 bytes), their heads on txq_valid/txq_len, popped with txq_pop, their words
  read by src_rd from queue src_vl (first word fall through).
- The wire, both ways: a beat that moves on m_axis_phy_* (tvalid & tready) is presented
  on the other port's s_axis_phy_* LATENCY clocks later (tlast ends an item, tuser[1]
  marks its first word, tuser[0] a link packet). Each tready stalls now and then
  (StallingReady, which also checks the hold rule). The wire decodes every item: data
  packets (length, VCRC) and FCPs (LPCRC, fields); on the way back it drops one FCP on
  purpose.
- B's user side: rx_out_* words per packet, the verdict (rx_done, status), the commit
  into the receive buffer (rx_commit; rx_overrun must never come), and the drain of that
  buffer (drain, drain_vl, drain_blocks): one packet a clock, round robin, except on VL1
  (stop_vl), which is not drained from clock stop_from until B's first FCP for it after
  stop_to has started: drained then, within the minimum gap, the next FCP for VL1 carries
  all its room, and the wire loses that one. Nothing changes on VL1 after it, so only the
  next refresh brings A its credits back.
"""

import os
import random
import zlib
from collections import deque

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly

from iblink_tb import StallingReady

# docs/spec.md §5 link state codes (iblink_fcp_tx.v header)
LINK_DOWN, LINK_INIT, LINK_ARM, LINK_ACTIVE = 0, 1, 2, 3
LATENCY = 3  # wire latency, clocks


def crc16(data):
    """CRC-16 of docs/spec.md §3: poly 0x100B, init 0xFFFF, reflected in and out, xorout
    0xFFFF (0xD008 is 0x100B reflected)."""
    crc = 0xFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0xD008 if crc & 1 else crc >> 1
    return crc ^ 0xFFFF


# docs/spec.md §3: the check value, and the FCP example (header 10 00 00 00 -> 58 05).
assert crc16(b"123456789") == 0x0A3D
assert crc16(bytes([0x10, 0, 0, 0])) == 0x0558


def blocks_of(pktlen):
    """docs/spec.md §1: blocks = ceil((PktLen*4 - 8) / 64)."""
    return -(-(pktlen * 4 - 8) // 64)


def ib_packet(rng, vl, seq, pktlen):
    """An IBA local packet (docs/spec.md §3, LNH 2) of PktLen `pktlen` words, without
    its VCRC: LRH (8) | BTH (12) | payload | ICRC (4). The BTH's PSN carries `seq`."""
    lrh = bytes([vl << 4, (vl << 4) | 2, 0x00, 0x10 + vl, pktlen >> 8 & 7, pktlen & 0xFF, 0x00, 0x20])
    psn = seq & 0xFFFFFF
    bth = bytes([0x64, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01 + vl, 0x00, psn >> 16, psn >> 8 & 0xFF, psn & 0xFF])
    payload = (bytes([vl, seq & 0xFF]) + bytes(rng.randrange(256) for _ in range(pktlen * 4 - 24)))[: pktlen * 4 - 24]
    masked = bytes([lrh[0] | 0xF0]) + lrh[1:] + bth[:4] + b"\xff" + bth[5:] + payload
    icrc = zlib.crc32(masked).to_bytes(4, "little")
    pkt = lrh + bth + payload + icrc
    assert len(pkt) == pktlen * 4
    return pkt


def words_of(data, n):
    """Link words (byte 0 in lane 0, bits 7:0) of `data`, n bytes a word."""
    return [int.from_bytes(data[k : k + n], "little") for k in range(0, len(data), n)]


def lanes(keep):
    """Bytes a word carries: lanes 0 up to keep's highest set bit."""
    return keep.bit_length()


class Fcp:
    """An FCP as the wire saw it (docs/spec.md §2)."""

    def __init__(self, raw, clk):
        assert len(raw) == 6, f"clock {clk}: an FCP of {len(raw)} bytes: {raw.hex()}"
        assert crc16(raw[:4]) == raw[4] | raw[5] << 8, f"clock {clk}: FCP {raw.hex()} with a bad LPCRC"
        self.clk = clk
        self.op = raw[0] >> 4
        self.fctbs = (raw[0] & 0xF) << 8 | raw[1]
        self.vl = raw[2] >> 4
        self.fccl = (raw[2] & 0xF) << 8 | raw[3]
        self.dropped = False

    def __repr__(self):
        return f"FCP(clk {self.clk}, op {self.op}, VL{self.vl}, FCTBS {self.fctbs}, FCCL {self.fccl}{', dropped' if self.dropped else ''})"


class Wire:
    """One direction: beats that moved go in, LATENCY clocks later they come out; items
    are decoded as they go in. `drop(fcp_header)` decides at an FCP's sop whether its
    words are lost."""

    def __init__(self, n, name):
        self.n, self.name = n, name
        self.line = deque([None] * LATENCY)
        self.cur = None  # bytes of the item being decoded, its kind and sop clock
        self.dropping = False
        self.fcps = []
        self.packets = []  # (clock of sop, bytes) of data packets
        self.beats = self.stalls = 0

    def push(self, clk, beat, drop=None):
        """`beat`: (data, keep, sop, eop, link) moved this clock, or None."""
        tag = None
        if beat is not None:
            self.beats += 1
            data, keep, sop, eop, link = beat
            if sop:
                assert self.cur is None or self.cur[1] != link, f"{self.name} clock {clk}: a sop inside an item"
                self.cur = [bytearray(), link, clk]
                if link and drop is not None:
                    w = data.to_bytes(self.n, "little")
                    self.dropping = drop(w[:4])
            assert self.cur is not None and self.cur[1] == link, f"{self.name} clock {clk}: a word outside an item"
            self.cur[0] += data.to_bytes(self.n, "little")[: lanes(keep) if eop else self.n]
            if eop:
                raw, is_link, start = self.cur
                self.cur = None
                if is_link:
                    f = Fcp(bytes(raw), start)
                    f.dropped = self.dropping
                    self.fcps.append(f)
                    tag = f
                else:
                    self.packets.append((start, bytes(raw)))
                    tag = self.packets[-1]
            if self.dropping:
                if eop:
                    self.dropping = False
                beat = None
        self.line.append(None if beat is None else beat + (tag,))

    def pop(self):
        return self.line.popleft()


class Dut:
    """Writes only what changed (each write costs a call into the simulator)."""

    def __init__(self, dut):
        self.dut = dut
        self.shadow = {}
        self.h = {}

    def sig(self, name):
        h = self.h.get(name)
        if h is None:
            h = self.h[name] = getattr(self.dut, name)
        return h

    def set(self, name, v):
        if self.shadow.get(name) != v:
            self.shadow[name] = v
            self.sig(name).value = v

    def get(self, name):
        return int(self.sig(name).value)


def drive_rx(d, s, beat):
    """Present a beat (data, keep, first word, last word, link packet, ...) on port s's
    s_axis_phy_* (tuser[1]: first word, tuser[0]: link packet)."""
    data, keep, sop, eop, link = beat[:5]
    d.set(f"{s}_s_axis_phy_tvalid", 1)
    d.set(f"{s}_s_axis_phy_tdata", data)
    d.set(f"{s}_s_axis_phy_tkeep", keep)
    d.set(f"{s}_s_axis_phy_tlast", eop)
    d.set(f"{s}_s_axis_phy_tuser", sop << 1 | link)


@cocotb.test()
async def link_b2b(dut):
    vls = int(os.environ["IBLINK_VLS"])
    width = int(os.environ["IBLINK_WIDTH"])
    cap = int(os.environ["IBLINK_BUFFER_BLOCKS"])
    refresh = int(os.environ["IBLINK_REFRESH_CLOCKS"])
    n = width // 8
    rng = random.Random(int(os.environ.get("IBLINK_SEED", "11")))
    stop_vl = 1
    t_active = 400  # clocks of LinkInitialize, then LinkArm from 360
    stop_from, stop_to = 1500, 9000
    gen_end, max_clocks = 14000, 25000
    pktlens = (6, 40)

    d = Dut(dut)
    for s in "ab":
        for name in ["txq_valid", "txq_len", "vl15_valid", "vl15_len", "src_data", "s_axis_phy_tvalid", "s_axis_phy_tdata", "s_axis_phy_tkeep", "s_axis_phy_tlast", "s_axis_phy_tuser", "drain", "drain_vl", "drain_blocks", "vl15_drain", "cfg_wr", "cfg_addr", "cfg_data"]:
            d.set(f"{s}_{name}", 0)
        d.set(f"{s}_m_axis_phy_tready", 1)
        d.set(f"{s}_reset", 1)
        d.set(f"{s}_link_state", LINK_DOWN)
    cocotb.start_soon(Clock(dut.clock, 10, unit="ns").start())
    for _ in range(3):
        await FallingEdge(dut.clock)
    for s in "ab":
        d.set(f"{s}_reset", 0)
        d.set(f"{s}_link_state", LINK_INIT)

    # A's user side: per VL the packets not yet started, and the words not yet read.
    pending = [deque() for _ in range(vls)]  # (bytes, pktlen)
    words = [deque() for _ in range(vls)]
    made = [0] * vls
    sent = [[] for _ in range(vls)]  # packets started, in order
    sent_blocks = [0] * vls
    starts = [[] for _ in range(vls)]  # clocks of A's starts
    totals = [[(0, 0)] for _ in range(vls)]  # (clock, blocks sent up to then)
    # What the wire delivered to A: CL per VL (docs/spec.md §4: 0 before the first FCP).
    cl_a = [0] * vls
    fcps_to_a = [[] for _ in range(vls)]  # (clock delivered, FCP)
    # B's user side.
    rx_cur = None
    rx_idx = [0] * vls
    verdicts = deque()  # packets out, waiting for rx_done
    commits = deque()  # judged good, waiting for rx_commit
    held = [deque() for _ in range(vls)]  # blocks of each packet in B's buffer
    drained_blocks = [0] * vls
    delivered = [0] * vls
    delivered_at = [[] for _ in range(vls)]
    drain_rr = 0
    # The lost FCP and its repair.
    resume = None  # the clock B's user drains the stopped VL again
    lost = None
    lost_out = None
    repair = None
    at_stop_end = None

    def drop_fcp(head):
        """At the sop of an FCP from B: lose the first one for the stopped VL after the
        stop that would let A's head packet of that VL go while the credits A holds do
        not (so its loss must show)."""
        nonlocal lost, lost_out, resume
        vl, fccl = head[2] >> 4, (head[2] & 0xF) << 8 | head[3]
        if lost is not None or clk < stop_to or vl != stop_vl or not pending[stop_vl]:
            return False
        if resume is None:
            resume = clk + 1
            return False
        cr = (sent_blocks[vl] + blocks_of(pending[vl][0][1])) % 4096
        if (fccl - cr) % 4096 <= 2048 and (cl_a[vl] - cr) % 4096 > 2048:
            lost = clk
            lost_out = sent_blocks[vl] - drained_blocks[vl]
            return True
        return False

    ab = Wire(n, "A->B")
    ba = Wire(n, "B->A")
    wa = StallingReady(rng, 0.92, 0.01, (2, 12))
    wb = StallingReady(rng, 0.92, 0.01, (2, 12))
    link_state = LINK_INIT
    resync = 0

    for clk in range(max_clocks):
        # ---- this clock's inputs (registers are settled after the falling edge) ----
        if clk == 360:
            link_state = LINK_ARM
        if clk == t_active:
            link_state = LINK_ACTIVE
        for s in "ab":
            d.set(f"{s}_link_state", link_state)
        # The arbitration tables (iblink_port_ctrl.v: low table entry v <- VL v, weight 4
        # blocks), written once the power-up load is done, so VLs take short turns.
        if 20 <= clk < 20 + vls:
            v = clk - 20
            assert d.get("a_cfg_busy") == 0
            d.set("a_cfg_wr", 1)
            d.set("a_cfg_addr", 0x40 | v)
            d.set("a_cfg_data", v << 8 | 4)
        elif clk == 20 + vls:
            d.set("a_cfg_wr", 0)
        if clk < gen_end:
            for v in range(vls):
                while len(pending[v]) < 3:
                    pl = rng.randrange(pktlens[0], pktlens[1] + 1)
                    pkt = ib_packet(rng, v, made[v], pl)
                    made[v] += 1
                    pending[v].append((pkt, pl))
                    words[v].extend(words_of(pkt, n))
        valid = 0
        lens = 0
        for v in range(vls):
            if pending[v]:
                valid |= 1 << v
                lens |= pending[v][0][1] << (11 * v)
        d.set("a_txq_valid", valid)
        d.set("a_txq_len", lens)
        src_vl = d.get("a_src_vl")
        d.set("a_src_data", words[src_vl][0] if src_vl < vls and words[src_vl] else 0)
        ready_a = wa.next()
        ready_b = wb.next()
        d.set("a_m_axis_phy_tready", ready_a)
        d.set("b_m_axis_phy_tready", ready_b)
        into_b = ab.pop()
        into_a = ba.pop()
        for s, beat in (("b", into_b), ("a", into_a)):
            if beat is None:
                d.set(f"{s}_s_axis_phy_tvalid", 0)
            else:
                drive_rx(d, s, beat)
        # B drains one packet a clock, round robin, the stopped VL only outside the stop.
        drain = None
        for k in range(vls):
            v = (drain_rr + k) % vls
            if held[v] and not (v == stop_vl and stop_from <= clk and (resume is None or clk < resume)):
                drain = v
                drain_rr = v + 1
                break
        if drain is None:
            d.set("b_drain", 0)
        else:
            b = held[drain].popleft()
            drained_blocks[drain] += b
            d.set("b_drain", 1)
            d.set("b_drain_vl", drain)
            d.set("b_drain_blocks", b)

        await ReadOnly()

        # ---- what happens at this clock's edge ----
        # A FCP delivered to A (its last word on A's rx this clock) counts from now.
        if into_a is not None and isinstance(into_a[5], Fcp):
            f = into_a[5]
            cl_a[f.vl] = f.fccl
            fcps_to_a[f.vl].append((clk, f))
            if lost is not None and repair is None and f.vl == stop_vl:
                repair = (clk, f)
        pop = d.get("a_txq_pop")
        if pop:
            v = pop.bit_length() - 1
            assert pop == 1 << v, f"clock {clk}: txq_pop {pop:b} pops two VLs"
            assert link_state == LINK_ACTIVE, f"clock {clk}: a data packet starts in link state {link_state}"
            pkt, pl = pending[v].popleft()
            np_ = blocks_of(pl)
            # docs/spec.md §4: CR = FCTBS + NP; it may go iff (CL - CR) mod 4096 <= 2048,
            # CL as the wire delivered it to A.
            cr = (sent_blocks[v] + np_) % 4096
            assert (cl_a[v] - cr) % 4096 <= 2048, f"clock {clk}: VL{v} packet #{len(sent[v])} ({np_} blocks) sent beyond credits: CL {cl_a[v]}, CR {cr}"
            sent_blocks[v] += np_
            # ... and so never more in B's buffer or on the way than B has room for.
            assert sent_blocks[v] - drained_blocks[v] <= cap, f"clock {clk}: VL{v}: {sent_blocks[v] - drained_blocks[v]} blocks out for a buffer of {cap}"
            sent[v].append(pkt)
            starts[v].append(clk)
            totals[v].append((clk, sent_blocks[v]))
        if d.get("a_src_rd"):
            assert d.get("a_src_vl") == src_vl
            assert src_vl < vls and words[src_vl], f"clock {clk}: src_rd of VL{src_vl}, whose queue is empty"
            words[src_vl].popleft()
        for s, wr, wire, ready in (("a", wa, ab, ready_a), ("b", wb, ba, ready_b)):
            if d.get(f"{s}_m_axis_phy_tvalid"):
                tuser = d.get(f"{s}_m_axis_phy_tuser")
                beat = (d.get(f"{s}_m_axis_phy_tdata"), d.get(f"{s}_m_axis_phy_tkeep"), tuser >> 1 & 1, d.get(f"{s}_m_axis_phy_tlast"), tuser & 1)
                if not ready:
                    wire.stalls += 1
            else:
                beat = None
            wr.check(clk, beat, ready)
            wire.push(clk, beat if ready else None, drop_fcp if s == "b" else None)
        # B's receive side.
        if d.get("b_rx_out_valid"):
            assert not d.get("b_rx_out_abort"), f"clock {clk}: B's rx_out_abort"
            data, keep, sop, eop, vl = (d.get(f"b_rx_out_{f}") for f in ["data", "keep", "sop", "eop", "vl"])
            if sop:
                assert rx_cur is None, f"clock {clk}: B: a packet's sop before the last one's eop"
                rx_cur = [bytearray(), vl]
            assert rx_cur is not None and rx_cur[1] == vl, f"clock {clk}: B: a word outside a packet, or its VL changed"
            rx_cur[0] += data.to_bytes(n, "little")[: lanes(keep) if eop else n]
            if eop:
                got, vl = bytes(rx_cur[0]), rx_cur[1]
                rx_cur = None
                assert vl < vls, f"clock {clk}: B delivered a packet of VL{vl}"
                k = rx_idx[vl]
                assert k < len(sent[vl]), f"clock {clk}: B delivered VL{vl} packet #{k}, A started {len(sent[vl])}"
                want = sent[vl][k]
                assert got[:-2] == want, f"clock {clk}: VL{vl} packet #{k} delivered changed or out of order: {got[:16].hex()}... for {want[:16].hex()}..."
                assert got[-2:] == crc16(want).to_bytes(2, "little"), f"clock {clk}: VL{vl} packet #{k}: VCRC {got[-2:].hex()}, expected {crc16(want).to_bytes(2, 'little').hex()}"
                rx_idx[vl] += 1
                verdicts.append((vl, blocks_of(len(want) // 4)))
        # rx_commit answers the accept of the previous clock's verdict.
        if d.get("b_rx_overrun"):
            assert False, f"clock {clk}: B: a buffer overrun (rx_overrun)"
        if d.get("b_rx_commit"):
            assert commits, f"clock {clk}: B: rx_commit with no good packet judged"
            vl, b = commits.popleft()
            held[vl].append(b)
            delivered[vl] += 1
            delivered_at[vl].append(clk)
        if d.get("b_rx_done"):
            status = d.get("b_rx_done_status")
            assert verdicts, f"clock {clk}: B: rx_done with no packet out"
            vl, b = verdicts.popleft()
            assert status == 0, f"clock {clk}: B judged VL{vl} packet {rx_idx[vl] - 1} bad (status {status})"
            commits.append((vl, b))
        resync |= d.get("a_resync_req") | d.get("b_resync_req")
        if clk == stop_to - 1:
            fccl = d.get("b_fccl") >> (12 * stop_vl) & 0xFFF
            fctbs = d.get("a_fctbs") >> (12 * stop_vl) & 0xFFF
            at_stop_end = dict(out=sent_blocks[stop_vl] - drained_blocks[stop_vl], head=blocks_of(pending[stop_vl][0][1]), fccl=fccl, fctbs=fctbs)

        await FallingEdge(dut.clock)
        if clk >= gen_end and not any(pending) and not any(held) and not verdicts and not commits and rx_cur is None and all(rx_idx[v] == len(sent[v]) for v in range(vls)):
            break

    # The wires stop taking words; what is on them arrives, and its verdicts show.
    end = clk
    d.set("a_m_axis_phy_tready", 0)
    d.set("b_m_axis_phy_tready", 0)
    d.set("b_drain", 0)
    for _ in range(LATENCY + 6):
        for s, wire in (("b", ab), ("a", ba)):
            wire.push(clk, None)
            beat = wire.pop()
            d.set(f"{s}_s_axis_phy_tvalid", int(beat is not None))
            if beat is not None:
                drive_rx(d, s, beat)
        await FallingEdge(dut.clock)

    # ---- every packet through, whole and in order; nothing dropped, overrun or bad ----
    for v in range(vls):
        assert not pending[v] and not words[v], f"VL{v}: {len(pending[v])} packets never started by the end (clock {end})"
        assert delivered[v] == len(sent[v]) == made[v], f"VL{v}: {made[v]} made, {len(sent[v])} started, {delivered[v]} delivered"
        assert [p for _, p in ab.packets if p[0] >> 4 == v] == [p + crc16(p).to_bytes(2, "little") for p in sent[v]], f"VL{v}: the wire's packets are not those started, VCRC appended, in order"
    # An FCP may be half sent when the wires stopped taking words; a data packet may not.
    assert ab.cur is None or ab.cur[1], "A->B: a data packet half sent at the end"
    for s in "ab":
        for c in ["rx_vcrc_error_count", "rx_length_error_count", "rx_bad_vl_count", "rx_abort_count", "fcp_short_count", "fcp_long_count", "fcp_abort_count", "fcp_lpcrc_error_count", "fcp_reserved_op_count", "fcp_vl15_count", "fcp_vl_cap_count", "fcp_framing_error", "overruns", "vl15_drop_count", "fcp_late"]:
            assert d.get(f"{s}_{c}") == 0, f"port {s.upper()}: {c} = {d.get(f'{s}_{c}')}"
    assert not resync, "a resync request"
    assert d.get("b_rx_good_count") == sum(delivered)
    assert d.get("a_tx_data_starts") == sum(len(x) for x in sent)
    # docs/spec.md §4, all drained: A's FCTBS is the blocks sent, B's FCCL that plus the buffer.
    for v in range(vls):
        assert d.get("a_fctbs") >> (12 * v) & 0xFFF == sent_blocks[v] % 4096, f"VL{v}: A's FCTBS"
        assert d.get("b_fccl") >> (12 * v) & 0xFFF == (sent_blocks[v] + min(cap, 2048)) % 4096, f"VL{v}: B's FCCL"

    # ---- FCPs: every one decoded; Op 1 in LinkInitialize, 0 once active; the loss ----
    for wire, rx in ((ab, "b"), (ba, "a")):
        for f in wire.fcps:
            if f.clk < 355:
                assert f.op == 1, f"{wire.name}: {f} in LinkInitialize"
            if f.clk > t_active + 10:
                assert f.op == 0, f"{wire.name}: {f} in LinkActive"
        got = d.get(f"{rx}_fcp_good_count")
        passed = len([f for f in wire.fcps if not f.dropped])
        assert got == passed, f"{wire.name}: {got} FCPs taken, {passed} passed by the wire ({len(wire.fcps) - passed} lost)"
        # Every FCP on the wire was started; the last ones started may still be in the
        # transmitter's pipeline (4 stages, 2 words an FCP at 32 bits) or half sent.
        started = d.get(f"{'a' if rx == 'b' else 'b'}_tx_fcp_starts")
        assert 0 <= started - len(wire.fcps) <= 2, f"{wire.name}: {started} FCPs started, {len(wire.fcps)} on the wire"
    dropped = [f for f in ba.fcps if f.dropped]
    # docs/spec.md §4: A's FCPs carry its FCTBS (blocks sent, taken when the FCP was
    # built: the total before its first word, or one of the two before if packets started
    # while it waited for the wire).
    for f in ab.fcps:
        if f.vl < vls:
            recent = [t % 4096 for c, t in totals[f.vl] if c < f.clk][-3:]
            assert f.fctbs in recent, f"A->B: {f} while A had sent {recent} blocks on VL{f.vl}"
    # docs/spec.md §5: each VL's FCP at least every refresh period (REFRESH_CLOCKS from
    # one's start to the next's; on the wire later by a packet in progress and stalls).
    gaps = {}
    for wire in (ab, ba):
        for v in range(vls):
            at = [f.clk for f in wire.fcps if f.vl == v]
            assert at and at[0] < 20, f"{wire.name}: VL{v}'s first FCP at {at[:1]}"
            gap = max(b - a for a, b in zip(at, at[1:] + [end]))
            assert gap <= refresh + 200, f"{wire.name}: VL{v} went {gap} clocks without an FCP (refresh {refresh})"
            gaps[wire.name] = max(gap, gaps.get(wire.name, 0))

    # ---- the stopped VL: credits ran out, the others went on, it resumed ----
    s_starts = starts[stop_vl]
    during = [c for c in s_starts if stop_from <= c < stop_to]
    last = max(during)
    out, head = at_stop_end["out"], at_stop_end["head"]
    assert out <= cap and cap - out < head, f"VL{stop_vl} at the stop's end: {out} blocks out of {cap}, head packet {head} blocks: it did not stop for credits"
    # B's FCCL then (docs/spec.md §4: ABR + min(free, 2048)) and A's FCTBS.
    sent_then = sum(blocks_of(len(p) // 4) for p, c in zip(sent[stop_vl], s_starts) if c < stop_to)
    assert at_stop_end["fctbs"] == sent_then % 4096, f"A's FCTBS for VL{stop_vl} {at_stop_end['fctbs']}"
    assert at_stop_end["fccl"] == (sent_then + cap - out) % 4096, f"B's FCCL for VL{stop_vl} {at_stop_end['fccl']}"
    others = {v: len([c for c in delivered_at[v] if last < c < stop_to]) for v in range(vls) if v != stop_vl}
    assert all(k >= 10 for k in others.values()), f"while VL{stop_vl} was stalled (clocks {last}..{stop_to}) the others delivered only {others}"
    assert not [c for c in delivered_at[stop_vl] if last + 200 < c < stop_to]

    # ---- the lost FCP, and its repair by the next one for that VL ----
    assert lost is not None and len(dropped) == 1, f"no FCP lost ({dropped})"
    assert repair is not None, "no FCP for the stopped VL after the lost one"
    r_clk, r_fcp = repair
    lost_fcp = dropped[0]
    # The scenario: B's buffer for the VL was empty when the FCP was lost, so nothing
    # but that FCP could give A its room back, and only a refresh can repeat it.
    assert lost_out == 0, f"VL{stop_vl}: {lost_out} blocks still out when the FCP was lost (the drain took longer than the minimum gap)"
    assert r_fcp.clk - lost_fcp.clk <= refresh + 100, f"the next FCP for VL{stop_vl} came {r_fcp.clk - lost_fcp.clk} clocks after the lost one (refresh {refresh})"
    assert r_fcp.fccl == lost_fcp.fccl, f"the FCP after the lost one carries another FCCL: {r_fcp}, {lost_fcp}"
    between = [c for c in s_starts if lost_fcp.clk <= c <= r_clk]
    assert not between, f"VL{stop_vl} started at {between} with the FCP lost and before the next arrived"
    after = [c for c in s_starts if c > r_clk]
    assert after and after[0] - r_clk < 1500, f"VL{stop_vl} did not resume after the repairing FCP ({r_fcp} at {r_clk})"

    dut._log.info(
        "clocks %d; longest time without an FCP for a VL %s; packets per VL started/delivered %s; blocks %s; A->B words %d (stalled %d), FCPs %d; B->A words %d (stalled %d), FCPs %d, lost %d",
        end, gaps, [(len(sent[v]), delivered[v]) for v in range(vls)], sent_blocks, ab.beats, ab.stalls, len(ab.fcps), ba.beats, ba.stalls, len(ba.fcps), len(dropped),
    )
    dut._log.info(
        "VL%d stopped %d..%d: %d starts during the stop, the last at %d; %d blocks out of %d at the stop's end (head %d); others delivered %s after its last start",
        stop_vl, stop_from, stop_to, len(during), last, out, cap, head, others,
    )
    dut._log.info(
        "B drains VL%d again from %d; lost %s (B's buffer for it empty); A's CL then %s; the next %s, %d clocks later, reached A at %d; VL%d resumed at %d",
        stop_vl, resume, lost_fcp, [f.fccl for c, f in fcps_to_a[stop_vl] if c < r_clk][-1], r_fcp, r_fcp.clk - lost_fcp.clk, r_clk, stop_vl, after[0],
    )
