//! FCP receive framer: reference model, Rust twin and Verilator in lockstep on a
//! random link word stream (every VLCap at both widths), and directed tests whose
//! expected values come from docs/spec.md and the reference encoder.

use iblink_model::fcp::{encode_fields, Fcp, FcpOp};
use iblink_rtl::fcp_rx::{FcpRxCounts, FcpRxIn, FcpRxOut, LATENCY, VL_CAPS};
use iblink_sim::blocks::fcp_rx::{fcp_rx_sim, item_words, FcpRxSim, Word};
use iblink_sim::blocks::Backend;
use iblink_sim::tb::{self, harness::TbOptions};
use iblink_sim::{lockstep, CycleSim};
use std::sync::Mutex;

/// Verilator builds one at a time (two test threads would compile at once on 2 cores).
static BUILD: Mutex<()> = Mutex::new(());

fn sim(vls: usize, width: usize, b: Backend) -> FcpRxSim {
    let _g = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    fcp_rx_sim(vls, width, b, None).unwrap()
}

/// The random lockstep with its coverage gates (`iblink_sim::tb::fcp_rx`).
fn run_random(vls: usize, width: usize) {
    let n = lockstep::cycles();
    tb::fcp_rx::run(vls, width, tb::fcp_rx::seed(vls, width), &TbOptions::test(n)).unwrap().assert_passed(n);
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

/// Drive `inputs` through every back end in lockstep, returning the model's outputs.
fn drive(vls: usize, width: usize, inputs: &[FcpRxIn]) -> Vec<FcpRxOut> {
    let mut sims: Vec<FcpRxSim> = Backend::ALL.iter().map(|b| sim(vls, width, *b)).collect();
    let mut outs = Vec::with_capacity(inputs.len());
    for (clk, i) in inputs.iter().enumerate() {
        let o: Vec<FcpRxOut> = sims.iter_mut().map(|s| s.step(i)).collect();
        for (s, x) in sims.iter().zip(&o) {
            assert_eq!(*x, o[0], "clock {clk}: {} differs from {} on {i:?}", s.backend(), sims[0].backend());
        }
        outs.push(o[0]);
    }
    outs
}

fn idle(n: usize) -> Vec<FcpRxIn> {
    vec![FcpRxIn::default(); n]
}

fn link(bytes: &[u8], width: usize) -> Vec<FcpRxIn> {
    item_words(bytes, width / 8, true, true, 0).iter().map(Word::input).collect()
}

/// docs/spec.md §3: `10 00 00 00 58 05` is the init FCP (Op 1) for VL 0, FCTBS 0, FCCL 0,
/// accepted by every back end at both widths; upd_valid is one clock, LATENCY clocks
/// after the eop word.
#[test]
fn spec_init_fcp_is_accepted() {
    for width in [32, 64] {
        for vls in [1, 15] {
            let mut inp = link(&[0x10, 0x00, 0x00, 0x00, 0x58, 0x05], width);
            let eop = inp.len() - 1;
            inp.extend(idle(6));
            let outs = drive(vls, width, &inp);
            let pulses: Vec<usize> = (0..outs.len()).filter(|&c| outs[c].upd_valid).collect();
            assert_eq!(pulses, [eop + LATENCY], "w{width} VLCap {vls}");
            let o = outs[eop + LATENCY];
            assert_eq!((o.upd_op, o.upd_vl, o.upd_fctbs, o.upd_fccl), (1, 0, 0, 0));
            assert_eq!(
                o.counts,
                FcpRxCounts {
                    good: 1,
                    ..Default::default()
                }
            );
            // Nothing counted before the verdict.
            assert_eq!(outs[eop + LATENCY - 1].counts, FcpRxCounts::default());
        }
    }
}

/// Which counter a packet must bump, by construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reason {
    Good,
    Short,
    Long,
    Abort,
    Lpcrc,
    ReservedOp,
    Vl15,
    VlCap,
}

fn count_of(c: &FcpRxCounts, r: Reason) -> u16 {
    match r {
        Reason::Good => c.good,
        Reason::Short => c.short,
        Reason::Long => c.long,
        Reason::Abort => c.abort,
        Reason::Lpcrc => c.lpcrc_error,
        Reason::ReservedOp => c.reserved_op,
        Reason::Vl15 => c.vl15,
        Reason::VlCap => c.vl_cap,
    }
}

const REASONS: [Reason; 8] = [
    Reason::Good,
    Reason::Short,
    Reason::Long,
    Reason::Abort,
    Reason::Lpcrc,
    Reason::ReservedOp,
    Reason::Vl15,
    Reason::VlCap,
];

/// Link packets built with the reference encoder, each with the one counter it must
/// bump: every discard reason, every single-bit flip of a good FCP, and the ignored
/// cases (data packets with FCP bytes, link words without a sop).
fn directed_cases(vls: usize, width: usize) -> Vec<(String, Vec<FcpRxIn>, Option<Reason>)> {
    let lanes = width / 8;
    let good = Fcp::new(FcpOp::Normal, 0x123, (vls - 1) as u8, 0xabc).unwrap().encode();
    let mut cases: Vec<(String, Vec<FcpRxIn>, Option<Reason>)> = vec![];
    cases.push(("good".into(), link(&good, width), Some(Reason::Good)));
    for n in 0..6 {
        cases.push((format!("short {n}"), link(&good[..n], width), Some(Reason::Short)));
    }
    for extra in [1, 2, 3, 10] {
        let mut b = good.to_vec();
        b.extend(std::iter::repeat_n(0, extra));
        cases.push((format!("long +{extra}"), link(&b, width), Some(Reason::Long)));
    }
    for bit in 0..48 {
        let mut b = good;
        b[bit / 8] ^= 1 << (bit % 8);
        cases.push((format!("flip bit {bit}"), link(&b, width), Some(Reason::Lpcrc)));
    }
    // LPCRC sent high byte first.
    let mut swapped = good;
    swapped.swap(4, 5);
    cases.push(("LPCRC byte order".into(), link(&swapped, width), Some(Reason::Lpcrc)));
    for op in 2..16 {
        let b = encode_fields(op, 1, 0, 2).unwrap();
        cases.push((format!("op {op}"), link(&b, width), Some(Reason::ReservedOp)));
    }
    cases.push(("VL15".into(), link(&encode_fields(0, 5, 15, 6).unwrap(), width), Some(Reason::Vl15)));
    for vl in vls..15 {
        let b = encode_fields(1, 7, vl as u64, 8).unwrap();
        cases.push((format!("VL {vl} >= VLCap"), link(&b, width), Some(Reason::VlCap)));
    }
    // Cut off by the next item's sop (a data packet here): one abort, nothing else.
    let mut cut: Vec<FcpRxIn> = item_words(&good, lanes, true, false, 0).iter().map(Word::input).collect();
    cut.extend(item_words(&[0u8; 12], lanes, false, true, 0).iter().map(Word::input));
    cases.push(("no eop, then data".into(), cut, Some(Reason::Abort)));
    // Ignored: a data packet that is byte for byte a good FCP; a link packet without sop.
    let data: Vec<FcpRxIn> = item_words(&good, lanes, false, true, 0).iter().map(Word::input).collect();
    cases.push(("data packet with FCP bytes".into(), data, None));
    let mut headless = link(&good, width);
    headless[0].rx_sop = false;
    cases.push(("link packet without sop".into(), headless, None));
    cases
}

/// Every bad packet bumps exactly its own counter once, and never raises upd_valid; a
/// good one bumps good_count once and shows the encoder's fields; ignored items bump
/// nothing. Each case is checked in all three back ends (in lockstep).
#[test]
fn every_reason_counted_exactly_once() {
    for width in [32, 64] {
        for vls in [1, 4, 15] {
            let cases = directed_cases(vls, width);
            let mut inp = vec![];
            let mut marks = vec![];
            for (name, words, reason) in &cases {
                inp.extend_from_slice(words);
                inp.extend(idle(LATENCY + 2));
                marks.push((name.clone(), inp.len(), *reason));
            }
            let outs = drive(vls, width, &inp);
            let mut prev = FcpRxCounts::default();
            let mut start = 0;
            for (name, end, reason) in marks {
                let c = outs[end - 1].counts;
                for r in REASONS {
                    let want = count_of(&prev, r) + (reason == Some(r)) as u16;
                    assert_eq!(count_of(&c, r), want, "w{width} VLCap {vls} {name}: {r:?}");
                }
                let pulses = outs[start..end].iter().filter(|o| o.upd_valid).count();
                assert_eq!(pulses, (reason == Some(Reason::Good)) as usize, "w{width} VLCap {vls} {name}");
                prev = c;
                start = end;
            }
            let g = outs.iter().find(|o| o.upd_valid).unwrap();
            assert_eq!((g.upd_op, g.upd_vl, g.upd_fctbs, g.upd_fccl), (0, (vls - 1) as u8, 0x123, 0xabc));
        }
    }
}

/// Zero bubble: FCPs back to back, with valid gaps inside some, each verdict once; a
/// one-word link packet cutting an open one at 64 bits gives both verdicts in one clock.
#[test]
fn back_to_back_and_gaps() {
    for width in [32, 64] {
        let fcps: Vec<[u8; 6]> = (0..8u16)
            .map(|k| Fcp::new(FcpOp::Normal, 100 + k, (k % 4) as u8, 200 + k).unwrap().encode())
            .collect();
        let mut inp = vec![];
        for (k, f) in fcps.iter().enumerate() {
            let words = link(f, width);
            for (j, w) in words.iter().enumerate() {
                if k % 3 == 1 && j > 0 {
                    inp.push(FcpRxIn {
                        rx_data: u64::MAX,
                        rx_sop: true,
                        rx_link: true,
                        ..Default::default()
                    }); // valid = 0: ignored, even with sop set
                }
                inp.push(*w);
            }
        }
        inp.extend(idle(LATENCY + 1));
        let outs = drive(4, width, &inp);
        let got: Vec<(u8, u16, u16)> = outs
            .iter()
            .filter(|o| o.upd_valid)
            .map(|o| (o.upd_vl, o.upd_fctbs, o.upd_fccl))
            .collect();
        let want: Vec<(u8, u16, u16)> = (0..8u16).map(|k| ((k % 4) as u8, 100 + k, 200 + k)).collect();
        assert_eq!(got, want, "w{width}");
        assert_eq!(outs.last().unwrap().counts.good, 8);

        // An open link packet (no eop) cut by a one-word link packet at 64 bits: an
        // abort and a verdict (here short) in the same clock.
        if width == 64 {
            let mut inp: Vec<FcpRxIn> = item_words(&fcps[0], 8, true, false, 0).iter().map(Word::input).collect();
            let s = inp.len();
            inp.extend(link(&[0x10, 0x00], 64));
            inp.extend(idle(LATENCY + 1));
            let outs = drive(4, 64, &inp);
            assert_eq!(outs[s + LATENCY - 1].counts, FcpRxCounts::default());
            let c = outs[s + LATENCY].counts;
            assert_eq!((c.abort, c.short, c.good), (1, 1, 0));
        }
    }
}

/// A reset in clock r drops the verdicts of eops in clocks r-2..=r; an earlier one has
/// shown by clock r and counts. Counters survive the reset, upd_* clear.
#[test]
fn reset_drops_verdicts_in_flight() {
    let good = Fcp::new(FcpOp::Init, 9, 1, 10).unwrap().encode();
    for width in [32, 64] {
        for gap in 0..=LATENCY + 1 {
            // FCP, then `gap` idle clocks, then reset: the reset is in clock eop+gap+1.
            let mut inp = link(&good, width);
            let eop = inp.len() - 1;
            inp.extend(idle(gap));
            inp.push(FcpRxIn {
                reset: true,
                ..Default::default()
            });
            inp.extend(idle(LATENCY + 1));
            let outs = drive(4, width, &inp);
            let r = eop + gap + 1;
            let counted = r >= eop + LATENCY;
            let last = outs.last().unwrap();
            assert_eq!(last.counts.good, counted as u16, "w{width} reset at eop+{}", gap + 1);
            assert_eq!(outs.iter().filter(|o| o.upd_valid).count(), counted as usize);
            // After the reset upd_* are cleared.
            assert_eq!((last.upd_valid, last.upd_op, last.upd_vl, last.upd_fctbs), (false, 0, 0, 0));
        }
        // A reset in the eop word's clock: that word is dropped, the packet never ends.
        let mut inp = link(&good, width);
        let n = inp.len();
        inp[n - 1].reset = true;
        inp.extend(idle(LATENCY + 1));
        let last = *drive(4, width, &inp).last().unwrap();
        assert_eq!(last.counts, FcpRxCounts::default(), "w{width}");
        // A reset between the words of a packet: the rest of it (no sop) is ignored.
        if width == 32 {
            let mut inp = link(&good, width);
            inp.insert(
                1,
                FcpRxIn {
                    reset: true,
                    ..Default::default()
                },
            );
            inp.extend(idle(LATENCY + 1));
            let last = *drive(4, width, &inp).last().unwrap();
            assert_eq!(last.counts, FcpRxCounts::default(), "w{width}");
        }
    }
}

/// Counters are 16 bits and saturate: 70,000 one-word short link packets leave
/// short_count at 0xFFFF in every back end (compared in lockstep on the way).
#[test]
fn counters_saturate() {
    let mut sims: Vec<FcpRxSim> = Backend::ALL.iter().map(|b| sim(2, 64, *b)).collect();
    let mut refs: Vec<&mut dyn CycleSim<In = FcpRxIn, Out = FcpRxOut>> =
        sims.iter_mut().map(|s| s.as_mut() as _).collect();
    let short = link(&[0x10, 0, 0], 64)[0];
    let stim = std::iter::repeat_n(short, 70_000).chain(idle(LATENCY + 1));
    lockstep(&mut refs, stim).unwrap_or_else(|m| panic!("{m}"));
    for s in refs.iter_mut() {
        let o = s.step(&FcpRxIn::default());
        assert_eq!(o.counts.short, 0xffff, "{}", s.backend());
        assert_eq!(o.counts.good + o.counts.long + o.counts.abort, 0, "{}", s.backend());
    }
}
