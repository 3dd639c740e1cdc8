//! Link TX path: the transmit multiplexer and packet streamer of a port (docs/spec.md §2, §3,
//! §5). At every item boundary it chooses VL15 > FCP > data (data only in LinkActive),
//! streams the chosen item onto the link word stream without fragmenting it, and appends
//! the VCRC (docs/spec.md §3: CRC-16 over the packet from the first LRH byte through the ICRC,
//! low byte first) to every data and VL15 packet.
//!
//! In this folder: the Verilog module `iblink_link_tx.v` (parameters `DATA_WIDTH`,
//! `KEEP_WIDTH`), and here its Rust cycle twin [`LinkTxTwin`], the rust-hdl block
//! [`LinkTxUnit`] (ports, emission), the generated VCRC modules
//! `iblink_link_tx_vcrc_w32`/`_w64` ([`vcrc_module`]: the XOR equations, written from
//! [`Crc16Equations`]) and the port binding. Model adapter: `iblink_sim::blocks::link_tx`
//! (an independent cycle model: the policy of docs/spec.md §5 / `iblink_model::port::PortModel`,
//! items of `ceil(bytes / W)` words, the VCRC from `iblink_model::crc16`); lockstep of
//! model, twin and Verilator: `crates/sim/tests/lockstep/link_tx.rs` (the adapter: `crates/sim/src/blocks/link_tx.rs`).
//!
//! # Interface (`W` = 32 or 64 bits a clock, `K = W / 8` byte lanes)
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | synchronous: drops the item in progress and the pipeline (see below); the port holds it while the link is Down |
//! | `link_active` | in | LinkActive: data packets may start (VL15 and FCPs go in every state but Down) |
//! | `vl15_valid`, `vl15_len` | in | the user's head VL15 packet and its LRH:PktLen (11 bits) |
//! | `vl15_take` | out | combinational: that VL15 packet starts this clock (pop its descriptor) |
//! | `fcp_pending` | in | the FCP TX framer holds a built FCP; held until `fcp_start` |
//! | `fcp_start` | out | combinational: that FCP starts this clock; the framer presents word 0 in this clock and word `k` in the `k`-th moving clock after |
//! | `fcp_ready` | out | combinational (`tx_ready | ~tx_valid`): the pipeline moves this clock, so the FCP word presented now is taken; the framer holds its next word until then |
//! | `fcp_done` | out | combinational (`tx_valid & tx_ready & tx_link & tx_eop`): an FCP's last word moves on the wire this clock (its last beat, docs/spec.md §10); on a wire that never stalls [`crate::fcp_tx::start_to_done`] clocks after its `fcp_start`. FCPs leave in the order they started |
//! | `fcp_valid`, `fcp_data`, `fcp_keep`, `fcp_sop`, `fcp_eop` | in | the FCP's words (`fcp_data` carries them; the rest is checked) |
//! | `offer_valid`, `offer_vl`, `offer_len` | in | the VL arbiter's offer: a data packet of data VL `offer_vl` (4 bits), PktLen `offer_len` (11 bits) |
//! | `take` | out | combinational: the offered packet starts this clock (the port drives TX credits `send`/`send_vl` and the queue pop from it) |
//! | `src_rd` | out | consume one word of the current packet from queue `src_vl` this clock |
//! | `src_vl` | out | registered, 4 bits: the queue being read (15 = VL15); changes only in the clock after a `take`/`vl15_take` |
//! | `src_data` | in | `W` bits: the next word of queue `src_vl` (a first-word-fall-through queue, combinationally) |
//! | `tx_ready` | in | the PHY takes the word on `tx_*` this clock (AXI4-Stream): a word moves when `tx_valid & tx_ready` and holds, all of it, while `tx_ready` is low (docs/spec.md §10) |
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
//! # Combinational paths (for a stepper that composes the twin)
//! [`LinkTxTwin::eval`] is pure. Six outputs depend on this clock's inputs, through the
//! registers' boundary (`~a_active | a_last`) and the pipeline's advance
//! (`adv = tx_ready | ~tx_valid`):
//! - `vl15_take` on `vl15_valid`, `tx_ready`, `reset`;
//! - `fcp_start` on `vl15_valid`, `fcp_pending`, `tx_ready`, `reset`;
//! - `take` on `vl15_valid`, `fcp_pending`, `link_active`, `offer_valid`, `tx_ready`, `reset`;
//! - `src_rd` on `tx_ready`, `reset`;
//! - `fcp_ready` and `fcp_done` on `tx_ready`.
//!
//! `eval` reads no other input: `vl15_len`, `offer_vl`, `offer_len`, `fcp_valid`,
//! `fcp_data`, `fcp_keep`, `fcp_sop`, `fcp_eop` and `src_data` are only sampled by
//! [`LinkTxTwin::tick`] (the clock edge), and every other output is a register. So in the
//! port, link TX can be evaluated once the arbiter's (registered) offer, the FCP framer's
//! (registered) `fcp_pending` and `vl15_valid` are known; the FCP framer's words, which
//! follow `fcp_start` combinationally, and the queue's `src_data`, which follows
//! `src_rd`/`src_vl`, are needed only for the tick.
//!
//! # Cycle contract
//! **Backpressure** (docs/spec.md §10): a clock *moves* when `tx_ready` is high or no word
//! is on the wire (`adv = tx_ready | ~tx_valid`). A clock that does not move is frozen as
//! a whole: no start pulse, no `src_rd`, no FCP word taken (`fcp_ready` low), every
//! register holds (the word on `tx_*` with it); the statistics counters still count the
//! start of the clock before. Every clock count below counts moving clocks; on a wire
//! that never stalls (`tx_ready` always high) every clock moves and the figures are
//! clock counts. So an item, once started, goes whole and in order however the wire
//! stalls, and the priority (VL15 > FCP > data) is decided at item boundaries only.
//!
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
//!   what was registered (it does not move, whatever `tx_ready`); from `r+1` the wire is
//!   idle and the transmitter is at a boundary. A packet cut by a reset is abandoned: its words not yet read stay in queue
//!   `src_vl`, and the port must discard them with the reset (its queues restart with the
//!   link). `src_vl` and the counters keep their values.
//!
//! # Registers
//! - Stage A (slot sequencer): `a_active`, `a_fcp`, `a_first`, `a_left` (slots after this
//!   one), `a_last` (`a_left == 0`), `odd` (64 bits: odd PktLen, the last slot reads
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
//! that whole network sat in the `crc_state` loop, too slow for the ECP5 clock target.
//! `B(data)` now goes into a register a stage earlier (`p_q`), so the loop is
//! `A(state) ^ p_q`, at most 16 inputs; the price is one clock of latency and the
//! stage-C registers. At 64 bits `B(data)` alone has up to 39 terms (three levels and a
//! wide mux), so it is registered in parts of two lanes (at most 16 terms each) and the
//! loop XORs at most 12 state bits and 4 parts (`docs/synthesis-history.md`).
//!
//! # What is generated
//! Only the XOR equations: `iblink_link_tx_vcrc_w32` (the 4-byte data and state shares)
//! and `iblink_link_tx_vcrc_w64` (the 8-byte data share in four parts of two lanes, the
//! odd ending's 4-byte share in two, the 8- and 4-byte state shares), written by
//! [`vcrc_body`] from [`Crc16Equations`]. The hand-written module instantiates the one
//! for its `DATA_WIDTH`; a configuration lists both files.

use crate::crc16::{mask, write_xor_assigns, write_xor_assigns_masked, Crc16Equations, Crc16Tables, INIT, XOROUT};
use crate::emit::{generated, rust_hdl_wrapper, EmittedModule, Variant, VerilogSource};
use crate::twin::Twin;
use rust_hdl::prelude::*;

/// The hand-written module.
pub const SOURCE: VerilogSource = VerilogSource {
    module: "iblink_link_tx",
    path: "crates/rtl/src/link_tx/iblink_link_tx.v",
    text: include_str!("iblink_link_tx.v"),
};

/// Link word widths the block is generated for.
pub const WIDTHS: [usize; 2] = [32, 64];
/// Bytes of an FCP on the wire (docs/spec.md §2).
pub const FCP_BYTES: u32 = 6;
/// VCRC bytes after a data or VL15 packet (docs/spec.md §3).
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    pub tx_ready: bool,
}

impl Default for LinkTxIn {
    /// Everything 0, except `tx_ready`: a wire that never stalls.
    fn default() -> Self {
        Self {
            reset: false,
            link_active: false,
            vl15_valid: false,
            vl15_len: 0,
            fcp_pending: false,
            fcp_valid: false,
            fcp_data: 0,
            fcp_keep: 0,
            fcp_sop: false,
            fcp_eop: false,
            offer_valid: false,
            offer_vl: 0,
            offer_len: 0,
            src_data: 0,
            tx_ready: true,
        }
    }
}

/// The outputs during a clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkTxOut {
    pub vl15_take: bool,
    pub fcp_start: bool,
    pub fcp_ready: bool,
    pub fcp_done: bool,
    pub take: bool,
    pub src_rd: bool,
    pub src_vl: u8,
    pub tx: LinkWord,
    pub fcp_framing_error: bool,
    pub vl15_starts: u16,
    pub fcp_starts: u16,
    pub data_starts: u16,
}

/// The block's registers, as plain data for the twin (the Verilog declares them).
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


/// The Rust cycle twin of `iblink_link_tx` for `width_bits`-bit link words.
#[derive(Clone)]
pub struct LinkTxTwin {
    /// Byte lanes: 4 or 8.
    k: usize,
    regs: LinkTxRegs,
    /// The VCRC equations as byte tables (fixed data, not hardware).
    tables: Crc16Tables,
}

impl std::fmt::Debug for LinkTxTwin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinkTxTwin").field("k", &self.k).field("regs", &self.regs).finish()
    }
}

impl LinkTxTwin {
    pub fn new(width_bits: usize) -> Self {
        assert!(WIDTHS.contains(&width_bits), "LinkTxTwin: {width_bits}-bit words (32 or 64)");
        let k = width_bits / 8;
        Self {
            k,
            regs: LinkTxRegs::default(),
            tables: Crc16Tables::new(&Crc16Equations::derive(k), k),
        }
    }
    pub fn regs(&self) -> &LinkTxRegs {
        &self.regs
    }

    /// The clock edge: every register's next value.
    fn edge(&self, r: &LinkTxRegs, i: &LinkTxIn, c: &Comb) -> LinkTxRegs {
        let k = self.k;
        let g = Geom { k: k as u32 };
        let w64 = k == 8;
        let mut n = *r;
        // Loaded in every moving clock, reset or not: only read where a slot or a valid
        // says so.
        if c.adv {
            n.fcp_q = i.fcp_data;
            n.b_data = if r.a_fcp { r.fcp_q } else { i.src_data } & mask(8 * k);
            self.stage_b_to_c(r, &mut n);
        }
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
        if !c.adv {
            // A stalled clock: everything holds (docs/spec.md §10).
            return n;
        }
        // Stage C -> wire, and the VCRC register.
        n.tx = self.wire_word(r);
        if r.c_valid && !r.c_link {
            n.crc_state = if r.c_crc || r.c_merge {
                INIT
            } else {
                self.tables.next(k, r.crc_state, 0) ^ r.p_q
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
        let fk = i.fcp_keep & mask(k) as u8;
        let bad0 = c.pick_fcp
            && !(i.fcp_valid
                && i.fcp_sop
                && i.fcp_eop == (g.fcp_words() == 1)
                && fk == keep_of(FCP_BYTES.min(k as u32)));
        let bad1 = !w64
            && r.a_active
            && r.a_fcp
            && !r.a_last
            && !(i.fcp_valid && !i.fcp_sop && i.fcp_eop && fk == keep_of(FCP_BYTES - k as u32));
        n.fcp_framing_error = r.fcp_framing_error || bad0 || bad1;
        n
    }

    /// Stage B -> stage C: clear the lanes past the word's bytes, its keep, and the data's
    /// share of the VCRC update.
    fn stage_b_to_c(&self, r: &LinkTxRegs, n: &mut LinkTxRegs) {
        let k = self.k as u32;
        let bytes = if r.b_crc {
            0
        } else if r.b_merge {
            4
        } else if r.b_link {
            // Word k of an FCP: bytes 6k.. of its 6.
            if k == 8 || r.b_sop {
                FCP_BYTES.min(k)
            } else {
                FCP_BYTES - k
            }
        } else {
            k
        };
        n.c_valid = r.b_valid;
        n.c_sop = r.b_sop;
        n.c_eop = r.b_eop;
        n.c_link = r.b_link;
        n.c_crc = r.b_crc;
        n.c_merge = r.b_merge;
        n.c_keep = keep_of(if r.b_crc || r.b_merge { bytes + VCRC_BYTES } else { bytes });
        n.c_data = r.b_data & mask(8 * bytes as usize);
        n.p_q = self.tables.next(self.k, 0, r.b_data);
        n.p4_q = if k == 8 { self.tables.next(4, 0, r.b_data & 0xffff_ffff) } else { 0 };
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

impl Twin for LinkTxTwin {
    type In = LinkTxIn;
    type Out = LinkTxOut;

    /// The start pulses and `src_rd` from the registers and this clock's `reset`,
    /// `vl15_valid`, `fcp_pending`, `link_active` and `offer_valid`; the rest from the
    /// registers (see "Combinational paths" in the module docs).
    #[inline]
    fn eval(&self, i: &LinkTxIn) -> LinkTxOut {
        let r = &self.regs;
        let c = comb(r, i);
        let live = !i.reset;
        LinkTxOut {
            vl15_take: c.pick_vl15 && live,
            fcp_start: c.pick_fcp && live,
            fcp_ready: c.adv,
            fcp_done: r.tx.valid && r.tx.link && r.tx.eop && i.tx_ready,
            take: c.pick_data && live,
            src_rd: c.src_rd,
            src_vl: r.src_vl,
            tx: r.tx,
            fcp_framing_error: r.fcp_framing_error,
            vl15_starts: r.vl15_starts,
            fcp_starts: r.fcp_starts,
            data_starts: r.data_starts,
        }
    }

    #[inline]
    fn tick(&mut self, i: &LinkTxIn) {
        let c = comb(&self.regs, i);
        self.regs = self.edge(&self.regs, i, &c);
    }
}

/// The combinational signals of one clock, from the registers and that clock's inputs.
#[derive(Clone, Copy, Debug)]
struct Comb {
    /// The pipeline moves: `tx_ready`, or no word on the wire.
    adv: bool,
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

/// Reads only `reset`, `vl15_valid`, `fcp_pending`, `link_active`, `offer_valid` and
/// `tx_ready`.
#[inline]
fn comb(r: &LinkTxRegs, i: &LinkTxIn) -> Comb {
    debug_assert!(!r.a_active || r.a_last == (r.a_left == 0));
    let adv = i.tx_ready || !r.tx.valid;
    let last_slot = r.a_active && r.a_last;
    let boundary = !r.a_active || last_slot;
    let pick_vl15 = boundary && adv && i.vl15_valid;
    let pick_fcp = boundary && adv && !i.vl15_valid && i.fcp_pending;
    let pick_data = boundary && adv && !i.vl15_valid && !i.fcp_pending && i.link_active && i.offer_valid;
    let src_rd = r.a_active && !r.a_fcp && (!r.a_last || r.a_odd) && adv && !i.reset;
    Comb {
        adv,
        last_slot,
        boundary,
        pick_vl15,
        pick_fcp,
        pick_data,
        src_rd,
    }
}

crate::hdl_block! {
    /// The block for rust-hdl: its ports, and its behaviour through the twin (`W`-bit words,
    /// `K = W / 8` lanes). Its core text is the hand-written module and both generated VCRC
    /// modules (it names both in its generate branches).
    pub struct LinkTxUnit<const W: usize, const K: usize> {
        twin: LinkTxTwin,
    }
    check: WIDTHS.contains(&W) && W == 8 * K;
    default: Self::with_twin(LinkTxTwin::new(W));
    hdl: |u| {
        let mut core = SOURCE.text.to_string();
        for w in WIDTHS {
            core.push_str(&vcrc_module(w).text);
        }
        rust_hdl_wrapper(u, SOURCE.module, &params(W), &core)
    };
    ports(i: LinkTxIn, o: LinkTxOut) {
        reset: in Bit = i.reset;
        link_active: in Bit = i.link_active;
        vl15_valid: in Bit = i.vl15_valid;
        vl15_len: in Bits<11> = i.vl15_len;
        vl15_take: out Bit = o.vl15_take;
        fcp_pending: in Bit = i.fcp_pending;
        fcp_start: out Bit = o.fcp_start;
        fcp_ready: out Bit = o.fcp_ready;
        fcp_done: out Bit = o.fcp_done;
        fcp_valid: in Bit = i.fcp_valid;
        fcp_data: in Bits<W> = i.fcp_data;
        fcp_keep: in Bits<K> = i.fcp_keep;
        fcp_sop: in Bit = i.fcp_sop;
        fcp_eop: in Bit = i.fcp_eop;
        offer_valid: in Bit = i.offer_valid;
        offer_vl: in Bits<4> = i.offer_vl;
        offer_len: in Bits<11> = i.offer_len;
        take: out Bit = o.take;
        src_rd: out Bit = o.src_rd;
        src_vl: out Bits<4> = o.src_vl;
        src_data: in Bits<W> = i.src_data;
        tx_ready: in Bit = i.tx_ready;
        tx_valid: out Bit = o.tx.valid;
        tx_data: out Bits<W> = o.tx.data;
        tx_keep: out Bits<K> = o.tx.keep;
        tx_sop: out Bit = o.tx.sop;
        tx_eop: out Bit = o.tx.eop;
        tx_link: out Bit = o.tx.link;
        fcp_framing_error: out Bit = o.fcp_framing_error;
        vl15_starts: out Bits<16> = o.vl15_starts;
        fcp_starts: out Bits<16> = o.fcp_starts;
        data_starts: out Bits<16> = o.data_starts;
    }
}

/// The module's parameters for `width`-bit link words.
pub fn params(width: usize) -> Vec<(String, String)> {
    vec![
        ("DATA_WIDTH".to_string(), width.to_string()),
        ("KEEP_WIDTH".to_string(), (width / 8).to_string()),
    ]
}

/// `hdl_out/iblink_link_tx.v`.
pub fn module() -> EmittedModule {
    SOURCE.emit(
        "link_tx",
        vec![
            ("parameters".into(), "DATA_WIDTH = 32 or 64, KEEP_WIDTH = DATA_WIDTH/8".into()),
            ("latency_start_to_sop".into(), START_TO_SOP.to_string()),
            ("latency_src_rd_to_wire".into(), READ_TO_WIRE.to_string()),
        ],
    )
}

/// Name of the generated VCRC module for `width`-bit words.
pub fn vcrc_module_name(width: usize) -> String {
    format!("iblink_link_tx_vcrc_w{width}")
}

/// The data's share of the VCRC update as the pipeline registers it, for `k` lanes:
/// (bytes absorbed, [(output, lanes)]). At 32 bits one part (at most 24 terms); at 64
/// bits the 8-byte share (up to 39 terms) in four parts and the odd ending's 4-byte
/// share in two, so each part is two LUT levels and the loop XORs at most 12 state bits
/// and 4 parts (16 inputs).
#[allow(clippy::type_complexity)] // (part, [(input vector, bit range)])
fn data_shares(k: usize) -> Vec<(usize, Vec<(String, std::ops::Range<usize>)>)> {
    if k == 8 {
        vec![
            (8, (0..4).map(|g| (format!("dpart_8b_{g}"), 2 * g..2 * g + 2)).collect()),
            (4, (0..2).map(|g| (format!("dpart_4b_{g}"), 2 * g..2 * g + 2)).collect()),
        ]
    } else {
        vec![(4, vec![("dpart_4b".to_string(), 0..4)])]
    }
}

/// The state's share of the VCRC update: (bytes absorbed, output). At 64 bits after 8
/// bytes and after 4 (an odd ending).
fn state_shares(k: usize) -> Vec<(usize, String)> {
    if k == 8 {
        vec![(8, "spart_8b".to_string()), (4, "spart_4b".to_string())]
    } else {
        vec![(4, "spart_4b".to_string())]
    }
}

/// The data bits of byte lanes `lanes`.
fn lanes_mask(lanes: std::ops::Range<usize>) -> u64 {
    lanes.fold(0, |m, l| m | 0xff << (8 * l))
}

/// The generated VCRC module's text (`module ... endmodule`): one XOR per output bit,
/// from the CRC-16 equations (docs/spec.md §3).
pub fn vcrc_body(width: usize) -> String {
    use std::fmt::Write as _;
    assert!(WIDTHS.contains(&width), "link TX VCRC: {width}-bit words (32 or 64)");
    let k = width / 8;
    let eq = Crc16Equations::derive(k);
    let name = vcrc_module_name(width);
    let data = data_shares(k);
    let state = state_shares(k);
    let mut ports: Vec<String> = vec![
        format!("    // Stage B's word (lane 0 first on the wire)\n    input  wire [{}:0] data", width - 1),
        "    // The running VCRC (reflected LFSR state)\n    input  wire [15:0] state".to_string(),
    ];
    for (bytes, parts) in &data {
        for (out, lanes) in parts {
            ports.push(format!(
                "    // The data's share after {bytes} bytes, lanes {}..{} only\n    output wire [15:0] {out}",
                lanes.start,
                lanes.end - 1
            ));
        }
    }
    for (bytes, out) in &state {
        ports.push(format!("    // The state's share after {bytes} bytes\n    output wire [15:0] {out}"));
    }
    let mut v = String::new();
    let _ = write!(
        v,
        "`default_nettype none
// {name}: the VCRC (docs/spec.md §3: CRC-16, poly 0x100B, reflected)
// next-state equations of iblink_link_tx at {width}-bit words, split as its pipeline
// registers them. The update is linear, next = A(state) ^ B(data): each output is one
// share, a flat XOR of the bits its equation names.
module {name} (
{}
);

",
        ports.join(",\n")
    );
    for (bytes, parts) in &data {
        for (out, lanes) in parts {
            write_xor_assigns_masked(&mut v, &eq, *bytes, None, Some("data"), lanes_mask(lanes.clone()), out);
        }
    }
    for (bytes, out) in &state {
        write_xor_assigns(&mut v, &eq, *bytes, Some("state"), None, out);
    }
    v.push_str("\nendmodule\n`default_nettype wire\n");
    v
}

/// `hdl_out/iblink_link_tx_vcrc_w<width>.v`.
pub fn vcrc_module(width: usize) -> EmittedModule {
    generated(
        &vcrc_module_name(width),
        "link_tx",
        vec![("data_width".into(), width.to_string()), ("equations".into(), "CRC-16 0x100B, reflected (docs/spec.md §3)".into())],
        &vcrc_body(width),
    )
}

/// The block at `width`-bit link words (`iblink_link_tx_w<width>`).
pub fn variant(width: usize) -> Variant {
    let mut modules = vec![module()];
    modules.extend(WIDTHS.iter().map(|&w| vcrc_module(w)));
    Variant {
        name: format!("iblink_link_tx_w{width}"),
        block: "link_tx",
        top: SOURCE.module.to_string(),
        params: params(width),
        modules,
        ports: crate::with_link_tx!(width, |T| crate::io::top_ports(&T::default()),
            _ => panic!("link TX: {width}-bit words (32 or 64)")),
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
