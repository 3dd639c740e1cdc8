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
//! [`Crc16Equations`]) and the port binding. Model twin: `iblink_sim::blocks::link_tx`
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
//! # Combinational paths (for a stepper that composes the twin)
//! [`LinkTxTwin::eval`] is pure. Four outputs depend on this clock's inputs, through the
//! registers' boundary (`~a_active | a_last`):
//! - `vl15_take` on `vl15_valid`, `reset`;
//! - `fcp_start` on `vl15_valid`, `fcp_pending`, `reset`;
//! - `take` on `vl15_valid`, `fcp_pending`, `link_active`, `offer_valid`, `reset`;
//! - `src_rd` on `reset`.
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
use crate::io::{HdlIo, Opaque, PortSpec};
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
        // Loaded every clock, reset or not: only read where a slot or a valid says so.
        n.fcp_q = i.fcp_data;
        n.b_data = if r.a_fcp { r.fcp_q } else { i.src_data } & mask(8 * k);
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

/// Reads only `reset`, `vl15_valid`, `fcp_pending`, `link_active` and `offer_valid`.
#[inline]
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

/// The block for rust-hdl: its ports, and its behaviour through the twin (`W`-bit words,
/// `K = W / 8` lanes).
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
    twin: Opaque<LinkTxTwin>,
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
            twin: Opaque(LinkTxTwin::new(W)),
        }
    }
}

impl<const W: usize, const K: usize> LinkTxUnit<W, K> {
    /// The inputs as the twin takes them.
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
}

impl<const W: usize, const K: usize> Logic for LinkTxUnit<W, K> {
    fn update(&mut self) {
        let i = self.inputs();
        if self.clock.pos_edge() {
            self.twin.tick(&i);
        }
        let o = self.twin.eval(&i);
        self.vl15_take.next = o.vl15_take;
        self.fcp_start.next = o.fcp_start;
        self.take.next = o.take;
        self.src_rd.next = o.src_rd;
        self.src_vl.next = (o.src_vl as u64).into();
        self.tx_valid.next = o.tx.valid;
        self.tx_data.next = o.tx.data.into();
        self.tx_keep.next = (o.tx.keep as u64).into();
        self.tx_sop.next = o.tx.sop;
        self.tx_eop.next = o.tx.eop;
        self.tx_link.next = o.tx.link;
        self.fcp_framing_error.next = o.fcp_framing_error;
        self.vl15_starts.next = (o.vl15_starts as u64).into();
        self.fcp_starts.next = (o.fcp_starts as u64).into();
        self.data_starts.next = (o.data_starts as u64).into();
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
        // The hand-written module and both generated ones (it names both in its
        // generate branches).
        let mut core = SOURCE.text.to_string();
        for w in WIDTHS {
            core.push_str(&vcrc_module(w).text);
        }
        rust_hdl_wrapper(self, SOURCE.module, &params(W), &core)
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
