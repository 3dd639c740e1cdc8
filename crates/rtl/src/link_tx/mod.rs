//! Link TX path: the transmit multiplexer and packet streamer of a port (SPEC.md §2, §3,
//! §5). At every item boundary it chooses VL15 > FCP > data (data only in LinkActive),
//! streams the chosen item onto the link word stream without fragmenting it, and appends
//! the VCRC (SPEC.md §3: CRC-16 over the packet from the first LRH byte through the ICRC,
//! low byte first) to every data and VL15 packet.
//!
//! Model twin: `iblink_sim::blocks::link_tx` (an independent cycle model: the policy of
//! SPEC.md §5 / `iblink_model::port::PortModel`, items of `ceil(bytes / W)` words, the
//! VCRC from `iblink_model::crc16`); lockstep: `crates/sim/tests/link_tx_lockstep.rs`;
//! snapshots: `tests/snapshots`.
//!
//! # Interface (`W` = 32 or 64 bits a clock, `K = W / 8` byte lanes)
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | synchronous: drops the item in progress and the pipeline (see below); the port holds it while the link is Down |
//! | `link_active` | in | LinkActive: data packets may start (VL15 and FCPs go in every state but Down) |
//! | `vl15_valid`, `vl15_len` | in | the user's head VL15 packet and its LRH:PktLen (11 bits) |
//! | `vl15_take` | out | combinational: that VL15 packet starts this clock (pop its descriptor) |
//! | `fcp_pending` | in | the FCP TX framer holds a built FCP; held until `fcp_start` |
//! | `fcp_start` | out | combinational: that FCP starts this clock; the framer presents word 0 in this clock and word `k` `k` clocks later |
//! | `fcp_valid`, `fcp_data`, `fcp_keep`, `fcp_sop`, `fcp_eop` | in | the FCP's words (`fcp_data` carries them; the rest is checked) |
//! | `offer_valid`, `offer_vl`, `offer_len` | in | the VL arbiter's offer: a data packet of data VL `offer_vl` (4 bits), PktLen `offer_len` (11 bits) |
//! | `take` | out | combinational: the offered packet starts this clock (the port drives TX credits `send`/`send_vl` and the queue pop from it) |
//! | `src_rd` | out | consume one word of the current packet from queue `src_vl` this clock |
//! | `src_vl` | out | registered, 4 bits: the queue being read (15 = VL15); changes only in the clock after a `take`/`vl15_take` |
//! | `src_data` | in | `W` bits: the next word of queue `src_vl` (a first-word-fall-through queue, combinationally) |
//! | `tx_valid`, `tx_data`, `tx_keep`, `tx_sop`, `tx_eop`, `tx_link` | out | registered: the link word stream (helpers' contract; bytes past `tx_keep` are 0; all 0 when `tx_valid` is 0) |
//! | `fcp_framing_error` | out | registered, sticky until `reset`: an FCP word arrived without `fcp_valid` or with `fcp_sop`/`fcp_eop`/`fcp_keep` other than a 6-byte FCP's |
//! | `vl15_starts`, `fcp_starts`, `data_starts` | out | registered, 16 bits: items started since power-up, by kind, wrapping (statistics; `reset` keeps them); a start pulse in clock `s` is counted from clock `s+2` |
//!
//! A data or VL15 packet is `PktLen * 4` bytes read from the source (`ceil(4 PktLen / W)`
//! words), followed on the wire by its 2-byte VCRC: at 32 bits an extra word (keep
//! `0011`); at 64 bits an odd PktLen ends with a word of 4 data bytes and the VCRC (keep
//! `0x3F`), an even PktLen with an extra word (keep `0x03`). An FCP is 6 bytes: 2 words at
//! 32 bits (keep `1111`, `0011`), 1 word at 64 bits (keep `0x3F`). PktLen is not checked
//! here (the queues and the arbiter hold valid packets): the block reads `PktLen` dwords
//! whatever the value (PktLen 0 sends the VCRC of nothing, `00 00`).
//!
//! # Cycle contract
//! An item occupies the transmitter for `n = ceil(wire_bytes / W)` clocks
//! (`PortModel::start_next`): data `PktLen * 4 + 2` bytes, FCP 6 bytes.
//! - **Decision clock `s`**: the transmitter is idle or in the last clock of its current
//!   item. `reset`, `vl15_valid`, `vl15_len`, `fcp_pending`, `link_active`,
//!   `offer_valid`, `offer_vl` and `offer_len` are sampled only here; the winner's pulse
//!   (`vl15_take`, `fcp_start` or `take`) is combinational in `s`.
//! - **Slots `s+1 .. s+n`**: slot `k` (clock `s+1+k`) reads source word `k`
//!   (`src_rd`, queue `src_vl`) while the item has source words left; the VCRC-only word
//!   of a packet is a slot without a read. FCP word `k` is sampled in clock `s+k` (word
//!   0 with `fcp_start`) and held one clock, so FCPs and packets meet the same pipeline.
//! - **Wire**: word `k` of the item is on `tx_*` during clock `s+4+k`. So: start pulse
//!   to `tx_sop` = 4 clocks ([`START_TO_SOP`]); `src_rd` in clock `t` to that word on
//!   `tx_*` = 3 clocks ([`READ_TO_WIRE`]); an FCP word presented in clock `t` is on
//!   `tx_*` in clock `t+4`.
//! - **Zero bubble**: the next decision is the item's last slot, `s+n`, so an item that
//!   is ready then has its `tx_sop` in `s+n+4`, the clock after the previous `tx_eop`.
//! - **Reset** (clock `r`): no pulse and no `src_rd` in `r`; `tx_*` in `r` still shows
//!   what was registered; from `r+1` the wire is idle and the transmitter is at a
//!   boundary. A packet cut by a reset is abandoned: its words not yet read stay in queue
//!   `src_vl`, and the port must discard them with the reset (its queues restart with the
//!   link). `src_vl` and the counters keep their values.
//!
//! # Registers
//! - Stage A (slot sequencer): `a_active`, `a_fcp`, `a_first`, `a_left` (slots after this
//!   one), `a_last` (`a_left == 0`), `a_odd` (64 bits: odd PktLen, the last slot reads
//!   and carries the VCRC), `src_vl`, and `fcp_q` (the FCP word of the previous clock).
//! - Stage B: the slot's word `b_data` (source or FCP) and its kind (`b_valid`, `b_sop`,
//!   `b_eop`, `b_link`, `b_crc` = VCRC-only word, `b_merge` = 64-bit odd ending, and
//!   which lanes carry nothing).
//! - Stage C: the word with its empty lanes cleared (`c_data`), its keep and kind, the
//!   data's share of the VCRC update (`p_q`; at 64 bits in four parts `p_q0..3`, one per
//!   pair of lanes, and the odd ending's 4-byte share in two, `p4_q0..1`), and
//!   `crc_state`, the running VCRC (reflected, 0xFFFF between packets). The ending word's
//!   VCRC is `~crc_state` (VCRC-only word) or `~(A4(crc_state) ^ p4_q0 ^ p4_q1)` (64-bit
//!   odd ending).
//! - Output: `tx_*`, `fcp_framing_error`, the counters (and `started_q` before them).
//!
//! # Why three stages
//! The VCRC update of a word is linear, `next = A(state) ^ B(data)`: over 48 inputs at 32
//! bits (72 at 64), three to four LUT levels. With two stages (start to `tx_sop` 3 clocks)
//! that whole network sat in the `crc_state` loop: ECP5-45 184.5 MHz at 32 bits, against
//! a 200 MHz target. `B(data)` now goes into a register a stage earlier (`p_q`), so the
//! loop is `A(state) ^ p_q`, at most 16 inputs; the price is one clock of latency and the
//! stage-C registers. At 64 bits `B(data)` alone has up to 39 terms (three levels and a
//! wide mux, 190.9 MHz on ECP5 with one `p_q`), so it is registered in parts of two
//! lanes (at most 16 terms each) and the loop XORs at most 12 state bits and 4 parts:
//! 197-213 MHz (seeds 1-3), 64 more flip-flops, 36 fewer LUT4 (`iblink synth`).

use crate::crc16::{mask, write_xor_assigns, write_xor_assigns_masked, Crc16Equations, Crc16Tables, INIT, XOROUT};
use crate::io::{HdlIo, Opaque, PortSpec};
use rust_hdl::prelude::*;
use std::fmt::Write as _;

/// Link word widths the block is generated for.
pub const WIDTHS: [usize; 2] = [32, 64];
/// Bytes of an FCP on the wire (SPEC.md §2).
pub const FCP_BYTES: u32 = 6;
/// VCRC bytes after a data or VL15 packet (SPEC.md §3).
pub const VCRC_BYTES: u32 = 2;
/// `src_vl` while a VL15 packet is read.
pub const VL15: u8 = 15;
/// Clocks from a start pulse to that item's `tx_sop`.
pub const START_TO_SOP: u32 = 4;
/// Clocks from `src_rd` to the word on `tx_*`.
pub const READ_TO_WIRE: u32 = 3;

/// Byte-enable mask of the low `bytes` lanes.
#[inline]
pub const fn keep_of(bytes: u32) -> u8 {
    if bytes >= 8 {
        0xff
    } else {
        ((1u16 << bytes) - 1) as u8
    }
}

/// One word of the link word stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkWord {
    pub valid: bool,
    pub data: u64,
    pub keep: u8,
    pub sop: bool,
    pub eop: bool,
    pub link: bool,
}

/// One clock of stimulus (bits above the port widths are ignored).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkTxIn {
    pub reset: bool,
    pub link_active: bool,
    pub vl15_valid: bool,
    pub vl15_len: u16,
    pub fcp_pending: bool,
    pub fcp_valid: bool,
    pub fcp_data: u64,
    pub fcp_keep: u8,
    pub fcp_sop: bool,
    pub fcp_eop: bool,
    pub offer_valid: bool,
    pub offer_vl: u8,
    pub offer_len: u16,
    pub src_data: u64,
}

/// The outputs during a clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkTxOut {
    pub vl15_take: bool,
    pub fcp_start: bool,
    pub take: bool,
    pub src_rd: bool,
    pub src_vl: u8,
    pub tx: LinkWord,
    pub fcp_framing_error: bool,
    pub vl15_starts: u16,
    pub fcp_starts: u16,
    pub data_starts: u16,
}

/// The block's registers, as plain data for the stepper (the Verilog declares them).
#[derive(Clone, Copy, Debug)]
pub struct LinkTxRegs {
    // Stage A: the slot sequencer.
    pub a_active: bool,
    pub a_fcp: bool,
    pub a_first: bool,
    pub a_left: u16,
    /// `a_left == 0`, kept as its own register so the boundary is one gate from a flip-flop.
    pub a_last: bool,
    pub a_odd: bool,
    pub src_vl: u8,
    pub fcp_q: u64,
    /// The start pulses of the previous clock (VL15, FCP, data): the counters count them.
    pub started: [bool; 3],
    // Stage B: the slot's word and its kind.
    pub b_valid: bool,
    pub b_sop: bool,
    pub b_eop: bool,
    pub b_link: bool,
    pub b_crc: bool,
    pub b_merge: bool,
    pub b_data: u64,
    // Stage C: the word with lanes past its bytes cleared, its keep, and the data's share
    // of the VCRC update (the full word's, and at 64 bits its low 4 bytes').
    pub c_valid: bool,
    pub c_sop: bool,
    pub c_eop: bool,
    pub c_link: bool,
    pub c_crc: bool,
    pub c_merge: bool,
    pub c_keep: u8,
    pub c_data: u64,
    /// The sum of the parts the Verilog keeps in separate registers at 64 bits.
    pub p_q: u16,
    pub p4_q: u16,
    /// The running VCRC register (reflected), 0xFFFF between packets.
    pub crc_state: u16,
    pub tx: LinkWord,
    pub fcp_framing_error: bool,
    pub vl15_starts: u16,
    pub fcp_starts: u16,
    pub data_starts: u16,
}

impl Default for LinkTxRegs {
    fn default() -> Self {
        Self {
            a_active: false,
            a_fcp: false,
            a_first: false,
            a_left: 0,
            a_last: false,
            a_odd: false,
            src_vl: 0,
            fcp_q: 0,
            started: [false; 3],
            b_valid: false,
            b_sop: false,
            b_eop: false,
            b_link: false,
            b_crc: false,
            b_merge: false,
            b_data: 0,
            c_valid: false,
            c_sop: false,
            c_eop: false,
            c_link: false,
            c_crc: false,
            c_merge: false,
            c_keep: 0,
            c_data: 0,
            p_q: 0,
            p4_q: 0,
            crc_state: INIT,
            tx: LinkWord::default(),
            fcp_framing_error: false,
            vl15_starts: 0,
            fcp_starts: 0,
            data_starts: 0,
        }
    }
}

/// The link TX path for `W`-bit words, `K = W / 8` lanes.
#[derive(LogicBlock)]
pub struct LinkTxUnit<const W: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub link_active: Signal<In, Bit>,
    pub vl15_valid: Signal<In, Bit>,
    pub vl15_len: Signal<In, Bits<11>>,
    pub vl15_take: Signal<Out, Bit>,
    pub fcp_pending: Signal<In, Bit>,
    pub fcp_start: Signal<Out, Bit>,
    pub fcp_valid: Signal<In, Bit>,
    pub fcp_data: Signal<In, Bits<W>>,
    pub fcp_keep: Signal<In, Bits<K>>,
    pub fcp_sop: Signal<In, Bit>,
    pub fcp_eop: Signal<In, Bit>,
    pub offer_valid: Signal<In, Bit>,
    pub offer_vl: Signal<In, Bits<4>>,
    pub offer_len: Signal<In, Bits<11>>,
    pub take: Signal<Out, Bit>,
    pub src_rd: Signal<Out, Bit>,
    pub src_vl: Signal<Out, Bits<4>>,
    pub src_data: Signal<In, Bits<W>>,
    pub tx_valid: Signal<Out, Bit>,
    pub tx_data: Signal<Out, Bits<W>>,
    pub tx_keep: Signal<Out, Bits<K>>,
    pub tx_sop: Signal<Out, Bit>,
    pub tx_eop: Signal<Out, Bit>,
    pub tx_link: Signal<Out, Bit>,
    pub fcp_framing_error: Signal<Out, Bit>,
    pub vl15_starts: Signal<Out, Bits<16>>,
    pub fcp_starts: Signal<Out, Bits<16>>,
    pub data_starts: Signal<Out, Bits<16>>,
    regs: Opaque<LinkTxRegs>,
    /// The VCRC equations as byte tables (fixed data, not hardware).
    tables: Opaque<Crc16Tables>,
}

impl<const W: usize, const K: usize> Default for LinkTxUnit<W, K> {
    fn default() -> Self {
        assert!(WIDTHS.contains(&W) && W == 8 * K, "LinkTxUnit<{W}, {K}>: unsupported width");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            link_active: Default::default(),
            vl15_valid: Default::default(),
            vl15_len: Default::default(),
            vl15_take: Default::default(),
            fcp_pending: Default::default(),
            fcp_start: Default::default(),
            fcp_valid: Default::default(),
            fcp_data: Default::default(),
            fcp_keep: Default::default(),
            fcp_sop: Default::default(),
            fcp_eop: Default::default(),
            offer_valid: Default::default(),
            offer_vl: Default::default(),
            offer_len: Default::default(),
            take: Default::default(),
            src_rd: Default::default(),
            src_vl: Default::default(),
            src_data: Default::default(),
            tx_valid: Default::default(),
            tx_data: Default::default(),
            tx_keep: Default::default(),
            tx_sop: Default::default(),
            tx_eop: Default::default(),
            tx_link: Default::default(),
            fcp_framing_error: Default::default(),
            vl15_starts: Default::default(),
            fcp_starts: Default::default(),
            data_starts: Default::default(),
            regs: Opaque(LinkTxRegs::default()),
            tables: Opaque(Crc16Tables::new(&Crc16Equations::derive(K), K)),
        }
    }
}

/// The combinational signals of one clock, from the registers and that clock's inputs.
#[derive(Clone, Copy, Debug)]
struct Comb {
    last_slot: bool,
    boundary: bool,
    pick_vl15: bool,
    pick_fcp: bool,
    pick_data: bool,
    src_rd: bool,
}

/// Geometry of a width: FCP words, and the `a_left` a start loads.
struct Geom {
    k: u32,
}

impl Geom {
    fn fcp_words(&self) -> u32 {
        FCP_BYTES.div_ceil(self.k)
    }
    /// Slots after the first, for a packet of `len` dwords: `ceil((4 len + 2) / K) - 1`,
    /// which is `len` at 32 bits and `len >> 1` at 64 bits.
    fn pkt_left(&self, len: u16) -> u16 {
        if self.k == 4 {
            len
        } else {
            len >> 1
        }
    }
}

fn comb(r: &LinkTxRegs, i: &LinkTxIn) -> Comb {
    debug_assert!(!r.a_active || r.a_last == (r.a_left == 0));
    let last_slot = r.a_active && r.a_last;
    let boundary = !r.a_active || last_slot;
    let pick_vl15 = boundary && i.vl15_valid;
    let pick_fcp = boundary && !i.vl15_valid && i.fcp_pending;
    let pick_data = boundary && !i.vl15_valid && !i.fcp_pending && i.link_active && i.offer_valid;
    let src_rd = r.a_active && !r.a_fcp && (!r.a_last || r.a_odd) && !i.reset;
    Comb {
        last_slot,
        boundary,
        pick_vl15,
        pick_fcp,
        pick_data,
        src_rd,
    }
}

impl<const W: usize, const K: usize> LinkTxUnit<W, K> {
    fn inputs(&self) -> LinkTxIn {
        LinkTxIn {
            reset: self.reset.val(),
            link_active: self.link_active.val(),
            vl15_valid: self.vl15_valid.val(),
            vl15_len: self.vl15_len.val().to_u64() as u16,
            fcp_pending: self.fcp_pending.val(),
            fcp_valid: self.fcp_valid.val(),
            fcp_data: self.fcp_data.val().to_u64(),
            fcp_keep: self.fcp_keep.val().to_u64() as u8,
            fcp_sop: self.fcp_sop.val(),
            fcp_eop: self.fcp_eop.val(),
            offer_valid: self.offer_valid.val(),
            offer_vl: self.offer_vl.val().to_u64() as u8,
            offer_len: self.offer_len.val().to_u64() as u16,
            src_data: self.src_data.val().to_u64(),
        }
    }

    /// The clock edge: every register's next value.
    fn edge(&self, r: &LinkTxRegs, i: &LinkTxIn, c: &Comb) -> LinkTxRegs {
        let g = Geom { k: K as u32 };
        let w64 = K == 8;
        let mut n = *r;
        // Loaded every clock, reset or not: only read where a slot or a valid says so.
        n.fcp_q = i.fcp_data;
        n.b_data = if r.a_fcp { r.fcp_q } else { i.src_data } & mask(W);
        self.stage_b_to_c(r, &mut n);
        // The counters count last clock's starts, reset or not (they are statistics).
        n.vl15_starts = r.vl15_starts.wrapping_add(r.started[0] as u16);
        n.fcp_starts = r.fcp_starts.wrapping_add(r.started[1] as u16);
        n.data_starts = r.data_starts.wrapping_add(r.started[2] as u16);
        n.started = [false; 3];
        if i.reset {
            n.a_active = false;
            n.b_valid = false;
            n.c_valid = false;
            n.crc_state = INIT;
            n.tx = LinkWord::default();
            n.fcp_framing_error = false;
            return n;
        }
        // Stage C -> wire, and the VCRC register.
        n.tx = self.wire_word(r);
        if r.c_valid && !r.c_link {
            n.crc_state = if r.c_crc || r.c_merge {
                INIT
            } else {
                self.tables.next(K, r.crc_state, 0) ^ r.p_q
            };
        }
        // Stage A -> stage B.
        n.b_valid = r.a_active;
        n.b_sop = r.a_first;
        n.b_eop = c.last_slot;
        n.b_link = r.a_fcp;
        n.b_crc = c.last_slot && !r.a_fcp && !r.a_odd;
        n.b_merge = c.last_slot && !r.a_fcp && r.a_odd;
        // Stage A: the next slot, or the next item.
        if c.boundary {
            let len = if c.pick_vl15 { i.vl15_len } else { i.offer_len } & 0x7ff;
            n.a_active = c.pick_vl15 || c.pick_fcp || c.pick_data;
            n.a_fcp = c.pick_fcp;
            n.a_first = true;
            n.a_left = if c.pick_fcp {
                (g.fcp_words() - 1) as u16
            } else {
                g.pkt_left(len)
            };
            n.a_last = n.a_left == 0;
            n.a_odd = w64 && !c.pick_fcp && len & 1 == 1;
            if c.pick_vl15 {
                n.src_vl = VL15;
            } else if c.pick_data {
                n.src_vl = i.offer_vl & 0xf;
            }
        } else {
            n.a_left = r.a_left.wrapping_sub(1);
            n.a_last = r.a_left == 1;
            n.a_first = false;
        }
        n.started = [c.pick_vl15, c.pick_fcp, c.pick_data];
        // The framer's word k arrives in clock s+k: word 0 with fcp_start, word 1 (32 bits)
        // in the FCP's first slot.
        let fk = i.fcp_keep & mask(K) as u8;
        let bad0 = c.pick_fcp
            && !(i.fcp_valid
                && i.fcp_sop
                && i.fcp_eop == (g.fcp_words() == 1)
                && fk == keep_of(FCP_BYTES.min(K as u32)));
        let bad1 = !w64
            && r.a_active
            && r.a_fcp
            && !r.a_last
            && !(i.fcp_valid && !i.fcp_sop && i.fcp_eop && fk == keep_of(FCP_BYTES - K as u32));
        n.fcp_framing_error = r.fcp_framing_error || bad0 || bad1;
        n
    }

    /// Stage B -> stage C: clear the lanes past the word's bytes, its keep, and the data's
    /// share of the VCRC update.
    fn stage_b_to_c(&self, r: &LinkTxRegs, n: &mut LinkTxRegs) {
        let bytes = if r.b_crc {
            0
        } else if r.b_merge {
            4
        } else if r.b_link {
            // Word k of an FCP: bytes 6k.. of its 6.
            if K == 8 || r.b_sop {
                FCP_BYTES.min(K as u32)
            } else {
                FCP_BYTES - K as u32
            }
        } else {
            K as u32
        };
        n.c_valid = r.b_valid;
        n.c_sop = r.b_sop;
        n.c_eop = r.b_eop;
        n.c_link = r.b_link;
        n.c_crc = r.b_crc;
        n.c_merge = r.b_merge;
        n.c_keep = keep_of(if r.b_crc || r.b_merge { bytes + VCRC_BYTES } else { bytes });
        n.c_data = r.b_data & mask(8 * bytes as usize);
        n.p_q = self.tables.next(K, 0, r.b_data & mask(W));
        n.p4_q = if K == 8 { self.tables.next(4, 0, r.b_data & 0xffff_ffff) } else { 0 };
    }

    /// The word stage C puts on the wire: the VCRC, complemented, goes into lanes 0-1 of a
    /// VCRC-only word and lanes 4-5 of a 64-bit odd ending.
    fn wire_word(&self, r: &LinkTxRegs) -> LinkWord {
        if !r.c_valid {
            return LinkWord::default();
        }
        let mut data = r.c_data;
        if r.c_crc {
            data |= (r.crc_state ^ XOROUT) as u64;
        }
        if r.c_merge {
            let crc = self.tables.next(4, r.crc_state, 0) ^ r.p4_q ^ XOROUT;
            data |= (crc as u64) << 32;
        }
        LinkWord {
            valid: true,
            data,
            keep: r.c_keep,
            sop: r.c_sop,
            eop: r.c_eop,
            link: r.c_link,
        }
    }
}

impl<const W: usize, const K: usize> Logic for LinkTxUnit<W, K> {
    fn update(&mut self) {
        let i = self.inputs();
        if self.clock.pos_edge() {
            let c = comb(&self.regs, &i);
            let n = self.edge(&self.regs, &i, &c);
            *self.regs = n;
        }
        let r = *self.regs;
        let c = comb(&r, &i);
        let live = !i.reset;
        self.vl15_take.next = c.pick_vl15 && live;
        self.fcp_start.next = c.pick_fcp && live;
        self.take.next = c.pick_data && live;
        self.src_rd.next = c.src_rd;
        self.src_vl.next = (r.src_vl as u64).into();
        self.tx_valid.next = r.tx.valid;
        self.tx_data.next = r.tx.data.into();
        self.tx_keep.next = (r.tx.keep as u64).into();
        self.tx_sop.next = r.tx.sop;
        self.tx_eop.next = r.tx.eop;
        self.tx_link.next = r.tx.link;
        self.fcp_framing_error.next = r.fcp_framing_error;
        self.vl15_starts.next = (r.vl15_starts as u64).into();
        self.fcp_starts.next = (r.fcp_starts as u64).into();
        self.data_starts.next = (r.data_starts as u64).into();
    }

    fn connect(&mut self) {
        self.vl15_take.connect();
        self.fcp_start.connect();
        self.take.connect();
        self.src_rd.connect();
        self.src_vl.connect();
        self.tx_valid.connect();
        self.tx_data.connect();
        self.tx_keep.connect();
        self.tx_sop.connect();
        self.tx_eop.connect();
        self.tx_link.connect();
        self.fcp_framing_error.connect();
        self.vl15_starts.connect();
        self.fcp_starts.connect();
        self.data_starts.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(link_tx_verilog_body(W))
    }
}

/// The module body for `width`-bit link words.
pub fn link_tx_verilog_body(width: usize) -> String {
    let k = width / 8;
    let w64 = k == 8;
    let fcp_words = FCP_BYTES.div_ceil(k as u32);
    let lw = if w64 { 10 } else { 11 };
    let eq = Crc16Equations::derive(k);
    let wm1 = width - 1;
    let km1 = k - 1;
    let lwm1 = lw - 1;
    let fcp_left = fcp_words - 1;
    // The data's share of the VCRC update, as wires of stage B and registers of stage C:
    // (bytes absorbed, [(wire, lanes)]). At 32 bits one part (at most 24 terms); at 64 bits
    // the 8-byte share (up to 39 terms) in four parts and the odd ending's 4-byte share in
    // two, so each part is two LUT levels and the loop XORs at most 12 state bits and 4
    // parts (16 inputs).
    let shares: Vec<(usize, Vec<(String, std::ops::Range<usize>)>)> = if w64 {
        vec![
            (8, (0..4).map(|g| (format!("dpart_8b_{g}"), 2 * g..2 * g + 2)).collect()),
            (4, (0..2).map(|g| (format!("dpart_4b_{g}"), 2 * g..2 * g + 2)).collect()),
        ]
    } else {
        vec![(4, vec![("dpart_4b".to_string(), 0..4)])]
    };
    let share_regs: Vec<String> = shares
        .iter()
        .flat_map(|(_, parts)| parts.iter())
        .map(|(name, _)| share_reg(name))
        .collect();
    let mut v = String::new();
    let _ = write!(
        v,
        "\
// Link TX path, {width}-bit words (SPEC.md 5): at each item boundary VL15 > FCP > data
// (data only in LinkActive), items never fragmented, back to back without a bubble.
// Data and VL15 packets get their VCRC (SPEC.md 3, CRC-16, low byte first) appended.
//
// Pipeline (decision clock s, item of n words):
//   s          decision: vl15_take / fcp_start / take (combinational); FCP word 0 arrives
//   s+1+k      stage A, slot k: src_rd reads source word k (queue src_vl); FCP word k is
//              taken from fcp_q (it arrived in clock s+k)
//   s+2+k      stage B: word k and its kind; the data's share of the VCRC update is formed
//   s+3+k      stage C: the VCRC register absorbs word k; the wire word is formed
//   s+4+k      tx_*: word k on the wire
// The next decision is the last slot (s+n): the next sop follows the eop directly.
// The VCRC update is linear, next = A(state) ^ B(data): B(data) is registered a stage
// ahead, so the loop through crc_state is A(state) ^ p_q alone (timing).

// ---- Stage A: slot sequencer ----
// a_active: this clock is a slot of an item; a_fcp: it is an FCP; a_first: its first slot;
// a_left: slots of the item after this one; a_last: a_left == 0, a register of its own
// so the boundary below is one gate from flip-flops.
reg a_active;
reg a_fcp;
reg a_first;
reg [{lwm1}:0] a_left;
reg a_last;
{odd_decl}// The start pulses of the previous clock, {{data, FCP, VL15}}, for the counters.
reg [2:0] started_q;
// The framer's FCP word of the previous clock: FCP word k is used in slot k, one clock
// after it arrives, where a packet's word k is read.
reg [{wm1}:0] fcp_q;

wire last_slot = a_active & a_last;
// Item boundary: idle, or the last slot of the current item (SPEC.md 5: never fragment).
wire boundary = ~a_active | a_last;
// Transmit priority VL15 > FCP > data (SPEC.md 5); data only in LinkActive. The *_wins
// terms depend on inputs only; a start is a win at a boundary.
wire fcp_wins = ~vl15_valid & fcp_pending;
wire data_wins = ~vl15_valid & ~fcp_pending & link_active & offer_valid;
wire pick_vl15 = boundary & vl15_valid;
wire pick_fcp = boundary & fcp_wins;
wire pick_data = boundary & data_wins;
// The winner's length and slot count (used at a boundary only).
wire [10:0] pkt_len = vl15_valid ? vl15_len : offer_len;
// Slots after the first: ceil((4 PktLen + 2) / {k}) - 1 for a packet, {fcp_left} for an FCP.
wire [{lwm1}:0] left_init = fcp_wins ? {lw}'d{fcp_left} : {left_of_len};
{fcp_check}
always @(*) begin
   vl15_take = pick_vl15 & ~reset;
   fcp_start = pick_fcp & ~reset;
   take = pick_data & ~reset;
   // Every slot of a packet reads, except the VCRC-only word{src_rd_note}.
   src_rd = a_active & ~a_fcp & ({src_rd_cond}) & ~reset;
end

// ---- Stage B: the slot's word and its kind ----
// b_crc: the VCRC-only word ending a packet{merge_note}.
// b_zero_*: lanes that carry none of the word's bytes (cleared on the way to stage C).
reg b_valid;
reg b_sop;
reg b_eop;
reg b_link;
reg b_crc;
{b_decl}reg [{wm1}:0] b_data;

// The data's share of the VCRC update: {k} bytes{p4_note}{split_note}.
",
        odd_decl = if w64 {
            "// a_odd: odd PktLen, so the last slot reads 4 data bytes and carries the VCRC.\nreg a_odd;\n"
        } else {
            ""
        },
        left_of_len = if w64 { "pkt_len[10:1]" } else { "pkt_len" },
        fcp_check = fcp_check_verilog(k, fcp_words),
        src_rd_note = if w64 { " (an odd PktLen has none)" } else { "" },
        src_rd_cond = if w64 { "~a_last | a_odd" } else { "~a_last" },
        merge_note = if w64 {
            "; b_merge: the 64-bit odd ending, 4 data bytes then the VCRC"
        } else {
            ""
        },
        b_decl = if w64 {
            "reg b_merge;\nreg b_zero_mid;\nreg b_zero_hi;\n"
        } else {
            "reg b_zero_hi;\n"
        },
        p4_note = if w64 { ", and the low 4 of an odd ending" } else { "" },
        split_note = if w64 {
            ",\n// each split by pairs of lanes (at most 16 terms a part: two LUT levels)"
        } else {
            ""
        },
    );
    for (bytes, parts) in &shares {
        for (name, lanes) in parts {
            let _ = writeln!(v, "wire [15:0] {name};");
            let bits = lanes_mask(lanes.clone());
            write_xor_assigns_masked(&mut v, &eq, *bytes, None, Some("b_data"), bits, name);
        }
    }
    let _ = write!(
        v,
        "
// ---- Stage C: the VCRC register and the wire word ----
reg c_valid;
reg c_sop;
reg c_eop;
reg c_link;
reg c_crc;
{c_decl}reg [{km1}:0] c_keep;
// The word, lanes past its bytes already 0.
reg [{wm1}:0] c_data;
// The data's share, registered: {p_names}.
{p_decl}// The running VCRC (reflected LFSR state), 0xFFFF between packets.
reg [15:0] crc_state;

// The state's share of the VCRC update: {k} bytes{s4_note}.
wire [15:0] spart_{k}b;
",
        c_decl = if w64 { "reg c_merge;\n" } else { "" },
        p_names = share_regs.join(", "),
        p_decl = share_regs.iter().map(|r| format!("reg [15:0] {r};\n")).collect::<String>(),
        s4_note = if w64 { ", and 4 (an odd ending)" } else { "" },
    );
    write_xor_assigns(&mut v, &eq, k, Some("crc_state"), None, &format!("spart_{k}b"));
    if w64 {
        v.push_str("wire [15:0] spart_4b;\n");
        write_xor_assigns(&mut v, &eq, 4, Some("crc_state"), None, "spart_4b");
    }
    // Stage B -> C: lanes cleared, keep per kind; stage C: the VCRC lanes ORed in.
    let (c_data_expr, c_keep_expr, vcrc_or, merge_or) = if w64 {
        (
            "{b_zero_hi ? 16'd0 : b_data[63:48], b_zero_mid ? 16'd0 : b_data[47:32], b_crc ? 32'd0 : b_data[31:0]}",
            "b_crc ? 8'h03 : b_zero_hi ? 8'h3f : 8'hff",
            "{16'd0, c_merge ? ~(spart_4b ^ p4_q0 ^ p4_q1) : 16'd0, 16'd0, c_crc ? ~crc_state : 16'd0}",
            " | c_merge",
        )
    } else {
        (
            "{b_zero_hi ? 16'd0 : b_data[31:16], b_crc ? 16'd0 : b_data[15:0]}",
            "b_zero_hi ? 4'b0011 : 4'b1111",
            "{16'd0, c_crc ? ~crc_state : 16'd0}",
            "",
        )
    };
    let _ = write!(
        v,
        "
initial begin
   a_active = 1'b0;
   a_fcp = 1'b0;
   a_first = 1'b0;
   a_left = {lw}'d0;
   a_last = 1'b0;
{a_odd_init}   src_vl = 4'd0;
   started_q = 3'd0;
   fcp_q = {width}'d0;
   b_valid = 1'b0;
   b_sop = 1'b0;
   b_eop = 1'b0;
   b_link = 1'b0;
   b_crc = 1'b0;
{b_init}   b_data = {width}'d0;
   c_valid = 1'b0;
   c_sop = 1'b0;
   c_eop = 1'b0;
   c_link = 1'b0;
   c_crc = 1'b0;
{c_init}   c_keep = {k}'d0;
   c_data = {width}'d0;
{p_init}   crc_state = 16'hffff;
   tx_valid = 1'b0;
   tx_data = {width}'d0;
   tx_keep = {k}'d0;
   tx_sop = 1'b0;
   tx_eop = 1'b0;
   tx_link = 1'b0;
   fcp_framing_error = 1'b0;
   vl15_starts = 16'd0;
   fcp_starts = 16'd0;
   data_starts = 16'd0;
end

always @(posedge clock) begin
   // Loaded every clock: read only where a slot or a valid says so.
   fcp_q <= fcp_data;
   b_data <= a_fcp ? fcp_q : src_data;
   c_sop <= b_sop;
   c_eop <= b_eop;
   c_link <= b_link;
   c_crc <= b_crc;
{c_merge_load}   c_keep <= {c_keep_expr};
   c_data <= {c_data_expr};
{p_load}   // Statistics: items started, by kind (wrapping), counted a clock after the pulse so
   // the 16-bit adders stay off the boundary path; a reset does not clear them.
   started_q <= {{pick_data, pick_fcp, pick_vl15}} & {{3{{~reset}}}};
   vl15_starts <= vl15_starts + {{15'd0, started_q[0]}};
   fcp_starts <= fcp_starts + {{15'd0, started_q[1]}};
   data_starts <= data_starts + {{15'd0, started_q[2]}};
   if (reset) begin
      // Link Down or resync: the item in progress and the pipeline are dropped.
      a_active <= 1'b0;
      b_valid <= 1'b0;
      c_valid <= 1'b0;
      crc_state <= 16'hffff;
      tx_valid <= 1'b0;
      tx_data <= {width}'d0;
      tx_keep <= {k}'d0;
      tx_sop <= 1'b0;
      tx_eop <= 1'b0;
      tx_link <= 1'b0;
      fcp_framing_error <= 1'b0;
   end else begin
      // Stage C -> wire (all 0 without a word).
      tx_valid <= c_valid;
      tx_data <= c_valid ? c_data | {vcrc_or} : {width}'d0;
      tx_keep <= c_valid ? c_keep : {k}'d0;
      tx_sop <= c_valid & c_sop;
      tx_eop <= c_valid & c_eop;
      tx_link <= c_valid & c_link;
      // The VCRC covers every data byte; after a packet's ending word it restarts.
      if (c_valid & ~c_link) crc_state <= (c_crc{merge_or}) ? 16'hffff : spart_{k}b ^ {p_sum};
      // Stage B -> C.
      c_valid <= b_valid;
      // Stage A -> B.
      b_valid <= a_active;
      b_sop <= a_first;
      b_eop <= last_slot;
      b_link <= a_fcp;
      b_crc <= last_slot & ~a_fcp{not_odd};
{b_load}      // Stage A: the next slot, or the next item.
      if (boundary) begin
         a_active <= vl15_valid | fcp_wins | data_wins;
         a_fcp <= fcp_wins;
         a_first <= 1'b1;
         a_left <= left_init;
         a_last <= left_init == {lw}'d0;
{odd_load}         if (vl15_valid) src_vl <= 4'd15;
         else if (data_wins) src_vl <= offer_vl;
      end else begin
         a_first <= 1'b0;
         a_left <= a_left - {lw}'d1;
         a_last <= a_left == {lw}'d1;
      end
      if (fcp_word_bad) fcp_framing_error <= 1'b1;
   end
end
",
        a_odd_init = if w64 { "   a_odd = 1'b0;\n" } else { "" },
        b_init = if w64 {
            "   b_merge = 1'b0;\n   b_zero_mid = 1'b0;\n   b_zero_hi = 1'b0;\n"
        } else {
            "   b_zero_hi = 1'b0;\n"
        },
        c_init = if w64 { "   c_merge = 1'b0;\n" } else { "" },
        c_merge_load = if w64 { "   c_merge <= b_merge;\n" } else { "" },
        p_init = share_regs.iter().map(|r| format!("   {r} = 16'd0;\n")).collect::<String>(),
        p_load = shares
            .iter()
            .flat_map(|(_, parts)| parts.iter())
            .map(|(name, _)| format!("   {} <= {name};\n", share_reg(name)))
            .collect::<String>(),
        p_sum = shares[0].1.iter().map(|(name, _)| share_reg(name)).collect::<Vec<_>>().join(" ^ "),
        not_odd = if w64 { " & ~a_odd" } else { "" },
        b_load = if w64 {
            "      b_merge <= last_slot & ~a_fcp & a_odd;\n\
             \x20     // Lanes 4-5 carry no data in a packet's ending word; 6-7 none in an FCP either.\n\
             \x20     b_zero_mid <= last_slot & ~a_fcp;\n\
             \x20     b_zero_hi <= last_slot | a_fcp;\n"
        } else {
            "      // Lanes 2-3 carry nothing in a VCRC-only word or an FCP's second word.\n\
             \x20     b_zero_hi <= last_slot;\n"
        },
        odd_load = if w64 { "         a_odd <= ~fcp_wins & pkt_len[0];\n" } else { "" },
    );
    v
}

/// The stage-C register of a data-share wire: `dpart_8b_1` -> `p_q1`, `dpart_4b_0` ->
/// `p4_q0`, and at 32 bits `dpart_4b` -> `p_q`.
fn share_reg(wire: &str) -> String {
    match wire.strip_prefix("dpart_") {
        Some("4b") => "p_q".to_string(),
        Some(rest) => {
            let (bytes, part) = rest.split_once("b_").expect("dpart_<n>b_<part>");
            if bytes == "8" {
                format!("p_q{part}")
            } else {
                format!("p4_q{part}")
            }
        }
        None => panic!("not a data-share wire: {wire}"),
    }
}

/// The data bits of byte lanes `lanes`.
fn lanes_mask(lanes: std::ops::Range<usize>) -> u64 {
    lanes.fold(0, |m, l| m | 0xff << (8 * l))
}

/// The framer check: FCP word 0 arrives with `fcp_start`, word 1 (32 bits) in slot 0.
fn fcp_check_verilog(k: usize, fcp_words: u32) -> String {
    let k0 = keep_of(FCP_BYTES.min(k as u32));
    if fcp_words == 1 {
        format!(
            "// The framer's word must look like a 6-byte FCP's: one word, keep 0x{k0:02x}.
wire fcp_word_bad = pick_fcp & ~(fcp_valid & fcp_sop & fcp_eop & (fcp_keep == {k}'h{k0:x}));
"
        )
    } else {
        let k1 = keep_of(FCP_BYTES - k as u32);
        format!(
            "// The framer's words must look like a 6-byte FCP's: word 0 with fcp_start (keep
// {k0:04b}), word 1 in the next clock, the FCP's first slot (keep {k1:04b}).
wire fcp_word0_bad = pick_fcp & ~(fcp_valid & fcp_sop & ~fcp_eop & (fcp_keep == {k}'b{k0:04b}));
wire fcp_word1_bad = a_active & a_fcp & ~a_last & ~(fcp_valid & ~fcp_sop & fcp_eop & (fcp_keep == {k}'b{k1:04b}));
wire fcp_word_bad = fcp_word0_bad | fcp_word1_bad;
"
        )
    }
}

impl<const W: usize, const K: usize> HdlIo for LinkTxUnit<W, K> {
    type In = LinkTxIn;
    type Out = LinkTxOut;
    const INPUTS: &'static [PortSpec] = &[
        PortSpec::new("reset"),
        PortSpec::new("link_active"),
        PortSpec::new("vl15_valid"),
        PortSpec::new("vl15_len"),
        PortSpec::new("fcp_pending"),
        PortSpec::new("fcp_valid"),
        PortSpec::new("fcp_data"),
        PortSpec::new("fcp_keep"),
        PortSpec::new("fcp_sop"),
        PortSpec::new("fcp_eop"),
        PortSpec::new("offer_valid"),
        PortSpec::new("offer_vl"),
        PortSpec::new("offer_len"),
        PortSpec::new("src_data"),
    ];
    const OUTPUTS: &'static [PortSpec] = &[
        PortSpec::new("vl15_take"),
        PortSpec::new("fcp_start"),
        PortSpec::new("take"),
        PortSpec::new("src_rd"),
        PortSpec::new("src_vl"),
        PortSpec::new("tx_valid"),
        PortSpec::new("tx_data"),
        PortSpec::new("tx_keep"),
        PortSpec::new("tx_sop"),
        PortSpec::new("tx_eop"),
        PortSpec::new("tx_link"),
        PortSpec::new("fcp_framing_error"),
        PortSpec::new("vl15_starts"),
        PortSpec::new("fcp_starts"),
        PortSpec::new("data_starts"),
    ];

    fn clock(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
    fn drive(&mut self, i: &LinkTxIn) {
        self.reset.next = i.reset;
        self.link_active.next = i.link_active;
        self.vl15_valid.next = i.vl15_valid;
        self.vl15_len.next = (i.vl15_len as u64 & 0x7ff).into();
        self.fcp_pending.next = i.fcp_pending;
        self.fcp_valid.next = i.fcp_valid;
        self.fcp_data.next = (i.fcp_data & mask(W)).into();
        self.fcp_keep.next = (i.fcp_keep as u64 & mask(K)).into();
        self.fcp_sop.next = i.fcp_sop;
        self.fcp_eop.next = i.fcp_eop;
        self.offer_valid.next = i.offer_valid;
        self.offer_vl.next = (i.offer_vl as u64 & 0xf).into();
        self.offer_len.next = (i.offer_len as u64 & 0x7ff).into();
        self.src_data.next = (i.src_data & mask(W)).into();
    }
    fn sample(&self) -> LinkTxOut {
        LinkTxOut {
            vl15_take: self.vl15_take.val(),
            fcp_start: self.fcp_start.val(),
            take: self.take.val(),
            src_rd: self.src_rd.val(),
            src_vl: self.src_vl.val().to_u64() as u8,
            tx: LinkWord {
                valid: self.tx_valid.val(),
                data: self.tx_data.val().to_u64(),
                keep: self.tx_keep.val().to_u64() as u8,
                sop: self.tx_sop.val(),
                eop: self.tx_eop.val(),
                link: self.tx_link.val(),
            },
            fcp_framing_error: self.fcp_framing_error.val(),
            vl15_starts: self.vl15_starts.val().to_u64() as u16,
            fcp_starts: self.fcp_starts.val().to_u64() as u16,
            data_starts: self.data_starts.val().to_u64() as u16,
        }
    }
    fn pack(i: &LinkTxIn, s: &mut [u64]) {
        s[0] = i.reset as u64;
        s[1] = i.link_active as u64;
        s[2] = i.vl15_valid as u64;
        s[3] = i.vl15_len as u64 & 0x7ff;
        s[4] = i.fcp_pending as u64;
        s[5] = i.fcp_valid as u64;
        s[6] = i.fcp_data & mask(W);
        s[7] = i.fcp_keep as u64 & mask(K);
        s[8] = i.fcp_sop as u64;
        s[9] = i.fcp_eop as u64;
        s[10] = i.offer_valid as u64;
        s[11] = i.offer_vl as u64 & 0xf;
        s[12] = i.offer_len as u64 & 0x7ff;
        s[13] = i.src_data & mask(W);
    }
    fn unpack(s: &[u64]) -> LinkTxOut {
        LinkTxOut {
            vl15_take: s[0] & 1 == 1,
            fcp_start: s[1] & 1 == 1,
            take: s[2] & 1 == 1,
            src_rd: s[3] & 1 == 1,
            src_vl: s[4] as u8 & 0xf,
            tx: LinkWord {
                valid: s[5] & 1 == 1,
                data: s[6],
                keep: s[7] as u8,
                sop: s[8] & 1 == 1,
                eop: s[9] & 1 == 1,
                link: s[10] & 1 == 1,
            },
            fcp_framing_error: s[11] & 1 == 1,
            vl15_starts: s[12] as u16,
            fcp_starts: s[13] as u16,
            data_starts: s[14] as u16,
        }
    }
}

pub type LinkTxW32 = LinkTxUnit<32, 4>;
pub type LinkTxW64 = LinkTxUnit<64, 8>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_masks() {
        assert_eq!(keep_of(2), 0x03);
        assert_eq!(keep_of(4), 0x0f);
        assert_eq!(keep_of(6), 0x3f);
        assert_eq!(keep_of(8), 0xff);
    }

    /// `a_left` after a start is the item's clocks minus one: `ceil((4 PktLen + 2) / K) - 1`
    /// (`PortModel`'s `wire_bytes().div_ceil(W)`), for every 11-bit PktLen.
    #[test]
    fn slot_count_is_ceil_of_wire_bytes() {
        for k in [4u32, 8] {
            let g = Geom { k };
            for len in 0..2048u16 {
                let clocks = (len as u32 * 4 + VCRC_BYTES).div_ceil(k);
                assert_eq!(g.pkt_left(len) as u32, clocks - 1, "K {k}, PktLen {len}");
            }
            assert_eq!(g.fcp_words(), FCP_BYTES.div_ceil(k));
        }
    }
}
