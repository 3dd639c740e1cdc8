//! FCP transmit framer and scheduler: reference model (FcpScheduler + Fcp::encode in the
//! documented cycle adapter), Rust twin and Verilator in lockstep on random
//! stimulus (every VLCap at both widths), and directed tests whose expected values come
//! from docs/spec.md and the reference model.

use iblink_model::fcp::{Fcp, FcpOp, FCP_BYTES};
use iblink_model::sl2vl::VlCap;
use iblink_rtl::fcp_tx::{FcpTxIn, FcpTxOut};
use iblink_rtl::link::{LINK_ARM, LINK_INIT};
use iblink_rtl::tx_credits::VL_CAPS;
use iblink_sim::blocks::fcp_tx::{fcp_tx_sim, FcpTxSim, FcpTxStimulus, MuxPolicy, TimerConfig};
use iblink_sim::blocks::Backend;
use iblink_sim::tb::{self, harness::TbOptions};
use iblink_sim::{lockstep, CycleSim};
use std::sync::Mutex;

/// Verilator builds one at a time (two test threads would compile at once on 2 cores).
static BUILD: Mutex<()> = Mutex::new(());

fn sim(vls: usize, width: usize, b: Backend) -> FcpTxSim {
    let _g = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    fcp_tx_sim(vls, width, b, None).unwrap()
}

/// The random lockstep with its coverage gates (`iblink_sim::tb::fcp_tx`).
fn run_random(vls: usize, width: usize) {
    let n = lockstep::cycles();
    tb::fcp_tx::run(vls, width, tb::fcp_tx::seed(vls, width), &TbOptions::test(n)).unwrap().assert_passed(n);
}

#[test]
fn lockstep_w32_every_vl_cap() {
    for vls in VL_CAPS {
        run_random(vls, 32);
    }
}

#[test]
fn lockstep_w64_every_vl_cap() {
    for vls in VL_CAPS {
        run_random(vls, 64);
    }
}

/// Collects FCPs from the output word stream, checking the framing of the link word
/// stream contract (sop .. eop, `fcp_link` on every word, contiguous keep, zeros when
/// idle).
struct Collector {
    lanes: usize,
    bytes: Vec<u8>,
    open: bool,
    /// (clock of sop, the six bytes)
    fcps: Vec<(u64, [u8; FCP_BYTES])>,
    sop_clock: u64,
}

impl Collector {
    fn new(width: usize) -> Self {
        Self {
            lanes: width / 8,
            bytes: vec![],
            open: false,
            fcps: vec![],
            sop_clock: 0,
        }
    }
    fn word(&mut self, clock: u64, o: &FcpTxOut, who: &str) {
        if !o.fcp_valid {
            assert!(
                !o.fcp_sop && !o.fcp_eop && !o.fcp_link && o.fcp_data == 0 && o.fcp_keep == 0,
                "{who} clock {clock}: outputs not 0 while fcp_valid is 0: {o:?}"
            );
            assert!(!self.open, "{who} clock {clock}: a gap inside an FCP");
            return;
        }
        assert!(
            o.fcp_link,
            "{who} clock {clock}: an FCP word without fcp_link"
        );
        assert_eq!(
            o.fcp_sop, !self.open,
            "{who} clock {clock}: sop out of place"
        );
        if o.fcp_sop {
            self.sop_clock = clock;
            self.bytes.clear();
        }
        let n = (8 - o.fcp_keep.leading_zeros()) as usize;
        assert!(
            n <= self.lanes,
            "{who} clock {clock}: keep {:#x} past the word",
            o.fcp_keep
        );
        assert_eq!(
            o.fcp_keep as u32,
            (1u32 << n) - 1,
            "{who} clock {clock}: keep not contiguous from lane 0"
        );
        assert!(
            o.fcp_eop || n == self.lanes,
            "{who} clock {clock}: a partial word before eop"
        );
        if n < 8 {
            assert_eq!(
                o.fcp_data >> (8 * n),
                0,
                "{who} clock {clock}: bytes past keep"
            );
        }
        self.bytes
            .extend((0..n).map(|k| (o.fcp_data >> (8 * k)) as u8));
        self.open = !o.fcp_eop;
        if o.fcp_eop {
            assert_eq!(
                self.bytes.len(),
                FCP_BYTES,
                "{who} clock {clock}: an FCP of {} bytes",
                self.bytes.len()
            );
            let mut b = [0u8; FCP_BYTES];
            b.copy_from_slice(&self.bytes);
            self.fcps.push((self.sop_clock, b));
        }
    }
}

/// Every FCP every back end emits decodes with the reference `Fcp::decode` (LPCRC, Op,
/// VL), and carries exactly the Op, FCTBS and FCCL driven in the clock before its first
/// word (the documented staleness). With a mux that sends data packets (FCTBS grows at
/// each packet's start, visible the next clock), the FCTBS is also the one at the FCP's
/// first word: every data packet sent before it is included.
#[test]
fn every_fcp_decodes_and_carries_the_previous_clocks_inputs() {
    for width in [32, 64] {
        for vls in [1, 4, 15] {
            for b in Backend::ALL {
                for (seed, policy) in [
                    (1u64, None),
                    (2, Some(MuxPolicy::Traffic { max_clocks: 30 })),
                ] {
                    let cap = VlCap::new(vls as u64).unwrap();
                    let mut s = sim(vls, width, b);
                    let who = format!("{} VLCap {vls} w{width}", s.backend());
                    let mut stim = match policy {
                        None => FcpTxStimulus::new(vls, width, seed),
                        Some(p) => FcpTxStimulus::with_policy(vls, width, seed, p),
                    };
                    let mut col = Collector::new(width);
                    let mut inputs: Vec<FcpTxIn> = vec![];
                    for clock in 0..60_000u64 {
                        let i = stim.next().unwrap();
                        let o = s.step(&i);
                        // A word counts in the clock the mux takes it (it holds until then).
                        if i.fcp_ready {
                            col.word(clock, &o, &who);
                        }
                        inputs.push(i);
                    }
                    assert!(col.fcps.len() > 1000, "{who}: only {} FCPs", col.fcps.len());
                    for (sop, bytes) in &col.fcps {
                        let f = Fcp::decode(bytes, cap)
                            .unwrap_or_else(|e| panic!("{who} FCP at {sop}: {e}"));
                        let before = &inputs[*sop as usize - 1];
                        let at = &inputs[*sop as usize];
                        let op = if before.link_state == LINK_INIT {
                            FcpOp::Init
                        } else {
                            FcpOp::Normal
                        };
                        assert_eq!(f.op, op, "{who} FCP at {sop}");
                        assert_eq!(f.fccl, before.fccl[f.vl as usize], "{who} FCP at {sop}");
                        assert_eq!(f.fctbs, before.fctbs[f.vl as usize], "{who} FCP at {sop}");
                        if policy.is_some() {
                            assert_eq!(
                                f.fctbs, at.fctbs[f.vl as usize],
                                "{who} FCP at {sop}: a data packet missing"
                            );
                        }
                    }
                }
            }
        }
    }
}

/// One clock of inputs with every FCTBS and FCCL 0.
fn quiet(link_state: u8, cfg: TimerConfig) -> FcpTxIn {
    FcpTxIn {
        link_state,
        refresh_clocks: cfg.refresh_clocks,
        min_gap_clocks: cfg.min_gap_clocks,
        ..Default::default()
    }
}

/// docs/spec.md §3's example is the first FCP after link init: Op 1, FCTBS 0, VL0, FCCL 0 is
/// `10 00 00 00`, LPCRC 0x0558 sent `58 05`. After a restart every VL is due at once
/// (docs/spec.md §8) and their FCPs go back to back in VL order (round robin from VL0),
/// VL0's pending three clocks after the restart.
#[test]
fn restart_burst_spec_example_and_back_to_back() {
    for width in [32, 64] {
        for vls in VL_CAPS {
            for b in Backend::ALL {
                let mut s = sim(vls, width, b);
                let who = format!("{} VLCap {vls} w{width}", s.backend());
                let cfg = TimerConfig::default_for(width);
                let mut col = Collector::new(width);
                // Run a while in LinkArm with changing FCCLs, then restart in LinkInitialize.
                let mut clock = 0u64;
                for k in 0..300u16 {
                    let mut i = quiet(LINK_ARM, cfg);
                    i.fccl = [(k * 7) & 0xfff; 15];
                    i.fcp_start = k % 3 == 0;
                    s.step(&i);
                    clock += 1;
                }
                let r = clock;
                let mut i = quiet(LINK_INIT, cfg);
                i.restart = true;
                let o = s.step(&i);
                col.word(clock, &o, &who);
                clock += 1;
                for _ in 0..2 {
                    let o = s.step(&quiet(LINK_INIT, cfg));
                    assert!(!o.fcp_pending, "{who}: pending too early after restart");
                    col.word(clock, &o, &who);
                    clock += 1;
                }
                // The mux takes every FCP in the clock the contract says it is pending:
                // VL k's at restart + 3 + k FCP lengths.
                let words = if width == 32 { 2 } else { 1 };
                for k in 0..(vls * words + 4) {
                    let mut i = quiet(LINK_INIT, cfg);
                    let due = k % words == 0 && k / words < vls;
                    i.fcp_start = due;
                    let o = s.step(&i);
                    if due {
                        assert!(
                            o.fcp_pending && o.pending_vl as usize == k / words,
                            "{who}: VL{} not pending at restart + {}: {o:?}",
                            k / words,
                            3 + k
                        );
                    }
                    col.word(clock, &o, &who);
                    clock += 1;
                }
                assert!(col.fcps.len() >= vls, "{who}: {} FCPs", col.fcps.len());
                for (k, (sop, bytes)) in col.fcps.iter().take(vls).enumerate() {
                    let want = Fcp::new(FcpOp::Init, 0, k as u8, 0).unwrap().encode();
                    assert_eq!(*bytes, want, "{who}: FCP {k}");
                    assert_eq!(
                        *sop,
                        r + 3 + (k * words) as u64,
                        "{who}: FCP {k} not back to back"
                    );
                }
                assert_eq!(
                    col.fcps[0].1,
                    [0x10, 0, 0, 0, 0x58, 0x05],
                    "{who}: docs/spec.md §3 example"
                );
            }
        }
    }
}

/// docs/spec.md §10: a VL's refresh counts from the clock its FCP's last beat moves on the
/// wire (`fcp_done`), `L`, and ends at `L + c - D`, `D` being the clocks from the FCP's
/// start to its last beat on a wire that never stalls (the mux's start to `tx_sop`,
/// `START_TO_SOP`, then one clock a word after the first); its FCP is pending 2 clocks
/// after it falls due (the block's latency). On a wire that never stalls (`L = p + D`)
/// that is `p + c + 2`, as when the period counted from the start; a stall of `k` clocks
/// between the start and the last beat moves it by `k`. A period of `D` clocks or less
/// counts from the start whatever the wire does.
#[test]
fn refresh_counts_from_the_last_beat() {
    for width in [32usize, 64] {
        let words = FCP_BYTES.div_ceil(width / 8) as u64;
        let d = iblink_rtl::link_tx::START_TO_SOP as u64 + words - 1;
        for b in Backend::ALL {
            for (refresh, stall) in [(40u16, 0u64), (40, 7), (d as u16 + 1, 0), (d as u16 + 1, 3), (3, 7), (d as u16, 9)] {
                let mut s = sim(1, width, b);
                let who = format!("{} w{width} refresh {refresh} stall {stall}", s.backend());
                let cfg = TimerConfig { refresh_clocks: refresh, min_gap_clocks: 1000 };
                // A restart makes VL0 due: it is pending 3 clocks later and starts then (p).
                let mut i = quiet(LINK_ARM, cfg);
                i.restart = true;
                s.step(&i);
                for _ in 0..2 {
                    s.step(&quiet(LINK_ARM, cfg));
                }
                let p = 3u64;
                let last = p + d + stall;
                let mut pending_at = None;
                for t in p..p + 200 {
                    let mut i = quiet(LINK_ARM, cfg);
                    i.fcp_start = t == p;
                    // The wire stalls after the FCP's words are taken, before its last beat.
                    i.fcp_ready = !(t >= p + words && t < p + words + stall);
                    i.fcp_done = t == last;
                    let o = s.step(&i);
                    if t == p {
                        assert!(o.fcp_pending && o.fcp_sop, "{who}: VL0 not started at {p}: {o:?}");
                    } else if pending_at.is_none() && o.fcp_pending {
                        pending_at = Some(t);
                    }
                }
                let due = if refresh as u64 > d { last + refresh as u64 - d } else { p + refresh as u64 };
                assert_eq!(pending_at, Some(due + 2), "{who}");
            }
        }
    }
}
