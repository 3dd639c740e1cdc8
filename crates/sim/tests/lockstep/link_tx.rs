//! Link TX path: the independent cycle model, the Rust twin and Verilator in
//! lockstep on reactive random traffic (1M clocks per width), a checker of the wire that
//! uses neither model (VCRC against the `crc` crate, contiguity, priority, the documented
//! latency), and directed examples through every back end.

use iblink_model::crc16::crc16_wire;
use iblink_rtl::link_tx::{keep_of, LinkTxIn, LinkTxOut, LinkWord, READ_TO_WIRE, START_TO_SOP, VL15};
use iblink_sim::blocks::Backend;
use iblink_sim::blocks::link_tx::{link_tx_sim, ItemKind, LinkTxSim, LinkTxStimulus, StartedItem};
use iblink_sim::tb::link_tx::{priority, ready_count, started};
use iblink_sim::tb::{self, harness::TbOptions};
use iblink_sim::{lockstep, CycleSim};
use std::collections::VecDeque;
use std::sync::Mutex;

/// Verilator builds of one module from two test threads would collide: one at a time.
static BUILD: Mutex<()> = Mutex::new(());

fn sim(width: usize, b: Backend) -> LinkTxSim {
    let _g = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    link_tx_sim(width, b, None).unwrap()
}

/// Wire words of an item of `bytes` (docs/spec.md: data PktLen*4 + 2, FCP 6).
fn wire_words(bytes: usize, lanes: usize) -> u64 {
    bytes.div_ceil(lanes) as u64
}

// ----- lockstep -----------------------------------------------------------------------

/// The reactive random lockstep with its coverage gates (`iblink_sim::tb::link_tx`).
fn run_lockstep(width: usize) {
    let n = lockstep::cycles();
    tb::link_tx::run(width, tb::link_tx::seed(width), &TbOptions::test(n)).unwrap().assert_passed(n);
}

#[test]
fn lockstep_w32() {
    run_lockstep(32);
}

#[test]
fn lockstep_w64() {
    run_lockstep(64);
}

// ----- the wire, checked without the models -------------------------------------------

/// Checks the block from its ports alone: every start is the highest-priority ready
/// kind and happens exactly when the previous item's clocks are over (no bubble while
/// something is ready, nothing while busy); every item's words are on the wire from
/// `START_TO_SOP` clocks after its start, contiguous, with the bytes the environment
/// queued (the packet as queued + its VCRC from the `crc` crate; the FCP as the framer
/// gave it), keep contiguous from lane 0 and zero bytes past keep. Under backpressure
/// (docs/spec.md §10) clocks are counted as the block's contract counts them, in moving
/// clocks (`tx_ready`, or no word on the wire): in a clock that does not move nothing
/// starts and nothing is read, and the word on the wire is the one of the clock before.
struct WireChecker {
    lanes: usize,
    /// Moving clocks before this one.
    moved: u64,
    /// First moving clock at which the transmitter is at an item boundary again.
    free_at: u64,
    /// Starts whose bytes the environment has not yet reported: (clock, moving clock,
    /// kind, PktLen).
    unresolved: VecDeque<(u64, u64, ItemKind, u16)>,
    /// Expected wire words, by moving clock.
    expect: VecDeque<(u64, LinkWord)>,
    /// The word on the wire in the clock before, and whether that clock moved.
    prev: LinkWord,
    prev_moved: bool,
    reset_prev: bool,
    items: [u64; 3],
    vcrc_checked: u64,
    conflicts: u64,
    back_to_back: u64,
    last_eop: u64,
    stalled_words: u64,
    stalled_boundaries: u64,
}

impl WireChecker {
    fn new(width: usize) -> Self {
        Self {
            lanes: width / 8,
            moved: 0,
            free_at: 0,
            unresolved: VecDeque::new(),
            expect: VecDeque::new(),
            prev: LinkWord::default(),
            prev_moved: true,
            reset_prev: false,
            items: [0; 3],
            vcrc_checked: 0,
            conflicts: 0,
            back_to_back: 0,
            last_eop: u64::MAX,
            stalled_words: 0,
            stalled_boundaries: 0,
        }
    }

    fn resolve(&mut self, upto: u64, log: &mut VecDeque<StartedItem>) {
        while let Some(&(s, m, kind, len)) = self.unresolved.front() {
            if s > upto {
                break;
            }
            self.unresolved.pop_front();
            let item = log.pop_front().expect("the environment logged every start");
            assert_eq!(item.kind, kind, "start at {s}: the environment saw another kind");
            let mut bytes = item.bytes.clone();
            if kind == ItemKind::Fcp {
                assert_eq!(bytes.len(), 6);
            } else {
                assert_eq!(bytes.len(), len as usize * 4, "start at {s}: PktLen {len} vs the queued packet");
                // docs/spec.md §3: VCRC over LRH..ICRC, low byte first.
                bytes.extend_from_slice(&crc16_wire(&item.bytes));
                self.vcrc_checked += 1;
            }
            let n = bytes.len().div_ceil(self.lanes);
            for (k, chunk) in bytes.chunks(self.lanes).enumerate() {
                let data = chunk.iter().enumerate().fold(0u64, |a, (l, b)| a | (*b as u64) << (8 * l));
                let at = m + START_TO_SOP as u64 + k as u64;
                if let Some(&(last, _)) = self.expect.back() {
                    assert!(last < at, "items overlap on the wire at moving clock {at}");
                }
                self.expect.push_back((
                    at,
                    LinkWord {
                        valid: true,
                        data,
                        keep: keep_of(chunk.len() as u32),
                        sop: k == 0,
                        eop: k + 1 == n,
                        link: kind == ItemKind::Fcp,
                    },
                ));
            }
        }
    }

    /// Clock `t`: its inputs and outputs, and the environment's log of started items
    /// (which holds every start before `t`).
    fn observe(&mut self, t: u64, i: &LinkTxIn, o: &LinkTxOut, log: &mut VecDeque<StartedItem>) {
        let m = self.moved;
        if self.reset_prev {
            // The clock after a reset is a boundary.
            self.free_at = m;
        }
        let moves = i.tx_ready || !o.tx.valid;
        let s = started(o);
        if i.reset {
            assert!(s.is_none() && !o.src_rd, "clock {t}: a pulse during reset: {o:?}");
        } else if !moves {
            assert!(s.is_none() && !o.src_rd && !o.fcp_ready, "clock {t}: the wire stalls, yet {o:?}");
            self.stalled_boundaries += (m >= self.free_at && priority(i).is_some()) as u64;
        } else if m >= self.free_at {
            assert!(o.fcp_ready, "clock {t}");
            assert_eq!(s, priority(i), "clock {t}: at a boundary with {i:?}");
        } else {
            assert!(o.fcp_ready, "clock {t}");
            assert_eq!(s, None, "clock {t}: a start while the previous item is still going out");
        }
        if let Some(kind) = s {
            self.items[kind as usize] += 1;
            self.conflicts += (ready_count(i) >= 2) as u64;
            let len = match kind {
                ItemKind::Vl15 => i.vl15_len,
                ItemKind::Data => i.offer_len,
                ItemKind::Fcp => 0,
            };
            let bytes = if kind == ItemKind::Fcp { 6 } else { len as usize * 4 + 2 };
            self.free_at = m + wire_words(bytes, self.lanes);
            self.unresolved.push_back((t, m, kind, len));
        }
        if t > 0 {
            self.resolve(t - 1, log);
        }
        // The word on the wire now: the one expected at this moving clock, held (the
        // same word) through the clocks that do not move.
        if self.prev_moved {
            let want = match self.expect.front() {
                Some(&(c, w)) if c == m => {
                    self.expect.pop_front();
                    w
                }
                _ => LinkWord::default(),
            };
            assert_eq!(o.tx, want, "clock {t} (moving clock {m}): wire word");
            if want.sop && self.last_eop == m.wrapping_sub(1) {
                self.back_to_back += 1;
            }
            if want.eop {
                self.last_eop = m;
            }
        } else {
            assert_eq!(o.tx, self.prev, "clock {t}: the word waiting for tx_ready changed");
            self.stalled_words += 1;
        }
        self.prev = o.tx;
        self.prev_moved = moves;
        self.moved += moves as u64;
        self.reset_prev = i.reset;
        if i.reset {
            // Everything after this clock's word is dropped; the next clock is a boundary.
            self.resolve(t, log);
            self.expect.clear();
            // A word held in the reset clock is dropped too: the next clock's is new.
            self.prev_moved = true;
            self.moved += !moves as u64;
        }
    }
}

fn check_wire(width: usize, seed: u64, n: u64) {
    let mut dut = sim(width, Backend::Verilator);
    let mut stim = LinkTxStimulus::new(width, seed);
    stim.record = true;
    let mut chk = WireChecker::new(width);
    let mut prev: Option<LinkTxOut> = None;
    for t in 0..n {
        let i = stim.next_input(prev.as_ref());
        let o = dut.step(&i);
        chk.observe(t, &i, &o, &mut stim.started);
        prev = Some(o);
    }
    eprintln!(
        "link_tx w{width} wire check: {n} clocks, items vl15/fcp/data {:?}, {} VCRCs checked, \
         {} back to back, {} priority conflicts, {} clocks a word waited for tx_ready, \
         {} of them with an item ready at a boundary",
        chk.items, chk.vcrc_checked, chk.back_to_back, chk.conflicts, chk.stalled_words, chk.stalled_boundaries
    );
    assert!(chk.vcrc_checked >= 5000 && chk.items.iter().all(|n| *n >= 1000), "{:?}", chk.items);
    assert!(chk.back_to_back >= 10_000 && chk.conflicts >= 5000);
    assert!(chk.stalled_words >= 100_000 && chk.stalled_boundaries >= 1000);
}

#[test]
fn wire_check_w32() {
    check_wire(32, 0xc0de32, 1_000_000);
}

#[test]
fn wire_check_w64() {
    check_wire(64, 0xc0de64, 1_000_000);
}

// ----- directed -------------------------------------------------------------------------

/// Run a fixed environment through one back end: `sources[q]` are queue `q`'s words,
/// `inputs(t)` gives the clock's inputs apart from `src_data`.
fn run_directed(
    s: &mut dyn CycleSim<In = LinkTxIn, Out = LinkTxOut>,
    words: &mut [VecDeque<u64>],
    clocks: usize,
    inputs: impl Fn(usize) -> LinkTxIn,
) -> Vec<LinkTxOut> {
    let mut outs: Vec<LinkTxOut> = Vec::new();
    let mut src_vl = 0u8;
    let mut last = LinkTxIn::default();
    for t in 0..clocks {
        if let Some(p) = outs.last() {
            if p.src_rd {
                words[p.src_vl as usize].pop_front();
            }
            src_vl = if p.take {
                last.offer_vl
            } else if p.vl15_take {
                VL15
            } else {
                p.src_vl
            };
        }
        let mut i = inputs(t);
        i.src_data = words[src_vl as usize].front().copied().unwrap_or(0xdead_beef_dead_beef);
        outs.push(s.step(&i));
        last = i;
    }
    outs
}

fn words_of(bytes: &[u8], lanes: usize) -> VecDeque<u64> {
    bytes
        .chunks(lanes)
        .map(|c| c.iter().enumerate().fold(0u64, |a, (l, b)| a | (*b as u64) << (8 * l)))
        .collect()
}

/// The wire from clock `from`: (data, keep, sop, eop, link) while valid.
fn wire_from(outs: &[LinkTxOut], from: usize) -> Vec<(u64, u8, bool, bool, bool)> {
    outs[from..]
        .iter()
        .take_while(|o| o.tx.valid)
        .map(|o| (o.tx.data, o.tx.keep, o.tx.sop, o.tx.eop, o.tx.link))
        .collect()
}

/// A 6-dword data packet offered on VL3 in clock 0: taken in clock 0, read from clock 1
/// (`src_vl` 3), on the wire from clock 3 with its VCRC appended (docs/spec.md §3).
#[test]
fn one_packet_every_backend() {
    let pkt: Vec<u8> = (0..24u8).map(|x| x.wrapping_mul(37).wrapping_add(5)).collect();
    let mut wire = pkt.clone();
    wire.extend_from_slice(&crc16_wire(&pkt));
    for width in [32, 64] {
        let lanes = width / 8;
        for b in Backend::ALL {
            let mut s = sim(width, b);
            let mut q: Vec<VecDeque<u64>> = vec![VecDeque::new(); 16];
            q[3] = words_of(&pkt, lanes);
            let outs = run_directed(s.as_mut(), &mut q, 16, |t| LinkTxIn {
                link_active: true,
                offer_valid: t == 0,
                offer_vl: 3,
                offer_len: 6,
                ..Default::default()
            });
            let who = format!("{} w{width}", b.name());
            assert!(outs[0].take && !outs[0].vl15_take && !outs[0].fcp_start, "{who}");
            let reads: Vec<usize> = (0..16).filter(|t| outs[*t].src_rd).collect();
            let nreads = 24 / lanes;
            assert_eq!(reads, (1..=nreads).collect::<Vec<_>>(), "{who}: source reads");
            assert!(outs[1..=nreads].iter().all(|o| o.src_vl == 3), "{who}");
            // src_rd in clock t -> the word on the wire in t + READ_TO_WIRE.
            let sop = START_TO_SOP as usize;
            assert_eq!(reads[0] + READ_TO_WIRE as usize, sop, "{who}");
            let got = wire_from(&outs, sop);
            let want: Vec<(u64, u8, bool, bool, bool)> = wire
                .chunks(lanes)
                .enumerate()
                .map(|(k, c)| {
                    let d = c.iter().enumerate().fold(0u64, |a, (l, b)| a | (*b as u64) << (8 * l));
                    (d, keep_of(c.len() as u32), k == 0, (k + 1) * lanes >= wire.len(), false)
                })
                .collect();
            assert_eq!(got, want, "{who}: the wire");
            // 26 bytes: at 32 bits 6 words + the VCRC word (keep 0011); at 64 bits 3 + 0x03.
            assert_eq!(got.last().unwrap().1, 0x03, "{who}");
            assert!(!outs[sop - 1].tx.valid, "{who}");
            assert_eq!(outs[15].data_starts, 1, "{who}");
        }
    }
}

/// Everything ready at once in clock 0: VL15 (PktLen 7: odd, so at 64 bits its last word
/// holds 4 data bytes and the VCRC, keep 0x3F), then the FCP, then the data packet, back to
/// back with no idle clock between them.
#[test]
fn priority_and_back_to_back_every_backend() {
    let vl15: Vec<u8> = (0..28u8).map(|x| x ^ 0x5a).collect();
    let data: Vec<u8> = (0..32u8).map(|x| x.wrapping_mul(11)).collect();
    let fcp = [0x10u8, 0x00, 0x00, 0x00, 0x58, 0x05]; // docs/spec.md §3: the Op=1 header, LPCRC 58 05
    for width in [32usize, 64] {
        let lanes = width / 8;
        let vl15_words = (28 + 2usize).div_ceil(lanes);
        let fcp_words = 6usize.div_ceil(lanes);
        for b in Backend::ALL {
            let who = format!("{} w{width}", b.name());
            let mut s = sim(width, b);
            let mut q: Vec<VecDeque<u64>> = vec![VecDeque::new(); 16];
            q[15] = words_of(&vl15, lanes);
            q[9] = words_of(&data, lanes);
            // The decision clocks the contract gives: 0, then each item's clocks later.
            let t_fcp = vl15_words;
            let t_data = t_fcp + fcp_words;
            let outs = run_directed(s.as_mut(), &mut q, 40, |t| {
                let mut i = LinkTxIn {
                    link_active: true,
                    vl15_valid: t == 0,
                    vl15_len: 7,
                    fcp_pending: t <= t_fcp,
                    offer_valid: t <= t_data,
                    offer_vl: 9,
                    offer_len: 8,
                    ..Default::default()
                };
                // The framer: word k of the FCP k clocks after fcp_start (clock t_fcp).
                if t >= t_fcp && t < t_fcp + fcp_words {
                    let k = t - t_fcp;
                    let c = &fcp[k * lanes..(k * lanes + lanes).min(6)];
                    i.fcp_valid = true;
                    i.fcp_data = c.iter().enumerate().fold(0u64, |a, (l, b)| a | (*b as u64) << (8 * l));
                    i.fcp_keep = keep_of(c.len() as u32);
                    i.fcp_sop = k == 0;
                    i.fcp_eop = k + 1 == fcp_words;
                }
                i
            });
            assert!(outs[0].vl15_take, "{who}: VL15 first");
            assert!(outs[t_fcp].fcp_start, "{who}: the FCP in the VL15 packet's last clock");
            assert!(outs[t_data].take, "{who}: data after the FCP");
            let starts: usize = outs.iter().map(|o| o.vl15_take as usize + o.fcp_start as usize + o.take as usize).sum();
            assert_eq!(starts, 3, "{who}");
            let got = wire_from(&outs, START_TO_SOP as usize);
            let mut want_bytes: Vec<(Vec<u8>, bool)> = vec![];
            let mut v = vl15.clone();
            v.extend_from_slice(&crc16_wire(&vl15));
            want_bytes.push((v, false));
            want_bytes.push((fcp.to_vec(), true));
            let mut d = data.clone();
            d.extend_from_slice(&crc16_wire(&data));
            want_bytes.push((d, false));
            let want: Vec<(u64, u8, bool, bool, bool)> = want_bytes
                .iter()
                .flat_map(|(bytes, link)| {
                    let n = bytes.len().div_ceil(lanes);
                    bytes
                        .chunks(lanes)
                        .enumerate()
                        .map(move |(k, c)| {
                            let dd = c.iter().enumerate().fold(0u64, |a, (l, b)| a | (*b as u64) << (8 * l));
                            (dd, keep_of(c.len() as u32), k == 0, k + 1 == n, *link)
                        })
                        .collect::<Vec<_>>()
                })
                .collect();
            assert_eq!(got, want, "{who}: three items back to back");
            if width == 64 {
                assert_eq!(got[vl15_words - 1].1, 0x3f, "{who}: odd PktLen ending");
            }
            assert!(!outs[39].fcp_framing_error, "{who}");
            assert_eq!((outs[39].vl15_starts, outs[39].fcp_starts, outs[39].data_starts), (1, 1, 1), "{who}");
        }
    }
}

/// Backpressure (docs/spec.md §10): two data packets offered back to back on a wire that
/// stalls on the first word, inside the first packet, at the boundary between them and
/// on the last word. The words that move are the two packets with their VCRCs, in order,
/// none lost or repeated; a word waiting for `tx_ready` holds; nothing starts and
/// nothing is read in a clock that does not move.
#[test]
fn stalls_hold_the_wire_every_backend() {
    let a: Vec<u8> = (0..24u8).map(|x| x.wrapping_mul(29).wrapping_add(1)).collect();
    let b: Vec<u8> = (0..28u8).map(|x| x ^ 0xa5).collect();
    let mut want_bytes = vec![];
    for p in [&a, &b] {
        let mut w = p.clone();
        w.extend_from_slice(&crc16_wire(p));
        want_bytes.push(w);
    }
    // Ready low: the first word (4-6), inside (9), around the boundary (12-15), late (18-25).
    let low = |t: usize| (4..=6).contains(&t) || t == 9 || (12..=15).contains(&t) || (18..=25).contains(&t);
    for width in [32usize, 64] {
        let lanes = width / 8;
        let want: Vec<(u64, u8, bool, bool, bool)> = want_bytes
            .iter()
            .flat_map(|bytes| {
                let n = bytes.len().div_ceil(lanes);
                bytes
                    .chunks(lanes)
                    .enumerate()
                    .map(move |(k, c)| {
                        let d = c.iter().enumerate().fold(0u64, |x, (l, y)| x | (*y as u64) << (8 * l));
                        (d, keep_of(c.len() as u32), k == 0, k + 1 == n, false)
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        for be in Backend::ALL {
            let who = format!("{} w{width}", be.name());
            let mut s = sim(width, be);
            let mut q: Vec<VecDeque<u64>> = vec![VecDeque::new(); 16];
            q[3] = words_of(&a, lanes);
            q[5] = words_of(&b, lanes);
            let outs = run_directed(s.as_mut(), &mut q, 60, |t| LinkTxIn {
                link_active: true,
                offer_valid: t < 40,
                offer_vl: if t < 1 { 3 } else { 5 },
                offer_len: if t < 1 { 6 } else { 7 },
                tx_ready: !low(t),
                ..Default::default()
            });
            for (t, o) in outs.iter().enumerate().take(59) {
                if o.tx.valid && low(t) {
                    assert!(!o.take && !o.src_rd && !o.fcp_ready, "{who}: clock {t} stalls, yet {o:?}");
                    assert_eq!(outs[t + 1].tx, o.tx, "{who}: the waiting word changed after clock {t}");
                }
            }
            // The offer stays up after the two packets (later starts read an empty queue).
            let takes: Vec<usize> = (0..60).filter(|t| outs[*t].take).collect();
            let moved: Vec<_> = outs
                .iter()
                .enumerate()
                .filter(|(t, o)| o.tx.valid && !low(*t))
                .map(|(_, o)| (o.tx.data, o.tx.keep, o.tx.sop, o.tx.eop, o.tx.link))
                .take(want.len())
                .collect();
            assert_eq!(moved, want, "{who}: the words that moved");
            assert_eq!(takes[0], 0, "{who}");
            // The second packet starts in the first packet's last moving slot.
            let n_a = (24 + 2usize).div_ceil(lanes);
            let moving_before = |t: usize| (0..t).filter(|c| !(outs[*c].tx.valid && low(*c))).count();
            assert_eq!(moving_before(takes[1]), n_a, "{who}: the second start, in moving clocks");
        }
    }
}
