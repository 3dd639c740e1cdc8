//! The channel between two ports, one direction: a fixed latency in clocks, and per item
//! (FCP, data or VL15 packet) a fate decided at its first word ([`super::faults`]):
//! delivered, lost (every word of it removed, as if the physical layer had dropped the
//! packet) or one bit flipped (which the receiver's LPCRC / VCRC must catch).

use super::{Fate, WireRecord, Direction};
use iblink_rtl::link_port::{tuser, LinkPortIn, LinkPortOut};
use std::collections::VecDeque;

/// One link word (the shared link word stream contract, helpers.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct LinkWord {
    pub data: u64,
    pub keep: u8,
    pub sop: bool,
    pub eop: bool,
    pub link: bool,
}

impl LinkWord {
    /// The word a port transmits this clock, if any.
    pub fn from_tx(o: &LinkPortOut) -> Option<Self> {
        o.m_axis_phy_tvalid.then_some(Self {
            data: o.m_axis_phy_tdata,
            keep: o.m_axis_phy_tkeep,
            sop: o.tx_start(),
            eop: o.m_axis_phy_tlast,
            link: o.tx_link(),
        })
    }

    /// Present this word on a port's receive inputs.
    pub fn drive_rx(&self, i: &mut LinkPortIn) {
        i.s_axis_phy_tvalid = true;
        i.s_axis_phy_tdata = self.data;
        i.s_axis_phy_tkeep = self.keep;
        i.s_axis_phy_tlast = self.eop;
        i.s_axis_phy_tuser = tuser(self.sop, self.link);
    }
}

/// The item being passed through.
struct Item {
    clock: u64,
    link: bool,
    fate: Fate,
    /// Bit of the item (from its first byte) to flip.
    flip_bit: u64,
    bytes: Vec<u8>,
}

/// One direction of the channel.
pub struct Channel {
    pub dir: Direction,
    width_bytes: usize,
    /// Words in flight; the front arrives this clock.
    q: VecDeque<Option<LinkWord>>,
    latency: usize,
    cur: Option<Item>,
}

impl Channel {
    pub fn new(dir: Direction, width_bytes: usize, latency: usize) -> Self {
        Self {
            dir,
            width_bytes,
            q: (0..latency).map(|_| None).collect(),
            latency,
            cur: None,
        }
    }

    /// The word arriving at the receiver this clock.
    pub fn arriving(&self) -> Option<LinkWord> {
        self.q.front().copied().flatten()
    }

    /// Retrain: everything on the wire is gone.
    pub fn clear(&mut self) {
        self.q.clear();
        self.q.extend((0..self.latency).map(|_| None));
        self.cur = None;
    }

    /// End of a clock: the arriving word is consumed and the sender's word `w` enters.
    /// At a first word, `fate` (given that word) says what becomes of the item and
    /// `flip_bit` which of its bits to flip (Flipped). Returns the item's record when its
    /// last word has entered.
    pub fn push(&mut self, clock: u64, w: Option<LinkWord>, fate: impl FnOnce(&LinkWord) -> (Fate, u64)) -> Option<WireRecord> {
        self.q.pop_front();
        let Some(mut w) = w else {
            self.q.push_back(None);
            return None;
        };
        if w.sop || self.cur.is_none() {
            let (f, flip_bit) = fate(&w);
            self.cur = Some(Item {
                clock,
                link: w.link,
                fate: f,
                flip_bit,
                bytes: Vec::with_capacity(64),
            });
        }
        let it = self.cur.as_mut().expect("item");
        let n = if w.eop { 8 - w.keep.leading_zeros() as usize } else { self.width_bytes };
        let at = it.bytes.len() as u64;
        for b in 0..n {
            it.bytes.push((w.data >> (8 * b)) as u8);
        }
        if it.fate == Fate::Flipped && (at * 8..(at + n as u64) * 8).contains(&it.flip_bit) {
            w.data ^= 1 << (it.flip_bit - at * 8);
        }
        self.q.push_back((it.fate != Fate::Lost).then_some(w));
        if w.eop {
            let it = self.cur.take().expect("item");
            return Some(WireRecord {
                clock: it.clock,
                dir: self.dir,
                link: it.link,
                bytes: it.bytes,
                fate: it.fate,
            });
        }
        None
    }
}

