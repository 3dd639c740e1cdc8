//! ERF capture of a two-port run: both directions of the link in one file, in time
//! order, for Wireshark/tshark (`iblink sim --capture out.erf`).
//!
//! The records are written by [`iblink_model::erf::ErfWriter`] (the format is documented
//! there):
//! - **Types.** Data and VL15 packets (LRH through VCRC) are type 21, InfiniBand; link
//!   packets (6-byte FCPs) are type 25, InfiniBand link.
//! - **Direction** is the ERF capture interface (flags bits 1–0): interface 0 is what
//!   port A transmits ([`Direction::AtoB`]), interface 1 what port B transmits.
//!   Wireshark names them "Port A (ERF Interface 0)" and "Port B (ERF Interface 1)".
//! - **Time.** A record's timestamp is the clock of the item's first word at its
//!   sender ([`WireRecord::clock`]) times the clock period, counted from 1970-01-01
//!   (Wireshark shows it as a date in 1970; the time since the first frame is the run
//!   time). The period is `1e12 / clock_hz` picoseconds rounded to the nearest
//!   picosecond. Records of the same clock keep A→B first.
//!
//! **What the channel did** ([`Fate`]). The default view, [`CaptureView::Receiver`],
//! is what a tap at each receiver's input would record, with the channel's verdict on
//! it:
//! - `Delivered`: the record as sent.
//! - `Flipped`: the record as sent, with the ERF **RX error** flag (flags bit 4) set:
//!   the receiver got this packet with a bit error and its CRC check discarded it.
//!   (The wire record carries the bytes before the flip, not which bit flipped; and
//!   Wireshark checks neither ICRC nor VCRC, so the flag is what makes the error show:
//!   tshark reports the expert error "ERF Rx Error" on the frame.)
//! - `Lost`: no record. The next record *of the same direction* carries the number of
//!   items lost since the previous one of that direction in its **loss counter**
//!   (`lctr`, saturating at 65535); tshark reports the expert warning "Packet loss
//!   occurred between previous and current packet" on it. Items lost after the last
//!   record of a direction are counted in [`CaptureStats::lost_unreported`].
//!
//! [`CaptureView::Sender`] is the transmitters' view instead: every record as sent, no
//! flags, loss counters 0.

use super::{Direction, Fate, WireRecord};
use iblink_model::erf::{self, ErfError, ErfType, ErfWriter, RecordMarks};
use std::io::Write;
use std::path::Path;

/// Which side of the channel the capture shows (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CaptureView {
    /// What each receiver got: lost items left out (loss counter on the next record),
    /// flipped items flagged RX error.
    #[default]
    Receiver,
    /// What each transmitter sent: every item, unmarked.
    Sender,
}

/// What a capture holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CaptureStats {
    /// Records written.
    pub records: u64,
    /// Of those, type 21 (data and VL15 packets).
    pub data: u64,
    /// Of those, type 25 (FCPs).
    pub fcps: u64,
    /// Records flagged RX error (flipped items; receiver view).
    pub rx_errors: u64,
    /// Items left out because the channel lost them (receiver view).
    pub lost: u64,
    /// Of `lost`, those after the last record of their direction: no loss counter
    /// carries them.
    pub lost_unreported: u64,
}

/// Errors writing a capture.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error("clock_hz: {0} Hz gives no clock period of at least 1 ps")]
    BadClock(u64),
    #[error("writing {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("wire record {index} (clock {clock}): {source}")]
    Erf {
        index: usize,
        clock: u64,
        source: ErfError,
    },
}

/// The ERF capture interface of a direction.
pub fn erf_direction(d: Direction) -> erf::Direction {
    match d {
        Direction::AtoB => erf::Direction::AToB,
        Direction::BtoA => erf::Direction::BToA,
    }
}

/// The clock period in picoseconds for `clock_hz`, rounded to the nearest picosecond.
pub fn clock_period_ps(clock_hz: u64) -> Result<u64, CaptureError> {
    if clock_hz == 0 || clock_hz > 2_000_000_000_000 {
        return Err(CaptureError::BadClock(clock_hz));
    }
    Ok((2_000_000_000_000 / clock_hz).div_ceil(2))
}

/// Write `records` (any order; they are sorted by clock, A→B first within a clock) as
/// ERF to `out`.
pub fn write_erf_to<W: Write>(
    records: &[WireRecord],
    clock_hz: u64,
    view: CaptureView,
    out: W,
) -> Result<(W, CaptureStats), CaptureError> {
    let mut order: Vec<usize> = (0..records.len()).collect();
    order.sort_by_key(|&i| (records[i].clock, records[i].dir == Direction::BtoA));
    let mut w = ErfWriter::new(out, clock_period_ps(clock_hz)?).expect("period checked");
    let mut stats = CaptureStats::default();
    // Items lost since the last record written, per direction.
    let mut pending_loss = [0u64; 2];
    for i in order {
        let r = &records[i];
        let d = r.dir as usize;
        let mut marks = RecordMarks::default();
        if view == CaptureView::Receiver {
            match r.fate {
                Fate::Delivered => {}
                Fate::Flipped => marks.rx_error = true,
                Fate::Lost => {
                    pending_loss[d] += 1;
                    stats.lost += 1;
                    continue;
                }
            }
            marks.lctr = pending_loss[d].min(u16::MAX as u64) as u16;
            pending_loss[d] = 0;
        }
        let ty = if r.link {
            ErfType::InfiniBandLink
        } else {
            ErfType::InfiniBand
        };
        w.write_marked(r.clock, erf_direction(r.dir), ty, &r.bytes, marks)
            .map_err(|source| CaptureError::Erf {
                index: i,
                clock: r.clock,
                source,
            })?;
        stats.records += 1;
        match ty {
            ErfType::InfiniBand => stats.data += 1,
            ErfType::InfiniBandLink => stats.fcps += 1,
        }
        stats.rx_errors += marks.rx_error as u64;
    }
    stats.lost_unreported = pending_loss.iter().sum();
    let out = w.finish().map_err(|source| CaptureError::Erf {
        index: records.len(),
        clock: 0,
        source,
    })?;
    Ok((out, stats))
}

/// Write `records` as an ERF capture file at `path` (see the module documentation).
/// The file is written only when every record could be encoded.
pub fn write_erf(
    records: &[WireRecord],
    clock_hz: u64,
    view: CaptureView,
    path: &Path,
) -> Result<CaptureStats, CaptureError> {
    let (bytes, stats) = write_erf_to(records, clock_hz, view, Vec::new())?;
    std::fs::write(path, bytes).map_err(|source| CaptureError::Io {
        path: path.display().to_string(),
        source,
    })?;
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use iblink_model::erf::read_all;
    use iblink_model::fcp::{Fcp, FcpOp};
    use iblink_model::iba::{self, PacketFields};

    fn data(clock: u64, dir: Direction, vl: u8, fate: Fate) -> WireRecord {
        let f = PacketFields {
            vl,
            slid: 1,
            dlid: 2,
            ..Default::default()
        };
        WireRecord {
            clock,
            dir,
            link: false,
            bytes: iba::build(&f, &iba::deterministic_payload(clock, 40)).unwrap(),
            fate,
        }
    }

    fn fcp(clock: u64, dir: Direction, vl: u8, fate: Fate) -> WireRecord {
        WireRecord {
            clock,
            dir,
            link: true,
            bytes: Fcp::new(FcpOp::Normal, 7, vl, 99)
                .unwrap()
                .encode()
                .to_vec(),
            fate,
        }
    }

    #[test]
    fn clock_periods() {
        assert_eq!(clock_period_ps(250_000_000).unwrap(), 4_000);
        assert_eq!(clock_period_ps(156_250_000).unwrap(), 6_400);
        // 322,265,625 Hz: 3103.03 ps -> 3103.
        assert_eq!(clock_period_ps(322_265_625).unwrap(), 3_103);
        // 3 THz would be 0.33 ps.
        assert!(clock_period_ps(0).is_err());
        assert!(clock_period_ps(3_000_000_000_000).is_err());
    }

    use Direction::{AtoB, BtoA};
    use Fate::{Delivered, Flipped, Lost};

    /// Out-of-order input, both views: order, types, interfaces, flags, loss counters.
    #[test]
    fn views_order_types_and_marks() {
        let recs = vec![
            fcp(30, BtoA, 1, Delivered),
            data(10, AtoB, 0, Delivered),
            data(10, BtoA, 2, Lost),
            data(12, BtoA, 3, Lost),
            fcp(20, AtoB, 0, Flipped),
            data(20, BtoA, 1, Delivered),
            data(25, AtoB, 0, Lost),
            data(10, AtoB, 1, Delivered),
        ];
        // Receiver view: lost items gone, the next record of their direction counts
        // them; the flipped FCP is flagged; A->B's last loss has no record after it.
        let (b, s) = write_erf_to(&recs, 250_000_000, CaptureView::Receiver, Vec::new()).unwrap();
        let got: Vec<_> = read_all(&b)
            .unwrap()
            .iter()
            .map(|r| {
                (
                    (r.ts_ps() + 2_000) / 4_000,
                    r.iface(),
                    r.type_code(),
                    r.rx_error(),
                    r.lctr,
                    r.data.clone(),
                )
            })
            .collect();
        let want = [
            (10, 0, 21, false, 0, recs[1].bytes.clone()),
            (10, 0, 21, false, 0, recs[7].bytes.clone()),
            (20, 0, 25, true, 0, recs[4].bytes.clone()),
            (20, 1, 21, false, 2, recs[5].bytes.clone()),
            (30, 1, 25, false, 0, recs[0].bytes.clone()),
        ];
        assert_eq!(got, want);
        let want_stats = CaptureStats {
            records: 5,
            data: 3,
            fcps: 2,
            rx_errors: 1,
            lost: 3,
            lost_unreported: 1,
        };
        assert_eq!(s, want_stats);
        // Sender view: all eight, unmarked.
        let (b, s) = write_erf_to(&recs, 250_000_000, CaptureView::Sender, Vec::new()).unwrap();
        let got: Vec<_> = read_all(&b)
            .unwrap()
            .iter()
            .map(|r| {
                (
                    (r.ts_ps() + 2_000) / 4_000,
                    r.iface(),
                    r.flags & 0x10,
                    r.lctr,
                )
            })
            .collect();
        let want = [
            (10, 0, 0, 0),
            (10, 0, 0, 0),
            (10, 1, 0, 0),
            (12, 1, 0, 0),
            (20, 0, 0, 0),
            (20, 1, 0, 0),
            (25, 0, 0, 0),
            (30, 1, 0, 0),
        ];
        assert_eq!(got, want);
        assert_eq!((s.records, s.data, s.fcps, s.lost), (8, 6, 2, 0));
    }

    #[test]
    fn loss_counter_saturates() {
        let mut recs: Vec<_> = (0..70_000).map(|c| fcp(c, AtoB, 0, Lost)).collect();
        recs.push(fcp(70_000, AtoB, 0, Delivered));
        let (b, s) = write_erf_to(&recs, 1_000_000, CaptureView::Receiver, Vec::new()).unwrap();
        let r = read_all(&b).unwrap();
        assert_eq!((r.len(), r[0].lctr), (1, u16::MAX));
        assert_eq!((s.lost, s.lost_unreported), (70_000, 0));
    }

    #[test]
    fn bad_inputs_write_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.erf");
        let recs = [data(1, AtoB, 0, Delivered)];
        let e = write_erf(&recs, 0, CaptureView::Receiver, &path).unwrap_err();
        assert!(e.to_string().starts_with("clock_hz"), "{e}");
        let mut empty = recs[0].clone();
        empty.bytes.clear();
        let e = write_erf(&[empty], 1_000, CaptureView::Receiver, &path).unwrap_err();
        assert!(e.to_string().contains("wire record 0"), "{e}");
        assert!(!path.exists());
    }
}
