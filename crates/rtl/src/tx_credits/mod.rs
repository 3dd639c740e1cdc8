//! Transmitter credits, one set per data VL (docs/spec.md §4, §8; seed 000 "Terminology").
//!
//! In this folder: the Verilog module `iblink_tx_credits.v` (parameter `VLS`), and here
//! its Rust cycle twin [`TxCreditsTwin`], the rust-hdl block [`TxCreditsUnit`] (ports,
//! emission) and the port binding. Reference model: `iblink_model::credits::TxCredits`
//! (one per VL); lockstep of model, twin and Verilator: `crates/sim/tests/lockstep/tx_credits.rs`, which also
//! runs RX credits and both ends of a link (stimulus: `crates/sim/src/blocks/tx_credits.rs`).
//!
//! # Interface (VLCap `N` data VLs, a generation-time parameter)
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | synchronous link init / resync (docs/spec.md §8): FCTBS = CL = 0 on every VL |
//! | `head_blocks` | in | `7N` bits: NP of VL `v`'s head packet at `[7v+6:7v]` (0..127; a packet is at most 66) |
//! | `send` | in | the head packet of `send_vl` goes out this clock: FCTBS += its NP |
//! | `send_vl` | in | 4 bits; a VL at or above VLCap (VL15 included) is ignored |
//! | `fcp_valid` | in | an FCP for `fcp_vl` was received: CL := `fcp_fccl` |
//! | `fcp_vl`, `fcp_fccl` | in | 4 and 12 bits |
//! | `credit_ok` | out | `N` bits, **registered, one clock late**: bit `v` = `(CL - (FCTBS + NP)) mod 4096 <= 2048` for VL `v`'s head packet, as of the previous clock |
//! | `fctbs_bus` | out | `12N` bits, the registers themselves: FCTBS of VL `v` at `[12v+11:12v]` (for the FCP TX framer) |
//!
//! Every send is recorded, checked or not: FCTBS counts the blocks that went on the wire
//! (an arbiter sends only when `credit_ok` says so; if it did not, the receiver's ABR
//! still has to meet FCTBS). A send and an FCP for the same VL in one clock both take
//! effect at that clock's edge.
//!
//! # Cycle contract
//! - `fctbs_bus` during clock `t` is FCTBS as it is during clock `t` (latency 0).
//! - `credit_ok` during clock `t` is the credit check of clock `t - 1`: FCTBS and CL as
//!   they were during clock `t - 1` (before that clock's send and FCP took effect) and
//!   `head_blocks` as driven during clock `t - 1` (latency 1). It is 0 during the first
//!   clock and during the clock after a `reset` (link init: CL = 0, nothing may go).
//!   So after a send on VL `v` in clock `t`, bit `v` still shows the sent packet's check
//!   in clock `t + 1` and the next head packet's from clock `t + 2` (a consumer choosing
//!   again in `t + 1` would use a stale bit; the link arbiter chooses at packet
//!   boundaries, and the shortest packet is several words long). A new CL from an FCP in
//!   clock `t` likewise shows in `credit_ok` from clock `t + 2`.
//! - Registered: FCTBS and CL (the state); then, by the module's `CHECK_AHEAD` layout
//!   (the same outputs): 0, the default, CR = FCTBS + NP and a copy of CL per VL and one
//!   `ok_en` flip-flop, compared in `credit_ok`'s clock; 1 (the link port's), the check
//!   itself per VL (`ok_q`, cleared by a reset in the previous clock), which drives
//!   `credit_ok` directly. The twin keeps the second.
//!
//! # Why these ports
//! - The send carries no block count: it is always the head packet, whose NP the check
//!   has just added to FCTBS, so `FCTBS := CR` reuses that adder and the count that was
//!   checked is by construction the count that is recorded.
//! - FCTBS leaves as a packed bus of the registers: its one consumer, the FCP TX framer,
//!   selects the VL it builds (it keeps the next FCP pre-built, so it owns that select).
//! - `credit_ok` is a vector because the arbiter needs every VL's eligibility at once.
//!
//! # Why FCTBS and CL are the registers (and not CL − FCTBS)
//! Keeping `CL - FCTBS` makes the check one subtract, but then a received FCP must load
//! `FCCL - FCTBS`: a third 12-bit adder per VL, plus muxing with the send update.
//! Storing the spec's own registers needs two adders per VL (CR = FCTBS + NP for the
//! send, D = CL − FCTBS for the check) and nothing for the FCP (CL loads FCCL through the
//! flip-flop enable), about half the logic (`docs/synthesis-history.md`). The check is
//! made from D beside NP's own adder rather than behind CR: as NP < 128 < 2048,
//! `(CL - CR) mod 4096 <= 2048` iff `NP <= D <= NP + 2048`, that is D >= NP, and D < 2048
//! or D - 2048 <= NP ([`check_from_d`]), two 7-bit compares.
//!
//! # Why `credit_ok` is a clock late
//! With the check combinational, the CR adder and the compare behind it were one path,
//! too slow for the clock target. Registering CR and a copy of CL put the adder and the
//! compare in different clocks, but left the compare in front of the arbiter's first
//! stage in the port; registering the check itself (made from D, above) leaves the
//! arbiter a flip-flop.

use crate::emit::{rust_hdl_wrapper, EmittedModule, Variant, VerilogSource};
use crate::twin::Twin;
pub use crate::vl::{MAX_VLS, VL_CAPS};
use rust_hdl::prelude::*;

/// The hand-written module.
pub const SOURCE: VerilogSource = VerilogSource {
    module: "iblink_tx_credits",
    path: "crates/rtl/src/tx_credits/iblink_tx_credits.v",
    text: include_str!("iblink_tx_credits.v"),
};

/// Bits per VL in `head_blocks`: NP up to 127 (the largest packet is 66 blocks).
pub const NP_BITS: usize = 7;
/// Credit registers are 12 bits (docs/spec.md §1).
pub const CREDIT_MASK: u16 = 0xfff;
/// The credit window: a packet may go iff `(CL - CR) mod 4096 <= 2048` (docs/spec.md §4).
pub const WINDOW: u16 = 2048;

/// The registers of all VLs (the Verilog's per-VL `reg`s in its `CHECK_AHEAD = 1` layout;
/// the default layout registers the check's operands instead, with the same outputs).
#[derive(Clone, Copy, Debug, Default)]
pub struct TxRegs {
    /// FCTBS per VL (docs/spec.md §4): blocks sent since link init, mod 4096.
    pub fctbs: [u16; MAX_VLS],
    /// CL per VL (docs/spec.md §4): FCCL of the latest FCP received; 0 after link init.
    pub cl: [u16; MAX_VLS],
    /// Pipeline: the check of the previous clock, per VL (`credit_ok`); false when that
    /// clock was a reset.
    pub ok_q: [bool; MAX_VLS],
}

/// The credit check on the registers' terms: CR = FCTBS + NP, and a packet may go iff
/// `(CL - CR) mod 4096 <= 2048` (docs/spec.md §4).
#[inline]
pub fn credit_check(fctbs: u16, cl: u16, np: u16) -> bool {
    window_ok(cl, fctbs.wrapping_add(np) & CREDIT_MASK)
}

/// The compare half of the check, on a CR already summed: `(CL - CR) mod 4096 <= 2048`.
#[inline]
pub fn window_ok(cl: u16, cr: u16) -> bool {
    cl.wrapping_sub(cr) & CREDIT_MASK <= WINDOW
}

/// The check as the Verilog makes it, from `D = (CL - FCTBS) mod 4096` and NP (< 128):
/// `NP <= D <= NP + 2048`, each compare on NP's 7 bits.
#[inline]
pub fn check_from_d(d: u16, np: u16) -> bool {
    let (d, np) = (d & CREDIT_MASK, np & 0x7f);
    let ge = (d >> 7) != 0 || (d & 0x7f) >= np;
    let top_le = (d >> 7) & 0xf == 0 && (d & 0x7f) <= np;
    ge && (d >> 11 == 0 || top_le)
}

/// One clock of stimulus (fields of VLs at or above VLCap are ignored).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxCreditsIn {
    pub reset: bool,
    /// NP of each VL's head packet (7 bits used).
    pub head_blocks: [u8; MAX_VLS],
    pub send: bool,
    pub send_vl: u8,
    pub fcp_valid: bool,
    pub fcp_vl: u8,
    pub fcp_fccl: u16,
}

/// The outputs during a clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxCreditsOut {
    /// Bit `v`: VL `v`'s head packet passes the credit check.
    pub credit_ok: u16,
    /// FCTBS of each VL (0 above VLCap).
    pub fctbs: [u16; MAX_VLS],
}

/// The Rust cycle twin of `iblink_tx_credits` for `vls` data VLs.
#[derive(Clone, Debug)]
pub struct TxCreditsTwin {
    vls: usize,
    regs: TxRegs,
}

impl TxCreditsTwin {
    pub fn new(vls: usize) -> Self {
        assert!(VL_CAPS.contains(&vls), "TxCreditsTwin: VLCap {vls} is not 1, 2, 4, 8 or 15");
        Self {
            vls,
            regs: TxRegs::default(),
        }
    }
    pub fn regs(&self) -> &TxRegs {
        &self.regs
    }
}

impl Twin for TxCreditsTwin {
    type In = TxCreditsIn;
    type Out = TxCreditsOut;

    #[inline]
    fn eval(&self, _i: &TxCreditsIn) -> TxCreditsOut {
        // Both outputs come from registers only.
        let r = &self.regs;
        let mut ok = 0u16;
        for v in 0..self.vls {
            ok |= (r.ok_q[v] as u16) << v;
        }
        let mut fctbs = [0u16; MAX_VLS];
        fctbs[..self.vls].copy_from_slice(&r.fctbs[..self.vls]);
        TxCreditsOut { credit_ok: ok, fctbs }
    }

    #[inline]
    fn tick(&mut self, i: &TxCreditsIn) {
        let r = &mut self.regs;
        // The pipeline registers load every clock, reset or not.
        for v in 0..self.vls {
            let np = (i.head_blocks[v] as u16) & 0x7f;
            let d = r.cl[v].wrapping_sub(r.fctbs[v]) & CREDIT_MASK;
            r.ok_q[v] = !i.reset && check_from_d(d, np);
        }
        if i.reset {
            r.fctbs = [0; MAX_VLS];
            r.cl = [0; MAX_VLS];
            return;
        }
        let sv = (i.send_vl & 0xf) as usize;
        if i.send && sv < self.vls {
            let np = (i.head_blocks[sv] as u16) & 0x7f;
            r.fctbs[sv] = r.fctbs[sv].wrapping_add(np) & CREDIT_MASK;
        }
        let fv = (i.fcp_vl & 0xf) as usize;
        if i.fcp_valid && fv < self.vls {
            r.cl[fv] = i.fcp_fccl & CREDIT_MASK;
        }
    }
}

crate::hdl_block! {
    /// The block for rust-hdl: its ports, and its behaviour through the twin. `HB = 7 * N`
    /// (the width of `head_blocks`), `FB = 12 * N` (the width of `fctbs_bus`).
    pub struct TxCreditsUnit<const N: usize, const HB: usize, const FB: usize> {
        twin: TxCreditsTwin,
    }
    check: VL_CAPS.contains(&N) && HB == NP_BITS * N && FB == 12 * N;
    default: Self::with_twin(TxCreditsTwin::new(N));
    hdl: |u| rust_hdl_wrapper(u, SOURCE.module, &params(N), SOURCE.text);
    ports(i: TxCreditsIn, o: TxCreditsOut) {
        reset: in Bit = i.reset;
        head_blocks: in Bits<HB> = i.head_blocks, each NP_BITS;
        send: in Bit = i.send;
        send_vl: in Bits<4> = i.send_vl;
        fcp_valid: in Bit = i.fcp_valid;
        fcp_vl: in Bits<4> = i.fcp_vl;
        fcp_fccl: in Bits<12> = i.fcp_fccl;
        credit_ok: out Bits<N> = o.credit_ok;
        fctbs_bus: out Bits<FB> = o.fctbs, each 12;
    }
}

/// The module's parameters for VLCap `vls`.
pub fn params(vls: usize) -> Vec<(String, String)> {
    vec![("VLS".to_string(), vls.to_string())]
}

/// `hdl_out/iblink_tx_credits.v`.
pub fn module() -> EmittedModule {
    SOURCE.emit("tx_credits", vec![("parameters".into(), "VLS = 1, 2, 4, 8 or 15 (VLCap), CHECK_AHEAD = 0 or 1 (where the check is registered)".into())])
}

/// The block at VLCap `vls` (`iblink_tx_credits_vl<vls>`).
pub fn variant(vls: usize) -> Variant {
    Variant {
        name: format!("iblink_tx_credits_vl{vls}"),
        block: "tx_credits",
        top: SOURCE.module.to_string(),
        params: params(vls),
        modules: vec![module()],
        ports: crate::with_tx_credits!(vls, |T| crate::io::top_ports(&T::default()),
            _ => panic!("TX credits: VLCap {vls} is not 1, 2, 4, 8 or 15")),
    }
}

/// The block at VLCap `vls` in the layout the link port uses: `CHECK_AHEAD = 1`, the
/// credit check registered as a result (the same cycle behaviour as the default layout).
pub fn variant_check_ahead(vls: usize) -> Variant {
    let mut v = variant(vls);
    v.params.push(("CHECK_AHEAD".to_string(), "1".to_string()));
    v
}

pub type TxCreditsVl1 = TxCreditsUnit<1, 7, 12>;
pub type TxCreditsVl2 = TxCreditsUnit<2, 14, 24>;
pub type TxCreditsVl4 = TxCreditsUnit<4, 28, 48>;
pub type TxCreditsVl8 = TxCreditsUnit<8, 56, 96>;
pub type TxCreditsVl15 = TxCreditsUnit<15, 105, 180>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_matches_seed_000_numbers() {
        // Seed 000 step by step: CL 2048, FCTBS 0, NP 10 -> CL - CR = 2038, go.
        assert!(credit_check(0, 2048, 10));
        // Buffer full: CL 3072, FCTBS 3072, NP 1 -> CR 3073 > CL, blocked.
        assert!(!credit_check(3072, 3072, 1));
        // Rollover: CL 4090, FCTBS 3586, NP 1 -> 503, go; CL 0, CR E03h -> 509, go.
        assert!(credit_check(3586, 4090, 1));
        assert!(credit_check(3586, 0, 1));
        // docs/spec.md §4: a margin of exactly 2048 passes, 2049 ahead does not.
        assert!(credit_check(0, 2048, 0));
        assert!(credit_check(0, 2047, 0));
        assert!(!credit_check(0, 2049, 0));
    }

    #[test]
    fn check_from_d_is_the_check() {
        for cl in 0..4096u16 {
            for fctbs in (0..4096u16).step_by(5) {
                for np in 0..128u16 {
                    let d = cl.wrapping_sub(fctbs) & CREDIT_MASK;
                    assert_eq!(check_from_d(d, np), credit_check(fctbs, cl, np), "cl {cl} fctbs {fctbs} np {np}");
                }
            }
        }
    }
}
