//! The PAUSE/PFC receive side in every back end, with random frames.
//! RTL: [`iblink_rtl::pause_rx`] (the `rtl` back end is its twin, [`PauseRxTwin`]);
//! model: [`iblink_model::pfc::PauseRx`], fed each frame whole at its last word.

use crate::blocks::{twin_box, Backend, SimBuildError};
use crate::CycleSim;
use iblink_model::ethernet::{PauseFrame, PauseKind, CRC32};
use iblink_model::pfc::PauseRx;
use iblink_rtl::catalog::pause_rx_variant;
use iblink_rtl::pause_rx::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::path::Path;

/// The model as a cycle simulation: the bytes of each frame gathered word by word and
/// given to [`PauseRx::tick`] in the clock of the last word.
pub struct PauseRxModelSim {
    width: usize,
    rx: PauseRx,
    frame: Vec<u8>,
    /// Counts of the models reset away are not kept: the block's counters reset too.
    counts: [u16; 8],
}

impl PauseRxModelSim {
    pub fn new(width: usize) -> Self {
        Self { width, rx: PauseRx::new(width as u32), frame: vec![], counts: [0; 8] }
    }

    pub fn model(&self) -> &PauseRx {
        &self.rx
    }
}

impl CycleSim for PauseRxModelSim {
    type In = PauseRxIn;
    type Out = PauseRxOut;
    fn backend(&self) -> &str {
        "model"
    }
    fn step(&mut self, i: &PauseRxIn) -> PauseRxOut {
        let c = self.rx.counts();
        let counts = [c.pause, c.pfc, c.dropped[0], c.dropped[1], c.dropped[2], c.dropped[3], c.dropped[4], c.dropped[5]].map(|x| x as u16);
        let mut done = None;
        if i.rx_valid {
            let n = self.width / 8;
            let lanes = if i.rx_last { (i.rx_keep as u32).trailing_ones() as usize } else { n };
            self.frame.extend((0..lanes.min(n)).map(|b| (i.rx_data >> (8 * b)) as u8));
            if i.rx_last {
                done = Some(std::mem::take(&mut self.frame));
            }
        }
        // The MAC's mark counts with the last word only.
        let marked = i.rx_valid && i.rx_last && i.rx_user;
        let paused = self.rx.tick_marked(done.as_deref(), marked);
        if i.reset {
            self.rx = PauseRx::new(self.width as u32);
            self.frame.clear();
        }
        self.counts = counts;
        PauseRxOut { paused, counts }
    }
}

pub type PauseRxSim = Box<dyn CycleSim<In = PauseRxIn, Out = PauseRxOut>>;

pub fn pause_rx_sim(width: usize, b: Backend, vcd: Option<&Path>) -> Result<PauseRxSim, SimBuildError> {
    pause_rx_variant(width)?;
    match (b, width) {
        (Backend::Model, _) => Ok(Box::new(PauseRxModelSim::new(width))),
        (_, 32) => twin_box::<_, PauseRxW32>(b, PauseRxTwin::new(32), || pause_rx_variant(32), vcd),
        _ => twin_box::<_, PauseRxW64>(b, PauseRxTwin::new(64), || pause_rx_variant(64), vcd),
    }
}

/// What the stimulus sends, for coverage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    Pause,
    Pfc,
    Release,
    BadFcs,
    BadDa,
    BadEtherType,
    BadOpcode,
    ShortControl,
    LongControl,
    Data,
    Runt,
}

/// Random frames word by word: good PAUSE and PFC frames (short times, so that timers run
/// out, and zero times that release), each kind of bad control frame, control frames of
/// the wrong length, data frames and runts of any length; idle gaps (none, often),
/// `rx_valid` low inside frames, and the odd reset.
pub struct PauseRxStimulus {
    rng: ChaCha8Rng,
    width: usize,
    words: VecDeque<PauseRxIn>,
    /// Frames started, by kind.
    pub sent: Vec<FrameKind>,
}

/// What an error `e` in a frame's four FCS bytes adds to the receiver's CRC-32 register
/// at the frame's end: the CRC is linear, so it is the checksum of `e` less that of four
/// zero bytes (the initial value and the final inversion cancel).
fn crc_of_fcs_error(e: u32) -> u32 {
    CRC32.checksum(&e.to_le_bytes()) ^ CRC32.checksum(&[0; 4])
}

/// The FCS error that moves the receiver's CRC register at the frame's end by `r`:
/// `crc_of_fcs_error` is a bijection on 32 bits (multiplication by x^32 modulo the
/// generator), solved here by Gaussian elimination over GF(2).
fn fcs_error_for_residue(r: u32) -> u32 {
    // Rows: (the register's change, the error that makes it), reduced to one pivot each.
    let mut rows: Vec<(u32, u32)> = (0..32).map(|j| (crc_of_fcs_error(1 << j), 1 << j)).collect();
    for bit in 0..32 {
        let p = (bit..32).find(|&i| rows[i].0 >> bit & 1 != 0).expect("invertible");
        rows.swap(bit, p);
        let pivot = rows[bit];
        for (i, row) in rows.iter_mut().enumerate() {
            if i != bit && row.0 >> bit & 1 != 0 {
                row.0 ^= pivot.0;
                row.1 ^= pivot.1;
            }
        }
    }
    (0..32).filter(|&bit| r >> bit & 1 != 0).fold(0, |e, bit| e ^ rows[bit].1)
}

impl PauseRxStimulus {
    pub fn new(seed: u64, width: usize) -> Self {
        Self { rng: ChaCha8Rng::seed_from_u64(seed), width, words: VecDeque::new(), sent: vec![] }
    }

    fn frame(&mut self) -> Vec<u8> {
        let r = &mut self.rng;
        let sa: [u8; 6] = r.gen();
        let t = |r: &mut ChaCha8Rng| if r.gen_ratio(1, 5) { 0 } else { r.gen_range(1..40u16) };
        let good = |kind| PauseFrame { sa, kind }.encode().to_vec();
        let refcs = |mut f: Vec<u8>| {
            let n = f.len();
            let c = CRC32.checksum(&f[..n - 4]);
            f[n - 4..].copy_from_slice(&c.to_le_bytes());
            f
        };
        let kinds = [
            FrameKind::Pause,
            FrameKind::Pfc,
            FrameKind::Pfc,
            FrameKind::Release,
            FrameKind::BadFcs,
            FrameKind::BadDa,
            FrameKind::BadEtherType,
            FrameKind::BadOpcode,
            FrameKind::ShortControl,
            FrameKind::LongControl,
            FrameKind::Data,
            FrameKind::Data,
            FrameKind::Runt,
        ];
        let k = kinds[r.gen_range(0..kinds.len())];
        let pfc = |r: &mut ChaCha8Rng| PauseKind::Pfc { enable: r.gen::<u8>() as u16, times: std::array::from_fn(|_| t(r)) };
        let f = match k {
            FrameKind::Pause => good(PauseKind::Pause { quanta: t(r) }),
            FrameKind::Pfc => good(pfc(r)),
            FrameKind::Release => good(PauseKind::Pfc { enable: r.gen::<u8>() as u16, times: [0; 8] }),
            FrameKind::BadFcs => {
                // One bit anywhere, or in the FCS's own bytes, or an FCS that leaves the
                // receiver's CRC register off its residue in one nibble alone (a check
                // that skips a nibble passes only that one).
                let mut f = good(pfc(r));
                match r.gen_range(0..4) {
                    0 => f[r.gen_range(0..64)] ^= 1 << r.gen_range(0..8),
                    1 | 2 => f[r.gen_range(60..64)] ^= 1 << r.gen_range(0..8),
                    _ => {
                        let nibble = r.gen_range(1..16u32) << (4 * r.gen_range(0..8));
                        for (b, e) in f[60..].iter_mut().zip(fcs_error_for_residue(nibble).to_le_bytes()) {
                            *b ^= e;
                        }
                    }
                }
                f
            }
            FrameKind::BadDa => {
                let mut f = good(pfc(r));
                f[r.gen_range(0..6)] ^= 0x10;
                refcs(f)
            }
            FrameKind::BadEtherType => {
                let mut f = good(PauseKind::Pause { quanta: t(r) });
                f[12 + r.gen_range(0..2)] ^= 0x01;
                refcs(f)
            }
            FrameKind::BadOpcode => {
                let mut f = good(pfc(r));
                f[14..16].copy_from_slice(&[[0x00, 0x02], [0x01, 0x00], [0x00, 0x00]][r.gen_range(0..3)]);
                refcs(f)
            }
            FrameKind::ShortControl => {
                let f = good(PauseKind::Pause { quanta: t(r) });
                refcs(f[..r.gen_range(14..64)].to_vec())
            }
            FrameKind::LongControl => {
                let mut f = good(pfc(r));
                f.extend((0..r.gen_range(1..80)).map(|_| r.gen::<u8>()));
                refcs(f)
            }
            FrameKind::Data => {
                let mut f: Vec<u8> = (0..r.gen_range(14..200)).map(|_| r.gen()).collect();
                f[0] &= 0xfe; // unicast
                f
            }
            FrameKind::Runt => {
                // Shorter than the EtherType: not a control frame whatever it says.
                let mut f = good(PauseKind::Pause { quanta: 7 });
                f.truncate(r.gen_range(1..14));
                f
            }
        };
        self.sent.push(k);
        f
    }

    fn queue_frame(&mut self) {
        let f = self.frame();
        let n = self.width / 8;
        let chunks: Vec<&[u8]> = f.chunks(n).collect();
        for (k, c) in chunks.iter().enumerate() {
            // A gap inside the frame now and then.
            if k > 0 && self.rng.gen_ratio(1, 20) {
                self.words.push_back(PauseRxIn { rx_data: self.rng.gen(), ..Default::default() });
            }
            let mut data = self.rng.gen::<u64>() & !iblink_rtl::bits::mask(8 * c.len());
            for (b, &x) in c.iter().enumerate() {
                data |= (x as u64) << (8 * b);
            }
            if n == 4 {
                data &= 0xffff_ffff;
            }
            let last = k + 1 == chunks.len();
            // The MAC marks one frame in twelve bad on its last word; on the other words
            // the mark means nothing (and is set now and then).
            let rx_user = if last { self.rng.gen_ratio(1, 12) } else { self.rng.gen_ratio(1, 10) };
            self.words.push_back(PauseRxIn {
                reset: false,
                rx_valid: true,
                rx_data: data,
                rx_keep: ((1u16 << c.len()) - 1) as u8 | if last { 0 } else { 0xff },
                rx_last: last,
                rx_user,
            });
        }
        let gap = if self.rng.gen_ratio(1, 2) { 0 } else { self.rng.gen_range(1..60) };
        for _ in 0..gap {
            self.words.push_back(PauseRxIn::default());
        }
    }
}

impl Iterator for PauseRxStimulus {
    type Item = PauseRxIn;
    fn next(&mut self) -> Option<PauseRxIn> {
        if self.words.is_empty() {
            self.queue_frame();
        }
        let mut i = self.words.pop_front().unwrap();
        if self.rng.gen_ratio(1, 20_000) {
            i.reset = true;
            // Half the time the frame it cuts ends there: the next one starts on a
            // receive side that only the reset made ready for it.
            if self.rng.gen_ratio(1, 2) {
                self.words.clear();
            }
        }
        if self.width == 32 {
            i.rx_keep &= 0xf;
        }
        Some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_fcs_error_solved_for_a_residue_moves_the_register_by_it() {
        let mut r = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..200 {
            let x: u32 = r.gen();
            assert_eq!(crc_of_fcs_error(fcs_error_for_residue(x)), x);
        }
        // And on a whole frame: the register over frame and FCS is the good residue
        // (0xdebb20e3 as the register holds it, before the final inversion) moved by x.
        let f = PauseFrame { sa: [2, 0, 0, 0, 0, 1], kind: PauseKind::Pause { quanta: 9 } }.encode().to_vec();
        let reg = |f: &[u8]| !CRC32.checksum(f);
        let x = 0x0000_0f00;
        let mut bad = f.clone();
        for (b, e) in bad[60..].iter_mut().zip(fcs_error_for_residue(x).to_le_bytes()) {
            *b ^= e;
        }
        assert_eq!(reg(&bad) ^ reg(&f), x);
    }
}
