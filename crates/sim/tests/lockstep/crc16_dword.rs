//! The pipelined dword CRC unit: reference model (in the unit's cycle contract),
//! Rust twin and Verilator in lockstep, docs/spec.md §3's FCP check value, and the
//! three-clock latency in every back end.

use iblink_model::crc16::crc16;
use iblink_rtl::crc16::Crc16Out;
use iblink_rtl::crc16_dword::{Crc16DwordIn, LATENCY};
use iblink_sim::blocks::Backend;
use iblink_sim::blocks::crc16_dword::{crc16_dword_sim, dword_packet};
use iblink_sim::tb::{self, harness::TbOptions};
use iblink_sim::{lockstep, CycleSim};

#[test]
fn lockstep_w32_dword() {
    let n = lockstep::cycles();
    tb::crc16_dword::run(tb::crc16_dword::SEED, &TbOptions::test(n)).unwrap().assert_passed(n);
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
