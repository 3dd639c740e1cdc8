//! iblink reference models: the link layer of an InfiniBand-style port written straight
//! from `docs/spec.md`, as plain Rust with explicit state, to check the RTL against cycle by
//! cycle. Every block keeps fixed-size state and steps without allocating, but for the
//! Ethernet port ([`eth_port`]), which holds its queues' frames as byte vectors.
//!
//! | module | docs/spec.md |
//! |---|---|
//! | [`crc16`] | §3 LPCRC / VCRC |
//! | [`blocks`] | §1 units, 12-bit arithmetic |
//! | [`fcp`] | §2 FCP wire format |
//! | [`credits`] | §4 FCTBS/CL (transmitter), ABR/FCCL/free (receiver) |
//! | [`scheduler`] | §5 FCP refresh and on-change scheduling |
//! | [`arbiter`] | §6 VL arbitration |
//! | [`sl2vl`], [`vl15`] | §7 SL→VL, VLCap; VL15 buffer |
//! | [`failsafe`] | §8 update monitor, overrun threshold |
//! | [`ethernet`] | §9 PAUSE / PFC frames |
//! | [`pfc`] | §9 PAUSE / PFC transmit and receive sides |
//! | [`eth_port`] | §9 the Ethernet flow-control port: queues, buffers, both sides |
//! | [`config`] | port configuration (TOML) |
//! | [`iba`] | §1, §3 IBA local data packets (LRH, BTH, DETH, ICRC, VCRC) for testbenches and captures |
//! | [`port`] | the composed port model, stepped per clock |
//! | [`erf`] | ERF captures of both link directions (data packets type 21, FCPs type 25) |
//!
//! ## Readings of the spec this model commits to
//!
//! * FCP decode checks, in order: length (exactly 6 bytes), LPCRC, Op, VL (a corrupted
//!   packet's fields mean nothing, so the CRC comes before the Op). Op 0 and Op 1 FCPs
//!   both update credits when received.
//! * Seed 000 step 9 prints `CL - CR = 2038` for CL 2048, CR 15; that is a slip
//!   (2048 − 15 = 2033) and the tests say so; the decision ("may send") is the seed's.
//! * The largest packet for buffer sizing is 66 blocks (4096-byte payload + 88 header
//!   bytes after the LRH; [`blocks::MAX_PACKET_BLOCKS`]).
//! * FCP refresh: 57,344 symbol times by default (1/8 margin under the 65,536 bound;
//!   [`config::DEFAULT_REFRESH_SYMBOLS`]); configured values must leave at least one
//!   maximum packet plus 15 FCPs of margin.
//! * Arbiter: HighPriCounter "may start while not negative" (docs/spec.md §6, over seed
//!   003's "still positive"); VLHighLimit 255 never decrements the counter; the pointer
//!   moves lazily; when nothing is eligible the arbiter does not change state; under
//!   [`arbiter::LowPolicy::Weight`] a low turn ends when its entry is exhausted *or*
//!   has nothing eligible. See [`arbiter`].
//! * Failsafe periods are the spec's 65,536 symbol times (`65536 / W` clocks), one
//!   period clock per port; "more than N" is strict.
//! * Resync is a link retrain: the item on the wire is lost, receive buffers are emptied
//!   (free = capacity), transmit queues are kept; [`port::PortPair`] resyncs both ends.

pub mod arbiter;
pub mod blocks;
pub mod config;
pub mod crc16;
pub mod credits;
pub mod erf;
pub mod eth_port;
pub mod ethernet;
pub mod failsafe;
pub mod fcp;
pub mod pfc;
pub mod iba;
pub mod port;
pub mod scheduler;
pub mod sl2vl;
pub mod vl15;
