"""Two iblink_eth_port back to back through a wire that stalls (see test_eth_b2b.py), from
docs/spec.md §9 and §10 and docs/pfc.md. Port A's users send 802.1Q frames on each
queue to B; B reads every queue at full rate but one, read slowly, whose RX-fill
trigger makes B send PFC frames back to A."""

import random
import struct
import zlib
from collections import deque

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge
from scapy.contrib.mac_control import MACControlClassBasedFlowControl
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Raw

from iblink_tb import StallingReady

# Every port of iblink_eth_port this bench uses: its role here -> the port's name. The
# wrapper (iblink_tb.twin_top) brings each out as a_<name> and b_<name>, so a rename of
# a port is made here and nowhere else. Every stream is AXI4-Stream (docs/pfc.md).
PORT = {
    "cfg_pfc": "cfg_pfc",
    "cfg_zero_on_release": "cfg_zero_on_release",
    "cfg_refresh_quanta": "cfg_refresh_quanta",
    "cfg_pause_quanta": "cfg_pause_quanta",
    "cfg_fill_en": "cfg_fill_en",
    "cfg_rfa": "cfg_rfa",
    "cfg_rfd": "cfg_rfd",
    "cfg_sa": "cfg_sa",
    "cfg_priorities": "cfg_priorities",
    "cfg_size_words": "cfg_size_words",
    "cfg_tx_words": "cfg_tx_words",
    "hw_level": "hw_level",
    "sw_req": "sw_req",
    # the users' transmit streams, one lane per queue
    "user_valid": "s_axis_tx_tvalid",
    "user_data": "s_axis_tx_tdata",
    "user_keep": "s_axis_tx_tkeep",
    "user_last": "s_axis_tx_tlast",
    "user_ready": "s_axis_tx_tready",
    # to the MAC
    "tx_valid": "m_axis_mac_tvalid",
    "tx_data": "m_axis_mac_tdata",
    "tx_keep": "m_axis_mac_tkeep",
    "tx_last": "m_axis_mac_tlast",
    "tx_ready": "m_axis_mac_tready",
    # from the MAC
    "rx_valid": "s_axis_mac_tvalid",
    "rx_data": "s_axis_mac_tdata",
    "rx_keep": "s_axis_mac_tkeep",
    "rx_last": "s_axis_mac_tlast",
    "rx_user": "s_axis_mac_tuser",
    # the receive buffers' readers, one stream per queue
    "rd_ready": "m_axis_rx_tready",
    "rd_valid": "m_axis_rx_tvalid",
    "rd_data": "m_axis_rx_tdata",
    "rd_keep": "m_axis_rx_tkeep",
    "rd_last": "m_axis_rx_tlast",
    "fill_bytes": "fill_bytes",
    "drop": "drop",
    "rx_bad": "rx_bad",
    "paused": "paused",
}

# The run (keep it short: Icarus is slow, and this is part of `make test`).
QUEUES = 3
W = 64
WB = W // 8
MASKS = [0x03, 0x1C, 0xE0]  # priorities 0-1, 2-4, 5-7: sharing none (docs/spec.md §9)
SLOW = 1  # B reads this queue slowly
SLOW_READ = 0.15  # odds a clock that the reader of B's slow queue is ready (tready)
PT = [300, 100, 300]  # pause quanta per queue; a quantum is 512 bit times: 8 clocks at 64 bits
REFRESH_QUANTA = 20
LATENCY = 24  # clocks each way on the wire
FRAME_MIN, FRAME_MAX = 64, 512  # data frames' bytes, FCS included
TRAFFIC = 16000  # clocks the users offer frames
DRAIN = 6000  # at most this many clocks more, readers at full rate, to empty the link
WINDOW = 2000  # rates are measured over clocks WINDOW..TRAFFIC
SA_A, SA_B = "02:00:00:00:00:0a", "02:00:00:00:00:0b"
PFC_DA = "01:80:c2:00:00:01"
# The MAC: 20 bytes of preamble, SFD and inter-frame gap a frame, carried as a 10GbE
# MAC's deficit (docs/pfc.md, Scenarios); besides, random stalls of 1 to STALL_MAX clocks,
# one starting with odds STALL_P a clock, no sooner than STALL_COOL clocks after the last.
MAC_OVERHEAD = 20
STALL_P, STALL_MAX, STALL_COOL = 0.02, 16, 64

# Headroom (docs/pfc.md "Headroom"): everything that can still arrive at B's slow queue
# once its fill has gone above RFA, in words of W/8 bytes:
#   N                 the frame that took the fill above RFA, stored whole (N = words of
#                     the largest frame here: 512 / 8 = 64)
#   2 x LATENCY       the wire there and back (48)
#   1 + FRAME_LATENCY the fill is seen a clock later; B's first PFC byte leaves 4 clocks
#                     after its input changed (5)
#   N - 1             A holds the queue from the second clock after the PFC frame's last
#                     byte and sends whole the data frame it had started (63)
#   N x reverse       0: B sends no data
#   G                 ceil(20 / 8) = 3 clocks of preamble and gap before B's PFC frame
#   STALL_MAX         this bench's random stalls on B's wire: at most one stall (16) in
#                     the PFC frame's 4 + 3 + 8 clocks (stalls are STALL_COOL apart)
#   2 x 8             the injected bad frames (8 words each) may each delay the words
#                     behind them on a wire by their length, once
# plus 64 bytes, the PFC frame itself:
#   8 x (64 + 48 + 5 + 63 + 0 + 3 + 16 + 16) + 64 = 1784 bytes.
N_MAX = -(-FRAME_MAX // WB)
HEADROOM = WB * (N_MAX + 2 * LATENCY + 1 + 4 + N_MAX - 1 + 0 + -(-MAC_OVERHEAD // WB) + STALL_MAX + 2 * 8) + 64
SIZE_WORDS = 512  # 4096 bytes a receive queue: the least with an RX-fill trigger (§9)
RFA = SIZE_WORDS * WB - HEADROOM
RFD = 1024


class Port:
    """One port's signals in the wrapper, found through PORT; writes only what changed."""

    def __init__(self, dut, prefix):
        self.h = {k: getattr(dut, f"{prefix}_{v}") for k, v in PORT.items()}
        self.last = {}

    def set(self, name, value):
        if self.last.get(name) != value:
            self.h[name].value = value
            self.last[name] = value

    def get(self, name):
        return int(self.h[name].value)


class Mac(StallingReady):
    """A MAC's tx_ready: low while it owes a word of preamble and gap (20 bytes a frame,
    the unused lanes of the last word counting towards them) and in random stalls.
    `check` (StallingReady's) holds the AXI4-Stream rule."""

    def __init__(self, rng):
        super().__init__(rng, 1.0, STALL_P, (1, STALL_MAX + 1))
        self.owe = 0
        self.cool = 0
        self.random_stall_clocks = 0
        self.gap_clocks = 0

    def next(self):
        if self.left == 0 and self.cool == 0 and self.rng.random() < self.stall_p:
            self.left = self.rng.randrange(*self.stall)
        if self.left:
            self.left -= 1
            self.random_stall_clocks += 1
            if self.left == 0:
                self.cool = STALL_COOL
            return 0
        self.cool = max(0, self.cool - 1)
        if self.owe >= WB:
            self.owe -= WB
            self.gap_clocks += 1
            return 0
        return 1

    def moved(self, last, keep):
        if last:
            self.owe += MAC_OVERHEAD - (WB - bin(keep).count("1"))


class Wire:
    """The wire one way: each beat that moved arrives `LATENCY` clocks later, in order;
    `inject` puts a whole frame in at the next frame boundary, the words behind it waiting."""

    def __init__(self):
        self.q = deque()
        self.mid = False
        self.pending = None

    def push(self, clk, beat):
        self.q.append((clk + LATENCY, beat))

    def inject(self, beats):
        self.pending = beats

    def pop(self, clk):
        if self.pending and not self.mid:
            self.q.extendleft((clk, b) for b in reversed(self.pending))
            self.pending = None
        if self.q and self.q[0][0] <= clk:
            beat = self.q.popleft()[1]
            self.mid = not beat[2]
            return beat
        return None


def fcs(body):
    return body + zlib.crc32(body).to_bytes(4, "little")


def beats_of(frame, user=0):
    """(data, keep, last, user) words of a frame, byte lane i at bits 8i+7:8i."""
    out = []
    for i in range(0, len(frame), WB):
        chunk = frame[i : i + WB]
        last = i + WB >= len(frame)
        out.append((int.from_bytes(chunk, "little"), (1 << len(chunk)) - 1, int(last), user if last else 0))
    return out


def data_frame(rng, q, seq, length):
    """An 802.1Q frame of `length` bytes (FCS included) for queue q: a priority of its
    mask, its queue and sequence number first in the payload."""
    prio = rng.choice([p for p in range(8) if MASKS[q] >> p & 1])
    head = struct.pack(">HI", q, seq)
    pad = bytes(rng.randrange(256) for _ in range(length - 4 - 18 - len(head)))
    pkt = Ether(dst=SA_B, src=SA_A) / Dot1Q(prio=prio, vlan=100 + q, type=0x88B5) / Raw(head + pad)
    return fcs(bytes(pkt))


def pack(values, width):
    return sum(v << (width * i) for i, v in enumerate(values))


def lane(word, i, width):
    return word >> (width * i) & ((1 << width) - 1)


def popcount(x):
    return bin(x).count("1")


@cocotb.test()
async def back_to_back(dut):
    rng = random.Random(2026)
    a, b = Port(dut, "a"), Port(dut, "b")
    dut.reset.value = 1
    for port, sa in ((a, SA_A), (b, SA_B)):
        port.set("cfg_pfc", 1)
        port.set("cfg_zero_on_release", 1)
        port.set("cfg_refresh_quanta", REFRESH_QUANTA)
        port.set("cfg_pause_quanta", pack(PT, 16))
        port.set("cfg_sa", int(sa.replace(":", ""), 16))
        port.set("cfg_priorities", pack(MASKS, 8))
        port.set("cfg_size_words", pack([SIZE_WORDS] * QUEUES, 16))
        port.set("cfg_tx_words", 256)
        port.set("cfg_rfa", pack([RFA] * QUEUES, 16))
        port.set("cfg_rfd", pack([RFD] * QUEUES, 16))
        port.set("hw_level", 0)
        port.set("sw_req", 0)
        for k in ("user_valid", "user_data", "user_keep", "user_last", "rx_valid", "rx_data", "rx_keep", "rx_last", "rx_user", "tx_ready", "rd_ready"):
            port.set(k, 0)
    # RX-fill triggers on every queue of B (the fast ones never reach RFA); none on A,
    # which receives no data.
    a.set("cfg_fill_en", 0)
    b.set("cfg_fill_en", (1 << QUEUES) - 1)
    cocotb.start_soon(Clock(dut.clock, 10, unit="ns").start())
    for _ in range(3):
        await RisingEdge(dut.clock)
    dut.reset.value = 0

    mac_a, mac_b = Mac(rng), Mac(rng)
    ab, ba = Wire(), Wire()
    # A's users: the frame being offered per queue (its beats, the next one's index).
    seq = [0] * QUEUES
    cur = [None] * QUEUES
    sent = [deque() for _ in range(QUEUES)]  # frames sent, not yet read at B
    sent_count = [0] * QUEUES
    # A's wire: the frame in progress (bytes, paused at its first offer).
    a_frame, a_first_paused, a_started = bytearray(), 0, False
    a_frames_on_wire = 0
    # B's wire: PAUSE/PFC frames.
    b_frame = bytearray()
    pfc = []  # (clock of last word, bytes)
    # B's readers.
    rd_frame = [bytearray() for _ in range(QUEUES)]
    got = [0] * QUEUES
    rd_bytes_window = [0] * QUEUES
    rd_held = [None] * QUEUES  # a beat offered to a reader that was not ready
    max_fill_slow = 0
    paused_clocks = 0
    paused_full_clocks = 0
    b_bad, a_bad = [], []
    # The frames marked bad on their last beat (rx_user), one each way: a data frame of a
    # fast queue's priority into B (a marker no user sends), and a PFC frame into A that
    # would hold every priority for 65535 quanta if it were acted on.
    bad_into_b = data_frame(rng, 0, 0xDEADBEEF, 64)
    bad_pfc = Ether(dst=PFC_DA, src=SA_B, type=0x8808) / MACControlClassBasedFlowControl(
        **{f"c{p}_enabled": 1 for p in range(8)}, **{f"c{p}_pause_time": 0xFFFF for p in range(8)}
    )
    bad_into_a = fcs(bytes(bad_pfc)[:60])
    assert len(bad_into_a) == 64
    INJECT_B, INJECT_A = 5000, 7000

    clk = 0
    while True:
        traffic = clk < TRAFFIC
        if clk == INJECT_B:
            ab.inject(beats_of(bad_into_b, user=1))
        if clk == INJECT_A:
            ba.inject(beats_of(bad_into_a, user=1))
        # A's users.
        for q in range(QUEUES):
            if cur[q] is None and traffic:
                length = rng.randrange(FRAME_MIN, FRAME_MAX + 1)
                f = data_frame(rng, q, seq[q], length)
                seq[q] += 1
                cur[q] = [beats_of(f), 0, f]
        offer = [cur[q][0][cur[q][1]] if cur[q] else None for q in range(QUEUES)]
        a.set("user_valid", pack([int(o is not None) for o in offer], 1))
        a.set("user_data", pack([o[0] if o else 0 for o in offer], W))
        a.set("user_keep", pack([o[1] if o else 0 for o in offer], WB))
        a.set("user_last", pack([o[2] if o else 0 for o in offer], 1))
        ready_a, ready_b = mac_a.next(), mac_b.next()
        a.set("tx_ready", ready_a)
        b.set("tx_ready", ready_b)
        for port, wire in ((b, ab), (a, ba)):
            beat = wire.pop(clk)
            port.set("rx_valid", int(beat is not None))
            port.set("rx_data", beat[0] if beat else 0)
            port.set("rx_keep", beat[1] if beat else 0)
            port.set("rx_last", beat[2] if beat else 0)
            port.set("rx_user", beat[3] if beat else 0)
        slow_ready = int(rng.random() < SLOW_READ) if traffic else 1
        b_ready = ((1 << QUEUES) - 1) & ~(1 << SLOW) | slow_ready << SLOW
        b.set("rd_ready", b_ready)
        a.set("rd_ready", (1 << QUEUES) - 1)

        await ReadOnly()

        # A's users: a word offered and taken moves.
        s_ready = a.get("user_ready")
        for q in range(QUEUES):
            if offer[q] is not None and s_ready >> q & 1:
                cur[q][1] += 1
                if cur[q][1] == len(cur[q][0]):
                    sent[q].append(cur[q][2])
                    sent_count[q] += 1
                    cur[q] = None
        # Both wires: the hold rule, the beat that moves, the MAC's gap.
        for port, mac, ready, wire, name in ((a, mac_a, ready_a, ab, "A"), (b, mac_b, ready_b, ba, "B")):
            beat = None
            if port.get("tx_valid"):
                beat = (port.get("tx_data"), port.get("tx_keep"), port.get("tx_last"))
            mac.check(clk, beat, ready)
            if beat is None or not ready:
                if name == "A" and beat is not None and not a_started:
                    a_started, a_first_paused = True, port.get("paused")
                continue
            wire.push(clk, beat + (0,))
            mac.moved(beat[2], beat[1])
            data, keep, last = beat
            if name == "A":
                if not a_started:
                    a_first_paused = port.get("paused")
                a_started = True
                a_frame += data.to_bytes(WB, "little")[: popcount(keep)]
                if last:
                    # A data frame never starts while a priority of its queue is held
                    # (docs/pfc.md, eth_txq); its PCP is in byte 14.
                    prio = a_frame[14] >> 5
                    assert zlib.crc32(a_frame[:-4]) == int.from_bytes(a_frame[-4:], "little"), f"clock {clk}: a frame on A's wire with a bad FCS: {bytes(a_frame[:24]).hex()}"
                    assert not (a_first_paused >> prio & 1), f"clock {clk}: a frame of priority {prio} started while paused {a_first_paused:#04x}"
                    a_frames_on_wire += 1
                    a_frame, a_started = bytearray(), False
            else:
                b_frame += data.to_bytes(WB, "little")[: popcount(keep)]
                if last:
                    pfc.append((clk, bytes(b_frame)))
                    b_frame = bytearray()
        # A: held priorities; nothing to read; nothing bad but the injected frame.
        paused = a.get("paused")
        assert paused & ~MASKS[SLOW] == 0, f"clock {clk}: A holds priorities {paused:#04x}, not only the slow queue's {MASKS[SLOW]:#04x}"
        if traffic:
            paused_clocks += paused != 0
            paused_full_clocks += paused == MASKS[SLOW]
        assert a.get("rd_valid") == 0, f"clock {clk}: A's reader got a word, but B sends no data"
        if a.get("rx_bad"):
            a_bad.append(clk)
        if b.get("rx_bad"):
            b_bad.append(clk)
        # Nothing is dropped for want of room, on any queue of either port.
        d = b.get("drop") | a.get("drop") << QUEUES
        assert not d, f"clock {clk}: drop pulses (B's queues in bits 0-{QUEUES - 1}, A's above): {d:#x}; slow queue fill {lane(b.get('fill_bytes'), SLOW, 16)} bytes, RFA {RFA}"
        fill_slow = lane(b.get("fill_bytes"), SLOW, 16)
        max_fill_slow = max(max_fill_slow, fill_slow)
        # B's readers: a word moves when offered (tvalid) to a ready reader; one offered
        # to a reader that is not ready is offered again, unchanged (AXI4-Stream).
        offered = b.get("rd_valid")
        odata, okeep, olast = b.get("rd_data"), b.get("rd_keep"), b.get("rd_last")
        for q in range(QUEUES):
            beat = (lane(odata, q, W), lane(okeep, q, WB), olast >> q & 1) if offered >> q & 1 else None
            assert rd_held[q] is None or beat == rd_held[q], f"clock {clk}: queue {q}: a beat offered under tready low changed: {rd_held[q]} -> {beat}"
            rd_held[q] = beat if beat is not None and not b_ready >> q & 1 else None
        rv = offered & b_ready
        if rv:
            rdata, rkeep, rlast = b.get("rd_data"), b.get("rd_keep"), b.get("rd_last")
            for q in range(QUEUES):
                if not rv >> q & 1:
                    continue
                k = lane(rkeep, q, WB)
                rd_frame[q] += lane(rdata, q, W).to_bytes(WB, "little")[: popcount(k)]
                if WINDOW < clk <= TRAFFIC:
                    rd_bytes_window[q] += popcount(k)
                if rlast >> q & 1:
                    f = bytes(rd_frame[q])
                    rd_frame[q] = bytearray()
                    if zlib.crc32(f[:-4]) != int.from_bytes(f[-4:], "little"):
                        want = sent[q][0] if sent[q] else b""
                        diff = next((i for i in range(min(len(f), len(want))) if f[i] != want[i]), min(len(f), len(want)))
                        raise AssertionError(f"clock {clk}: queue {q}: bad FCS: {len(f)} bytes read, frame {got[q]} sent was {len(want)}, the same up to byte {diff}")
                    e = Ether(f[:-4])
                    assert e.haslayer(Dot1Q) and MASKS[q] >> e[Dot1Q].prio & 1, f"clock {clk}: queue {q}: {e.summary()}"
                    assert sent[q], f"clock {clk}: queue {q}: a frame nobody sent: {e.summary()}"
                    want = sent[q].popleft()
                    if f != want:
                        wq, ws = struct.unpack(">HI", bytes(e[Raw])[:6])
                        raise AssertionError(f"clock {clk}: queue {q}: got frame ({wq}, {ws}), expected seq {got[q]}")
                    got[q] += 1
        await RisingEdge(dut.clock)
        clk += 1
        if clk >= TRAFFIC and all(c is None for c in cur) and not any(sent) and not any(rd_frame):
            break
        assert clk < TRAFFIC + DRAIN, f"the link did not empty: {[len(s) for s in sent]} frames still to read"

    # Every frame read; the bad frames dropped and counted, once each, never read.
    assert got == sent_count, f"read {got}, sent {sent_count}"
    assert len(b_bad) == 1 and len(a_bad) == 1, f"rx_bad pulses: B at {b_bad}, A at {a_bad}"

    # Every PAUSE/PFC frame on B's wire, decoded by scapy (docs/spec.md §9).
    slow_prios = [p for p in range(8) if MASKS[SLOW] >> p & 1]
    pauses = releases = 0
    state = None
    for k, (c, f) in enumerate(pfc):
        assert len(f) == 64, f"PFC frame {k} (clock {c}): {len(f)} bytes"
        assert zlib.crc32(f[:60]) == int.from_bytes(f[60:], "little"), f"PFC frame {k}: bad FCS"
        e = Ether(f[:60])
        assert e.dst == PFC_DA and e.src == SA_B and e.type == 0x8808, f"PFC frame {k}: {e.summary()}"
        assert e.haslayer(MACControlClassBasedFlowControl), f"PFC frame {k}: not PFC (opcode 0x0101): {bytes(e.payload)[:2].hex()}"
        m = e[MACControlClassBasedFlowControl]
        assert m._op_code == 0x0101 and m._reserved == 0
        enable = sum(getattr(m, f"c{p}_enabled") << p for p in range(8))
        times = [getattr(m, f"c{p}_pause_time") for p in range(8)]
        want_enable = MASKS[SLOW]
        assert enable == want_enable, f"PFC frame {k}: enable vector {enable:#06x}, expected {want_enable:#06x}"
        t = times[slow_prios[0]]
        assert t in (PT[SLOW], 0) and times == [t if p in slow_prios else 0 for p in range(8)], f"PFC frame {k}: times {times}"
        assert bytes(m.payload) == bytes(26), f"PFC frame {k}: padding"
        # A release only follows a pause.
        if t == 0:
            assert state == "pause", f"PFC frame {k}: a release with nothing held"
            releases += 1
        else:
            pauses += 1
        state = "pause" if t else "release"

    # Rates over clocks WINDOW..TRAFFIC, against what the wire can carry (readers at
    # full rate take W/8 bytes a clock, more than the wire brings). A's MAC: a frame of
    # L bytes takes (L + 20) / 8 clocks on average; random stalls take a share
    # f = m / (STALL_COOL + (1 - p) / p + m) of the clocks (m, the mean stall).
    span = TRAFFIC - WINDOW
    mean_len = (FRAME_MIN + FRAME_MAX) / 2
    m = (1 + STALL_MAX) / 2
    f = m / (STALL_COOL + (1 - STALL_P) / STALL_P + m)
    wire_rate = (1 - f) * WB * mean_len / (mean_len + MAC_OVERHEAD)
    # The slow queue gets what its reader takes: a word a clock it is ready, less the unused
    # lanes of last words (mean frame of L bytes in ceil(L/8) words).
    mean_words = sum(-(-n // WB) for n in range(FRAME_MIN, FRAME_MAX + 1)) / (FRAME_MAX - FRAME_MIN + 1)
    slow_rate = SLOW_READ * WB * mean_len / (mean_words * WB)
    fast_share = (wire_rate - slow_rate) / (QUEUES - 1)
    rates = [x / span for x in rd_bytes_window]
    dut._log.info(
        "frames sent and read %s; A's frames on the wire %d; PFC frames from B %d (%d pause, %d release); "
        "A held the slow queue's priorities %d of %d traffic clocks (%d with all of them); B's slow queue fill max %d bytes "
        "(RFA %d, headroom %d, %d above RFA); rates (bytes a clock, clocks %d-%d) %s, expected: wire %.3f, slow %.3f, "
        "each fast %.3f; MAC A stalls: random %d, gap %d; rx_bad at B %s, at A %s",
        got, a_frames_on_wire, len(pfc), pauses, releases, paused_clocks, TRAFFIC, paused_full_clocks, max_fill_slow,
        RFA, HEADROOM, max_fill_slow - RFA, WINDOW, TRAFFIC, [round(r, 3) for r in rates], wire_rate, slow_rate,
        fast_share, mac_a.random_stall_clocks, mac_a.gap_clocks, b_bad, a_bad,
    )
    assert pauses >= 3 and releases >= 3, f"{pauses} pause and {releases} release frames: too few cycles"
    assert paused_clocks >= 0.25 * TRAFFIC, f"A held the slow queue {paused_clocks} of {TRAFFIC} clocks"
    assert max_fill_slow > RFA, "the slow queue's fill never went above RFA"
    assert max_fill_slow <= SIZE_WORDS * WB
    for q in range(QUEUES):
        if q == SLOW:
            assert rates[q] >= 0.9 * slow_rate, f"slow queue: {rates[q]:.3f} bytes a clock, its reader takes {slow_rate:.3f}"
        else:
            assert rates[q] >= 0.9 * fast_share, f"queue {q}: {rates[q]:.3f} bytes a clock, expected {fast_share:.3f}"
    assert sum(rates) >= 0.95 * wire_rate, f"the wire carried {sum(rates):.3f} bytes a clock of {wire_rate:.3f}"
