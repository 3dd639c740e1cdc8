//! iblink reference models: the link layer of an InfiniBand-style port written straight
//! from `SPEC.md`, as plain Rust with explicit state, to check the RTL against cycle by
//! cycle. Every block keeps fixed-size state and steps without allocating.
//!
//! | module | SPEC.md |
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
//! | [`config`] | port configuration (TOML) |
//! | [`port`] | the composed port model, stepped per clock |

pub mod arbiter;
pub mod blocks;
pub mod config;
pub mod crc16;
pub mod credits;
pub mod ethernet;
pub mod failsafe;
pub mod fcp;
pub mod port;
pub mod scheduler;
pub mod sl2vl;
pub mod vl15;
