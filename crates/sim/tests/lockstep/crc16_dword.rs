//! The pipelined dword CRC unit: reference model (in the unit's cycle contract),
//! Rust twin and Verilator in lockstep, docs/spec.md §3's FCP check value, and the
//! three-clock latency in every back end.

use iblink_model::crc16::crc16;
use iblink_rtl::crc16::Crc16Out;
use iblink_rtl::crc16_dword::{Crc16DwordIn, LATENCY};
use iblink_sim::blocks::Backend;
use iblink_sim::blocks::crc16_dword::{crc16_dword_sim, dword_packet, Crc16DwordModelSim, Crc16DwordStimulus};
use iblink_sim::{lockstep, CycleSim};

/// Counts what the stimulus exercised, from its inputs and the model's outputs.
#[derive(Default)]
struct Coverage {
    inner: Crc16DwordModelSim,
    packets: u64,
    back_to_back: u64,
    /// Packets begun without `start` (after a `last` or a reset).
    startless: u64,
    /// `start` inside a packet: the packet so far is abandoned.
    abandoned: u64,
    /// Resets with a word presented in the same or one of the two previous clocks.
    resets_in_flight: u64,
    bubbles: u64,
    in_packet: bool,
    prev_last: bool,
    recent_valid: [bool; 3],
}

impl CycleSim for Coverage {
    type In = Crc16DwordIn;
    type Out = Crc16Out;
    fn backend(&self) -> &str {
        self.inner.backend()
    }
    fn step(&mut self, i: &Crc16DwordIn) -> Crc16Out {
        let o = self.inner.step(i);
        self.packets += o.crc_valid as u64;
        self.recent_valid = [i.valid, self.recent_valid[0], self.recent_valid[1]];
        if i.reset {
            self.resets_in_flight += self.recent_valid.iter().any(|v| *v) as u64;
            self.in_packet = false;
            self.prev_last = false;
            return o;
        }
        if i.valid {
            self.back_to_back += (self.prev_last && i.start) as u64;
            self.startless += (!self.in_packet && !i.start) as u64;
            self.abandoned += (self.in_packet && i.start) as u64;
            self.in_packet = !i.last;
        } else {
            self.bubbles += self.in_packet as u64;
        }
        self.prev_last = i.valid && i.last;
        o
    }
}

#[test]
fn lockstep_w32_dword() {
    let mut model = Coverage::default();
    let mut rtl = crc16_dword_sim(Backend::Rtl, None).unwrap();
    let mut vl = crc16_dword_sim(Backend::Verilator, None).unwrap();
    let n = lockstep::cycles() as usize;
    let report = lockstep(&mut [&mut model, rtl.as_mut(), vl.as_mut()], Crc16DwordStimulus::new(0xd0_0032).take(n))
        .unwrap_or_else(|m| panic!("crc16_dword: {m}"));
    assert_eq!(report.cycles, n as u64);
    eprintln!(
        "crc16_dword w32: {n} cycles, {} packets ({} back to back, {} without start), {} abandoned, \
         {} bubbles, {} resets with words in flight, 0 mismatches",
        model.packets, model.back_to_back, model.startless, model.abandoned, model.bubbles, model.resets_in_flight
    );
    assert!(model.packets > (n / 50) as u64, "too few packets: {}", model.packets);
    assert!(model.back_to_back > (n / 200) as u64, "too few back-to-back packets: {}", model.back_to_back);
    assert!(model.startless > (n / 1000) as u64, "too few packets without start: {}", model.startless);
    assert!(model.abandoned > (n / 10_000) as u64, "too few abandoned packets: {}", model.abandoned);
    assert!(model.bubbles > (n / 100) as u64, "too few bubbles: {}", model.bubbles);
    assert!(model.resets_in_flight >= 50, "too few resets with words in flight: {}", model.resets_in_flight);
}

/// Run one packet; the outputs of the clocks after its last word, `LATENCY + 1` of them.
fn run(s: &mut dyn CycleSim<In = Crc16DwordIn, Out = Crc16Out>, bytes: &[u8]) -> Vec<Crc16Out> {
    for w in dword_packet(bytes) {
        assert!(!s.step(&w).crc_valid, "{}: crc_valid while the packet is presented", s.backend());
    }
    (0..=LATENCY).map(|_| s.step(&Crc16DwordIn::default())).collect()
}

/// docs/spec.md §3: the FCP header 10 00 00 00 gives LPCRC 0x0558 (wire bytes 58 05); it
/// shows `LATENCY` = 3 clocks after the word, for exactly one clock, in every back end.
#[test]
fn fcp_lpcrc_three_clocks_after_the_word() {
    assert_eq!(LATENCY, 3);
    for b in Backend::ALL {
        let mut s = crc16_dword_sim(b, None).unwrap();
        let outs = run(s.as_mut(), &[0x10, 0, 0, 0]);
        let valid: Vec<bool> = outs.iter().map(|o| o.crc_valid).collect();
        // Clocks t+1, t+2: not yet; t+3: the CRC; t+4: gone.
        assert_eq!(valid, [false, false, true, false], "{}", b.name());
        assert_eq!(outs[2].crc.to_le_bytes(), [0x58, 0x05], "{}: wire bytes low first", b.name());
    }
}

/// Back-to-back packets of several lengths (one word each clock, no idle clock, the
/// second without `start`): one `crc_valid` per packet, each with the `crc` crate's value.
#[test]
fn back_to_back_packets_match_the_crc_crate() {
    let packets: Vec<Vec<u8>> = vec![
        (0..64u8).collect(),
        vec![0xff; 4],
        b"123456789abc".to_vec(),
        (0..=255u8).rev().collect(),
    ];
    for b in Backend::ALL {
        let mut s = crc16_dword_sim(b, None).unwrap();
        let mut words: Vec<Crc16DwordIn> = Vec::new();
        for (k, p) in packets.iter().enumerate() {
            let mut w = dword_packet(p);
            if k == 1 {
                w[0].start = false;
            }
            words.extend(w);
        }
        words.extend(std::iter::repeat_n(Crc16DwordIn::default(), LATENCY + 1));
        let got: Vec<u16> = words.iter().map(|w| s.step(w)).filter(|o| o.crc_valid).map(|o| o.crc).collect();
        let want: Vec<u16> = packets.iter().map(|p| crc16(p)).collect();
        assert_eq!(got, want, "{}", b.name());
    }
}

/// A reset drops a packet in flight: its CRC never becomes valid, and the next packet
/// (without `start`) starts from the init value.
#[test]
fn reset_drops_the_packet_in_flight() {
    for b in Backend::ALL {
        let mut s = crc16_dword_sim(b, None).unwrap();
        let first = dword_packet(&[1, 2, 3, 4, 5, 6, 7, 8]);
        s.step(&first[0]);
        s.step(&first[1]);
        // The last word is in stage 1: a reset now drops it.
        let o = s.step(&Crc16DwordIn { reset: true, ..Default::default() });
        assert!(!o.crc_valid, "{}", b.name());
        let mut second = dword_packet(&[0x10, 0, 0, 0]);
        second[0].start = false;
        let mut valids = Vec::new();
        for w in second.iter().chain(std::iter::repeat_n(&Crc16DwordIn::default(), 5)) {
            let o = s.step(w);
            if o.crc_valid {
                valids.push(o.crc);
            }
        }
        assert_eq!(valids, [0x0558], "{}", b.name());
    }
}
