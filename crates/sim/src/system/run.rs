//! The two-port run engine: two link ports (Rust twin or Verilator) joined by a
//! [`Channel`] each way, a user side per port (per-VL transmit queues of real IBA
//! packets, a receive buffer drained by a paced higher layer), the link state machine
//! around them (LinkInitialize → LinkArm → LinkActive, and a retrain of both ends when
//! either port's failsafe raises `resync_req` or the scenario forces one), and the
//! measurements of issue 6. The reference model runs the same scenario alongside
//! ([`super::model_run`]).
//!
//! # What is checked while running (independent of the port's own counters)
//! Every packet has an entry in a ledger from the clock it is generated until it is
//! delivered (drained by the higher layer) or dropped for a named cause; a delivered
//! packet must be byte for byte what was queued, on its VL, in order per VL. The sender's
//! FCTBS is kept here from the packets popped (docs/spec.md §4: blocks sent since link init),
//! the sender's CL from the FCPs it received (decoded with the model's decoder), the
//! receiver's free space from the bench's buffer, so that
//! - *eligible* (a data VL with a head packet whose credit check
//!   `(CL - (FCTBS + NP)) mod 4096 <= 2048` passes, in LinkActive) and *idle* (no word
//!   sent) come from the specification, not from the port;
//! - *agreement* compares the receiver's ABR (`FCCL - min(free, 2048)` mod 4096, FCCL
//!   from the port's output) with the sender's FCTBS whenever nothing of that VL is in
//!   flight.

use super::bins::bump;
use super::channel::{Channel, LinkWord};
use super::faults::FaultDraws;
use super::model_run::{run_model, ModelSummary};
use super::scenario::Scenario;
use super::traffic::{generators, DrainPacer, Generator};
use super::{Direction, Fate, Sample, WireRecord};
use crate::blocks::link_port::{link_port_sim_with, LinkPortSim};
use crate::blocks::{Backend, SimBuildError};
use crate::port_config::port_params;
use iblink_model::blocks::blocks_for_pkt_len;
use iblink_model::crc16::crc16;
use iblink_model::fcp::Fcp;
use iblink_model::iba::{self, PacketFields, Transport};
use iblink_rtl::link::{LINK_ACTIVE, LINK_ARM, LINK_INIT};
use iblink_rtl::link_port::{LinkPortIn, LinkPortOut, PortParams, COUNTERS};
use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;

/// Clocks a VL must have been eligible (in the bench's view) before an idle transmitter
/// counts against it: the port's documented path from an FCP's last word at `rx_*`
/// (clock `t`; the bench's CL changes from `t + 1`) to the first word of the packet it
/// allows on `tx_*`: the FCP RX framer's good FCP 3 clocks later (`fcp_rx::LATENCY`), the
/// TX credit check from the new CL a clock after that and shown a clock late (the
/// `link_port` docs), the arbiter's heads sampled 3 clocks before its offer
/// (`vl_arb::HEAD_DELAY`) and the take 4 clocks before `tx_sop` (`link_tx::START_TO_SOP`):
/// sop at `t + 12`, so 11 idle clocks from `t + 1` are the pipeline, the 12th is not.
/// A new head packet takes fewer (no FCP RX stage).
pub const ELIGIBLE_GRACE: u64 = iblink_rtl::fcp_rx::LATENCY as u64 + 2 + iblink_rtl::vl_arb::HEAD_DELAY as u64
    + iblink_rtl::link_tx::START_TO_SOP as u64
    - 1;

/// Clocks of quiet (no pop, commit or drain on the VL) before ABR and FCTBS are compared:
/// the port's FCCL and FCTBS outputs follow a commit, a drain or a send within a few
/// clocks (registered in the credit blocks).
const QUIET_CLOCKS: u64 = 8;

/// How a run is made.
#[derive(Clone, Debug)]
pub struct RunOpts {
    pub backend: Backend,
    /// Keep every item's [`WireRecord`] (large).
    pub record_wire: bool,
    /// Trace both ports to `<dir>/port_a.vcd` and `<dir>/port_b.vcd`.
    pub vcd_dir: Option<PathBuf>,
    /// Only clocks `from..to` (`to` excluded) of the waveforms: recording starts at the
    /// first, with every signal's value then, and stops before the second.
    pub vcd_window: Option<(u64, u64)>,
    /// Replace the scenario's cycle count.
    pub cycles: Option<u64>,
    /// After the traffic phase: clocks at most with no new packets and no faults, until
    /// nothing is in flight.
    pub flush_clocks: u64,
    pub eligible_grace: u64,
    /// Run the reference model alongside.
    pub model: bool,
    /// Print one line per clock and port (stderr) for clocks in this range: the port's
    /// transmit word and grant, the bench's CL, FCTBS and head NP per VL, and eligibility.
    pub trace: Option<(u64, u64)>,
}

impl Default for RunOpts {
    fn default() -> Self {
        Self {
            backend: Backend::Rtl,
            record_wire: false,
            vcd_dir: None,
            vcd_window: None,
            cycles: None,
            flush_clocks: 300_000,
            eligible_grace: ELIGIBLE_GRACE,
            model: true,
            trace: None,
        }
    }
}

/// Packets dropped, by cause (one direction).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Drops {
    /// The channel lost the packet.
    pub wire_loss: u64,
    /// The channel flipped a bit and the receiver discarded the packet: by its verdict
    /// (index = `rx_done_status`: 1 VCRC, 2 length, 3 bad VL).
    pub corrupt: [u64; 4],
    /// Receive-buffer overruns (credit accounting failed).
    pub overrun: u64,
    /// VL15 buffer full.
    pub vl15_full: u64,
    /// On the wire, in the port or in the receive buffer when the link retrained.
    pub resync: u64,
}

impl Drops {
    pub fn total(&self) -> u64 {
        self.wire_loss + self.corrupt.iter().sum::<u64>() + self.overrun + self.vl15_full + self.resync
    }
}

/// Measurements of one direction (sender's transmitter → receiver's buffer).
#[derive(Clone, Debug, Default)]
pub struct DirReport {
    pub dir: Option<Direction>,
    /// Clocks measured: from the first LinkActive to the end of the traffic phase.
    pub window_clocks: u64,
    /// Clocks with a word on the wire / a data (or VL15) word / an FCP word.
    pub busy_clocks: u64,
    /// Per [`BUSY_BIN`](super::bins::BUSY_BIN) clocks from clock 0: clocks measured and
    /// busy clocks in it (to compare stretches of the run with the reference model's).
    pub measured_bins: Vec<u32>,
    pub busy_bins: Vec<u32>,
    pub data_clocks: u64,
    pub fcp_clocks: u64,
    /// Clocks the PHY held the sender's `tx_ready` low (`[wire] phy_stall`): line time
    /// its own symbols took, no word of the port's moved.
    pub phy_stall_clocks: u64,
    /// Clocks in LinkActive with no word sent while a data VL was eligible (for at least
    /// the grace clocks); the first few such clocks.
    pub idle_while_eligible: u64,
    pub idle_examples: Vec<(u64, u8)>,
    /// The first few overruns: (clock of `rx_overrun`, VL, blocks, the bench's free
    /// blocks then).
    pub overrun_examples: Vec<(u64, u8, u16, u32)>,
    /// Per VL (index 15: VL15): generated, delivered to the higher layer, blocks sent.
    pub generated: [u64; 16],
    pub delivered: [u64; 16],
    pub blocks_sent: [u64; 16],
    /// Data blocks committed to the receive buffer in the traffic phase.
    pub delivered_bytes: [u64; 16],
    /// Bytes of data and VL15 packets (LRH through VCRC) the sender put on the wire in
    /// the traffic clocks, per VL: the timeline's [`Sample::wire_bytes`] summed.
    pub wire_bytes: [u64; 16],
    /// Largest receive-buffer occupancy, blocks (VL15: packets).
    pub max_occupancy: [u32; 16],
    pub drops: Drops,
    /// Packets still in flight at the end (0 after a complete flush).
    pub in_flight: u64,
    /// Packets in Sent state at the end of the traffic phase (queued excluded).
    pub items: u64,
    pub fcps_sent: u64,
    pub fcps_lost: u64,
    pub fcps_flipped: u64,
    /// The receiving port's counters, accumulated over the run (COUNTERS order).
    pub port_counters: [u64; 18],
    /// Checks that failed: delivered packet differs from what was queued / out of order
    /// on its VL / a flipped packet passed the CRC / a discard no flip explains /
    /// protocol anomalies (pop with no head, verdict without packet, ...).
    pub bad_delivery: u64,
    pub order_errors: u64,
    pub corrupt_delivered: u64,
    pub unexplained_discards: u64,
    pub anomalies: u64,
    /// ABR = FCTBS comparisons made (nothing of the VL in flight) and how many disagreed.
    pub agree_checks: u64,
    pub disagreements: u64,
    /// The sender port's `fctbs` output compared with the bench's FCTBS at quiet points.
    pub fctbs_mismatch: u64,
}

impl DirReport {
    pub fn utilisation(&self) -> f64 {
        self.busy_clocks as f64 / self.window_clocks.max(1) as f64
    }
    pub fn data_utilisation(&self) -> f64 {
        self.data_clocks as f64 / self.window_clocks.max(1) as f64
    }
    pub fn fcp_overhead(&self) -> f64 {
        self.fcp_clocks as f64 / self.window_clocks.max(1) as f64
    }
    /// The share of the clocks the PHY's stalls took.
    pub fn phy_stall_share(&self) -> f64 {
        self.phy_stall_clocks as f64 / self.window_clocks.max(1) as f64
    }
    /// Each data VL's share of the data blocks sent.
    pub fn shares(&self, vls: usize) -> Vec<f64> {
        let t: u64 = self.blocks_sent[..vls].iter().sum();
        self.blocks_sent[..vls].iter().map(|&b| b as f64 / t.max(1) as f64).collect()
    }
    pub fn generated_total(&self) -> u64 {
        self.generated.iter().sum()
    }
    pub fn delivered_total(&self) -> u64 {
        self.delivered.iter().sum()
    }
    /// generated = delivered + dropped (by cause) + in flight.
    pub fn conserved(&self) -> bool {
        self.generated_total() == self.delivered_total() + self.drops.total() + self.in_flight
    }
}

/// A retrain of the link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResyncEvent {
    /// Clock of the reset.
    pub clock: u64,
    /// The port whose failsafe asked (0 = A, 1 = B), with `resync_reason` and
    /// `resync_vl`; `None`: forced by the scenario.
    pub by: Option<(usize, u8, u8)>,
    /// Port B, when both ports asked in the same clock (`by` is then port A): one
    /// retrain.
    pub also: Option<(usize, u8, u8)>,
}

/// Everything a run measured.
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    pub scenario: String,
    pub backend: String,
    pub vl_cap: usize,
    pub width: usize,
    /// Traffic clocks, and clocks including the flush.
    pub cycles: u64,
    pub clocks: u64,
    pub a_to_b: DirReport,
    pub b_to_a: DirReport,
    pub resyncs: Vec<ResyncEvent>,
    /// Clock of the last injected fault (item lost or flipped, forced retrain).
    pub last_fault: Option<u64>,
    /// Clocks from the last fault to the first retrain after it (if any), and to the
    /// first data packet committed again in each direction after the last retrain or
    /// fault.
    pub resync_after_last_fault: Option<u64>,
    pub recovered_after_last_fault: [Option<u64>; 2],
    /// Clocks from the last fault until ABR = FCTBS held at every later check of every
    /// VL in both directions (`None`: never, or never checked).
    pub agree_after_last_fault: Option<u64>,
    pub timeline: Vec<Sample>,
    pub wire: Vec<WireRecord>,
    pub model: Option<ModelSummary>,
    pub wall_seconds: f64,
    /// The clocks the waveforms cover: the first and the last recorded (`None`: none).
    pub vcd_clocks: Option<(u64, u64)>,
    /// A waveform file that could not be written when its window opened.
    pub vcd_error: Option<String>,
}

impl RunReport {
    pub fn dir(&self, d: Direction) -> &DirReport {
        match d {
            Direction::AtoB => &self.a_to_b,
            Direction::BtoA => &self.b_to_a,
        }
    }

    /// A plain-text summary (one block per direction).
    pub fn summary(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "scenario {} ({}), VLCap {} x {} bits, {} traffic clocks ({} run), {:.1} s",
            self.scenario, self.backend, self.vl_cap, self.width, self.cycles, self.clocks, self.wall_seconds
        );
        for d in [&self.a_to_b, &self.b_to_a] {
            let _ = writeln!(
                s,
                "  {:?}: utilisation {:.4} (data {:.4}, FCP {:.4}), idle while eligible {}, generated {}, delivered {}, drops {:?}, in flight {}",
                d.dir.unwrap_or(Direction::AtoB),
                d.utilisation(),
                d.data_utilisation(),
                d.fcp_overhead(),
                d.idle_while_eligible,
                d.generated_total(),
                d.delivered_total(),
                d.drops,
                d.in_flight
            );
            if !d.overrun_examples.is_empty() {
                let _ = writeln!(s, "    overruns at (clock, VL, blocks, free): {:?}", d.overrun_examples);
            }
            if !d.idle_examples.is_empty() {
                let _ = writeln!(s, "    idle while eligible at (clock, VL): {:?}", d.idle_examples);
            }
            let _ = writeln!(
                s,
                "    shares {:?}, max occupancy {:?}, FCPs sent {} lost {} flipped {}, agreement checks {} (disagreed {}), checks failed: bad {} order {} corrupt-passed {} unexplained {} anomalies {} fctbs {}",
                d.shares(self.vl_cap).iter().map(|x| (x * 1e4).round() / 1e4).collect::<Vec<_>>(),
                &d.max_occupancy[..self.vl_cap],
                d.fcps_sent,
                d.fcps_lost,
                d.fcps_flipped,
                d.agree_checks,
                d.disagreements,
                d.bad_delivery,
                d.order_errors,
                d.corrupt_delivered,
                d.unexplained_discards,
                d.anomalies,
                d.fctbs_mismatch
            );
        }
        let _ = writeln!(
            s,
            "  resyncs {} {:?}; last fault {:?}; resync after it {:?}; data again after {:?}; ABR = FCTBS after {:?}",
            self.resyncs.len(),
            self.resyncs.iter().take(4).collect::<Vec<_>>(),
            self.last_fault,
            self.resync_after_last_fault,
            self.recovered_after_last_fault,
            self.agree_after_last_fault
        );
        if let Some(m) = &self.model {
            let _ = writeln!(s, "  model: {m:?}");
        }
        s
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    Queued,
    Sent,
    Flipped,
    InBuffer,
}

struct Pkt {
    vl: u8,
    pkt_len: u16,
    /// (generator, number in its sequence): the key of its fault draws.
    key: (usize, u64),
    /// LRH .. ICRC (the port appends the VCRC).
    bytes: Vec<u8>,
    state: St,
}

/// One port and its user side.
struct Side {
    sim: LinkPortSim,
    /// Per VL (VL15 at 15): PSNs queued, oldest first.
    txq: Vec<VecDeque<u32>>,
    /// The bytes of the packet whose words the port reads, and the next word (a copy:
    /// the ledger may resolve the packet, lost on the wire, before its last word is read).
    cur: Option<(Vec<u8>, usize)>,
    /// Popped packets whose first word has not yet been sent.
    sent_fifo: VecDeque<u32>,
    tx_item_is_data: bool,
    /// The VL of the data or VL15 packet on the transmit wire (its LRH's, read at sop).
    tx_vl: u8,
    rx_cur: Option<Vec<u8>>,
    rx_wait: VecDeque<(u8, Vec<u8>)>,
    rx_judged: Option<(u8, Vec<u8>)>,
    /// Receive buffer per VL (VL15 at 15): (PSN, blocks).
    rxbuf: Vec<VecDeque<(u32, u16)>>,
    occ: [u32; 16],
    pacer: DrainPacer,
    /// Transmitter's view (docs/spec.md §4): FCTBS from pops, CL from decoded FCPs.
    fctbs: [u16; 16],
    cl: [u16; 16],
    fcp_rx: Vec<u8>,
    counters_prev: [u16; 18],
    /// Per VL: clock since which it has been eligible.
    elig_since: [Option<u64>; 16],
    /// Per VL: last pop (sender) / commit or drain (receiver).
    last_activity: [u64; 16],
    last_out: LinkPortOut,
}

impl Side {
    fn new(sim: LinkPortSim, s: &Scenario, side: usize) -> Self {
        Self {
            sim,
            txq: (0..16).map(|_| VecDeque::new()).collect(),
            cur: None,
            sent_fifo: VecDeque::new(),
            tx_item_is_data: false,
            tx_vl: 0,
            rx_cur: None,
            rx_wait: VecDeque::new(),
            rx_judged: None,
            rxbuf: (0..16).map(|_| VecDeque::new()).collect(),
            occ: [0; 16],
            pacer: DrainPacer::new(s, side),
            fctbs: [0; 16],
            cl: [0; 16],
            fcp_rx: vec![],
            counters_prev: [0; 18],
            elig_since: [None; 16],
            last_activity: [0; 16],
            last_out: LinkPortOut::default(),
        }
    }
}

/// Per direction: the ledger and its counters.
struct Dir {
    next_psn: u32,
    ledger: HashMap<u32, Pkt>,
    /// Flipped data packets in order, awaiting the receiver's discard.
    flipped: VecDeque<u32>,
    /// Packets of each VL popped and not yet resolved at the receiver.
    in_flight_vl: [u32; 16],
    last_psn_vl: [Option<u32>; 16],
    rep: DirReport,
    /// Agreement tracking per VL: first good check after the last bad one / last fault.
    first_good: [Option<u64>; 16],
    /// Bytes sent on the wire per VL since the last timeline sample.
    window_bytes: [u64; 16],
    /// The receiver's occupancy per VL over the clocks since the last timeline sample:
    /// the largest, the sum and the clocks summed.
    window_occ_max: [u32; 16],
    window_occ_sum: [u64; 16],
    window_occ_clocks: u64,
}

/// Two ports, two channels, their users: one clock at a time.
pub struct SystemRun {
    pub scenario: Scenario,
    params: PortParams,
    vls: usize,
    width_bytes: usize,
    sides: [Side; 2],
    chans: [Channel; 2],
    dirs: [Dir; 2],
    gens: Vec<Generator>,
    draws: FaultDraws,
    pub clock: u64,
    cycles: u64,
    /// Clocks left in LinkInitialize / LinkArm.
    init_left: u64,
    arm_left: u64,
    retrain_next: bool,
    active_seen: bool,
    opts: RunOpts,
    /// Bit v: a data VL with a non-zero weight in a table.
    arbitrated: u16,
    resyncs: Vec<ResyncEvent>,
    last_fault: Option<u64>,
    last_retrain: Option<u64>,
    recovered: [Option<u64>; 2],
    timeline: Vec<Sample>,
    /// First clock of the timeline window being measured.
    window_from: u64,
    wire: Vec<WireRecord>,
    /// Both ports' waveform files, whether they are being written now, and the first and
    /// last clock written.
    vcd_paths: Option<[PathBuf; 2]>,
    vcd_on: bool,
    vcd_clocks: Option<(u64, u64)>,
    vcd_error: Option<String>,
}

fn dir_of(side: usize) -> Direction {
    if side == 0 {
        Direction::AtoB
    } else {
        Direction::BtoA
    }
}

/// PSN of a received data packet (BTH bytes 9-11 after the 8-byte LRH).
fn psn_of(bytes: &[u8]) -> Option<u32> {
    (bytes.len() >= 20).then(|| u32::from_be_bytes([0, bytes[17], bytes[18], bytes[19]]))
}

impl SystemRun {
    /// Both ports in `opts.backend`, generated from the scenario's `[port]`.
    pub fn new(s: &Scenario, opts: &RunOpts) -> Result<Self, SimBuildError> {
        let params = port_params(&s.port).map_err(|e| SimBuildError::Variant(e.to_string()))?;
        let vcd = |n: &str| opts.vcd_dir.as_ref().map(|d| d.join(n));
        // The port lockstep checks the stepper's schedule; a system run steps at full speed.
        let mut a = link_port_sim_with(&params, opts.backend, vcd("port_a.vcd").as_deref(), false)?;
        let mut b = link_port_sim_with(&params, opts.backend, vcd("port_b.vcd").as_deref(), false)?;
        // Built tracing (Verilator needs a traced build); a window that opens later
        // starts the files again then.
        let vcd_on = opts.vcd_dir.is_some() && opts.vcd_window.is_none_or(|(from, _)| from == 0);
        if opts.vcd_dir.is_some() && !vcd_on {
            a.stop_vcd();
            b.stop_vcd();
        }
        let wb = params.width / 8;
        let vls = params.vl_cap;
        let mut arbitrated = 0u16;
        for &(v, w) in params.high.iter().chain(&params.low) {
            if w > 0 && (v as usize) < vls {
                arbitrated |= 1 << v;
            }
        }
        let dir = |side: usize| Dir {
            next_psn: 0,
            ledger: HashMap::new(),
            flipped: VecDeque::new(),
            in_flight_vl: [0; 16],
            last_psn_vl: [None; 16],
            rep: DirReport {
                dir: Some(dir_of(side)),
                ..Default::default()
            },
            first_good: [None; 16],
            window_bytes: [0; 16],
            window_occ_max: [0; 16],
            window_occ_sum: [0; 16],
            window_occ_clocks: 0,
        };
        Ok(Self {
            params,
            vls,
            width_bytes: wb,
            sides: [Side::new(a, s, 0), Side::new(b, s, 1)],
            chans: [
                Channel::new(Direction::AtoB, wb, s.channel.latency_clocks),
                Channel::new(Direction::BtoA, wb, s.channel.latency_clocks),
            ],
            dirs: [dir(0), dir(1)],
            gens: generators(s),
            draws: FaultDraws::new(s.seed),
            clock: 0,
            cycles: opts.cycles.unwrap_or(s.cycles),
            init_left: s.activate_after,
            arm_left: s.arm_clocks,
            retrain_next: false,
            active_seen: false,
            opts: opts.clone(),
            arbitrated,
            resyncs: vec![],
            last_fault: None,
            last_retrain: None,
            recovered: [None; 2],
            timeline: vec![],
            window_from: 0,
            wire: vec![],
            vcd_paths: opts.vcd_dir.as_ref().map(|d| [d.join("port_a.vcd"), d.join("port_b.vcd")]),
            vcd_on,
            vcd_clocks: None,
            vcd_error: None,
            scenario: s.clone(),
        })
    }

    pub fn params(&self) -> &PortParams {
        &self.params
    }

    fn link_state(&self) -> u8 {
        if self.init_left > 0 {
            LINK_INIT
        } else if self.arm_left > 0 {
            LINK_ARM
        } else {
            LINK_ACTIVE
        }
    }

    /// Packets in flight (queued, sent, in a receive buffer) over both directions.
    pub fn in_flight(&self) -> usize {
        self.dirs.iter().map(|d| d.ledger.len()).sum()
    }

    fn generate(&mut self) {
        let wb = self.width_bytes as u64;
        for g in &mut self.gens {
            let side = &mut self.sides[g.side];
            let Some(pkt_len) = g.tick(wb, side.txq[g.vl as usize].len()) else { continue };
            let d = &mut self.dirs[g.side];
            let psn = d.next_psn;
            d.next_psn = (d.next_psn + 1) & 0xff_ffff;
            // UD SEND Only (LRH, BTH, DETH, payload, ICRC) wherever the packet has room
            // for a DETH (PktLen 8 and up); PktLen 6 and 7 can only be RC SEND Only.
            // Port A is LID 1 and port B LID 2, so a capture shows the direction.
            let transport = if pkt_len >= 8 {
                Transport::UdSendOnly { q_key: 0, src_qp: 0x11 }
            } else {
                Transport::RcSendOnly
            };
            let (slid, dlid) = if g.side == 0 { (1, 2) } else { (2, 1) };
            let f = PacketFields {
                vl: g.vl,
                sl: g.sl,
                psn,
                slid,
                dlid,
                transport,
                ..Default::default()
            };
            // 8 LRH + 12 BTH (+ 8 DETH) + payload + 4 ICRC = PktLen * 4 bytes.
            let payload_len = pkt_len as usize * 4 - 24 - transport.ext_header_bytes();
            let payload = iba::deterministic_payload(psn as u64 | (g.side as u64) << 32, payload_len);
            let mut bytes = iba::build(&f, &payload).expect("valid packet");
            bytes.truncate(bytes.len() - 2); // the port appends the VCRC
            d.ledger.insert(
                psn,
                Pkt {
                    vl: g.vl,
                    pkt_len,
                    key: (g.index, g.made - 1),
                    bytes,
                    state: St::Queued,
                },
            );
            d.rep.generated[g.vl as usize] += 1;
            side.txq[g.vl as usize].push_back(psn);
        }
    }

    fn inputs(&mut self, side: usize, state: u8, reset: bool, traffic: bool) -> LinkPortIn {
        let c = self.clock;
        let s = &self.scenario;
        let ledger = &self.dirs[side].ledger;
        let u = &mut self.sides[side];
        // The PHY's stalls (docs/spec.md §10).
        let tx_ready = s.phy_ready(side, c, self.width_bytes as u64);
        let mut i = LinkPortIn {
            reset,
            link_state: state,
            m_axis_phy_tready: tx_ready,
            ..Default::default()
        };
        if let Some((bytes, k)) = &u.cur {
            for b in 0..self.width_bytes {
                if let Some(x) = bytes.get(k * self.width_bytes + b) {
                    i.src_data |= (*x as u64) << (8 * b);
                }
            }
        }
        for v in 0..self.vls {
            if let Some(p) = u.txq[v].front() {
                i.txq_valid |= 1 << v;
                i.txq_len[v] = ledger[p].pkt_len;
            }
        }
        if let Some(p) = u.txq[15].front() {
            i.vl15_valid = true;
            i.vl15_len = ledger[p].pkt_len;
        }
        if let Some(w) = self.chans[1 - side].arriving() {
            w.drive_rx(&mut i);
        }
        let _ = traffic;
        if !reset {
            let rx_ledger = &self.dirs[1 - side].ledger;
            let heads: Vec<Option<u16>> = (0..self.vls)
                .map(|v| u.rxbuf[v].front().and_then(|(psn, _)| rx_ledger.get(psn)).map(|p| p.pkt_len))
                .collect();
            let (dv, d15) = u.pacer.tick(s, c, &heads, !u.rxbuf[15].is_empty());
            if let Some(v) = dv {
                i.drain = true;
                i.drain_vl = v;
                i.drain_blocks = u.rxbuf[v as usize].front().map_or(0, |x| x.1 as u8);
            }
            i.vl15_drain = d15;
        }
        i
    }

    /// Open or close the waveform window at this clock.
    fn vcd_window(&mut self, c: u64) {
        let (Some(paths), Some((from, to))) = (&self.vcd_paths, self.opts.vcd_window) else { return };
        if c == to && self.vcd_on {
            for u in &mut self.sides {
                u.sim.stop_vcd();
            }
            self.vcd_on = false;
        }
        if c == from && c < to && !self.vcd_on && self.vcd_error.is_none() {
            for (u, p) in self.sides.iter_mut().zip(paths) {
                if let Err(e) = u.sim.start_vcd(p) {
                    self.vcd_error = Some(format!("{}: {e}", p.display()));
                }
            }
            self.vcd_on = self.vcd_error.is_none();
        }
    }

    /// One clock of the whole system; returns both ports' outputs.
    pub fn step(&mut self) -> (LinkPortOut, LinkPortOut) {
        let c = self.clock;
        self.vcd_window(c);
        if self.vcd_on {
            let first = self.vcd_clocks.map_or(c, |x| x.0);
            self.vcd_clocks = Some((first, c));
        }
        let traffic = c < self.cycles;
        let reset = std::mem::take(&mut self.retrain_next);
        if reset {
            self.init_left = self.scenario.activate_after;
            self.arm_left = self.scenario.arm_clocks;
        }
        let state = if reset { LINK_INIT } else { self.link_state() };
        let active = state == LINK_ACTIVE;
        if active && !self.active_seen {
            self.active_seen = true;
        }
        if traffic {
            self.generate();
        }
        let ia = self.inputs(0, state, reset, traffic);
        let ib = self.inputs(1, state, reset, traffic);
        let oa = self.sides[0].sim.step(&ia);
        let ob = self.sides[1].sim.step(&ib);
        let ins = [ia, ib];
        let outs = [oa, ob];
        let measuring = traffic && self.active_seen;

        for s in 0..2 {
            self.transmit(s, &ins[s], &outs[s], measuring, active && !reset);
        }
        for s in 0..2 {
            self.receive(s, &ins[s], &outs[s], reset);
        }
        for s in 0..2 {
            self.count(s, &outs[s]);
        }
        if active && !reset {
            self.check_agreement();
        }
        if measuring {
            for s in 0..2 {
                let d = &mut self.dirs[1 - s].rep;
                for v in 0..16 {
                    d.max_occupancy[v] = d.max_occupancy[v].max(self.sides[s].occ[v]);
                }
            }
        }
        if traffic {
            // The timeline's occupancy: every clock of the window, after this clock's
            // commits and drains.
            for s in 0..2 {
                let d = &mut self.dirs[1 - s];
                d.window_occ_clocks += 1;
                for v in 0..16 {
                    let o = self.sides[s].occ[v];
                    d.window_occ_max[v] = d.window_occ_max[v].max(o);
                    d.window_occ_sum[v] += o as u64;
                }
            }
        }
        // A window ends every `sample_every` clocks, and the last one with the traffic.
        if traffic && ((c + 1) % self.scenario.sample_every == 0 || c + 1 == self.cycles) {
            self.sample();
        }

        // The link around the ports: a failsafe request or a forced retrain resets both
        // ends at the next clock.
        // Both ports asking in one clock is one retrain.
        let asked: Vec<(usize, u8, u8)> = (0..2)
            .filter(|&s| outs[s].resync_req && !reset)
            .map(|s| (s, outs[s].resync_reason, outs[s].resync_vl))
            .collect();
        if let Some(&first) = asked.first() {
            self.resyncs.push(ResyncEvent {
                clock: c + 1,
                by: Some(first),
                also: asked.get(1).copied(),
            });
            self.retrain_next = true;
        }
        if traffic && self.scenario.resyncs.contains(&(c + 1)) {
            if !self.retrain_next {
                self.resyncs.push(ResyncEvent { clock: c + 1, by: None, also: None });
            }
            self.retrain_next = true;
            self.fault(c + 1);
        }
        if reset {
            self.flush_for_retrain();
            self.last_retrain = Some(c);
        } else if self.init_left > 0 {
            self.init_left -= 1;
        } else if self.arm_left > 0 {
            self.arm_left -= 1;
        }
        self.sides[0].last_out = oa;
        self.sides[1].last_out = ob;
        self.clock += 1;
        (oa, ob)
    }

    fn fault(&mut self, c: u64) {
        self.last_fault = Some(c);
        for d in &mut self.dirs {
            d.first_good = [None; 16];
        }
        self.recovered = [None; 2];
    }

    /// Side `s`'s transmitter: pops, the word stream into the channel, measurements.
    fn transmit(&mut self, s: usize, _i: &LinkPortIn, o: &LinkPortOut, measuring: bool, active: bool) {
        if measuring && !_i.m_axis_phy_tready {
            self.dirs[s].rep.phy_stall_clocks += 1;
        }
        let c = self.clock;
        let vls = self.vls;
        let u = &mut self.sides[s];
        let d = &mut self.dirs[s];
        if o.src_rd {
            if let Some((_, k)) = &mut u.cur {
                *k += 1;
            }
        }
        let mut pops = vec![];
        if o.txq_pop != 0 {
            pops.push(o.txq_pop.trailing_zeros() as usize);
            if o.txq_pop.count_ones() != 1 {
                d.rep.anomalies += 1;
            }
        }
        if o.vl15_pop {
            pops.push(15);
        }
        for v in pops {
            match u.txq[v].pop_front() {
                Some(psn) => {
                    let p = d.ledger.get_mut(&psn).expect("queued packet in the ledger");
                    p.state = St::Sent;
                    let blocks = blocks_for_pkt_len(p.pkt_len);
                    if v < 15 {
                        u.fctbs[v] = (u.fctbs[v] + blocks) & 0xfff;
                        if measuring {
                            d.rep.blocks_sent[v] += blocks as u64;
                        }
                    }
                    d.in_flight_vl[v] += 1;
                    u.last_activity[v] = c;
                    u.sent_fifo.push_back(psn);
                    u.cur = Some((p.bytes.clone(), 0));
                }
                None => d.rep.anomalies += 1,
            }
        }
        // The word into the channel (only a word that moves: the PHY takes it with
        // tx_ready); a data item's fate is drawn at its first word.
        let w = LinkWord::from_tx(o).filter(|_| _i.m_axis_phy_tready);
        // The timeline's throughput: the bytes of each data or VL15 word in the clock it
        // goes on the wire, by the VL its packet's LRH names (docs/spec.md §3: the high
        // nibble of the first byte).
        if let Some(w) = w.filter(|w| !w.link && c < self.cycles) {
            if w.sop {
                u.tx_vl = (w.data as u8) >> 4;
            }
            let n = if w.eop { 8 - w.keep.leading_zeros() as u64 } else { self.width_bytes as u64 };
            let v = u.tx_vl as usize;
            d.window_bytes[v] += n;
            d.rep.wire_bytes[v] += n;
        }
        if measuring {
            d.rep.window_clocks += 1;
            bump(&mut d.rep.measured_bins, c);
        }
        if let Some(w) = w {
            if measuring {
                d.rep.busy_clocks += 1;
                bump(&mut d.rep.busy_bins, c);
                if w.link {
                    d.rep.fcp_clocks += 1;
                } else {
                    d.rep.data_clocks += 1;
                }
            }
        }
        let (pf, pd, pb) = if c < self.cycles { self.scenario.probabilities(c) } else { (0.0, 0.0, 0.0) };
        let mut started: Option<(bool, Fate)> = None;
        let draws = &mut self.draws;
        let rec = self.chans[s].push(c, w, |w| {
            let (f, bit) = if w.link {
                // An FCP's first word holds its header (bytes 0-3) at either width.
                let h = w.data.to_le_bytes();
                draws.fcp(s, [h[0], h[1], h[2], h[3]], pf, pb)
            } else {
                let psn = u.sent_fifo.front().copied();
                match psn.and_then(|p| d.ledger.get(&p)) {
                    Some(p) => draws.data(s, p.key.0, p.key.1, pd, pb, (p.pkt_len as u64 * 4 + 2) * 8),
                    None => (Fate::Delivered, 0),
                }
            };
            started = Some((w.link, f));
            (f, bit)
        });
        if let Some((link, fate)) = started {
            if link {
                d.rep.fcps_sent += 1;
                match fate {
                    Fate::Lost => d.rep.fcps_lost += 1,
                    Fate::Flipped => d.rep.fcps_flipped += 1,
                    Fate::Delivered => {}
                }
                u.tx_item_is_data = false;
            } else {
                u.tx_item_is_data = true;
                match u.sent_fifo.pop_front() {
                    None => d.rep.anomalies += 1,
                    Some(psn) => {
                        let p = d.ledger.get_mut(&psn).expect("sent packet");
                        let v = p.vl as usize;
                        match fate {
                            Fate::Lost => {
                                d.ledger.remove(&psn);
                                d.rep.drops.wire_loss += 1;
                                d.in_flight_vl[v] -= 1;
                            }
                            Fate::Flipped => {
                                p.state = St::Flipped;
                                d.flipped.push_back(psn);
                            }
                            Fate::Delivered => {}
                        }
                    }
                }
            }
            if fate != Fate::Delivered {
                self.last_fault = Some(c);
                for dd in &mut self.dirs {
                    dd.first_good = [None; 16];
                }
                self.recovered = [None; 2];
            }
        }
        let d = &mut self.dirs[s];
        if let Some(r) = rec {
            if !r.link {
                // Byte for byte what was queued, then its VCRC (docs/spec.md §3).
                let n = r.bytes.len();
                let ok = n >= 2 && {
                    let body = &r.bytes[..n - 2];
                    let vcrc = u16::from_le_bytes([r.bytes[n - 2], r.bytes[n - 1]]);
                    let known = psn_of(body).and_then(|p| d.ledger.get(&p)).map(|p| p.bytes == body);
                    vcrc == crc16(body) && known != Some(false)
                };
                if !ok {
                    d.rep.bad_delivery += 1;
                }
            }
            if self.opts.record_wire {
                self.wire.push(r);
            }
        }

        // Idle while eligible (docs/spec.md §4 credit check, this bench's FCTBS and CL).
        let u = &mut self.sides[s];
        let mut any = None;
        for v in 0..vls {
            let elig = active
                && self.arbitrated & (1 << v) != 0
                && u.txq[v].front().is_some_and(|psn| {
                    let np = blocks_for_pkt_len(d.ledger[psn].pkt_len);
                    (u.cl[v].wrapping_sub(u.fctbs[v] + np) & 0xfff) <= 2048
                });
            if !elig {
                u.elig_since[v] = None;
            } else {
                let since = *u.elig_since[v].get_or_insert(c);
                if c - since >= self.opts.eligible_grace && any.is_none() {
                    any = Some(v as u8);
                }
            }
        }
        if let Some((from, to)) = self.opts.trace {
            if (from..to).contains(&c) {
                let heads: Vec<String> = (0..vls)
                    .map(|v| {
                        let np = u.txq[v].front().map(|p| blocks_for_pkt_len(d.ledger[p].pkt_len));
                        format!("vl{v}: CL {} FCTBS {} NP {:?} since {:?}", u.cl[v], u.fctbs[v], np, u.elig_since[v])
                    })
                    .collect();
                eprintln!(
                    "{c} port{s} tx {} sop {} eop {} link {} pop {:#x} grant {} vl {} | txq_valid {:#x} | {}",
                    o.m_axis_phy_tvalid as u8,
                    o.tx_start() as u8,
                    o.m_axis_phy_tlast as u8,
                    o.tx_link() as u8,
                    o.txq_pop,
                    o.grant as u8,
                    o.grant_vl,
                    _i.txq_valid,
                    heads.join("; ")
                );
            }
        }
        if measuring && !o.m_axis_phy_tvalid {
            if let Some(v) = any {
                d.rep.idle_while_eligible += 1;
                if d.rep.idle_examples.len() < 16 {
                    d.rep.idle_examples.push((c, v));
                }
            }
        }
    }

    /// Side `s`'s receiver: FCPs at its input (the transmitter's CL), delivered words,
    /// verdicts, commits, drains.
    fn receive(&mut self, s: usize, i: &LinkPortIn, o: &LinkPortOut, reset: bool) {
        let c = self.clock;
        let traffic = c < self.cycles;
        let vl_cap = self.scenario.port.vl_cap;
        let u = &mut self.sides[s];
        let d = &mut self.dirs[1 - s];
        // FCPs arriving at this port, decoded by the model: this transmitter's CL.
        if i.s_axis_phy_tvalid && i.rx_link() {
            if i.rx_start() {
                u.fcp_rx.clear();
            }
            let n = if i.s_axis_phy_tlast { 8 - i.s_axis_phy_tkeep.leading_zeros() as usize } else { self.width_bytes };
            for b in 0..n {
                u.fcp_rx.push((i.s_axis_phy_tdata >> (8 * b)) as u8);
            }
            if i.s_axis_phy_tlast && !reset {
                if let Ok(f) = Fcp::decode(&u.fcp_rx, vl_cap) {
                    u.cl[f.vl as usize] = f.fccl;
                }
            }
        }
        // Drains the higher layer made this clock.
        if i.drain {
            let v = i.drain_vl as usize;
            if let Some((psn, blocks)) = u.rxbuf[v].pop_front() {
                u.occ[v] -= blocks as u32;
                u.last_activity[v] = c;
                if d.ledger.remove(&psn).is_some() {
                    d.rep.delivered[v] += 1;
                }
            } else {
                d.rep.anomalies += 1;
            }
        }
        if i.vl15_drain {
            if let Some((psn, _)) = u.rxbuf[15].pop_front() {
                u.occ[15] -= 1;
                if d.ledger.remove(&psn).is_some() {
                    d.rep.delivered[15] += 1;
                }
            }
        }
        // The verdict of the clock before: commit or overrun.
        if let Some((vl, bytes)) = u.rx_judged.take() {
            let body = &bytes[..bytes.len().saturating_sub(2)];
            let psn = psn_of(body);
            let entry = psn.and_then(|p| d.ledger.get(&p).map(|e| (p, e.vl, e.state, e.bytes == body, e.pkt_len)));
            match entry {
                None => d.rep.bad_delivery += 1,
                Some((psn, pvl, st, same, pkt_len)) => {
                    let v = pvl as usize;
                    if st == St::Flipped {
                        d.rep.corrupt_delivered += 1;
                    }
                    if !same || pvl != vl {
                        d.rep.bad_delivery += 1;
                    }
                    if let Some(last) = d.last_psn_vl[v] {
                        if (psn.wrapping_sub(last) & 0xff_ffff) == 0 || (psn.wrapping_sub(last) & 0xff_ffff) > 0x80_0000 {
                            d.rep.order_errors += 1;
                        }
                    }
                    d.last_psn_vl[v] = Some(psn);
                    d.in_flight_vl[v] = d.in_flight_vl[v].saturating_sub(1);
                    u.last_activity[v] = c;
                    if o.rx_commit {
                        d.ledger.get_mut(&psn).unwrap().state = St::InBuffer;
                        let blocks = if v == 15 { 1 } else { blocks_for_pkt_len(pkt_len) };
                        u.rxbuf[v].push_back((psn, blocks));
                        u.occ[v] += blocks as u32;
                        if traffic {
                            d.rep.delivered_bytes[v] += pkt_len as u64 * 4;
                        }
                        if self.recovered[1 - s].is_none() && self.last_fault.is_some() && v != 15 {
                            self.recovered[1 - s] = Some(c);
                        }
                    } else if o.rx_overrun {
                        d.ledger.remove(&psn);
                        if v == 15 {
                            d.rep.drops.vl15_full += 1;
                        } else {
                            d.rep.drops.overrun += 1;
                            if d.rep.overrun_examples.len() < 16 {
                                let free = (self.params.buffer_blocks as u32).saturating_sub(u.occ[v]);
                                d.rep.overrun_examples.push((c, v as u8, blocks_for_pkt_len(pkt_len), free));
                            }
                        }
                    } else {
                        d.rep.anomalies += 1;
                    }
                }
            }
        }
        // Words delivered to the user (VCRC kept), then this clock's verdict.
        if o.rx_out_abort {
            u.rx_cur = None;
        }
        if o.rx_out_valid {
            if o.rx_out_sop {
                u.rx_cur = Some(Vec::with_capacity(256));
            }
            match &mut u.rx_cur {
                None => d.rep.anomalies += 1,
                Some(buf) => {
                    let n = if o.rx_out_eop { 8 - o.rx_out_keep.leading_zeros() as usize } else { self.width_bytes };
                    for b in 0..n {
                        buf.push((o.rx_out_data >> (8 * b)) as u8);
                    }
                    if o.rx_out_eop {
                        let buf = u.rx_cur.take().unwrap();
                        u.rx_wait.push_back((o.rx_out_vl, buf));
                    }
                }
            }
        }
        if o.rx_done {
            match u.rx_wait.pop_front() {
                None => d.rep.anomalies += 1,
                Some((vl, bytes)) => {
                    if o.rx_done_status == 0 {
                        u.rx_judged = Some((vl, bytes));
                    } else {
                        // A discard: it must be a packet the channel damaged.
                        match d.flipped.pop_front() {
                            Some(psn) => {
                                if let Some(p) = d.ledger.remove(&psn) {
                                    d.in_flight_vl[p.vl as usize] = d.in_flight_vl[p.vl as usize].saturating_sub(1);
                                }
                                d.rep.drops.corrupt[o.rx_done_status as usize & 3] += 1;
                            }
                            None => d.rep.unexplained_discards += 1,
                        }
                    }
                }
            }
        }
    }

    /// The port's counters, accumulated (a counter that went down was reset).
    fn count(&mut self, s: usize, o: &LinkPortOut) {
        let u = &mut self.sides[s];
        let rep = &mut self.dirs[1 - s].rep;
        for k in 0..COUNTERS.len() {
            if COUNTERS[k] == "vl15_held" {
                continue;
            }
            let (new, old) = (o.counters[k], u.counters_prev[k]);
            rep.port_counters[k] += if new >= old { (new - old) as u64 } else { new as u64 };
            u.counters_prev[k] = new;
        }
    }

    /// ABR at each receiver against FCTBS at its sender, for every VL with nothing in
    /// flight and quiet for a few clocks.
    fn check_agreement(&mut self) {
        let c = self.clock;
        let cap = self.params.buffer_blocks as u32;
        for dsend in 0..2 {
            let (snd, rcv) = if dsend == 0 { (0, 1) } else { (1, 0) };
            for v in 0..self.vls {
                let d = &self.dirs[dsend];
                let (us, ur) = (&self.sides[snd], &self.sides[rcv]);
                if d.in_flight_vl[v] != 0
                    || c < us.last_activity[v] + QUIET_CLOCKS
                    || c < ur.last_activity[v] + QUIET_CLOCKS
                    || !d.flipped.is_empty()
                {
                    continue;
                }
                let free = cap.saturating_sub(ur.occ[v]).min(2048) as u16;
                let abr = ur.last_out.fccl[v].wrapping_sub(free) & 0xfff;
                let good = abr == us.fctbs[v];
                let fctbs_ok = us.last_out.fctbs[v] == us.fctbs[v];
                let d = &mut self.dirs[dsend];
                d.rep.agree_checks += 1;
                if !fctbs_ok {
                    d.rep.fctbs_mismatch += 1;
                }
                if good {
                    if d.first_good[v].is_none() {
                        d.first_good[v] = Some(c);
                    }
                } else {
                    d.rep.disagreements += 1;
                    d.first_good[v] = None;
                }
            }
        }
    }

    fn sample(&mut self) {
        let n = self.vls;
        let mut sm = Sample {
            from: self.window_from,
            clock: self.clock + 1,
            ..Default::default()
        };
        self.window_from = self.clock + 1;
        for dsend in 0..2 {
            let idx = |v: usize| if v == n { 15 } else { v };
            let d = &mut self.dirs[dsend];
            sm.wire_bytes[dsend] = (0..=n).map(|v| d.window_bytes[idx(v)]).collect();
            let clocks = d.window_occ_clocks.max(1) as f64;
            sm.occupancy_max[dsend] = (0..=n).map(|v| d.window_occ_max[idx(v)]).collect();
            sm.occupancy_mean[dsend] = (0..=n).map(|v| d.window_occ_sum[idx(v)] as f64 / clocks).collect();
            d.window_bytes = [0; 16];
            d.window_occ_max = [0; 16];
            d.window_occ_sum = [0; 16];
            d.window_occ_clocks = 0;
        }
        self.timeline.push(sm);
    }

    /// Both ends were reset: everything past the transmit queues is gone.
    fn flush_for_retrain(&mut self) {
        for ch in &mut self.chans {
            ch.clear();
        }
        for s in 0..2 {
            let u = &mut self.sides[s];
            u.cur = None;
            u.sent_fifo.clear();
            u.rx_cur = None;
            u.rx_wait.clear();
            u.rx_judged = None;
            for q in &mut u.rxbuf {
                q.clear();
            }
            u.occ = [0; 16];
            u.pacer.reset();
            u.fctbs = [0; 16];
            u.cl = [0; 16];
            u.fcp_rx.clear();
            u.elig_since = [None; 16];
        }
        for d in &mut self.dirs {
            let before = d.ledger.len();
            d.ledger.retain(|_, p| p.state == St::Queued);
            d.rep.drops.resync += (before - d.ledger.len()) as u64;
            d.flipped.clear();
            d.in_flight_vl = [0; 16];
            d.last_psn_vl = [None; 16];
        }
    }

    /// The report so far (in flight = what is still in the ledgers).
    pub fn report(&self) -> RunReport {
        let mut r = RunReport {
            scenario: self.scenario.name.clone(),
            backend: format!("{:?}", self.opts.backend).to_lowercase(),
            vl_cap: self.vls,
            width: self.params.width,
            cycles: self.cycles,
            clocks: self.clock,
            a_to_b: self.dirs[0].rep.clone(),
            b_to_a: self.dirs[1].rep.clone(),
            resyncs: self.resyncs.clone(),
            last_fault: self.last_fault,
            timeline: self.timeline.clone(),
            wire: self.wire.clone(),
            vcd_clocks: self.vcd_clocks,
            vcd_error: self.vcd_error.clone(),
            ..Default::default()
        };
        for (k, rep) in [&mut r.a_to_b, &mut r.b_to_a].into_iter().enumerate() {
            rep.in_flight = self.dirs[k].ledger.len() as u64;
            rep.items = self.dirs[k].ledger.values().filter(|p| p.state != St::Queued).count() as u64;
            let _ = k;
        }
        if let Some(f) = self.last_fault {
            r.resync_after_last_fault = self.resyncs.iter().find(|e| e.clock >= f && e.by.is_some()).map(|e| e.clock - f);
            r.recovered_after_last_fault = self.recovered.map(|x| x.map(|c| c - f));
            let mut worst = Some(f);
            for d in &self.dirs {
                for v in 0..self.vls {
                    worst = match (worst, d.first_good[v]) {
                        (Some(w), Some(g)) => Some(w.max(g)),
                        _ => None,
                    };
                }
            }
            r.agree_after_last_fault = worst.map(|w| w - f);
        }
        r
    }

    /// Run the traffic phase, then flush (no new packets, no faults) until nothing is in
    /// flight or the flush budget is spent.
    pub fn run(&mut self) -> RunReport {
        while self.clock < self.cycles {
            self.step();
        }
        let end = self.cycles + self.opts.flush_clocks;
        while self.clock < end && (self.in_flight() > 0 || self.retrain_next || self.init_left + self.arm_left > 0) {
            self.step();
        }
        self.report()
    }
}

/// Run a scenario in the RTL back end of `opts`, with the reference model alongside.
pub fn run_scenario(s: &Scenario, opts: &RunOpts) -> Result<RunReport, SimBuildError> {
    let t0 = std::time::Instant::now();
    let mut sys = SystemRun::new(s, opts)?;
    let mut r = sys.run();
    if opts.model {
        r.model = Some(run_model(s, opts.cycles.unwrap_or(s.cycles), opts.flush_clocks));
    }
    r.wall_seconds = t0.elapsed().as_secs_f64();
    Ok(r)
}
