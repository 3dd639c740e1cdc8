//! PAUSE/PFC frame builder (docs/spec.md §9): the frame `pfc_tx` hands out, as its 64 bytes on
//! the wire at 32 or 64 bits a clock, FCS from generated CRC-32 XOR equations.
//!
//! In this folder: the Verilog module `iblink_pfc_frame.v` (parameters `QUEUES`,
//! `DATA_WIDTH`; it instantiates the generated `iblink_crc32_xor_w32` and, at 64 bits,
//! `iblink_crc32_xor_w64`), and here its Rust cycle twin [`PfcFrameTwin`], the rust-hdl
//! block [`PfcFrameUnit`] and the port binding. Reference: the model's
//! `iblink_model::ethernet::PauseFrame::encode` (FCS by the `crc` crate); lockstep:
//! `crates/sim/tests/lockstep/pfc_frame.rs` (stimulus and the model adapter: `crates/sim/src/blocks/pfc_frame.rs`).
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | synchronous: stop sending |
//! | `cfg_pfc`, `cfg_sa[48]` | in | 1: PFC frames, 0: PAUSE; source address, first byte at `[47:40]` |
//! | `cfg_priorities[8Q]`, `cfg_pause_quanta[16Q]` | in | per queue: PSRQ mask, PT |
//! | `frame_start`, `frame_queues[Q]`, `frame_zero[Q]` | in | the frame from `pfc_tx`, fields held through it |
//! | `tx_valid`, `tx_data[W]`, `tx_last` | out | the words, byte lane i at `[8i+7:8i]` |
//! | `tx_ready` | in | the wire takes the word offered this clock (AXI4-Stream) |
//! | `frame_done` | out | the last word moves this clock (the frame's end, for `pfc_tx`) |
//!
//! # Cycle contract
//! `tx_valid` is high with the first word in the clock `frame_start` is high
//! (combinational: the DA and SA bytes), then the next word from a register built the
//! clock before, the clock after one moves (`tx_ready`; a word held while it is low,
//! docs/spec.md §10), `tx_last` with word `512/W - 1`. `tx_data` is defined only while
//! `tx_valid` is high.

use crate::crc32::{self, Xor32};
use crate::emit::{rust_hdl_wrapper, EmittedModule, Variant, VerilogSource};
use crate::twin::Twin;
use rust_hdl::prelude::*;

/// The hand-written module.
pub const SOURCE: VerilogSource = VerilogSource {
    module: "iblink_pfc_frame",
    path: "crates/rtl/src/pfc_frame/iblink_pfc_frame.v",
    text: include_str!("iblink_pfc_frame.v"),
};

pub use crate::pfc_tx::{MAX_QUEUES, QUEUE_COUNTS, WIDTHS};

/// One clock's inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PfcFrameIn {
    pub reset: bool,
    pub cfg_pfc: bool,
    /// The source address, first byte on the wire in bits 47:40.
    pub cfg_sa: u64,
    pub cfg_priorities: [u8; MAX_QUEUES],
    pub cfg_pause_quanta: [u16; MAX_QUEUES],
    pub frame_start: bool,
    pub frame_queues: u8,
    pub frame_zero: u8,
    pub tx_ready: bool,
}

/// What the block shows during one clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PfcFrameOut {
    pub tx_valid: bool,
    /// Byte lane i at bits 8i+7:8i (the low 32 bits at 32 bits a clock). The port is
    /// defined only while `tx_valid` is high; every back end shows 0 otherwise.
    pub tx_data: u64,
    pub tx_last: bool,
    pub frame_done: bool,
}

/// The Rust cycle twin of `iblink_pfc_frame`.
#[derive(Clone, Debug)]
pub struct PfcFrameTwin {
    queues: usize,
    width: usize,
    sending: bool,
    next_word: u8,
    /// All ones while no frame is in progress (set by the last word and by reset).
    crc: u32,
    /// The next word, built the clock before it goes out.
    data_r: u64,
    /// The frame's bytes as the inputs stood at `frame_start` (the words after the first
    /// are built from them).
    frame: [u8; 64],
    step: [Xor32; 32],
    /// At 64 bits: a word then the 32 zero bits of padding before the FCS.
    step_pad: [Xor32; 32],
}

impl PfcFrameTwin {
    pub fn new(queues: usize, width: usize) -> Self {
        assert!(QUEUE_COUNTS.contains(&queues) && WIDTHS.contains(&width), "PfcFrameTwin: {queues} queues at {width} bits");
        Self {
            queues,
            width,
            sending: false,
            next_word: 0,
            crc: crc32::INIT,
            data_r: 0,
            frame: fixed_bytes(),
            step: crc32::equations(width),
            step_pad: crc32::equations_then_zeros(width, 32),
        }
    }

    fn words(&self) -> u8 {
        (512 / self.width) as u8
    }

    /// Bytes 0..59 of the frame for these inputs (60..63 left 0).
    fn body(&self, i: &PfcFrameIn) -> [u8; 64] {
        let mut b = [0u8; 64];
        b[..6].copy_from_slice(&[0x01, 0x80, 0xc2, 0x00, 0x00, 0x01]);
        for k in 0..6 {
            b[6 + k] = (i.cfg_sa >> (40 - 8 * k)) as u8;
        }
        b[12..14].copy_from_slice(&[0x88, 0x08]);
        if i.cfg_pfc {
            b[14..16].copy_from_slice(&[0x01, 0x01]);
            let mut enable = 0u8;
            let mut times = [0u16; 8];
            for q in (0..self.queues).filter(|q| i.frame_queues >> q & 1 == 1) {
                enable |= i.cfg_priorities[q];
                if i.frame_zero >> q & 1 == 0 {
                    for (p, t) in times.iter_mut().enumerate() {
                        if i.cfg_priorities[q] >> p & 1 == 1 {
                            *t |= i.cfg_pause_quanta[q];
                        }
                    }
                }
            }
            b[17] = enable;
            for (p, t) in times.iter().enumerate() {
                b[18 + 2 * p..20 + 2 * p].copy_from_slice(&t.to_be_bytes());
            }
        } else {
            b[14..16].copy_from_slice(&[0x00, 0x01]);
            let pt = if i.frame_zero & 1 == 1 { 0 } else { i.cfg_pause_quanta[0] };
            b[16..18].copy_from_slice(&pt.to_be_bytes());
        }
        b
    }

    fn word(&self, i: &PfcFrameIn) -> u8 {
        if i.frame_start { 0 } else { self.next_word }
    }

    /// Word `idx` of `bytes` (the Verilog's word select: 4 bits at 32 bits, 3 at 64).
    fn word_of(&self, bytes: &[u8; 64], idx: u8) -> u64 {
        let n = self.width / 8;
        let at = (idx as usize % self.words() as usize) * n;
        bytes[at..at + n].iter().rev().fold(0u64, |x, &y| x << 8 | y as u64)
    }

    /// Word `idx` of the body for these inputs.
    fn body_word(&self, i: &PfcFrameIn, idx: u8) -> u64 {
        self.word_of(&self.body(i), idx)
    }
}

/// The bytes every frame has: DA, EtherType, the opcode's low byte.
fn fixed_bytes() -> [u8; 64] {
    let mut b = [0u8; 64];
    b[..6].copy_from_slice(&[0x01, 0x80, 0xc2, 0x00, 0x00, 0x01]);
    b[12..14].copy_from_slice(&[0x88, 0x08]);
    b[15] = 0x01;
    b
}

impl Twin for PfcFrameTwin {
    type In = PfcFrameIn;
    type Out = PfcFrameOut;

    fn eval(&self, i: &PfcFrameIn) -> PfcFrameOut {
        let tx_valid = i.frame_start || self.sending;
        let last = self.word(i) == self.words() - 1;
        let tx_data = match (tx_valid, i.frame_start) {
            (false, _) => 0,
            (true, true) => self.body_word(i, 0),
            // The first word too, while it waits.
            (true, false) => self.data_r,
        };
        PfcFrameOut { tx_valid, tx_data, tx_last: tx_valid && last, frame_done: tx_valid && last && i.tx_ready }
    }

    fn tick(&mut self, i: &PfcFrameIn) {
        let o = self.eval(i);
        let w = self.word(i);
        let moves = o.tx_valid && i.tx_ready;
        if moves {
            // The register is all ones before a frame's first word; the words the FCS is
            // built over after it are padding (zero).
            let next = if i.frame_start { crc32::eval(&self.step, crc32::INIT, o.tx_data) } else { crc32::eval(&self.step, self.crc, self.data_r) };
            let idx = (w + 1) & 0xf;
            self.data_r = if i.frame_start {
                self.body_word(i, idx)
            } else if idx != self.words() - 1 {
                self.word_of(&self.frame, idx)
            } else if self.width == 64 {
                ((!crc32::eval(&self.step_pad, self.crc, 0)) as u64) << 32
            } else {
                (!crc32::eval(&self.step, self.crc, 0)) as u64
            };
            self.crc = if o.frame_done { crc32::INIT } else { next };
        } else if i.frame_start {
            self.data_r = o.tx_data;
        }
        if i.frame_start {
            self.frame = self.body(i);
        }
        if i.reset {
            self.crc = crc32::INIT;
        }
        if i.reset {
            self.sending = false;
            self.next_word = 0;
        } else if moves {
            self.sending = w != self.words() - 1;
            self.next_word = (w + 1) & 0xf;
        } else if i.frame_start {
            self.sending = true;
            self.next_word = 0;
        }
    }
}

crate::hdl_block! {
    /// The block for rust-hdl with `Q` queues at `W` bits; `M = 8 * Q`, `B = 16 * Q`. The
    /// data word is read as 0 while no word is shown.
    pub struct PfcFrameUnit<const Q: usize, const W: usize, const M: usize, const B: usize> {
        twin: PfcFrameTwin,
    }
    check: M == 8 * Q && B == 16 * Q;
    default: Self::with_twin(PfcFrameTwin::new(Q, W));
    hdl: |u| rust_hdl_wrapper(u, SOURCE.module, &params(Q, W), &source_with_equations());
    sampled: |o| PfcFrameOut { tx_data: if o.tx_valid { o.tx_data } else { 0 }, ..o };
    ports(i: PfcFrameIn, o: PfcFrameOut) {
        reset: in Bit = i.reset;
        cfg_pfc: in Bit = i.cfg_pfc;
        cfg_sa: in Bits<48> = i.cfg_sa;
        cfg_priorities: in Bits<M> = i.cfg_priorities, each 8;
        cfg_pause_quanta: in Bits<B> = i.cfg_pause_quanta, each 16;
        frame_start: in Bit = i.frame_start;
        frame_queues: in Bits<Q> = i.frame_queues;
        frame_zero: in Bits<Q> = i.frame_zero;
        tx_valid: out Bit = o.tx_valid;
        tx_data: out Bits<W> = o.tx_data;
        tx_last: out Bit = o.tx_last;
        tx_ready: in Bit = i.tx_ready;
        frame_done: out Bit = o.frame_done;
    }
}

/// The module's text with the equations modules it instantiates.
fn source_with_equations() -> String {
    let mut s = SOURCE.text.to_string();
    for m in xor_modules() {
        s.push_str(&m.text);
    }
    s
}

/// The module's parameters.
pub fn params(queues: usize, width: usize) -> Vec<(String, String)> {
    vec![("QUEUES".to_string(), queues.to_string()), ("DATA_WIDTH".to_string(), width.to_string())]
}

/// `hdl_out/iblink_pfc_frame.v`.
pub fn module() -> EmittedModule {
    SOURCE.emit("pfc_frame", vec![("parameters".into(), "QUEUES = 1..8, DATA_WIDTH = 32 or 64".into())])
}

/// `hdl_out/iblink_crc32_xor_w<width>.v`: the register after a word.
pub fn xor_module(width: usize) -> EmittedModule {
    crc32::xor_module(width, 0, "pfc_frame")
}

/// The equations modules the builder names: a word of 32 or 64 bits, and at 64 bits a
/// word then the 4 zero bytes before the FCS.
pub fn xor_modules() -> Vec<EmittedModule> {
    vec![xor_module(32), xor_module(64), crc32::xor_module(64, 32, "pfc_frame")]
}

/// The builder with `queues` queues at `width` bits (`iblink_pfc_frame_q<queues>_w<width>`):
/// the hand-written module and the equations modules (it names all three; those of its
/// width are elaborated).
pub fn variant(queues: usize, width: usize) -> Variant {
    let mut modules = vec![module()];
    modules.extend(xor_modules());
    Variant {
        name: format!("iblink_pfc_frame_q{queues}_w{width}"),
        block: "pfc_frame",
        top: SOURCE.module.to_string(),
        params: params(queues, width),
        modules,
        ports: crate::with_pfc_frame!((queues, width), |T| crate::io::top_ports(&T::default()),
            _ => panic!("PFC frame builder: {queues} queues at {width} bits is not generated")),
    }
}

pub type PfcFrameQ1W32 = PfcFrameUnit<1, 32, 8, 16>;
pub type PfcFrameQ2W32 = PfcFrameUnit<2, 32, 16, 32>;
pub type PfcFrameQ3W32 = PfcFrameUnit<3, 32, 24, 48>;
pub type PfcFrameQ4W32 = PfcFrameUnit<4, 32, 32, 64>;
pub type PfcFrameQ5W32 = PfcFrameUnit<5, 32, 40, 80>;
pub type PfcFrameQ6W32 = PfcFrameUnit<6, 32, 48, 96>;
pub type PfcFrameQ7W32 = PfcFrameUnit<7, 32, 56, 112>;
pub type PfcFrameQ8W32 = PfcFrameUnit<8, 32, 64, 128>;
pub type PfcFrameQ1W64 = PfcFrameUnit<1, 64, 8, 16>;
pub type PfcFrameQ2W64 = PfcFrameUnit<2, 64, 16, 32>;
pub type PfcFrameQ3W64 = PfcFrameUnit<3, 64, 24, 48>;
pub type PfcFrameQ4W64 = PfcFrameUnit<4, 64, 32, 64>;
pub type PfcFrameQ5W64 = PfcFrameUnit<5, 64, 40, 80>;
pub type PfcFrameQ6W64 = PfcFrameUnit<6, 64, 48, 96>;
pub type PfcFrameQ7W64 = PfcFrameUnit<7, 64, 56, 112>;
pub type PfcFrameQ8W64 = PfcFrameUnit<8, 64, 64, 128>;
