//! The link as a system (two ports back to back): scenarios, a channel with faults,
//! traffic, measurements, and what a run leaves behind (summary, timeline, wire records).
//!
//! The types in this file are the contract between the run engine (`run`, `scenario`)
//! and what consumes a run (`iblink sim`: summary table, SVG plot, ERF capture).

pub mod bins;
pub mod capture;
pub mod plot;
pub mod channel;
pub mod compare;
pub mod faults;
pub mod model_run;
pub mod report;
pub mod run;
pub mod scenario;
pub mod sweep;
pub mod traffic;

/// Which end sent an item: `AtoB` is port A's transmit stream (port B receives it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    AtoB,
    BtoA,
}

/// What became of an item on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Arrived unchanged.
    Delivered,
    /// The channel dropped it (FCP or data loss).
    Lost,
    /// The channel flipped a bit in it; the receiver's CRC checks must discard it.
    Flipped,
}

/// One item (data packet, VL15 packet or FCP) as it left a port's transmitter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireRecord {
    /// Clock of its first word (sop) at the sender.
    pub clock: u64,
    pub dir: Direction,
    /// `true` for a link packet (an FCP, 6 bytes); `false` for a data or VL15 packet
    /// (LRH..ICRC and the 2-byte VCRC).
    pub link: bool,
    /// The bytes as sent, before the channel did anything to them.
    pub bytes: Vec<u8>,
    pub fate: Fate,
}

/// Per-VL counters over one window of the timeline, one entry per data VL (index = VL)
/// and VL15 last. Windows are `sample_every` clocks from clock 0 and follow each other
/// without a gap; the last one ends with the traffic clocks and may be shorter.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sample {
    /// First clock of the window.
    pub from: u64,
    /// Clock at the end of the window (excluded: the window is `from..clock`).
    pub clock: u64,
    /// Bytes of data and VL15 packets (LRH through VCRC) that left each sender on the
    /// wire in the window's clocks, per VL, for each direction ([AtoB, BtoA]): a word
    /// counts in the clock it was sent, with the bytes it carries (a packet's last word
    /// may carry fewer than the link's width). Items the channel then lost or damaged
    /// count too: they used the wire. At most `width / 8` bytes a clock over all VLs.
    pub wire_bytes: [Vec<u64>; 2],
    /// Receive-buffer occupancy in blocks (VL15: packets) at the receiving end of each
    /// direction, per VL: the largest over the window's clocks ...
    pub occupancy_max: [Vec<u32>; 2],
    /// ... and the mean over the window's clocks.
    pub occupancy_mean: [Vec<f64>; 2],
}

impl Sample {
    /// Clocks the window covers.
    pub fn clocks(&self) -> u64 {
        self.clock - self.from
    }
}
