//! The data-VL arbiter: reference model (in its cycle adapter), Rust twin and
//! Verilator in lockstep on random traffic for every VLCap, and seed 003's Figure 25-10
//! walk-through replayed through the RTL with the seed's numbers.

use iblink_model::arbiter::{ArbEntry, TableId, HIGH_LIMIT_UNBOUNDED};
use iblink_rtl::vl_arb::{VlArbIn, VlArbOut, TAKE_GAP};
use iblink_sim::blocks::Backend;
use iblink_sim::blocks::vl_arb::{
    trace_line, vl_arb_sim, write_input, ArbCycleModel, VlArbSim, VlArbStimulus,
};
use iblink_sim::{lockstep, CycleSim};
use std::sync::Mutex;

/// One Verilator build at a time (the bridge's build directories are per process).
static BUILD: Mutex<()> = Mutex::new(());

fn sim(vls: usize, b: Backend) -> VlArbSim {
    let _g = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    vl_arb_sim(vls, b, None).unwrap()
}

/// Counts what the stimulus exercised, from the model's state, inputs and grants.
#[derive(Default, Debug)]
struct Counts {
    high_grants: u64,
    low_grants: u64,
    /// A high packet drove the HighPriCounter negative: the low table's turn.
    switch_by_counter: u64,
    /// The high table's turn, but nothing eligible there: a low packet.
    switch_by_no_eligible: u64,
    /// A low packet right after a low packet from the same entry (weight policy).
    low_turn_runs: u64,
    one_packet_low_grants: u64,
    overdrawn: u64,
    limit0_grants: u64,
    limit255_grants: u64,
    /// Takes at the first clock an offer can show after the previous take.
    earliest_takes: u64,
    /// Table writes while an offer was shown or within 8 clocks of a take.
    writes_in_traffic: u64,
    /// Writes to the active entry of their table (its remaining weight reloads).
    writes_to_active: u64,
    /// Writes naming VL15 or a VL at or above VLCap with a weight (skipped entries).
    writes_unusable_vl: u64,
    /// Clocks with no offer, no holdoff: nothing eligible.
    idle: u64,
    /// Clocks an offer was shown but not taken.
    offers_waiting: u64,
    limit_changes: u64,
    policy_changes: u64,
    enable_changes: u64,
    resets: u64,
}

struct Coverage {
    inner: ArbCycleModel,
    c: Counts,
    clock: u64,
    last_take: Option<u64>,
    last_config: Option<u64>,
    prev: VlArbIn,
    prev_grant: Option<(TableId, u8)>,
}

impl CycleSim for Coverage {
    type In = VlArbIn;
    type Out = VlArbOut;
    fn backend(&self) -> &str {
        self.inner.backend()
    }
    fn step(&mut self, i: &VlArbIn) -> VlArbOut {
        let vls = self.inner.vls();
        let a = self.inner.arbiter();
        let before_active = a.active();
        let limit = a.vl_high_limit();
        if i.wr_en {
            let t = if i.wr_low {
                TableId::Low
            } else {
                TableId::High
            };
            self.c.writes_to_active += (a.pointer(t).0 == i.wr_index & 0x3f) as u64;
            self.c.writes_unusable_vl += (i.wr_weight != 0 && i.wr_vl as usize >= vls) as u64;
        }
        let o = self.inner.step(i);
        let recent_take = self.last_take.is_some_and(|t| self.clock - t < 8);
        if i.wr_en && (o.offer_valid || recent_take) {
            self.c.writes_in_traffic += 1;
        }
        let quiet = self.last_take.is_none_or(|t| self.clock - t >= 4)
            && self.last_config.is_none_or(|t| self.clock - t >= 5);
        self.c.idle += (quiet && !o.offer_valid) as u64;
        self.c.offers_waiting += (o.offer_valid && !i.take) as u64;
        if let Some(g) = self.inner.committed() {
            match g.table {
                TableId::High => {
                    self.c.high_grants += 1;
                    self.c.switch_by_counter += (g.high_counter < 0) as u64;
                    self.c.limit0_grants += (limit == 0) as u64;
                    self.c.limit255_grants += (limit == HIGH_LIMIT_UNBOUNDED) as u64;
                }
                TableId::Low => {
                    self.c.low_grants += 1;
                    self.c.switch_by_no_eligible += (before_active == TableId::High) as u64;
                    self.c.low_turn_runs +=
                        (self.prev_grant == Some((TableId::Low, g.entry))) as u64;
                    self.c.one_packet_low_grants += self.prev.one_packet as u64;
                }
            }
            self.c.overdrawn += (g.weight_left < 0) as u64;
            self.c.earliest_takes +=
                self.last_take
                    .is_some_and(|t| self.clock - t == TAKE_GAP as u64) as u64;
            self.last_take = Some(self.clock);
            self.prev_grant = Some((g.table, g.entry));
        }
        let m = ((1u32 << vls) - 1) as u16;
        let limit_change = i.vl_high_limit != self.prev.vl_high_limit;
        let policy_change = i.one_packet != self.prev.one_packet;
        let enable_change = i.vl_enable & m != self.prev.vl_enable & m;
        self.c.limit_changes += limit_change as u64;
        self.c.policy_changes += policy_change as u64;
        self.c.enable_changes += enable_change as u64;
        self.c.resets += i.reset as u64;
        if i.wr_en || i.reset || limit_change || policy_change || enable_change {
            self.last_config = Some(self.clock);
        }
        self.prev = *i;
        self.clock += 1;
        o
    }
}

fn run(vls: usize) {
    let mut model = Coverage {
        inner: ArbCycleModel::new(vls),
        c: Counts::default(),
        clock: 0,
        last_take: None,
        last_config: None,
        prev: VlArbIn::default(),
        prev_grant: None,
    };
    let mut rtl = sim(vls, Backend::Rtl);
    let mut vl = sim(vls, Backend::Verilator);
    let n = lockstep::cycles() as usize;
    let report = lockstep(
        &mut [&mut model, rtl.as_mut(), vl.as_mut()],
        VlArbStimulus::new(vls, 0xa4b0 + vls as u64).take(n),
    )
    .unwrap_or_else(|m| panic!("vl_arb VLCap {vls}: {m}"));
    assert_eq!(report.cycles, n as u64);
    let c = &model.c;
    eprintln!("vl_arb VLCap {vls}: {n} cycles, 0 mismatches, {c:?}");
    let grants = c.high_grants + c.low_grants;
    assert!(grants > n as u64 / 40, "too few grants: {grants}");
    assert!(
        c.high_grants > n as u64 / 100 && c.low_grants > n as u64 / 100,
        "{c:?}"
    );
    assert!(c.switch_by_counter > 1000, "{c:?}");
    assert!(c.switch_by_no_eligible > 1000, "{c:?}");
    assert!(
        c.low_turn_runs > 1000 && c.one_packet_low_grants > 1000,
        "{c:?}"
    );
    assert!(c.overdrawn > 1000, "{c:?}");
    assert!(c.limit0_grants > 100 && c.limit255_grants > 100, "{c:?}");
    assert!(c.earliest_takes > 1000, "{c:?}");
    assert!(
        c.writes_in_traffic > 1000 && c.writes_to_active > 200,
        "{c:?}"
    );
    if vls < 15 {
        assert!(c.writes_unusable_vl > 100, "{c:?}");
    }
    assert!(c.idle > n as u64 / 100, "{c:?}");
    assert!(c.offers_waiting > n as u64 / 100, "{c:?}");
    assert!(
        c.limit_changes > 50 && c.policy_changes > 50 && c.resets >= 5,
        "{c:?}"
    );
    if vls > 1 {
        assert!(c.enable_changes > 50, "{c:?}");
    }
}

#[test]
fn lockstep_vl1() {
    run(1);
}
#[test]
fn lockstep_vl2() {
    run(2);
}
#[test]
fn lockstep_vl4() {
    run(4);
}
#[test]
fn lockstep_vl8() {
    run(8);
}
#[test]
fn lockstep_vl15() {
    run(15);
}

/// Seed 003, Figure 25-10 (the model's acceptance test, crates/model/tests/
/// seed003_figure_25_10.rs): high table VL6/127, VL1/63, VL7/254; low table VL3/2,
/// VL0/64; VLHighLimit 4; every packet PktLen 1024 (64 blocks); all VLs backlogged with
/// credits; the consumer takes every offer at once. Both low-table policies.
fn figure_25_10(b: Backend, one_packet: bool) -> Vec<String> {
    let mut s = sim(8, b);
    let idle = VlArbIn {
        vl_high_limit: 4,
        one_packet,
        vl_enable: 0xff,
        ..Default::default()
    };
    let high = [
        ArbEntry::new(6, 127),
        ArbEntry::new(1, 63),
        ArbEntry::new(7, 254),
    ];
    let low = [ArbEntry::new(3, 2), ArbEntry::new(0, 64)];
    let writes = high
        .iter()
        .enumerate()
        .map(|(k, e)| (false, k, *e))
        .chain(low.iter().enumerate().map(|(k, e)| (true, k, *e)));
    for (is_low, k, e) in writes {
        s.step(&VlArbIn {
            vl_high_limit: 4,
            one_packet,
            vl_enable: 0xff,
            ..write_input(is_low, k, e)
        });
    }
    let mut heads = idle;
    for v in [0, 1, 3, 6, 7] {
        heads.head_valid |= 1 << v;
        heads.head_len[v] = 1024;
    }
    heads.take = true;
    let mut lines = Vec::new();
    for _ in 0..100 {
        let o = s.step(&heads);
        if o.offer_valid {
            lines.push(trace_line(&o));
            if lines.len() == 7 {
                break;
            }
        }
    }
    lines
}

#[test]
fn figure_25_10_through_the_rtl() {
    let expected = [
        "vl=6 table=high entry=0 blocks=64 weight_left=63 high_counter=3072",
        "vl=6 table=high entry=0 blocks=64 weight_left=-1 high_counter=2048",
        "vl=1 table=high entry=1 blocks=64 weight_left=-1 high_counter=1024",
        "vl=7 table=high entry=2 blocks=64 weight_left=190 high_counter=0",
        "vl=7 table=high entry=2 blocks=64 weight_left=126 high_counter=-1024",
        "vl=3 table=low entry=0 blocks=64 weight_left=-62 high_counter=4096",
        "vl=7 table=high entry=2 blocks=64 weight_left=62 high_counter=3072",
    ];
    for b in [Backend::Model, Backend::Rtl, Backend::Verilator] {
        for one_packet in [false, true] {
            assert_eq!(
                figure_25_10(b, one_packet),
                expected,
                "{b:?}, one_packet {one_packet}"
            );
        }
    }
}
