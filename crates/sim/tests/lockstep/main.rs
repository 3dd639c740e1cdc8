//! Every block's lockstep test, in one test binary. The design and its tests are
//! parallel trees with the same names: block `crates/rtl/src/<block>/`, its back ends
//! `crates/sim/src/blocks/<block>.rs`, its lockstep `crates/sim/tests/lockstep/<block>.rs`,
//! a module of this file. One binary links once, and its tests share the two cores (a
//! block with few configurations runs beside a long one), where a binary per block ran
//! them one after another. Run one block with a filter:
//! `cargo test --release -p iblink-sim --test lockstep vl_arb::`.

mod crc16;
mod crc16_dword;
mod eth_port;
mod eth_rxbuf;
mod eth_txq;
mod failsafe;
mod fcp_rx;
mod fcp_tx;
mod link_port;
mod link_port_failsafe;
mod link_rx;
mod link_tx;
mod pause_rx;
mod pfc_frame;
mod pfc_tx;
mod sl2vl;
mod tx_credits;
mod vl15_rx;
mod vl_arb;
mod vl_arb_saturation;

/// A file in `tests/lockstep/` that is not a module above would never run, and each one
/// is named after a block of `crates/rtl/src/` (or is that block's `<block>_<topic>.rs`).
#[test]
fn every_lockstep_file_is_a_module_here() {
    let here = include_str!("main.rs");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("tests/lockstep");
    let blocks: Vec<String> = std::fs::read_dir(root.join("../rtl/src"))
        .expect("crates/rtl/src")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let mut files = 0;
    for e in std::fs::read_dir(&dir).expect("tests/lockstep") {
        let name = e.expect("dir entry").path().file_stem().unwrap().to_string_lossy().into_owned();
        if name == "main" {
            continue;
        }
        assert!(here.contains(&format!("\nmod {name};\n")), "tests/lockstep/{name}.rs is not a module of tests/lockstep/main.rs");
        assert!(
            blocks.iter().any(|b| name == *b || name.starts_with(&format!("{b}_"))),
            "tests/lockstep/{name}.rs is named after no block of crates/rtl/src"
        );
        files += 1;
    }
    assert!(files >= 18, "found {files} files in {}", dir.display());
}

/// Every block's port binding (derived by `hdl_block!` from its one list of ports) against
/// the twin inside it: the rust-hdl block stepped through its ports (what the `rtl` back
/// end runs when it writes a waveform) shows, clock by clock, what the twin alone shows,
/// on random values of every input port; and `pack` (the Verilator slots) is the inverse
/// of reading the inputs back. A port wired to the wrong field, a lane width or a mask
/// wrong, fails here.
mod bindings {
    use iblink_rtl::bits::mask;
    use iblink_rtl::io::{top_ports, Dir, HdlIo};
    use iblink_rtl::rx_credits::{DEFAULT_CAPACITY, MAX_CAPACITY};
    use iblink_sim::blocks::pause_rx::PauseRxStimulus;
    use iblink_sim::blocks::vl_arb::VlArbStimulus;
    use iblink_sim::{CycleSim, HdlStepper};

    const CYCLES: usize = 3000;

    fn next(s: &mut u64) -> u64 {
        // xorshift64*
        *s ^= *s >> 12;
        *s ^= *s << 25;
        *s ^= *s >> 27;
        s.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Random values of every input port, a reset (`reset`, `restart`) one clock in 512
    /// so state builds up between them, as slots; each checked to be `pack`'s inverse.
    fn random_inputs<B: HdlIo>(name: &str) -> impl Iterator<Item = B::In> + '_ {
        let ports = top_ports(&B::default());
        let widths: Vec<(usize, bool)> = B::PORTS
            .iter()
            .filter(|p| p.dir == Dir::Input)
            .map(|p| {
                let port = ports.iter().find(|q| q.name == p.name).unwrap_or_else(|| panic!("{name}: no port {}", p.name));
                (port.width, ["reset", "restart"].contains(&p.name))
            })
            .collect();
        let mut rng = 0x5eed_0000 ^ (name.len() as u64 * 0x9e37_79b9);
        std::iter::from_fn(move || {
            let mut slots = vec![];
            for &(w, reset) in &widths {
                for k in 0..w.div_ceil(64) {
                    let x = next(&mut rng);
                    slots.push(if reset { (x % 512 == 0) as u64 } else { x & mask(w - 64 * k) });
                }
            }
            let i = B::unpack_in(&slots);
            let mut back = vec![0; slots.len()];
            B::pack(&i, &mut back);
            assert_eq!(back, slots, "{name}: pack(unpack_in(slots)) is not the slots");
            Some(i)
        })
    }

    /// `CYCLES` clocks of random inputs. Returns 1 (checked).
    fn check<B: HdlIo>(name: &str) -> usize {
        check_with::<B>(name, random_inputs::<B>(name))
    }

    /// `CYCLES` clocks of `inputs`: the stepper against the twin. Returns 1 when the
    /// outputs changed enough for the comparison to mean something, else 0.
    fn check_with<B: HdlIo>(name: &str, inputs: impl Iterator<Item = B::In>) -> usize {
        let mut reference = B::default();
        let mut stepper = HdlStepper::new(B::default());
        let (mut changed, mut last) = (0, None);
        for (t, i) in inputs.take(CYCLES).enumerate() {
            let want = reference.step_twin(&i);
            let got = stepper.step(&i);
            assert_eq!(got, want, "{name}: clock {t}: the rust-hdl block's outputs differ from its twin's\ninputs {i:?}");
            changed += (last != Some(want)) as usize;
            last = Some(want);
        }
        if changed < 20 {
            eprintln!("{name}: the outputs changed in only {changed} of {CYCLES} clocks");
            return 0;
        }
        1
    }

    #[test]
    fn every_rust_hdl_block_shows_its_twin() {
        let mut n = 0;
        for w in [8, 16, 32, 64] {
            n += iblink_rtl::with_crc16!(w, |T| check::<T>(&format!("crc16 w{w}")), _ => 0);
            n += iblink_rtl::with_crc16_dword!(w, |T| check::<T>("crc16_dword"), _ => 0);
            n += iblink_rtl::with_link_tx!(w, |T| check::<T>(&format!("link_tx w{w}")), _ => 0);
            // Random words are never a PAUSE/PFC frame: its own stimulus sends some.
            n += iblink_rtl::with_pause_rx!(w, |T| check_with::<T>(&format!("pause_rx w{w}"), PauseRxStimulus::new(0x5eed, w)), _ => 0);
        }
        for v in [1, 2, 4, 8, 15] {
            n += iblink_rtl::with_tx_credits!(v, |T| check::<T>(&format!("tx_credits vl{v}")), _ => 0);
            n += iblink_rtl::with_sl2vl!(v, |T| check::<T>(&format!("sl2vl vl{v}")), _ => 0);
            // Random writes keep the tables from offering: its own stimulus.
            n += iblink_rtl::with_vl_arb!(v, |T| check_with::<T>(&format!("vl_arb vl{v}"), VlArbStimulus::new(v, 0x5eed)), _ => 0);
            n += iblink_rtl::with_failsafe!(v, |T| check::<T>(&format!("failsafe vl{v}")), _ => 0);
            n += iblink_rtl::with_vl15_rx!(v, |T| check::<T>(&format!("vl15_rx cap{v}")), _ => 0);
            for cap in [DEFAULT_CAPACITY, 3072, MAX_CAPACITY] {
                n += iblink_rtl::with_rx_credits!((v, cap), |T| check::<T>(&format!("rx_credits vl{v} cap{cap}")), _ => 0);
            }
            for w in [32, 64] {
                n += iblink_rtl::with_fcp_rx!((v, w), |T| check::<T>(&format!("fcp_rx vl{v} w{w}")), _ => 0);
                n += iblink_rtl::with_fcp_tx!((v, w), |T| check::<T>(&format!("fcp_tx vl{v} w{w}")), _ => 0);
                n += iblink_rtl::with_link_rx!((v, w), |T| check::<T>(&format!("link_rx vl{v} w{w}")), _ => 0);
                n += iblink_rtl::with_link_port!((v, w), |T| check::<T>(&format!("link_port vl{v} w{w}")), _ => 0);
            }
        }
        for q in [1, 2, 3, 4, 5, 6, 7, 8] {
            for w in [32, 64] {
                n += iblink_rtl::with_pfc_tx!((q, w), |T| check::<T>(&format!("pfc_tx q{q} w{w}")), _ => 0);
                n += iblink_rtl::with_pfc_frame!((q, w), |T| check::<T>(&format!("pfc_frame q{q} w{w}")), _ => 0);
                n += iblink_rtl::with_eth_txq!((q, w), |T| check::<T>(&format!("eth_txq q{q} w{w}")), _ => 0);
                n += iblink_rtl::with_eth_rxbuf!((q, w), |T| check::<T>(&format!("eth_rxbuf q{q} w{w}")), _ => 0);
                n += iblink_rtl::with_eth_port!((q, w), |T| check::<T>(&format!("eth_port q{q} w{w}")), _ => 0);
            }
        }
        assert_eq!(n, 160, "configurations checked (the others' outputs hardly changed: see above)");
    }
}
