//! The CRC-16 unit: reference model, Rust twin and Verilator in lockstep, and
//! docs/spec.md §3's check values in every back end at every width.

use iblink_rtl::crc16::{Crc16In, Crc16Out, WIDTHS};
use iblink_sim::blocks::crc16::{crc16_sim, crc16_through, packet_words, Crc16ModelSim, Crc16Stimulus};
use iblink_sim::blocks::Backend;
use iblink_sim::tb::{self, harness::TbOptions};
use iblink_sim::{lockstep, CycleSim};

/// The random lockstep at `width` bits with its coverage gates (`iblink_sim::tb::crc16`).
fn run_width(width: usize) {
    let n = lockstep::cycles();
    tb::crc16::run(width, tb::crc16::seed(width), &TbOptions::test(n)).unwrap().assert_passed(n);
}

#[test]
fn lockstep_w8() {
    run_width(8);
}
#[test]
fn lockstep_w16() {
    run_width(16);
}
#[test]
fn lockstep_w32() {
    run_width(32);
}
#[test]
fn lockstep_w64() {
    run_width(64);
}

/// docs/spec.md §3: "123456789" gives 0x0A3D and the FCP header 10 00 00 00 gives 0x0558,
/// at every width and in every back end.
#[test]
fn spec_check_values_everywhere() {
    for w in WIDTHS {
        for b in Backend::ALL {
            let mut s = crc16_sim(w, b, None).unwrap();
            assert_eq!(crc16_through(s.as_mut(), w, b"123456789"), 0x0a3d, "{} at {w}", b.name());
            assert_eq!(crc16_through(s.as_mut(), w, &[0x10, 0, 0, 0]), 0x0558, "{} at {w}", b.name());
        }
    }
}

/// At 32 bits an FCP's four header bytes are one word: LPCRC is ready the next clock.
#[test]
fn fcp_lpcrc_in_one_clock_at_32_bits() {
    for b in Backend::ALL {
        let mut s = crc16_sim(32, b, None).unwrap();
        let words = packet_words(&[0x10, 0, 0, 0], 32);
        assert_eq!(words.len(), 1);
        assert!(!s.step(&words[0]).crc_valid);
        let o = s.step(&Crc16In::default());
        assert!(o.crc_valid, "{}", b.name());
        assert_eq!(o.crc.to_le_bytes(), [0x58, 0x05], "{}: wire bytes low first", b.name());
        assert!(!s.step(&Crc16In::default()).crc_valid, "{}: crc_valid lasts one clock", b.name());
    }
}

/// The runner must catch a back end that is wrong: a model that forgets to honour
/// `keep` on partial words disagrees within a few packets.
#[test]
fn lockstep_catches_a_wrong_back_end() {
    struct IgnoresKeep(Crc16ModelSim);
    impl CycleSim for IgnoresKeep {
        type In = Crc16In;
        type Out = Crc16Out;
        fn backend(&self) -> &str {
            "broken"
        }
        fn step(&mut self, i: &Crc16In) -> Crc16Out {
            let mut j = *i;
            if j.keep != 0 {
                j.keep = 0xff;
            }
            self.0.step(&j)
        }
    }
    let mut good = Crc16ModelSim::new(32);
    let mut bad = IgnoresKeep(Crc16ModelSim::new(32));
    let m = lockstep(&mut [&mut good, &mut bad], Crc16Stimulus::new(32, 7).take(100_000))
        .expect_err("a back end that ignores keep must be caught");
    let text = m.to_string();
    assert!(text.contains("cycle") && text.contains("model") && text.contains("broken"), "{text}");
}

/// Both simulators write waveforms.
#[test]
fn vcd_from_rtl_and_verilator() {
    let dir = tempfile::tempdir().unwrap();
    for b in [Backend::Rtl, Backend::Verilator] {
        let path = dir.path().join(format!("crc_{}.vcd", b.name()));
        {
            let mut s = crc16_sim(32, b, Some(&path)).unwrap();
            crc16_through(s.as_mut(), 32, b"123456789");
        }
        let vcd = std::fs::read_to_string(&path).unwrap();
        assert!(vcd.contains("$enddefinitions"), "{}: not a VCD", b.name());
        assert!(vcd.contains("crc_valid"), "{}: crc_valid not traced", b.name());
    }
}
