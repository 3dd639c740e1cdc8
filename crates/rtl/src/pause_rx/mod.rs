//! PAUSE/PFC receive side (docs/spec.md §9): control frames checked (length, FCS, DA,
//! EtherType, opcode), drops counted by cause, per-priority pause timers and `paused`.
//!
//! In this folder: the Verilog module `iblink_pause_rx.v` (parameters `DATA_WIDTH`,
//! `COUNT_BITS`; it instantiates the generated `iblink_crc32_xor_w*`), and here its Rust
//! cycle twin [`PauseRxTwin`], the rust-hdl block [`PauseRxUnit`] and the port binding.
//! Reference model: `iblink_model::pfc::PauseRx`; lockstep: `crates/sim/tests/lockstep/pause_rx.rs`
//! (stimulus and the model adapter: `crates/sim/src/blocks/pause_rx.rs`).
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | synchronous: timers, counters and the frame in progress cleared |
//! | `rx_valid`, `rx_data[W]`, `rx_keep[W/8]`, `rx_last` | in | received frames, lane 0 first; `rx_keep` from lane 0 up on the last word |
//! | `rx_user` | in | with `rx_last`: the MAC marks the frame bad (checked before all else) |
//! | `paused[8]` | out | priority p held by a received frame |
//! | `cnt_pause`, `cnt_pfc` | out | good frames (16 bits, wrapping) |
//! | `cnt_length`, `cnt_fcs`, `cnt_da`, `cnt_ethertype`, `cnt_opcode`, `cnt_marked` | out | control frames dropped, by the first failed check |
//!
//! # Cycle contract
//! docs/spec.md §10, "The PAUSE/PFC receive side": each word is registered as it arrives
//! (with its CRC step's data part) and worked on a clock later. A frame's fields are
//! taken in the clock after its last word and it is decided in the next (from the
//! registered FCS); `paused` and the counters show it from the clock after that (the
//! third after the last word), `paused` for as many clocks as its times say (quanta x
//! `512 / W`). A word arriving with `reset` is dropped with its frame.

use crate::bits::mask;
use crate::crc32::{self, Xor32};
use crate::emit::{rust_hdl_wrapper, EmittedModule, Variant, VerilogSource};
use crate::twin::Twin;
use rust_hdl::prelude::*;

/// The hand-written module.
pub const SOURCE: VerilogSource = VerilogSource {
    module: "iblink_pause_rx",
    path: "crates/rtl/src/pause_rx/iblink_pause_rx.v",
    text: include_str!("iblink_pause_rx.v"),
};

pub use crate::pfc_tx::WIDTHS;
/// Bits of each counter in the generated variants.
pub const COUNT_BITS: usize = 16;
/// The CRC-32 register after a frame and its own FCS.
pub const RESIDUE: u32 = 0xDEBB_20E3;
/// Counter order: good PAUSE, good PFC, then drops by cause (the model's `RxDrop` order).
pub const COUNTERS: [&str; 8] = ["cnt_pause", "cnt_pfc", "cnt_length", "cnt_fcs", "cnt_da", "cnt_ethertype", "cnt_opcode", "cnt_marked"];

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PauseRxIn {
    pub reset: bool,
    pub rx_valid: bool,
    pub rx_data: u64,
    pub rx_keep: u8,
    pub rx_last: bool,
    pub rx_user: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PauseRxOut {
    pub paused: u8,
    /// In [`COUNTERS`] order.
    pub counts: [u16; 8],
}

/// The Rust cycle twin of `iblink_pause_rx` at `width` bits a clock.
#[derive(Clone, Debug)]
pub struct PauseRxTwin {
    width: usize,
    /// The input stage: the word that arrived last clock (`rx_valid` low after a reset).
    stage: PauseRxIn,
    idx: u8,
    long: bool,
    /// Bytes 0.. of the frame so far (the header words).
    hdr: [u8; 40],
    crc: u32,
    timers: [u32; 8],
    counts: [u16; 8],
    step: [Xor32; 32],
    /// Registered in the last word's clock: decide now, and what the frame was.
    decide: bool,
    control: bool,
    is64: bool,
    da_ok: bool,
    type_ok: bool,
    marked: bool,
}

impl PauseRxTwin {
    pub fn new(width: usize) -> Self {
        assert!(WIDTHS.contains(&width), "PauseRxTwin: {width} bits");
        Self {
            width,
            stage: PauseRxIn::default(),
            idx: 0,
            long: false,
            hdr: [0; 40],
            crc: crc32::INIT,
            timers: [0; 8],
            counts: [0; 8],
            step: crc32::equations(width),
            decide: false,
            control: false,
            is64: false,
            da_ok: false,
            type_ok: false,
            marked: false,
        }
    }

    fn bytes(&self) -> usize {
        self.width / 8
    }

    fn hdr_words(&self) -> usize {
        34usize.div_ceil(self.bytes())
    }

    /// The header with the current word in place.
    fn head(&self, i: &PauseRxIn) -> [u8; 40] {
        let mut h = self.hdr;
        let n = self.bytes();
        let k = self.idx as usize;
        if !self.long && k < self.hdr_words() {
            for b in 0..n {
                h[k * n + b] = (i.rx_data >> (8 * b)) as u8;
            }
        }
        h
    }
}

impl Twin for PauseRxTwin {
    type In = PauseRxIn;
    type Out = PauseRxOut;

    fn eval(&self, _i: &PauseRxIn) -> PauseRxOut {
        PauseRxOut { paused: self.timers.iter().enumerate().fold(0, |m, (p, &t)| m | (((t != 0) as u8) << p)), counts: self.counts }
    }

    fn tick(&mut self, i: &PauseRxIn) {
        // The block works on the word of the input stage, with this clock's reset.
        let s = PauseRxIn { reset: i.reset, ..self.stage };
        self.stage = PauseRxIn { rx_valid: i.rx_valid && !i.reset, reset: false, ..*i };
        self.work(&s);
    }
}

impl PauseRxTwin {
    /// One clock of the block behind the input stage: `i` is the stage's word.
    fn work(&mut self, i: &PauseRxIn) {
        let n = self.bytes();
        let qc_bits = (512 / self.width).trailing_zeros();
        // This clock's decision, on the frame whose last word was in the stage last clock
        // (hdr, crc hold it).
        let be16 = |h: &[u8; 40], b: usize| u16::from_be_bytes([h[b], h[b + 1]]);
        let fcs_ok = self.crc == RESIDUE;
        let mut which = None;
        let mut load: Option<(u8, [u16; 8])> = None;
        if self.decide && self.control {
            which = Some(if self.marked {
                7
            } else if !self.is64 {
                2
            } else if !fcs_ok {
                3
            } else if !self.da_ok {
                4
            } else if !self.type_ok {
                5
            } else {
                let f16 = be16(&self.hdr, 16);
                match be16(&self.hdr, 14) {
                    0x0001 => {
                        load = Some((0xff, [f16; 8]));
                        0
                    }
                    0x0101 => {
                        load = Some((f16 as u8, std::array::from_fn(|p| be16(&self.hdr, 18 + 2 * p))));
                        1
                    }
                    _ => 6,
                }
            });
        }
        // The stage's word.
        let head = self.head(i);
        let first = self.idx == 0 && !self.long;
        let data = i.rx_data & mask(self.width);
        // The valid lanes run from lane 0 up: 14 bytes or more is a word past the one
        // holding byte 13, or that word with byte 13's lane valid.
        let keep = i.rx_keep as u64 & mask(n);
        let idx = self.idx as usize;
        let ge14 = self.long || idx > 13 / n || (idx == 13 / n && keep >> (13 % n) & 1 == 1);
        let done = i.rx_valid && i.rx_last;
        let da_now = head[..6] == [0x01, 0x80, 0xc2, 0x00, 0x00, 0x01];
        let type_now = be16(&head, 12) == 0x8808;
        self.control = ge14 && (da_now || type_now);
        self.is64 = !self.long && idx == 64 / n - 1 && keep == mask(n);
        self.da_ok = da_now;
        self.type_ok = type_now;
        self.marked = i.rx_user;
        if i.rx_valid {
            self.crc = crc32::eval(&self.step, if first { crc32::INIT } else { self.crc }, data);
            self.hdr = head;
        }
        let tmask = mask(16 + qc_bits as usize) as u32;
        for (p, t) in self.timers.iter_mut().enumerate() {
            *t = match load {
                _ if i.reset => 0,
                Some((en, q)) if en >> p & 1 == 1 => ((q[p] as u32) << qc_bits) & tmask,
                _ => t.saturating_sub(1),
            };
        }
        if i.reset {
            self.decide = false;
            self.idx = 0;
            self.long = false;
            self.counts = [0; 8];
            return;
        }
        self.decide = done;
        if done {
            self.idx = 0;
            self.long = false;
        } else if i.rx_valid {
            if self.idx == 15 {
                self.long = true;
            } else {
                self.idx += 1;
            }
        }
        if let Some(c) = which {
            self.counts[c] = self.counts[c].wrapping_add(1);
        }
    }
}

crate::hdl_block! {
    /// The block for rust-hdl at `W` bits a clock; `K = W / 8`. Its core text carries the
    /// CRC-32 equations modules it names.
    pub struct PauseRxUnit<const W: usize, const K: usize> {
        twin: PauseRxTwin,
    }
    check: K * 8 == W;
    default: Self::with_twin(PauseRxTwin::new(W));
    hdl: |u| {
        let mut core = SOURCE.text.to_string();
        for w in WIDTHS {
            core.push_str(&crate::pfc_frame::xor_module(w).text);
        }
        rust_hdl_wrapper(u, SOURCE.module, &params(W), &core)
    };
    ports(i: PauseRxIn, o: PauseRxOut) {
        reset: in Bit = i.reset;
        rx_valid: in Bit = i.rx_valid;
        rx_data: in Bits<W> = i.rx_data;
        rx_keep: in Bits<K> = i.rx_keep;
        rx_last: in Bit = i.rx_last;
        rx_user: in Bit = i.rx_user;
        paused: out Bits<8> = o.paused;
        cnt_pause: out Bits<16> = o.counts[0];
        cnt_pfc: out Bits<16> = o.counts[1];
        cnt_length: out Bits<16> = o.counts[2];
        cnt_fcs: out Bits<16> = o.counts[3];
        cnt_da: out Bits<16> = o.counts[4];
        cnt_ethertype: out Bits<16> = o.counts[5];
        cnt_opcode: out Bits<16> = o.counts[6];
        cnt_marked: out Bits<16> = o.counts[7];
    }
}

pub fn params(width: usize) -> Vec<(String, String)> {
    vec![("DATA_WIDTH".to_string(), width.to_string()), ("COUNT_BITS".to_string(), COUNT_BITS.to_string())]
}

/// `hdl_out/iblink_pause_rx.v`.
pub fn module() -> EmittedModule {
    SOURCE.emit("pause_rx", vec![("parameters".into(), "DATA_WIDTH = 32 or 64, COUNT_BITS (counter width)".into())])
}

/// The receive side at `width` bits (`iblink_pause_rx_w<width>`), with the equations
/// modules it names.
pub fn variant(width: usize) -> Variant {
    let mut modules = vec![module()];
    modules.extend(WIDTHS.iter().map(|&w| crate::pfc_frame::xor_module(w)));
    Variant {
        name: format!("iblink_pause_rx_w{width}"),
        block: "pause_rx",
        top: SOURCE.module.to_string(),
        params: params(width),
        modules,
        ports: crate::with_pause_rx!(width, |T| crate::io::top_ports(&T::default()),
            _ => panic!("PAUSE RX: {width} bits is not generated")),
    }
}

pub type PauseRxW32 = PauseRxUnit<32, 4>;
pub type PauseRxW64 = PauseRxUnit<64, 8>;
