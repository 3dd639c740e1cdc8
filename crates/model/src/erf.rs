//! ERF (Endace Extensible Record Format) captures of link traffic: a writer and a
//! reader, plain Rust, for the model and the RTL testbenches.
//!
//! An ERF file is a sequence of records with no file header. Each record is a 16-byte
//! header and the captured bytes:
//!
//! | bytes | field | |
//! |---|---|---|
//! | 0–7 | timestamp | little-endian 64-bit fixed point: seconds since 1970 in the high 32 bits, the binary fraction of a second in the low 32 |
//! | 8 | type | bit 7: an extension header follows; bits 6–0: record type |
//! | 9 | flags | bits 1–0: capture interface; bit 2: varying record length; bit 3: truncated; bit 4: RX error; bit 5: DS error |
//! | 10–11 | rlen | big-endian: record length including this header and padding |
//! | 12–13 | lctr | big-endian: loss counter |
//! | 14–15 | wlen | big-endian: length of the packet on the wire |
//!
//! Record types used here: 21 (InfiniBand: a data packet from the LRH through the
//! VCRC) and 25 (InfiniBand link: a link packet, here a 6-byte FCP). The writer pads
//! every record with zero bytes to a multiple of 8 (`rlen`), keeps `wlen` the packet's
//! own length, and sets "varying record length" (records are not of one fixed size).
//! A reader takes `min(wlen, rlen - 16 - extension headers)` bytes as the packet.
//! (Layout and type numbers as in Wireshark's ERF reader, `wiretap/erf.c` and
//! `wiretap/erf_record.h`.)
//!
//! **Directions.** The two directions of a link are two capture interfaces:
//! [`Direction::AToB`] is interface 0 (what port A transmits), [`Direction::BToA`] is
//! interface 1.
//!
//! **Time.** A record's timestamp is `clock × clock period` after the epoch second given
//! to the writer (default 0, i.e. 1970-01-01), rounded to the nearest 2⁻³² s (about
//! 0.23 ns). With the port model, `clock` is the step in which the item's last byte
//! left the transmitter ([`StepOut::tx`](crate::port::StepOut)), so the records of both
//! directions come out in time order. The writer refuses a clock earlier than the
//! previous record's (ERF readers expect time order).
//!
//! # A capture of a port-model run
//!
//! ```
//! use iblink_model::config::PortConfig;
//! use iblink_model::erf::{read_all, Direction, ErfType, ErfWriter};
//! use iblink_model::iba::{ItemPackets, PacketFields};
//! use iblink_model::port::{PortModel, PortPair, DEFAULT_ACTIVATE_AFTER};
//!
//! let cfg = PortConfig::default();
//! let mut pair = PortPair::new(PortModel::new(&cfg), PortModel::new(&cfg), DEFAULT_ACTIVATE_AFTER);
//! pair.a.enqueue(0, 64).unwrap();
//! pair.b.enqueue(1, 100).unwrap();
//! // Each direction builds its packets from its own template (LIDs swapped).
//! let mut from_a = ItemPackets::new(PacketFields { slid: 1, dlid: 2, ..Default::default() });
//! let mut from_b = ItemPackets::new(PacketFields { slid: 2, dlid: 1, ..Default::default() });
//! // A 4 ns clock (4,000 ps).
//! let mut cap = ErfWriter::new(Vec::new(), 4_000)?;
//! for clock in 0..1_000u64 {
//!     let (oa, ob) = pair.step();
//!     if let Some(item) = oa.tx {
//!         cap.write_item(clock, Direction::AToB, &from_a.wire(&item))?;
//!     }
//!     if let Some(item) = ob.tx {
//!         cap.write_item(clock, Direction::BToA, &from_b.wire(&item))?;
//!     }
//! }
//! let bytes = cap.finish()?; // or ErfWriter::new(File::create("out.erf")?, ...)
//!
//! let records = read_all(&bytes)?;
//! let data: Vec<_> = records.iter().filter(|r| r.erf_type() == Some(ErfType::InfiniBand)).collect();
//! assert_eq!(data.len(), 2);
//! assert!(records.iter().any(|r| r.erf_type() == Some(ErfType::InfiniBandLink)));
//! assert_eq!(data[0].data.len(), 64 * 4 + 2); // PktLen dwords and the VCRC
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::iba::WireItem;
use std::io::{Read, Write};

/// Bytes of an ERF record header.
pub const HEADER_BYTES: usize = 16;
/// Records are padded to a multiple of this many bytes.
pub const RECORD_ALIGN: usize = 8;
/// Flags bits 1–0: the capture interface.
pub const FLAG_IFACE_MASK: u8 = 0x03;
/// Flags bit 2: varying record length.
pub const FLAG_VLEN: u8 = 0x04;
/// Flags bit 3: the record was truncated.
pub const FLAG_TRUNC: u8 = 0x08;
/// Flags bit 4: RX error, the packet was received with a link error (a bad CRC).
pub const FLAG_RX_ERROR: u8 = 0x10;
/// Type bit 7: an 8-byte extension header follows (and so on while its bit 7 is set).
pub const TYPE_EXT_HEADER: u8 = 0x80;
/// Picoseconds in a second.
const PS_PER_S: u128 = 1_000_000_000_000;

/// The ERF record types this project writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErfType {
    /// Type 21: an InfiniBand data packet (LRH through VCRC).
    InfiniBand = 21,
    /// Type 25: an InfiniBand link packet (an FCP).
    InfiniBandLink = 25,
}

impl ErfType {
    pub const fn from_u8(t: u8) -> Option<Self> {
        match t {
            21 => Some(ErfType::InfiniBand),
            25 => Some(ErfType::InfiniBandLink),
            _ => None,
        }
    }
}

/// Which way a packet travelled; written as the capture interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Port A transmits, port B receives: interface 0.
    AToB = 0,
    /// Port B transmits, port A receives: interface 1.
    BToA = 1,
}

impl Direction {
    pub const fn iface(self) -> u8 {
        self as u8
    }
    pub const fn from_iface(i: u8) -> Option<Self> {
        match i {
            0 => Some(Direction::AToB),
            1 => Some(Direction::BToA),
            _ => None,
        }
    }
}

/// What a record says beyond its type and direction (see [`ErfWriter::write_marked`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecordMarks {
    /// Set the RX error flag ([`FLAG_RX_ERROR`]).
    pub rx_error: bool,
    /// The loss counter: packets lost between the previous record and this one.
    pub lctr: u16,
}

/// Errors writing or reading ERF.
#[derive(Debug, thiserror::Error)]
pub enum ErfError {
    #[error("ERF I/O: {0}")]
    Io(#[from] std::io::Error),
    #[error("clock_period_ps: 0 is not a clock period")]
    ZeroPeriod,
    #[error("record at clock {clock} comes before the previous record (clock {previous}); records must be in time order")]
    TimeWentBack { clock: u64, previous: u64 },
    #[error("clock {clock}: the timestamp's seconds do not fit in 32 bits")]
    TimeOverflow { clock: u64 },
    #[error("packet of {len} bytes does not fit in an ERF record (rlen is 16 bits)")]
    TooLong { len: usize },
    #[error("packet of 0 bytes: an ERF packet record needs at least one")]
    Empty,
    #[error(
        "record {index} at byte {offset}: rlen {rlen} is less than the {HEADER_BYTES}-byte header"
    )]
    BadRlen {
        index: usize,
        offset: u64,
        rlen: u16,
    },
    #[error("record {index} at byte {offset}: the file ends inside the record")]
    Truncated { index: usize, offset: u64 },
    #[error("record {index} at byte {offset}: extension headers run past rlen {rlen}")]
    BadExtHeaders {
        index: usize,
        offset: u64,
        rlen: u16,
    },
}

/// The ERF timestamp of `clock` with a clock of `clock_period_ps` picoseconds, counted
/// from `epoch_secs` seconds after 1970: seconds in the high 32 bits, the fraction of a
/// second (rounded to the nearest 2⁻³²) in the low 32.
pub fn timestamp(clock: u64, clock_period_ps: u64, epoch_secs: u32) -> Option<u64> {
    let ps = clock as u128 * clock_period_ps as u128;
    let mut secs = ps / PS_PER_S + epoch_secs as u128;
    let rem = ps % PS_PER_S;
    let mut frac = ((rem << 32) + PS_PER_S / 2) / PS_PER_S;
    if frac == 1 << 32 {
        frac = 0;
        secs += 1;
    }
    (secs <= u32::MAX as u128).then_some((secs as u64) << 32 | frac as u64)
}

/// Picoseconds since 1970 of an ERF timestamp (the fraction rounded to the nearest ps).
pub fn timestamp_ps(ts: u64) -> u128 {
    let secs = (ts >> 32) as u128;
    let frac = (ts & 0xffff_ffff) as u128;
    secs * PS_PER_S + (frac * PS_PER_S + (1 << 31)) / (1 << 32)
}

/// Writes ERF records to `out`.
pub struct ErfWriter<W: Write> {
    out: W,
    clock_period_ps: u64,
    epoch_secs: u32,
    last_clock: Option<u64>,
    records: u64,
}

impl<W: Write> ErfWriter<W> {
    /// A writer whose timestamps count clocks of `clock_period_ps` picoseconds from
    /// 1970-01-01 (see [`Self::with_epoch_secs`]).
    pub fn new(out: W, clock_period_ps: u64) -> Result<Self, ErfError> {
        if clock_period_ps == 0 {
            return Err(ErfError::ZeroPeriod);
        }
        Ok(Self {
            out,
            clock_period_ps,
            epoch_secs: 0,
            last_clock: None,
            records: 0,
        })
    }

    /// Clock 0 is `secs` seconds after 1970-01-01 (e.g. the time the run started).
    pub fn with_epoch_secs(mut self, secs: u32) -> Self {
        self.epoch_secs = secs;
        self
    }

    /// The timestamp a record at `clock` gets.
    pub fn timestamp(&self, clock: u64) -> Result<u64, ErfError> {
        timestamp(clock, self.clock_period_ps, self.epoch_secs)
            .ok_or(ErfError::TimeOverflow { clock })
    }

    /// Records written so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Write one record: `bytes` as a packet of type `ty` seen at `clock` going `dir`.
    pub fn write(
        &mut self,
        clock: u64,
        dir: Direction,
        ty: ErfType,
        bytes: &[u8],
    ) -> Result<(), ErfError> {
        self.write_marked(clock, dir, ty, bytes, RecordMarks::default())
    }

    /// [`Self::write`] with the RX error flag and the loss counter set from `marks`.
    pub fn write_marked(
        &mut self,
        clock: u64,
        dir: Direction,
        ty: ErfType,
        bytes: &[u8],
        marks: RecordMarks,
    ) -> Result<(), ErfError> {
        if let Some(previous) = self.last_clock {
            if clock < previous {
                return Err(ErfError::TimeWentBack { clock, previous });
            }
        }
        if bytes.is_empty() {
            return Err(ErfError::Empty);
        }
        let padded = (HEADER_BYTES + bytes.len()).next_multiple_of(RECORD_ALIGN);
        if padded > u16::MAX as usize {
            return Err(ErfError::TooLong { len: bytes.len() });
        }
        let ts = self.timestamp(clock)?;
        let mut h = [0u8; HEADER_BYTES];
        h[0..8].copy_from_slice(&ts.to_le_bytes());
        h[8] = ty as u8;
        h[9] = dir.iface() | FLAG_VLEN | if marks.rx_error { FLAG_RX_ERROR } else { 0 };
        h[10..12].copy_from_slice(&(padded as u16).to_be_bytes());
        h[12..14].copy_from_slice(&marks.lctr.to_be_bytes());
        h[14..16].copy_from_slice(&(bytes.len() as u16).to_be_bytes());
        self.out.write_all(&h)?;
        self.out.write_all(bytes)?;
        self.out
            .write_all(&[0u8; RECORD_ALIGN][..padded - HEADER_BYTES - bytes.len()])?;
        self.last_clock = Some(clock);
        self.records += 1;
        Ok(())
    }

    /// Write a model item's wire bytes ([`crate::iba::ItemPackets::wire`]): data
    /// packets as type 21, link packets as type 25.
    pub fn write_item(
        &mut self,
        clock: u64,
        dir: Direction,
        item: &WireItem,
    ) -> Result<(), ErfError> {
        let ty = match item {
            WireItem::Data(_) => ErfType::InfiniBand,
            WireItem::Link(_) => ErfType::InfiniBandLink,
        };
        self.write(clock, dir, ty, item.bytes())
    }

    /// Flush and hand back the output.
    pub fn finish(mut self) -> Result<W, ErfError> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// One record read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErfRecord {
    /// The timestamp as stored (see [`timestamp_ps`]).
    pub ts: u64,
    /// The type byte as stored (bit 7: extension headers present).
    pub type_byte: u8,
    pub flags: u8,
    pub rlen: u16,
    pub lctr: u16,
    pub wlen: u16,
    /// Extension headers (big-endian 64-bit words), if any.
    pub ext_headers: Vec<u64>,
    /// The packet: `min(wlen, bytes after the header and extension headers)` bytes.
    pub data: Vec<u8>,
}

impl ErfRecord {
    /// The record type (bits 6–0).
    pub fn type_code(&self) -> u8 {
        self.type_byte & !TYPE_EXT_HEADER
    }
    pub fn erf_type(&self) -> Option<ErfType> {
        ErfType::from_u8(self.type_code())
    }
    /// The capture interface (flags bits 1–0).
    pub fn iface(&self) -> u8 {
        self.flags & FLAG_IFACE_MASK
    }
    pub fn direction(&self) -> Option<Direction> {
        Direction::from_iface(self.iface())
    }
    /// The RX error flag (flags bit 4).
    pub fn rx_error(&self) -> bool {
        self.flags & FLAG_RX_ERROR != 0
    }
    /// Picoseconds since 1970.
    pub fn ts_ps(&self) -> u128 {
        timestamp_ps(self.ts)
    }
}

/// Reads ERF records one at a time.
pub struct ErfReader<R: Read> {
    input: R,
    index: usize,
    offset: u64,
}

/// Fill `buf`: `None` when it is full, `Some(n)` when the input ended after `n` bytes.
fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> std::io::Result<Option<usize>> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => return Ok(Some(n)),
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(None)
}

impl<R: Read> ErfReader<R> {
    pub fn new(input: R) -> Self {
        Self {
            input,
            index: 0,
            offset: 0,
        }
    }

    /// The next record, or `None` at the end of the input.
    pub fn next_record(&mut self) -> Result<Option<ErfRecord>, ErfError> {
        let (index, offset) = (self.index, self.offset);
        let truncated = ErfError::Truncated { index, offset };
        let mut h = [0u8; HEADER_BYTES];
        match read_full(&mut self.input, &mut h)? {
            None => {}
            Some(0) => return Ok(None),
            Some(_) => return Err(truncated),
        }
        let rlen = u16::from_be_bytes([h[10], h[11]]);
        if (rlen as usize) < HEADER_BYTES {
            return Err(ErfError::BadRlen {
                index,
                offset,
                rlen,
            });
        }
        let mut body = vec![0u8; rlen as usize - HEADER_BYTES];
        if read_full(&mut self.input, &mut body)?.is_some() {
            return Err(truncated);
        }
        let type_byte = h[8];
        let mut ext_headers = vec![];
        let mut at = 0;
        let mut more = type_byte & TYPE_EXT_HEADER != 0;
        while more {
            let Some(e) = body.get(at..at + 8) else {
                return Err(ErfError::BadExtHeaders {
                    index,
                    offset,
                    rlen,
                });
            };
            more = e[0] & TYPE_EXT_HEADER != 0;
            ext_headers.push(u64::from_be_bytes(e.try_into().unwrap()));
            at += 8;
        }
        let wlen = u16::from_be_bytes([h[14], h[15]]);
        let end = (at + wlen as usize).min(body.len());
        body.truncate(end);
        body.drain(..at);
        self.index += 1;
        self.offset += rlen as u64;
        Ok(Some(ErfRecord {
            ts: u64::from_le_bytes(h[0..8].try_into().unwrap()),
            type_byte,
            flags: h[9],
            rlen,
            lctr: u16::from_be_bytes([h[12], h[13]]),
            wlen,
            ext_headers,
            data: body,
        }))
    }
}

impl<R: Read> Iterator for ErfReader<R> {
    type Item = Result<ErfRecord, ErfError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

/// Every record of an ERF file held in memory.
pub fn read_all(bytes: &[u8]) -> Result<Vec<ErfRecord>, ErfError> {
    ErfReader::new(bytes).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fcp::{Fcp, FcpOp};

    #[test]
    fn timestamps_are_32_32_fixed_point() {
        // One second is 1 << 32; half a second is 0x8000_0000 in the fraction.
        assert_eq!(timestamp(250_000_000, 4_000, 0), Some(1 << 32));
        assert_eq!(timestamp(125_000_000, 4_000, 0), Some(0x8000_0000));
        // 4 ns = 4e-9 * 2^32 = 17.18 -> 17; 6.4 ns -> 27.49 -> 27.
        assert_eq!(timestamp(1, 4_000, 0), Some(17));
        assert_eq!(timestamp(1, 6_400, 0), Some(27));
        // The epoch second goes in the high word.
        assert_eq!(
            timestamp(1, 4_000, 1_700_000_000),
            Some(1_700_000_000u64 << 32 | 17)
        );
        // A fraction that rounds up to a whole second carries.
        assert_eq!(timestamp(999_999_999_999, 1, 0), Some(1 << 32));
        assert_eq!(timestamp(u64::MAX, u64::MAX, 0), None);
        // Back to picoseconds within half a tick (2^-33 s = 116 ps).
        for clock in [0u64, 1, 7, 1_000, 123_456_789, 1 << 40] {
            let ps = clock as u128 * 6_400;
            let back = timestamp_ps(timestamp(clock, 6_400, 0).unwrap());
            assert!(back.abs_diff(ps) <= 117, "clock {clock}: {back} vs {ps}");
        }
    }

    #[test]
    fn consecutive_clocks_keep_time_order() {
        let mut prev = 0;
        for clock in 0..100_000u64 {
            let ts = timestamp(clock, 4_000, 0).unwrap();
            assert!(ts > prev || clock == 0);
            prev = ts;
        }
    }

    #[test]
    fn record_layout_byte_by_byte() {
        let mut w = ErfWriter::new(Vec::new(), 4_000).unwrap();
        let fcp = Fcp::new(FcpOp::Init, 0, 0, 0).unwrap().encode();
        w.write(250_000_000, Direction::BToA, ErfType::InfiniBandLink, &fcp)
            .unwrap();
        let b = w.finish().unwrap();
        #[rustfmt::skip]
        let want = [
            0, 0, 0, 0, 1, 0, 0, 0, // ts: 1 s, little-endian
            25,                     // type: InfiniBand link
            0x05,                   // flags: interface 1, varying length
            0, 24,                  // rlen: 16 + 6 + 2 pad
            0, 0,                   // lctr
            0, 6,                   // wlen
            0x10, 0, 0, 0, 0x58, 0x05, // the FCP (docs/spec.md §3 example)
            0, 0,                   // pad to 8
        ];
        assert_eq!(b, want);
    }

    #[test]
    fn marks_set_the_rx_error_flag_and_the_loss_counter() {
        let mut w = ErfWriter::new(Vec::new(), 4_000).unwrap();
        let fcp = Fcp::new(FcpOp::Init, 0, 0, 0).unwrap().encode();
        let marks = RecordMarks {
            rx_error: true,
            lctr: 0x0102,
        };
        w.write_marked(0, Direction::AToB, ErfType::InfiniBandLink, &fcp, marks)
            .unwrap();
        let b = w.finish().unwrap();
        // flags: interface 0, varying length, RX error; lctr big-endian.
        assert_eq!(&b[8..16], &[25, 0x14, 0, 24, 0x01, 0x02, 0, 6]);
        let r = &read_all(&b).unwrap()[0];
        assert!(r.rx_error());
        assert_eq!((r.lctr, r.data.as_slice()), (0x0102, &fcp[..]));
    }

    #[test]
    fn padding_to_eight_and_read_back() {
        let mut w = ErfWriter::new(Vec::new(), 1_000).unwrap();
        let mut sent = vec![];
        for len in 1..=40usize {
            let bytes: Vec<u8> = (0..len as u8).map(|x| x ^ 0x5a).collect();
            let dir = if len % 2 == 0 {
                Direction::AToB
            } else {
                Direction::BToA
            };
            let ty = if len % 3 == 0 {
                ErfType::InfiniBandLink
            } else {
                ErfType::InfiniBand
            };
            w.write(len as u64 * 10, dir, ty, &bytes).unwrap();
            sent.push((len, dir, ty, bytes));
        }
        assert_eq!(w.records(), 40);
        let b = w.finish().unwrap();
        let recs = read_all(&b).unwrap();
        assert_eq!(recs.len(), 40);
        let mut total = 0;
        for (r, (len, dir, ty, bytes)) in recs.iter().zip(&sent) {
            assert_eq!(r.rlen as usize % 8, 0);
            assert_eq!(r.rlen as usize, (16 + len).div_ceil(8) * 8);
            assert_eq!(r.wlen as usize, *len);
            assert_eq!(r.data, *bytes);
            assert_eq!(r.direction(), Some(*dir));
            assert_eq!(r.erf_type(), Some(*ty));
            assert_eq!(r.flags & FLAG_VLEN, FLAG_VLEN);
            assert_eq!(r.lctr, 0);
            assert!(!r.rx_error());
            // Within half a 2^-32 s tick.
            assert!(r.ts_ps().abs_diff(*len as u128 * 10_000) <= 117);
            total += r.rlen as usize;
        }
        assert_eq!(total, b.len());
    }

    #[test]
    fn writer_errors() {
        assert!(matches!(
            ErfWriter::new(Vec::new(), 0),
            Err(ErfError::ZeroPeriod)
        ));
        let mut w = ErfWriter::new(Vec::new(), 1_000).unwrap();
        w.write(5, Direction::AToB, ErfType::InfiniBand, &[1])
            .unwrap();
        // Same clock is fine (both directions finish in one step), earlier is not.
        w.write(5, Direction::BToA, ErfType::InfiniBand, &[1])
            .unwrap();
        let e = w
            .write(4, Direction::AToB, ErfType::InfiniBand, &[1])
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "record at clock 4 comes before the previous record (clock 5); records must be in time order"
        );
        assert!(matches!(
            w.write(6, Direction::AToB, ErfType::InfiniBand, &[]),
            Err(ErfError::Empty)
        ));
        assert!(matches!(
            w.write(6, Direction::AToB, ErfType::InfiniBand, &vec![0; 65_520]),
            Err(ErfError::TooLong { len: 65_520 })
        ));
        assert!(w
            .write(6, Direction::AToB, ErfType::InfiniBand, &vec![0; 65_512])
            .is_ok());
    }

    #[test]
    fn reader_errors_and_extension_headers() {
        let mut w = ErfWriter::new(Vec::new(), 1_000).unwrap();
        w.write(1, Direction::AToB, ErfType::InfiniBand, &[9; 10])
            .unwrap();
        let good = w.finish().unwrap();
        // The file ends inside the header, then inside the body.
        for cut in [1, 15, 16, 31] {
            assert!(matches!(
                read_all(&good[..cut]),
                Err(ErfError::Truncated {
                    index: 0,
                    offset: 0
                })
            ));
        }
        // A second record with rlen below the header size.
        let mut bad = good.clone();
        bad.extend_from_slice(&good);
        bad[32 + 10..32 + 12].copy_from_slice(&15u16.to_be_bytes());
        assert_eq!(
            read_all(&bad).unwrap_err().to_string(),
            "record 1 at byte 32: rlen 15 is less than the 16-byte header"
        );
        // A record with one extension header (type bit 7) before the packet.
        let mut ext = good[..16].to_vec();
        ext[8] |= TYPE_EXT_HEADER;
        ext[10..12].copy_from_slice(&40u16.to_be_bytes());
        ext.extend_from_slice(&[0x03, 0, 0, 0, 0, 0, 0, 0x42]);
        ext.extend_from_slice(&[9; 10]);
        ext.extend_from_slice(&[0; 6]);
        let r = &read_all(&ext).unwrap()[0];
        assert_eq!(r.ext_headers, vec![0x0300_0000_0000_0042]);
        assert_eq!(r.data, vec![9; 10]);
        assert_eq!(r.erf_type(), Some(ErfType::InfiniBand));
        // Extension headers claimed but none fit.
        let mut e2 = good.clone();
        e2[8] |= TYPE_EXT_HEADER;
        e2[10..12].copy_from_slice(&16u16.to_be_bytes());
        e2.truncate(16);
        assert!(matches!(read_all(&e2), Err(ErfError::BadExtHeaders { .. })));
        assert!(read_all(&[]).unwrap().is_empty());
    }
}
