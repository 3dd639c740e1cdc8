//! What an Ethernet run prints: the summary per direction and queue, and the headroom
//! sweep with the bound it is held against.

use super::run::{dir_name, EthReport, EthRun};
use super::scenario::EthScenario;
use iblink_model::config::ConfigError;
use iblink_model::eth_port::{EthPortConfig, MAX_FRAME_BYTES, TX_PAUSE_SEEN_DELAY};
use iblink_model::ethernet::FRAME_BYTES;
use iblink_model::pfc::{Mode, FRAME_LATENCY, RX_DECIDE_DELAY};
use std::fmt::Write as _;

/// Headroom (`size_bytes - rfa_bytes`) that no sequence of frames can overrun, for a wire
/// of `latency` clocks each way behind MACs that spend `mac_overhead` bytes of line time
/// a frame (preamble and gap), with (`reverse`) or without data frames the other way.
///
/// Counted from the clock the frame that takes the fill above RFA is stored (that frame
/// itself: up to the `N` words of a maximum frame above RFA), the words still to arrive,
/// one a clock: the frame stored in the clock after its last word and its fill seen a
/// clock after that (docs/spec.md §10), and the trigger's [`FRAME_LATENCY`] to the
/// PAUSE/PFC frame's first byte, a data frame of ours ahead of it (`reverse`), the MAC's
/// gap before the PAUSE/PFC frame (`G = ceil(mac_overhead / (W/8))` clocks at most: it
/// owes less than a word before a frame's gap, and stalls while it owes a word), the
/// PAUSE/PFC frame, the wire, the other end's decision (its choice first holds the
/// queue in the fifth clock after the frame's last byte: `pause_rx` shows it from the
/// third and the choice reads it two clocks later, docs/spec.md §10), the data frame it
/// had started, and the wire back: in bytes,
/// `W/8 x (N + 2 x latency + 2 + FRAME_LATENCY + N + 2 + N x reverse + G) + 64`; the `2`
/// is the receive side's decision and the choice's reading each a clock later than a
/// clock each ([`RX_DECIDE_DELAY`] - 1 + [`TX_PAUSE_SEEN_DELAY`] - 1).
pub fn headroom_bound(cfg: &EthPortConfig, latency: u32, mac_overhead: u32, reverse: bool) -> u64 {
    let wb = cfg.word_bytes() as u64;
    let n = (MAX_FRAME_BYTES as u64).div_ceil(wb);
    let gap = (mac_overhead as u64).div_ceil(wb);
    let late = RX_DECIDE_DELAY - 1 + TX_PAUSE_SEEN_DELAY as u64 - 1;
    wb * (n + 2 * latency as u64 + 2 + FRAME_LATENCY + n + late + n * reverse as u64 + gap) + FRAME_BYTES as u64
}

fn pct(n: u64, d: u64) -> String {
    if d == 0 {
        "-".into()
    } else {
        format!("{:.2} %", 100.0 * n as f64 / d as f64)
    }
}

/// The summary of a run.
pub fn summary(r: &EthReport, s: &EthScenario) -> String {
    let mut o = String::new();
    let p = &s.port.pfc;
    let wb = p.datapath_bits / 8;
    let link = r.cycles * wb as u64;
    let _ = writeln!(
        o,
        "{}: {} back end, {} mode, {}-bit link ({wb} bytes a clock), MACs spending {} bytes a frame on preamble and gap, wire {} clocks each way, {} clocks of traffic (+{} to flush)",
        s.name,
        r.backend,
        if p.mode == Mode::Pfc { "PFC" } else { "PAUSE" },
        p.datapath_bits,
        s.mac_overhead_bytes,
        s.latency_clocks,
        r.cycles,
        r.flush_clocks
    );
    for (d, qs) in r.dirs.iter().enumerate() {
        let _ = writeln!(o, "\n{} (words on the wire in {} of the clocks)", dir_name(d), pct(r.wire_words[d], r.cycles));
        let mut row = |label: &str, cell: &dyn Fn(usize) -> String| {
            let _ = write!(o, "  {label:<26}");
            for q in 0..qs.len() {
                let _ = write!(o, " {:>20}", cell(q));
            }
            let _ = writeln!(o);
        };
        row("queue (priorities)", &|q| format!("{q} ({:#04x})", qs[q].priorities));
        row("frames sent", &|q| qs[q].sent_frames.to_string());
        row("throughput (read)", &|q| pct(qs[q].delivered_bytes, link));
        row("sender paused", &|q| pct(qs[q].paused_clocks, r.cycles));
        row("PAUSE/PFC frames (+rel.)", &|q| format!("{} (+{})", qs[q].pause_frames, qs[q].release_frames));
        row("max buffer fill", &|q| format!("{} / {} B", qs[q].max_fill, qs[q].buffer_bytes));
        row("drops", &|q| qs[q].drops.to_string());
    }
    let made: u64 = r.dirs.iter().flatten().map(|q| q.made_frames).sum();
    if r.errors.is_empty() {
        let _ = writeln!(o, "\nend to end: all {made} frames delivered intact and in order, or dropped and counted");
    } else {
        let _ = writeln!(o, "\nend to end: {} failures", r.errors.len());
        for e in r.errors.iter().take(20) {
            let _ = writeln!(o, "  {e}");
        }
    }
    o
}

/// One point of a headroom sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepPoint {
    pub latency: u32,
    pub headroom: u32,
    /// [`headroom_bound`] for the point.
    pub bound: u64,
    pub drops: u64,
    pub max_fill_over_rfa: i64,
    /// Bytes read on A→B over the traffic clocks, per mille of the link's.
    pub throughput: f64,
    pub errors: usize,
}

/// Every (latency, headroom) pair of the scenario's sweep, on the model.
pub fn sweep(s: &EthScenario, mut progress: impl FnMut(usize, usize)) -> Result<Vec<SweepPoint>, ConfigError> {
    let sw = s.sweep.as_ref().ok_or_else(|| ConfigError::field("sweep", "missing"))?;
    let reverse = s.traffic.iter().any(|t| t.from.has(1));
    let total = sw.latency_clocks.len() * sw.headroom_bytes.len();
    let mut out = vec![];
    for &l in &sw.latency_clocks {
        for &h in &sw.headroom_bytes {
            progress(out.len(), total);
            let p = s.at_point(l, h)?;
            let r = EthRun::model(&p, false).finish();
            let rfa = p.port.pfc.queues.iter().filter_map(|q| q.threshold).map(|t| t.rfa_bytes as i64).min().unwrap_or(0);
            let wb = p.port.word_bytes() as u64;
            out.push(SweepPoint {
                latency: l,
                headroom: h,
                bound: headroom_bound(&p.port, l, p.mac_overhead_bytes, reverse),
                drops: r.dirs.iter().flatten().map(|q| q.drops).sum(),
                max_fill_over_rfa: r.dirs.iter().flatten().map(|q| q.max_fill as i64).max().unwrap_or(0) - rfa,
                throughput: r.dirs[0].iter().map(|q| q.delivered_bytes).sum::<u64>() as f64 / (r.cycles * wb) as f64,
                errors: r.errors.len(),
            });
        }
    }
    Ok(out)
}

/// The sweep as a table: a row per headroom, a column per latency, drops in each cell.
pub fn sweep_table(points: &[SweepPoint]) -> String {
    let mut lat: Vec<u32> = points.iter().map(|p| p.latency).collect();
    lat.dedup();
    let mut hs: Vec<u32> = points.iter().map(|p| p.headroom).collect();
    hs.sort();
    hs.dedup();
    let mut o = String::new();
    let _ = write!(o, "| headroom (bytes) |");
    for l in &lat {
        let b = points.iter().find(|p| p.latency == *l).map_or(0, |p| p.bound);
        let _ = write!(o, " latency {l} (bound {b} B) |");
    }
    let _ = writeln!(o);
    let _ = writeln!(o, "|---:|{}", "---:|".repeat(lat.len()));
    for h in hs {
        let _ = write!(o, "| {h} |");
        for l in &lat {
            match points.iter().find(|p| p.latency == *l && p.headroom == h) {
                Some(p) => {
                    let _ = write!(o, " {} drops, peak RFA+{}, {:.1} % |", p.drops, p.max_fill_over_rfa, 100.0 * p.throughput);
                }
                None => {
                    let _ = write!(o, " |");
                }
            }
        }
        let _ = writeln!(o);
    }
    o
}
