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
/// and VL15 last.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sample {
    /// Clock at the end of the window.
    pub clock: u64,
    /// Bytes of data packets delivered to each receiver's user in the window, per VL,
    /// for each direction ([AtoB, BtoA]).
    pub delivered_bytes: [Vec<u64>; 2],
    /// Receive-buffer occupancy in blocks (VL15: packets) at the receiving end of each
    /// direction, per VL: the largest over the window's clocks ...
    pub occupancy_max: [Vec<u32>; 2],
    /// ... and the mean over the window's clocks.
    pub occupancy_mean: [Vec<f64>; 2],
}
