//! The TOML loaders: the port configuration (`PortConfig::from_toml`, what `iblink emit
//! --config` reads), the two-port scenario (`Scenario::from_toml`, `iblink sim
//! --scenario`), the arbitration trace input (`ArbScenario::from_toml`, `iblink
//! arb-trace`) and the PAUSE/PFC trace input (`PfcScenario::from_toml`, `iblink pfc
//! trace`), each on [`toml_inputs`] texts: valid files (the shipped `tb/scenarios/`
//! and documented examples) mutated by lines (deleted, duplicated, swapped, taken from
//! another file), by values (numbers made huge, negative, float, NaN, strings, arrays,
//! tables), by keys and table headers (known and random), and by bytes. No panic; what
//! loads is valid and usable; what does not names a field the text has, or is a TOML
//! error.

use crate::support::{self, mutate_toml, run_case, toml_inputs, Rng};
use iblink_model::blocks::{MAX_PKT_LEN, MIN_PKT_LEN};
use iblink_model::config::{ConfigError, PortConfig};
use iblink_model::ethernet::PauseKind;
use iblink_model::pfc::Mode as PfcMode;
use iblink_sim::arb_trace::{trace_model, trace_rtl, ArbScenario};
use iblink_sim::eth::run::EthRun;
use iblink_sim::eth::scenario::{is_ethernet, EthScenario};
use iblink_sim::pfc_trace::{trace_model as pfc_trace_model, PfcScenario};
use iblink_sim::blocks::Backend;
use iblink_sim::port_config::port_params;
use iblink_sim::system::capture::clock_period_ps;
use iblink_sim::system::scenario::{Scenario, SizeDist};
use std::collections::BTreeSet;
use std::path::PathBuf;

fn scenarios_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tb/scenarios")
}

/// The shipped files whose names start with `prefix`, sorted, as text.
fn shipped(prefix: &str) -> Vec<String> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(scenarios_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
        .collect();
    names.sort();
    names.iter().map(|p| std::fs::read_to_string(p).unwrap()).collect()
}

/// One input: random bytes (1 in 16), a corpus file as it is (1 in 16), or two corpus
/// files mutated into one with up to `max_edits` edits.
fn fuzz_text(rng: &mut Rng, corpus: &[String], max_edits: u64) -> String {
    match rng.below(16) {
        0 => {
            let l = rng.size(60);
            String::from_utf8_lossy(&rng.bytes(l)).into_owned()
        }
        1 => rng.pick(corpus).clone(),
        _ => {
            let (a, d) = (rng.pick(corpus).clone(), rng.pick(corpus).clone());
            mutate_toml(rng, &a, &d, max_edits)
        }
    }
}

/// The root of a field path (`traffic[2].pktlen` -> `traffic`).
fn root(field: &str) -> &str {
    field.split(['[', '.']).next().unwrap()
}

/// A field error names a key the text has (every default is valid, so only a key
/// written can be wrong), and says something about it. Keys the mutators wrote with
/// odd characters (quoted, escaped) are not looked for.
fn check_field_error(text: &str, e: &ConfigError, known: &[&str]) {
    let ConfigError::Field { field, message } = e else { return };
    let r = root(field);
    assert!(!message.trim().is_empty(), "field error without a message: {e:?}");
    assert!(e.to_string().starts_with(field.as_str()));
    if r.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') && !r.is_empty() {
        assert!(text.contains(r), "error names {r:?}, which the text does not have: {e}");
    }
    if known.contains(&r) {
        return;
    }
    // Any other key must be reported as unknown.
    assert!(message.contains("unknown field"), "error names {r:?}, not a key of this file: {e}");
}

// ---------------------------------------------------------------------------------
// Port configuration TOML (`iblink_model::config`)

/// Valid port configurations: the module's documented example, the shipped arb-trace
/// files without their queues, the shipped scenarios' `[port]` tables, and edges of
/// every range.
fn port_corpus() -> Vec<String> {
    let mut v: Vec<String> = vec![
        r#"vl_cap = 4                 # 1, 2, 4, 8 or 15 data VLs
datapath_bits = 32         # 32 or 64 (4 or 8 bytes a clock)
buffer_blocks = 256        # receive buffer per data VL, 66..=4095 blocks
refresh_symbols = 57344    # FCP refresh period per VL, symbol times
min_fcp_gap = 256          # least symbol times between on-change FCPs for a VL
vl_high_limit = 4          # VLHighLimit
low_policy = "weight"      # or "one-packet"
high = [[6, 127], [1, 63], [7, 254]]   # [vl, weight]
low = [[3, 2]]
update_monitor_periods = 2 # failsafe: no FCP for more than N spec periods -> resync (0 = off)
overrun_periods = 2        # failsafe: overruns in more than N consecutive periods -> resync
vl15_buffer_packets = 1    # VL15 receive buffer, packets
"#
        .into(),
        "".into(),
        "vl_cap = 15\ndatapath_bits = 64\nbuffer_blocks = 4095\nrefresh_symbols = 61252\nmin_fcp_gap = 65536\nvl_high_limit = 255\nlow_policy = \"one-packet\"\nupdate_monitor_periods = 65535\noverrun_periods = 0\nvl15_buffer_packets = 255\n".into(),
        "vl_cap = 1\nbuffer_blocks = 66\nrefresh_symbols = 64\nmin_fcp_gap = 0\nvl_high_limit = 0\nhigh = []\nlow = [[0, 0], [15, 255], [14, 1]]\n".into(),
        "vl_cap = 8\ndatapath_bits = 64\nbuffer_blocks = 3072\nrefresh_symbols = 40000\nmin_fcp_gap = 100\nvl_high_limit = 4\nlow_policy = \"one-packet\"\nhigh = [[6, 127], [1, 63], [7, 254]]\nlow = [[3, 2], [5, 9]]\n".into(),
    ];
    for text in shipped("arb_") {
        // The port configuration is everything before the first [[queue]].
        let cut = text.find("[[queue]]").unwrap_or(text.len());
        v.push(text[..cut].to_string());
    }
    for text in shipped("").into_iter().filter(|t| !is_ethernet(t)) {
        if let Some(at) = text.find("[port]") {
            // A scenario's [port] table, up to the next table.
            let rest = &text[at + "[port]".len()..];
            let end = rest.find("\n[").map_or(rest.len(), |e| e + 1);
            v.push(rest[..end].to_string());
        }
    }
    for t in &v {
        PortConfig::from_toml(t).unwrap_or_else(|e| panic!("corpus entry does not load: {e}\n{t}"));
    }
    v
}

const PORT_KEYS: [&str; 12] = [
    "vl_cap",
    "datapath_bits",
    "buffer_blocks",
    "refresh_symbols",
    "min_fcp_gap",
    "vl_high_limit",
    "low_policy",
    "high",
    "low",
    "update_monitor_periods",
    "overrun_periods",
    "vl15_buffer_packets",
];

/// A loaded configuration written back as TOML, every key spelled out.
fn render(c: &PortConfig) -> String {
    let table = |t: &[iblink_model::arbiter::ArbEntry]| {
        let rows: Vec<String> = t.iter().map(|e| format!("[{}, {}]", e.vl, e.weight)).collect();
        format!("[{}]", rows.join(", "))
    };
    format!(
        "vl_cap = {}\ndatapath_bits = {}\nbuffer_blocks = {}\nrefresh_symbols = {}\nmin_fcp_gap = {}\nvl_high_limit = {}\nlow_policy = \"{}\"\nhigh = {}\nlow = {}\nupdate_monitor_periods = {}\noverrun_periods = {}\nvl15_buffer_packets = {}\n",
        c.vl_cap.get(),
        c.datapath_bytes as u32 * 8,
        c.buffer_blocks,
        c.refresh_symbols,
        c.min_fcp_gap,
        c.vl_high_limit,
        match c.low_policy {
            iblink_model::arbiter::LowPolicy::Weight => "weight",
            iblink_model::arbiter::LowPolicy::OnePacket => "one-packet",
        },
        table(&c.high),
        table(&c.low),
        c.update_monitor_periods,
        c.overrun_periods,
        c.vl15_buffer_packets,
    )
}

/// A TOML error says where and what: `line L, column C: reason` (the loaders add the
/// position, and a reason where the `toml` crate's own message is empty, as it is for a
/// key with no value at the end of the text or a control character in a comment).
pub fn check_toml_message(m: &str) {
    let (pos, reason) = m.split_once(": ").unwrap_or_else(|| panic!("TOML error without a position: {m:?}"));
    assert!(pos.starts_with("line ") && pos.contains(", column "), "TOML error without a position: {m:?}");
    assert!(!reason.trim().is_empty(), "TOML error without a reason: {m:?}");
}

/// The checks on one loader result; returns "ok", "toml" or "field".
pub fn check_port_config(text: &str, r: &Result<PortConfig, ConfigError>) -> &'static str {
    match r {
        Ok(c) => {
            c.validate().expect("a loaded configuration validates");
            assert!(c.refresh_clocks() > 0 && c.spec_period_clocks() > 0);
            for s in c.skipped_entries() {
                let f = s.field();
                assert!(f.starts_with("high[") || f.starts_with("low["), "{f}");
                assert!(s.to_string().starts_with(&f));
            }
            // The link port takes every configuration the loader takes (`iblink emit
            // --config`).
            let p = port_params(c).unwrap_or_else(|e| panic!("loaded config has no port: {e}"));
            assert_eq!(
                (p.vl_cap, p.width, p.buffer_blocks),
                (c.vl_cap.get() as usize, c.datapath_bytes as usize * 8, c.buffer_blocks)
            );
            // Written back out and loaded again: the same configuration.
            let again = PortConfig::from_toml(&render(c)).unwrap_or_else(|e| panic!("re-rendered config fails: {e}\n{}", render(c)));
            assert_eq!(&again, c, "render/load round trip");
            "ok"
        }
        Err(ConfigError::Toml(m)) => {
            check_toml_message(m);
            "toml"
        }
        Err(e @ ConfigError::Field { field, .. }) => {
            assert!(PORT_KEYS.contains(&root(field)), "error names no configuration key: {e}");
            check_field_error(text, e, &PORT_KEYS);
            "field"
        }
    }
}

#[test]
fn fuzz_port_config_toml() {
    let base = support::base_seed(0xc0f1_0001);
    let n = toml_inputs();
    let corpus = port_corpus();
    let (mut ok, mut toml_err, mut field_err) = (0u64, 0u64, 0u64);
    let mut fields: BTreeSet<String> = Default::default();
    for case in 0..n {
        let mut rng = Rng::new(support::case_seed(base, case));
        let text = fuzz_text(&mut rng, &corpus, 3);
        let (kind, field) = run_case(
            "port config",
            base,
            case,
            || format!("{text:?}"),
            || {
                let r = PortConfig::from_toml(&text);
                let kind = check_port_config(&text, &r);
                (kind, r.err().and_then(|e| e.field_name().map(|f| root(f).to_string())))
            },
        );
        match kind {
            "ok" => ok += 1,
            "toml" => toml_err += 1,
            "field" => field_err += 1,
            k => unreachable!("{k}"),
        }
        if let Some(f) = field {
            fields.insert(f);
        }
    }
    eprintln!("port config: {toml_err} TOML errors, each with a position and a reason");
    support::coverage(
        "port config",
        n / 50,
        &[("loaded", ok), ("TOML errors", toml_err), ("field errors", field_err)],
    );
    // Every key's checks were reached.
    let missing: Vec<_> = PORT_KEYS.iter().filter(|k| !fields.contains(**k)).collect();
    assert!(missing.is_empty(), "port config: no field error ever named {missing:?}");
}

// ---------------------------------------------------------------------------------
// Scenarios (`iblink sim --scenario`)

const SCENARIO_KEYS: [&str; 13] = [
    "name",
    "port",
    "cycles",
    "seed",
    "activate_after",
    "arm_clocks",
    "sample_every",
    "channel",
    "fault",
    "resync",
    "sl2vl",
    "traffic",
    "drain",
];

/// Every section at once (as the module's documentation shows them).
const EVERY_SECTION: &str = r#"cycles = 5000
seed = 7
activate_after = 600
arm_clocks = 64
sample_every = 100
sl2vl = [3, 2, 1, 0]
[port]
vl_cap = 4
buffer_blocks = 128
high = [[1, 4]]
[channel]
latency_clocks = 20
fcp_loss = 0.5
data_loss = 0.01
bit_flip = 0
[[fault]]
from = 10
to = 20
suppress_fcps = true
[[fault]]
from = 15
to = 40
fcp_loss = 1
data_loss = 0.25
bit_flip = 0.5
[[resync]]
at = 300
[[resync]]
at = 100
[[traffic]]
sl = 0
pktlen = { uniform = [6, 80] }
load = 500
direction = "a_to_b"
queue_limit = 16
[[traffic]]
sl = 15
pktlen = [64, 6]
direction = "b_to_a"
[drain]
rate = [0, 4, 8, 16]
vl15_every = 3
[[drain.stall]]
from = 100
to = 200
side = "b"
vls = [0, 15]
"#;

fn check_scenario(text: &str, r: &Result<Scenario, ConfigError>, rng: &mut Rng) -> &'static str {
    let s = match r {
        Err(ConfigError::Toml(m)) => {
            check_toml_message(m);
            return "toml";
        }
        Err(e) => {
            check_field_error(text, e, &SCENARIO_KEYS);
            return "field";
        }
        Ok(s) => s,
    };
    s.port.validate().expect("a loaded scenario's port validates");
    port_params(&s.port).expect("a loaded scenario's port builds");
    let cap = s.port.vl_cap.get();
    assert!(s.cycles >= 1 && s.sample_every >= 1 && s.activate_after >= 1);
    for sl in 0..15u8 {
        assert!(s.vl_of(sl) < cap, "SL{sl} on VL{} with VLCap {cap}", s.vl_of(sl));
    }
    assert_eq!(s.vl_of(15), 15);
    let c = &s.channel;
    assert!(c.latency_clocks >= 1);
    for p in [c.fcp_loss, c.data_loss, c.bit_flip] {
        assert!((0.0..=1.0).contains(&p));
    }
    let mut edges = vec![0u64, 1, u64::MAX, rng.u64()];
    for w in &s.faults {
        assert!(w.from < w.to);
        edges.extend([w.from, w.to, w.to - 1, w.from.saturating_sub(1)]);
    }
    for clock in edges {
        let (a, b, f) = s.probabilities(clock);
        for p in [a, b, f] {
            assert!((0.0..=1.0).contains(&p), "probability {p} at clock {clock}");
        }
        for side in 0..2 {
            for vl in 0..16 {
                let _ = s.stalled(side, vl, clock);
            }
        }
    }
    assert!(s.resyncs.windows(2).all(|w| w[0] <= w[1]) && s.resyncs.iter().all(|&r| r >= 1));
    for t in &s.traffic {
        assert!(t.sl <= 15 && t.load_permille <= 1000 && (1..=4096).contains(&t.queue_limit));
        let ok = |n: u16| (MIN_PKT_LEN..=MAX_PKT_LEN).contains(&n);
        match &t.pktlen {
            SizeDist::Fixed(n) => assert!(ok(*n)),
            SizeDist::Uniform(a, b) => assert!(ok(*a) && ok(*b) && a <= b),
            SizeDist::List(l) => assert!(!l.is_empty() && l.iter().all(|&n| ok(n))),
        }
    }
    assert_eq!(s.drain.rate.len(), cap as usize);
    for st in &s.drain.stalls {
        assert!(st.from < st.to);
        for vl in 0..15u8 {
            assert!(
                st.vls & (1 << vl) == 0 || vl < cap || st.vls == u16::MAX,
                "stall on VL{vl} with VLCap {cap}"
            );
        }
    }
    let any = c.fcp_loss > 0.0 || c.data_loss > 0.0 || c.bit_flip > 0.0 || !s.faults.is_empty() || !s.resyncs.is_empty();
    assert_eq!(s.has_faults(), any);
    "ok"
}

#[test]
fn fuzz_scenario_toml() {
    let base = support::base_seed(0x5ce0_0001);
    let n = toml_inputs();
    let mut corpus: Vec<String> = shipped("quickstart");
    corpus.extend(shipped("sys_"));
    corpus.push(EVERY_SECTION.to_string());
    assert!(corpus.len() >= 5, "tb/scenarios/ has the shipped scenarios");
    for t in &corpus {
        Scenario::from_toml(t).unwrap_or_else(|e| panic!("corpus entry does not load: {e}\n{t}"));
    }
    let (mut ok, mut toml_err, mut field_err) = (0u64, 0u64, 0u64);
    let mut fields: BTreeSet<String> = Default::default();
    for case in 0..n {
        let mut rng = Rng::new(support::case_seed(base, case));
        let text = fuzz_text(&mut rng, &corpus, 4);
        let (kind, field) = run_case(
            "scenario",
            base,
            case,
            || format!("{text:?}"),
            || {
                let r = Scenario::from_toml(&text);
                let kind = check_scenario(&text, &r, &mut rng);
                (kind, r.err().and_then(|e| e.field_name().map(str::to_string)))
            },
        );
        match kind {
            "ok" => ok += 1,
            "toml" => toml_err += 1,
            "field" => field_err += 1,
            k => unreachable!("{k}"),
        }
        if let Some(f) = field {
            // Sections, and the port's keys under `port.`.
            let f = f
                .strip_prefix("port.")
                .map_or_else(|| root(&f).to_string(), |p| format!("port.{}", root(p)));
            fields.insert(f);
        }
    }
    let named: Vec<&String> = fields
        .iter()
        .filter(|f| f.starts_with("port.") || SCENARIO_KEYS.contains(&f.as_str()))
        .collect();
    eprintln!(
        "scenario: {toml_err} TOML errors, each with a position and a reason; field errors named {named:?} and {} unknown keys",
        fields.len() - named.len()
    );
    support::coverage(
        "scenario",
        n / 50,
        &[("loaded", ok), ("TOML errors", toml_err), ("field errors", field_err)],
    );
    let want = [
        "cycles",
        "seed",
        "activate_after",
        "arm_clocks",
        "sample_every",
        "channel",
        "fault",
        "resync",
        "sl2vl",
        "traffic",
        "drain",
        "port.vl_cap",
    ];
    let missing: Vec<_> = want.iter().filter(|k| !fields.contains(**k)).collect();
    assert!(missing.is_empty(), "scenario: no field error ever named {missing:?}");
}

// ---------------------------------------------------------------------------------
// Arbitration trace input (`iblink arb-trace`)

/// What loads is traced by the model (every packet granted or stranded), and one input
/// in 16 also by the arbiter's twin, which must grant the same sequence.
#[test]
fn fuzz_arb_trace_toml() {
    let base = support::base_seed(0xa2b0_0001);
    let n = toml_inputs();
    let corpus = shipped("arb_");
    assert!(!corpus.is_empty(), "tb/scenarios/ has the arb-trace examples");
    let mut known: Vec<&str> = PORT_KEYS.to_vec();
    known.push("queue");
    let (mut ok, mut toml_err, mut field_err, mut grants) = (0u64, 0u64, 0u64, 0u64);
    let rtl_runs = std::cell::Cell::new(0u64);
    for case in 0..n {
        let mut rng = Rng::new(support::case_seed(base, case));
        let text = fuzz_text(&mut rng, &corpus, 4);
        let kind = run_case(
            "arb trace",
            base,
            case,
            || format!("{text:?}"),
            || match ArbScenario::from_toml(&text) {
                Ok(a) => {
                    a.config.validate().expect("validated");
                    let cap = a.config.vl_cap.get() as usize;
                    assert_eq!(a.queues.len(), 15);
                    for (vl, q) in a.queues.iter().enumerate() {
                        assert!(q.is_empty() || vl < cap, "packets queued on VL{vl} with VLCap {cap}");
                        assert!(q.iter().all(|n| (MIN_PKT_LEN..=MAX_PKT_LEN).contains(n)));
                    }
                    // The model's trace: every packet granted once or left stranded.
                    let t = trace_model(&a);
                    let stranded: usize = t.stranded.iter().map(|(_, k)| k).sum();
                    assert_eq!(t.grants.len() + stranded, a.packets());
                    // Now and then the arbiter's twin, programmed through its write port,
                    // clock by clock: the same grants (`iblink arb-trace --backend rtl`).
                    if case % 16 == 0 {
                        let r = trace_rtl(&a, Backend::Rtl).expect("the twin builds");
                        assert_eq!(r.grants, t.grants, "twin and model grant differently");
                        assert_eq!(r.stranded, t.stranded);
                        rtl_runs.set(rtl_runs.get() + 1);
                    }
                    Ok(t.grants.len() as u64)
                }
                Err(ConfigError::Toml(m)) => {
                    check_toml_message(&m);
                    Err("toml")
                }
                Err(e) => {
                    check_field_error(&text, &e, &known);
                    Err("field")
                }
            },
        );
        match kind {
            Ok(g) => {
                ok += 1;
                grants += g;
            }
            Err("field") => field_err += 1,
            Err(_) => toml_err += 1,
        }
    }
    support::coverage(
        "arb trace",
        n / 50,
        &[
            ("loaded", ok),
            ("granted packets", grants),
            ("TOML errors", toml_err),
            ("field errors", field_err),
        ],
    );
    support::coverage("arb trace, twin against model", n / 1000, &[("traces", rtl_runs.get())]);
}

// ---------------------------------------------------------------------------------
// PAUSE/PFC trace input (`iblink pfc trace`)

/// What loads is valid (`PfcConfig::validate`, events in range and in clock order) and,
/// when short enough, traced by the model: frames in clock order at least a frame apart,
/// PFC enables within the queues' masks, PAUSE frames only in PAUSE mode. What does not
/// load names a field the text has, or one that is missing.
#[test]
fn fuzz_pfc_trace_toml() {
    let base = support::base_seed(0xb7c0_0001);
    let n = toml_inputs();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tb/pfc");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    let corpus: Vec<String> = names.iter().map(|p| std::fs::read_to_string(p).unwrap()).collect();
    assert!(corpus.len() >= 2, "tb/pfc/ has the trace examples");
    let known = ["mode", "sa", "datapath_bits", "zero_quanta_on_release", "refresh_quanta", "clocks", "queue", "event"];
    let (mut ok, mut toml_err, mut field_err, mut frames) = (0u64, 0u64, 0u64, 0u64);
    for case in 0..n {
        let mut rng = Rng::new(support::case_seed(base, case));
        let text = fuzz_text(&mut rng, &corpus, 4);
        let kind = run_case(
            "pfc trace",
            base,
            case,
            || format!("{text:?}"),
            || match PfcScenario::from_toml(&text) {
                Ok(s) => {
                    s.config.validate().expect("validated");
                    let nq = s.config.queues.len();
                    assert!(s.events.windows(2).all(|w| w[0].clock <= w[1].clock));
                    assert!(s.events.iter().all(|e| e.clock < s.clocks && e.queue < nq));
                    if s.clocks > 50_000 {
                        return Ok(0);
                    }
                    let t = pfc_trace_model(&s);
                    let masks = s.config.queues.iter().fold(0u16, |m, q| m | q.priorities as u16);
                    for w in t.windows(2) {
                        assert!(w[1].clock >= w[0].clock + s.config.frame_clocks(), "frames overlap: {} then {}", w[0], w[1]);
                    }
                    for l in &t {
                        match (s.config.mode, l.kind) {
                            (PfcMode::Pfc, PauseKind::Pfc { enable, .. }) => assert!(enable != 0 && enable & !masks == 0, "{l}"),
                            (PfcMode::Pause, PauseKind::Pause { .. }) => {}
                            _ => panic!("{l} in {:?} mode", s.config.mode),
                        }
                    }
                    Ok(t.len() as u64)
                }
                Err(ConfigError::Toml(m)) => {
                    check_toml_message(&m);
                    Err("toml")
                }
                Err(e) => {
                    // A required key may be missing: then the text need not have it.
                    let missing = matches!(&e, ConfigError::Field { message, .. } if message.starts_with("missing"));
                    if !missing {
                        check_field_error(&text, &e, &known);
                    }
                    Err("field")
                }
            },
        );
        match kind {
            Ok(f) => {
                ok += 1;
                frames += f;
            }
            Err("field") => field_err += 1,
            Err(_) => toml_err += 1,
        }
    }
    support::coverage(
        "pfc trace",
        n / 50,
        &[("loaded", ok), ("frames traced", frames), ("TOML errors", toml_err), ("field errors", field_err)],
    );
}

// ---------------------------------------------------------------------------------
// Ethernet scenarios (`iblink sim --scenario eth_*.toml`)

/// What loads keeps the port's rules (`EthPortConfig::validate`), every generator's
/// priority is in a queue's mask, one rate per queue, stall windows not empty; one in 10
/// of them runs 2,000 clocks on the model (short wires only) with every frame accounted
/// for. What does not load names a field the text has, or one that is missing.
#[test]
fn fuzz_eth_scenario_toml() {
    let base = support::base_seed(0xe7a0_0001);
    let n = toml_inputs();
    let corpus = shipped("eth_");
    assert!(corpus.len() >= 4, "tb/scenarios/ has the Ethernet scenarios");
    let known = ["link", "name", "cycles", "seed", "sample_every", "port", "wire", "traffic", "drain", "sweep"];
    let (mut ok, mut toml_err, mut field_err, mut ran) = (0u64, 0u64, 0u64, 0u64);
    for case in 0..n {
        let mut rng = Rng::new(support::case_seed(base, case));
        let text = fuzz_text(&mut rng, &corpus, 4);
        let run_it = rng.below(10) == 0;
        let kind = run_case(
            "eth scenario",
            base,
            case,
            || format!("{text:?}"),
            || match EthScenario::from_toml(&text) {
                Ok(mut s) => {
                    s.port.validate().expect("validated");
                    let nq = s.port.pfc.queues.len();
                    assert_eq!(s.drain_rate.len(), nq);
                    assert_eq!(s.port.rx_buffer_bytes.len(), nq);
                    for t in &s.traffic {
                        assert!(s.port.pfc.queues[s.port.queue_of(t.priority)].priorities >> t.priority & 1 == 1);
                    }
                    assert!(s.stalls.iter().all(|st| st.from < st.to && st.queues >> nq == 0));
                    if !run_it || s.latency_clocks > 2000 {
                        return Ok(false);
                    }
                    s.cycles = 2000;
                    s.sweep = None;
                    let r = EthRun::model(&s, false).finish();
                    assert!(r.errors.is_empty(), "{:?}", r.errors);
                    Ok(true)
                }
                Err(ConfigError::Toml(m)) => {
                    check_toml_message(&m);
                    Err("toml")
                }
                Err(e) => {
                    let missing = matches!(&e, ConfigError::Field { message, .. } if message.starts_with("missing"));
                    if !missing {
                        check_field_error(&text, &e, &known);
                    }
                    Err("field")
                }
            },
        );
        match kind {
            Ok(r) => {
                ok += 1;
                ran += r as u64;
            }
            Err("field") => field_err += 1,
            Err(_) => toml_err += 1,
        }
    }
    support::coverage("eth scenario", n / 100, &[("loaded", ok), ("TOML errors", toml_err), ("field errors", field_err)]);
    support::coverage("eth scenario", n / 200, &[("ran on the model", ran)]);
}

// ---------------------------------------------------------------------------------
// `iblink sim --clock-mhz` (as Hz): the capture's clock period

#[test]
fn fuzz_capture_clock_period() {
    let base = support::base_seed(0xc10c_0001);
    let n = support::inputs();
    let (mut ok, mut bad) = (0u64, 0u64);
    for case in 0..n {
        let mut rng = Rng::new(support::case_seed(base, case));
        let hz = match rng.below(4) {
            0 => rng.u64(),
            1 => rng.u64() >> rng.below(64),
            2 => 2_000_000_000_000u64.wrapping_add(rng.below(5)).wrapping_sub(2),
            _ => rng.below(1_000_000_000),
        };
        let r = run_case("clock period", base, case, || hz.to_string(), || clock_period_ps(hz).ok());
        match r {
            Some(ps) => {
                ok += 1;
                assert!(hz > 0 && ps >= 1, "{hz} Hz: {ps} ps");
                // Rounded to the nearest picosecond.
                let exact = 1e12 / hz as f64;
                assert!(
                    (ps as f64 - exact).abs() <= 0.5 + exact * 1e-12,
                    "{hz} Hz: {ps} ps, exactly {exact}"
                );
            }
            None => {
                bad += 1;
                assert!(hz == 0 || hz > 2_000_000_000_000, "{hz} Hz refused");
            }
        }
    }
    support::coverage("clock period", n / 100, &[("periods", ok), ("refused", bad)]);
}
