//! PAUSE/PFC transmit side (docs/spec.md §9): per-queue triggers (software one-shot, hardware
//! level, RX-fill RFA/RFD hysteresis), refresh before expiry, zero-quanta release,
//! consolidation and merging; it hands out one frame at a time as the queues it carries.
//!
//! In this folder: the Verilog module `iblink_pfc_tx.v` (parameters `QUEUES`,
//! `DATA_WIDTH`, `FILL_BITS`, and `TARGET`, its netlist layout: `"GENERIC"` or `"ECP5"`,
//! the same cycle behaviour), and here its Rust cycle twin [`PfcTxTwin`] (of the
//! `"GENERIC"` layout's registers), the rust-hdl block [`PfcTxUnit`] (ports, emission) and
//! the port binding. Reference model: `iblink_model::pfc::PfcTx`; lockstep of model, twin
//! and Verilator (both layouts): `crates/sim/tests/lockstep/pfc_tx.rs` (stimulus and the model adapter:
//! `crates/sim/src/blocks/pfc_tx.rs`).
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | synchronous: every trigger, timer and waiting frame cleared |
//! | `cfg_pfc` | in | 1: PFC frames per queue; 0: plain PAUSE, queue 0's pause time (PFCE) |
//! | `cfg_zero_on_release` | in | send pause time 0 when a level trigger releases |
//! | `cfg_refresh_quanta[16]` | in | quanta left when a refresh leaves (below every PT) |
//! | `cfg_pause_quanta[16Q]` | in | PT per queue, in quanta |
//! | `cfg_fill_en[Q]`, `cfg_rfa[16Q]`, `cfg_rfd[16Q]` | in | RX-fill trigger per queue (EHFC), RFD < RFA |
//! | `fill_bytes[16Q]` | in | RX queue fill levels, bytes |
//! | `hw_level[Q]`, `sw_req[Q]` | in | hardware levels; software requests (one-clock pulses) |
//! | `busy` | in | a data frame is on the wire: no frame is taken this clock |
//! | `frame_done` | in | our frame's last word moves on the wire this clock (its end `L`) |
//! | `frame_start` | out | registered: the frame's first word is offered this clock |
//! | `frame_queues[Q]`, `frame_zero[Q]` | out | registered: that frame's slots, and those carrying 0; held until the next frame |
//!
//! # Cycle contract
//! A slot is a queue in PFC mode; in PAUSE mode slot 0 alone, whose level is the OR of
//! every queue's triggers. A quantum and a frame are both `512 / DATA_WIDTH` clocks.
//! - The triggers pass two registers (sampled, each fill level moving its queue's RFA/RFD
//!   hysteresis; then combined): a change in clock `t` makes its frame due in `t + 2`. It is
//!   taken in the first later clock with no frame of ours on the wire (the clock its last
//!   word moves, `frame_done`, is free) and `busy` low (`busy` and `frame_done` act in
//!   their own clock), and `frame_start` is high the clock after: `t + 4` on an idle link.
//! - Frames due while one waits merge into it (one enable vector, each slot its latest
//!   value).
//! - While a slot's level holds, its refresh is due at
//!   `L + (PT - cfg_refresh_quanta) * 512/DATA_WIDTH - 2`, `L` the clock its frame's last
//!   word moved (`frame_done`, however long the wire stalled it: docs/spec.md §10): the
//!   refresh's first byte leaves with `cfg_refresh_quanta` quanta left.
//! - A software request while the slot's pause frame waits goes in the next frame.

use crate::bits::mask;
use crate::emit::{rust_hdl_wrapper, EmittedModule, Variant, VerilogSource};
use crate::twin::Twin;
use rust_hdl::prelude::*;

/// The hand-written module.
pub const SOURCE: VerilogSource = VerilogSource {
    module: "iblink_pfc_tx",
    path: "crates/rtl/src/pfc_tx/iblink_pfc_tx.v",
    text: include_str!("iblink_pfc_tx.v"),
};

/// RX queues at most (docs/spec.md §9).
pub const MAX_QUEUES: usize = 8;
/// Generated queue counts.
pub const QUEUE_COUNTS: [usize; 8] = [1, 2, 3, 4, 5, 6, 7, 8];
/// Datapath widths: a quantum (512 bit times) and a 64-byte frame are `512 / W` clocks.
pub const WIDTHS: [usize; 2] = [32, 64];
/// Bits of a fill level and of RFA/RFD in the generated blocks (bytes up to 65535).
pub const FILL_BITS: usize = 16;
/// The largest fill level and threshold the generated blocks compare.
pub const FILL_MAX: u32 = (1 << FILL_BITS) - 1;

/// One clock's inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PfcTxIn {
    pub reset: bool,
    pub cfg_pfc: bool,
    pub cfg_zero_on_release: bool,
    pub cfg_refresh_quanta: u16,
    pub cfg_pause_quanta: [u16; MAX_QUEUES],
    pub cfg_fill_en: u8,
    pub cfg_rfa: [u16; MAX_QUEUES],
    pub cfg_rfd: [u16; MAX_QUEUES],
    pub fill_bytes: [u16; MAX_QUEUES],
    pub hw_level: u8,
    pub sw_req: u8,
    pub busy: bool,
    pub frame_done: bool,
}

/// What the block shows during one clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PfcTxOut {
    pub frame_start: bool,
    pub frame_queues: u8,
    pub frame_zero: u8,
}

/// The Rust cycle twin of `iblink_pfc_tx` with `queues` queues at `width` bits a clock:
/// its registers, and the logic between them.
#[derive(Clone, Debug)]
pub struct PfcTxTwin {
    queues: usize,
    /// Bits of a clock count within a quantum: log2(512 / width).
    qc_bits: u32,
    fill_on: u8,
    hw_r: u8,
    sw_r: u8,
    level_now: u8,
    sw_now: u8,
    at_fire: u8,
    level: u8,
    /// A frame of ours is taken and its last word has not moved before this clock.
    ours: bool,
    wait_q: u8,
    wait_zero: u8,
    wait_sw: u8,
    sw_again: u8,
    armed: u8,
    /// The complement of each slot's pause time left, in clocks (it counts up).
    count: [u32; MAX_QUEUES],
    out: PfcTxOut,
}

/// The signals between the registers in one clock.
struct Comb {
    wait_q: u8,
    wait_zero: u8,
    wait_sw: u8,
    sw_again: u8,
    armed: u8,
    level_next: u8,
    sw_next: u8,
    arm_hit: u8,
    take: bool,
}

impl PfcTxTwin {
    pub fn new(queues: usize, width: usize) -> Self {
        assert!(QUEUE_COUNTS.contains(&queues) && WIDTHS.contains(&width), "PfcTxTwin: {queues} queues at {width} bits");
        Self {
            queues,
            qc_bits: (512 / width).trailing_zeros(),
            fill_on: 0,
            hw_r: 0,
            sw_r: 0,
            level_now: 0,
            sw_now: 0,
            at_fire: 0,
            level: 0,
            ours: false,
            wait_q: 0,
            wait_zero: 0,
            wait_sw: 0,
            sw_again: 0,
            armed: 0,
            count: [0; MAX_QUEUES],
            out: PfcTxOut::default(),
        }
    }

    fn qmask(&self) -> u8 {
        mask(self.queues) as u8
    }

    fn comb(&self, i: &PfcTxIn) -> Comb {
        let m = self.qmask();
        let q_level = (self.hw_r | self.fill_on) & m;
        let sw = self.sw_r & m;
        let (level_next, sw_next) = if i.cfg_pfc { (q_level, sw) } else { ((q_level != 0) as u8, (sw != 0) as u8) };
        let (level_now, sw_now) = (self.level_now, self.sw_now);
        let last_byte = i.frame_done;
        let wire_free = (!self.ours || i.frame_done) && !i.busy;
        // The Verilog keeps "wait_q is not empty" in a register of its own (any_wait,
        // from sw_again and this clock's new entries); the twin reads it off wait_q, so
        // lockstep checks that register.
        let take = wire_free && self.wait_q != 0;
        // After a take the waiting frame starts from the deferred software requests.
        let (wq, wz, ws, sa) =
            if take { (self.sw_again, 0, self.sw_again, 0) } else { (self.wait_q, self.wait_zero, self.wait_sw, self.sw_again) };
        let mut c = Comb { wait_q: 0, wait_zero: 0, wait_sw: 0, sw_again: 0, armed: 0, level_next, sw_next, arm_hit: 0, take };
        for q in 0..self.queues {
            let b = |x: u8| x >> q & 1 == 1;
            let (now, was) = (b(level_now), b(self.level));
            let (rose, fell) = (now && !was, !now && was);
            let arm_hit = last_byte && b(self.out.frame_queues);
            let refresh = now && b(self.armed) && !arm_hit && b(self.at_fire);
            // Armed implies the level held last clock: `now && was` is "no rise or fall".
            let armed = now && was && if arm_hit { !b(self.out.frame_zero) } else { b(self.armed) && !b(self.at_fire) };
            let pending = b(wq) && !b(wz);
            let sw_pt = b(sw_now) && !pending;
            let set_pt = rose || refresh || sw_pt;
            let set_zero = fell && i.cfg_zero_on_release;
            let zero = if set_pt { false } else if set_zero { true } else { b(wz) };
            c.wait_q |= ((b(wq) || set_pt || set_zero) as u8) << q;
            c.wait_zero |= (zero as u8) << q;
            // A release that zeroes a software request's pause time defers the request.
            c.wait_sw |= (((b(ws) && !set_zero) || sw_pt) as u8) << q;
            c.sw_again |= ((b(sa) || (b(sw_now) && pending) || (set_zero && b(ws))) as u8) << q;
            c.armed |= (armed as u8) << q;
            c.arm_hit |= (arm_hit as u8) << q;
        }
        c
    }
}

impl Twin for PfcTxTwin {
    type In = PfcTxIn;
    type Out = PfcTxOut;

    #[inline]
    fn eval(&self, _i: &PfcTxIn) -> PfcTxOut {
        self.out
    }

    fn tick(&mut self, i: &PfcTxIn) {
        let c = self.comb(i);
        let cnt_mask = mask(16 + self.qc_bits as usize) as u32;
        // The counts and at_fire are not reset: the counts run on every clock (arming
        // loads them), at_fire is the count at or above ~K (the pause time left at or
        // below K).
        let before_fire = ((i.cfg_refresh_quanta as u32) << self.qc_bits | 4) & cnt_mask;
        let fire_point = !before_fire & cnt_mask;
        let mut at_fire = 0;
        for q in 0..self.queues {
            at_fire |= ((c.arm_hit >> q & 1 == 0 && self.count[q] >= fire_point) as u8) << q;
            self.count[q] = if c.arm_hit >> q & 1 == 1 {
                !((i.cfg_pause_quanta[q] as u32) << self.qc_bits) & cnt_mask
            } else {
                self.count[q].wrapping_add(1) & cnt_mask
            };
        }
        if i.reset {
            *self = Self { count: self.count, at_fire, ..Self::new(self.queues, 512 >> self.qc_bits) };
            return;
        }
        self.at_fire = at_fire;
        let m = self.qmask();
        // RX-fill hysteresis, one compare against the present state's threshold: off,
        // above RFA turns it on; on, not below RFD keeps it.
        let mut fill_on = 0u8;
        for q in 0..self.queues {
            let on = if self.fill_on >> q & 1 == 1 { i.fill_bytes[q] >= i.cfg_rfd[q] } else { i.fill_bytes[q] > i.cfg_rfa[q] };
            fill_on |= ((on && i.cfg_fill_en >> q & 1 == 1) as u8) << q;
        }
        self.fill_on = fill_on;
        self.hw_r = i.hw_level & m;
        self.sw_r = i.sw_req & m;
        self.level = self.level_now;
        self.level_now = c.level_next;
        self.sw_now = c.sw_next;
        self.ours = c.take || (self.ours && !i.frame_done);
        if c.take {
            self.out.frame_queues = self.wait_q;
            self.out.frame_zero = self.wait_zero;
        }
        self.out.frame_start = c.take;
        self.wait_q = c.wait_q;
        self.wait_zero = c.wait_zero;
        self.wait_sw = c.wait_sw;
        self.sw_again = c.sw_again;
        self.armed = c.armed;
    }
}

crate::hdl_block! {
    /// The block for rust-hdl with `Q` queues at `W` bits a clock; `B = 16 * Q` (the width
    /// of the per-queue pause time, threshold and fill buses).
    pub struct PfcTxUnit<const Q: usize, const W: usize, const B: usize> {
        twin: PfcTxTwin,
    }
    check: B == FILL_BITS * Q;
    default: Self::with_twin(PfcTxTwin::new(Q, W));
    hdl: |u| rust_hdl_wrapper(u, SOURCE.module, &params(Q, W), SOURCE.text);
    ports(i: PfcTxIn, o: PfcTxOut) {
        reset: in Bit = i.reset;
        cfg_pfc: in Bit = i.cfg_pfc;
        cfg_zero_on_release: in Bit = i.cfg_zero_on_release;
        cfg_refresh_quanta: in Bits<16> = i.cfg_refresh_quanta;
        cfg_pause_quanta: in Bits<B> = i.cfg_pause_quanta, each 16;
        cfg_fill_en: in Bits<Q> = i.cfg_fill_en;
        cfg_rfa: in Bits<B> = i.cfg_rfa, each 16;
        cfg_rfd: in Bits<B> = i.cfg_rfd, each 16;
        fill_bytes: in Bits<B> = i.fill_bytes, each 16;
        hw_level: in Bits<Q> = i.hw_level;
        sw_req: in Bits<Q> = i.sw_req;
        busy: in Bit = i.busy;
        frame_done: in Bit = i.frame_done;
        frame_start: out Bit = o.frame_start;
        frame_queues: out Bits<Q> = o.frame_queues;
        frame_zero: out Bits<Q> = o.frame_zero;
    }
}

/// The module's parameters.
pub fn params(queues: usize, width: usize) -> Vec<(String, String)> {
    vec![
        ("QUEUES".to_string(), queues.to_string()),
        ("DATA_WIDTH".to_string(), width.to_string()),
        ("FILL_BITS".to_string(), FILL_BITS.to_string()),
    ]
}

/// `hdl_out/iblink_pfc_tx.v`.
pub fn module() -> EmittedModule {
    SOURCE.emit(
        "pfc_tx",
        vec![("parameters".into(), "QUEUES = 1..8, DATA_WIDTH = 32 or 64, FILL_BITS (fill and threshold bits), TARGET = \"GENERIC\" or \"ECP5\" (netlist layout)".into())],
    )
}

/// The block with `queues` queues at `width` bits (`iblink_pfc_tx_q<queues>_w<width>`).
pub fn variant(queues: usize, width: usize) -> Variant {
    Variant {
        name: format!("iblink_pfc_tx_q{queues}_w{width}"),
        block: "pfc_tx",
        top: SOURCE.module.to_string(),
        params: params(queues, width),
        modules: vec![module()],
        ports: crate::with_pfc_tx!((queues, width), |T| crate::io::top_ports(&T::default()),
            _ => panic!("PFC TX: {queues} queues at {width} bits is not generated")),
    }
}

pub type PfcTxQ1W32 = PfcTxUnit<1, 32, 16>;
pub type PfcTxQ2W32 = PfcTxUnit<2, 32, 32>;
pub type PfcTxQ3W32 = PfcTxUnit<3, 32, 48>;
pub type PfcTxQ4W32 = PfcTxUnit<4, 32, 64>;
pub type PfcTxQ5W32 = PfcTxUnit<5, 32, 80>;
pub type PfcTxQ6W32 = PfcTxUnit<6, 32, 96>;
pub type PfcTxQ7W32 = PfcTxUnit<7, 32, 112>;
pub type PfcTxQ8W32 = PfcTxUnit<8, 32, 128>;
pub type PfcTxQ1W64 = PfcTxUnit<1, 64, 16>;
pub type PfcTxQ2W64 = PfcTxUnit<2, 64, 32>;
pub type PfcTxQ3W64 = PfcTxUnit<3, 64, 48>;
pub type PfcTxQ4W64 = PfcTxUnit<4, 64, 64>;
pub type PfcTxQ5W64 = PfcTxUnit<5, 64, 80>;
pub type PfcTxQ6W64 = PfcTxUnit<6, 64, 96>;
pub type PfcTxQ7W64 = PfcTxUnit<7, 64, 112>;
pub type PfcTxQ8W64 = PfcTxUnit<8, 64, 128>;
