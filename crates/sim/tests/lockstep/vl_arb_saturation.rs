//! The data-VL arbiter at saturation: every VL backlogged, packets of a fixed length on
//! the wire, the link TX path taking the next offer as soon as the current packet ends.
//! No clock is lost between packets (zero bubble), and each VL gets the share of blocks
//! its table weights give it. The reference model (in its cycle adapter), the rust-hdl
//! stepper and Verilator run side by side and must agree on every clock.

use iblink_model::arbiter::ArbEntry;
use iblink_rtl::vl_arb::{VlArbIn, VlArbOut};
use iblink_sim::blocks::Backend;
use iblink_sim::blocks::vl_arb::{vl_arb_sim, write_input, VlArbSim};
use std::sync::Mutex;

static BUILD: Mutex<()> = Mutex::new(());

fn sims(vls: usize) -> Vec<VlArbSim> {
    let _g = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    [Backend::Model, Backend::Rtl, Backend::Verilator]
        .into_iter()
        .map(|b| vl_arb_sim(vls, b, None).unwrap())
        .collect()
}

/// What a saturated run measured.
struct Run {
    packets: u64,
    /// Clocks at which the link was free (the previous packet had ended) and no offer
    /// was shown, although every VL had a packet with credits.
    idle: u64,
    blocks: [u64; 15],
}

/// Program `high` and `low` (VLHighLimit `limit`, weight policy), back every VL with
/// PktLen `pkt_len` packets, and let a consumer whose packets take `wire` clocks take
/// `packets` offers, each at the first clock the link is free.
fn saturate(
    vls: usize,
    high: &[ArbEntry],
    low: &[ArbEntry],
    limit: u8,
    pkt_len: u16,
    wire: u32,
    packets: u64,
) -> Run {
    let mut s = sims(vls);
    let all = ((1u32 << vls) - 1) as u16;
    let base = VlArbIn {
        vl_high_limit: limit,
        vl_enable: all,
        ..Default::default()
    };
    let writes = high
        .iter()
        .enumerate()
        .map(|(k, e)| (false, k, *e))
        .chain(low.iter().enumerate().map(|(k, e)| (true, k, *e)));
    let mut step = |i: &VlArbIn| -> VlArbOut {
        let outs: Vec<VlArbOut> = s.iter_mut().map(|b| b.step(i)).collect();
        assert!(
            outs.iter().all(|o| *o == outs[0]),
            "back ends disagree: {i:?} -> {outs:?}"
        );
        outs[0]
    };
    for (is_low, k, e) in writes {
        step(&VlArbIn {
            vl_high_limit: limit,
            vl_enable: all,
            ..write_input(is_low, k, e)
        });
    }
    let mut i = base;
    i.head_valid = all;
    i.head_len = [pkt_len; 15];
    let mut run = Run {
        packets: 0,
        idle: 0,
        blocks: [0; 15],
    };
    // Clocks the current packet still occupies the wire after this one.
    let mut busy = 0u32;
    let mut started = false;
    while run.packets < packets {
        // The link TX path asks for the next packet whenever the wire is free.
        i.take = busy == 0;
        let o = step(&i);
        if busy > 0 {
            busy -= 1;
        } else if o.offer_valid {
            started = true;
            run.packets += 1;
            run.blocks[o.vl as usize] += o.blocks as u64;
            busy = wire - 1;
        } else if started {
            run.idle += 1;
        }
    }
    run
}

/// Shares equal the weight ratios when every packet is one block (PktLen 6 or 7: 16 or
/// 20 bytes after the LRH): an entry of weight w then sends exactly w packets per visit
/// (its remaining weight goes w, w-1, ..., 0 and the pointer moves on), so one round of
/// a table sends sum(w) blocks, w of them from each entry. With VLHighLimit 255 and the
/// high table always eligible, the low table never gets a turn; with the high table
/// empty, the low table runs alone. Over 100,000 packets the unfinished last round is far
/// below 1 %.
fn check_shares(run: &Run, table: &[ArbEntry], vls: usize) {
    // Entries naming VL15 or a VL at or above VLCap are skipped (docs/spec.md §6).
    let mut weight = [0u64; 15];
    for e in table.iter().filter(|e| (e.vl as usize) < vls) {
        weight[e.vl as usize] += e.weight as u64;
    }
    let total_w: u64 = weight.iter().sum();
    let total_b: u64 = run.blocks.iter().sum();
    assert_eq!(total_b, run.packets, "one block per packet");
    for v in 0..vls {
        let want = weight[v] as f64 / total_w as f64;
        let got = run.blocks[v] as f64 / total_b as f64;
        assert!(
            (got - want).abs() <= 0.01 * want,
            "VL{v}: share {got:.5}, weights give {want:.5}"
        );
    }
}

/// High table with every VL, several entries per VL for some, VLHighLimit 255.
fn high_table(vls: usize) -> Vec<ArbEntry> {
    let mut t: Vec<ArbEntry> = (0..vls as u8)
        .map(|v| ArbEntry::new(v, 1 + 3 * v))
        .collect();
    // VL0 listed again; skipped entries in between (weight 0, VL15) take no turn.
    t.extend([
        ArbEntry::new(0, 5),
        ArbEntry::new(15, 9),
        ArbEntry::new(1 % vls as u8, 0),
    ]);
    t
}

fn low_table(vls: usize) -> Vec<ArbEntry> {
    (0..vls as u8)
        .rev()
        .map(|v| ArbEntry::new(v, 2 + 2 * v))
        .collect()
}

fn saturated(vls: usize, wire: u32, pkt_len: u16) {
    let packets = 100_000;
    for (name, high, low, limit) in [
        (
            "high table, VLHighLimit 255",
            high_table(vls),
            low_table(vls),
            255,
        ),
        ("low table alone", vec![], low_table(vls), 4),
    ] {
        let run = saturate(vls, &high, &low, limit, pkt_len, wire, packets);
        eprintln!(
            "VLCap {vls}, {wire}-clock packets, {name}: {} packets, {} idle clocks, blocks per VL {:?}",
            run.packets,
            run.idle,
            &run.blocks[..vls]
        );
        assert_eq!(run.idle, 0, "bubbles between packets ({name})");
        check_shares(&run, if high.is_empty() { &low } else { &high }, vls);
    }
}

/// 4 clocks on the wire: the shortest data packet (PktLen 6 or 7: 26 or 30 bytes with
/// the VCRC) at 64 bits a clock.
#[test]
fn saturated_4_clock_packets_vl15() {
    saturated(15, 4, 7);
}

/// 7 clocks: PktLen 6 (26 bytes) at 32 bits a clock.
#[test]
fn saturated_7_clock_packets_vl8() {
    saturated(8, 7, 6);
}

#[test]
fn saturated_4_clock_packets_vl2() {
    saturated(2, 4, 6);
}
