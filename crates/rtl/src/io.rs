//! How a block is driven from outside: the contract every back end shares, and the one
//! declaration of a block's ports that everything else is derived from.
//!
//! A block declares its ports once, with [`hdl_block!`](crate::hdl_block): each port's
//! name, direction, width (a rust-hdl type in the block's parameters) and the field of
//! the twin's `In`/`Out` record it carries. From that come the rust-hdl struct (what the
//! probes and VCDs see), its `Default` and `Logic` (the twin stepped inside it), and the
//! [`HdlIo`] binding: `drive`/`sample` for the rust-hdl stepper, `pack`/`unpack` over the
//! Verilator bridge's 64-bit port slots, in the order of [`HdlIo::PORTS`]. Port widths are
//! read off the rust-hdl struct itself ([`top_ports`]), and a test has Yosys read every
//! configuration's Verilog and compare its ports with them (`crates/rtl/tests/interfaces.rs`),
//! so the Verilog, the stepper and the bridge cannot disagree.

use crate::bits::{bits_from_words, field, mask, pack_fields, read_words};
use rust_hdl::prelude::*;

#[doc(hidden)]
pub use rust_hdl::prelude as rh;

/// A top-level port by name and direction (widths come from the block, see [`top_ports`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortSpec {
    pub name: &'static str,
    pub dir: Dir,
}

/// A rust-hdl block with plain-Rust input and output records.
pub trait HdlIo: Block + Default {
    /// Everything the block samples in one clock (the clock itself excluded).
    type In: Copy + std::fmt::Debug + Default;
    /// Everything the block shows during one clock.
    type Out: Copy + std::fmt::Debug + PartialEq + Default;
    /// The ports in declaration order, the clock excluded; the inputs in this order are
    /// the bridge's input slots, the outputs its output slots.
    const PORTS: &'static [PortSpec];
    fn clock(&mut self) -> &mut Signal<In, Clock>;
    fn drive(&mut self, i: &Self::In);
    fn sample(&self) -> Self::Out;
    /// `width.div_ceil(64)` slots per input port, in `PORTS` order.
    fn pack(i: &Self::In, slots: &mut [u64]);
    /// The outputs from their slots, in `PORTS` order.
    fn unpack(slots: &[u64]) -> Self::Out;
    /// The inputs from their slots: the inverse of `pack`.
    fn unpack_in(slots: &[u64]) -> Self::In;
    /// One clock of the twin inside, outside rust-hdl: what the binding is checked against.
    fn step_twin(&mut self, i: &Self::In) -> Self::Out;
}

/// Words of the widest port (512 bits: 8 queues of 64-bit data).
pub const MAX_WORDS: usize = 8;

/// A rust-hdl port value as little-endian 64-bit words, and back.
pub trait PortBits: Synth {
    const WIDTH: usize = <Self as Synth>::BITS;
    fn from_words(w: &[u64]) -> Self;
    fn to_words(&self) -> [u64; MAX_WORDS];
}

impl PortBits for bool {
    #[inline]
    fn from_words(w: &[u64]) -> Self {
        w[0] & 1 == 1
    }
    #[inline]
    fn to_words(&self) -> [u64; MAX_WORDS] {
        let mut w = [0; MAX_WORDS];
        w[0] = *self as u64;
        w
    }
}

impl<const N: usize> PortBits for Bits<N> {
    #[inline]
    fn from_words(w: &[u64]) -> Self {
        bits_from_words::<N>(w)
    }
    #[inline]
    fn to_words(&self) -> [u64; MAX_WORDS] {
        read_words(self)
    }
}

/// A field of a twin's record as the bits of one port: `width` bits in little-endian
/// words. A scalar is the port's value (masked to `width`; signed types sign-extend back);
/// an array is packed in `lane`-bit elements, element `k` at bit `k * lane`, as many as
/// the port holds (the rest of the array is 0 when read back).
pub trait PortField {
    /// Write into `w`, which starts zeroed.
    fn put(&self, width: usize, lane: usize, w: &mut [u64]);
    /// Read from `w` (the field starts at its default).
    fn get(&mut self, w: &[u64], width: usize, lane: usize);
}

impl PortField for bool {
    #[inline]
    fn put(&self, _width: usize, _lane: usize, w: &mut [u64]) {
        w[0] = *self as u64;
    }
    #[inline]
    fn get(&mut self, w: &[u64], _width: usize, _lane: usize) {
        *self = w[0] & 1 == 1;
    }
}

macro_rules! unsigned_field {
    ($($t:ty),*) => {$(
        impl PortField for $t {
            #[inline]
            fn put(&self, width: usize, _lane: usize, w: &mut [u64]) {
                w[0] = *self as u64 & mask(width);
            }
            #[inline]
            fn get(&mut self, w: &[u64], width: usize, _lane: usize) {
                *self = (w[0] & mask(width)) as $t;
            }
        }
    )*};
}
unsigned_field!(u8, u16, u32, u64);

macro_rules! signed_field {
    ($($t:ty),*) => {$(
        impl PortField for $t {
            #[inline]
            fn put(&self, width: usize, _lane: usize, w: &mut [u64]) {
                w[0] = *self as i64 as u64 & mask(width);
            }
            #[inline]
            fn get(&mut self, w: &[u64], width: usize, _lane: usize) {
                let s = 64 - width as u32;
                *self = ((w[0] << s) as i64 >> s) as $t;
            }
        }
    )*};
}
signed_field!(i16, i32, i64);

/// An element of a packed per-VL or per-queue array.
pub trait Lane: Copy + Into<u64> {
    fn from_u64(x: u64) -> Self;
}

macro_rules! lane {
    ($($t:ty),*) => {$(
        impl Lane for $t {
            #[inline]
            fn from_u64(x: u64) -> Self {
                x as $t
            }
        }
    )*};
}
lane!(u8, u16, u32, u64);

impl<T: Lane, const M: usize> PortField for [T; M] {
    #[inline]
    fn put(&self, width: usize, lane: usize, w: &mut [u64]) {
        pack_fields(&self[..M.min(width / lane)], lane, w);
    }
    #[inline]
    fn get(&mut self, w: &[u64], width: usize, lane: usize) {
        for (k, x) in self.iter_mut().enumerate().take(width / lane) {
            *x = T::from_u64(field(w, k, lane));
        }
    }
}

/// Declares a block's ports once and derives its rust-hdl struct, `Default`, `Logic` and
/// [`HdlIo`] binding from them. The block's module must `use rust_hdl::prelude::*`.
///
/// ```ignore
/// hdl_block! {
///     /// Doc of the struct. `HB = 7N`, `FB = 12N`.
///     pub struct TxCreditsUnit<const N: usize, const HB: usize, const FB: usize> {
///         twin: TxCreditsTwin,          // then any plain-Rust state: `params: PortParams,`
///     }
///     check: HB == 7 * N && FB == 12 * N;               // asserted by `with_twin`
///     default: Self::with_twin(TxCreditsTwin::new(N));  // the `Default` impl
///     hdl: |u| rust_hdl_wrapper(u, SOURCE.module, &params(N), SOURCE.text);
///     ports(i: TxCreditsIn, o: TxCreditsOut) {          // the twin's records
///         reset: in Bit = i.reset;
///         head_blocks: in Bits<HB> = i.head_blocks, each 7;   // an array, 7 bits a lane
///         credit_ok: out Bits<N> = o.credit_ok;
///     }
/// }
/// ```
/// Ports are listed in the Verilog's order. Optional, between `hdl` and `ports`:
/// `shown: |t, i| expr;` the output record the signals show (default: the twin's `eval`),
/// and `sampled: |o| expr;` applied to every output record read back from the ports.
#[macro_export]
macro_rules! hdl_block {
    (
        $(#[$meta:meta])*
        $vis:vis struct $Unit:ident < $(const $g:ident : $gt:ty),* > {
            twin: $Twin:ty
            $(, $s:ident : $sty:ty)* $(,)?
        }
        check: $check:expr;
        default: $default:expr;
        hdl: |$u:ident| $hdl:expr;
        $(shown: |$st:ident, $si:ident| $shown:expr;)?
        $(sampled: |$so:ident| $sampled:expr;)?
        ports($i:ident : $In:ty, $o:ident : $Out:ty) {
            $($name:ident : $dir:tt $ty:ty = $acc:expr $(, each $lane:expr)?;)*
        }
    ) => {
        $(#[$meta])*
        #[derive(LogicBlock)]
        $vis struct $Unit<$(const $g: $gt),*> {
            pub clock: $crate::io::rh::Signal<$crate::io::rh::In, $crate::io::rh::Clock>,
            $(pub $name: $crate::__hdl_sig!($dir $ty),)*
            twin: $crate::io::Opaque<$Twin>,
            $($s: $crate::io::Opaque<$sty>,)*
        }

        impl<$(const $g: $gt),*> $Unit<$($g),*> {
            /// The block around `twin` (signals idle until the first settle).
            pub fn with_twin(twin: $Twin $(, $s: $sty)*) -> Self {
                let params: &[String] = &[$($g.to_string()),*];
                assert!($check, "{}<{}>: unsupported parameters", stringify!($Unit), params.join(", "));
                Self {
                    clock: Default::default(),
                    $($name: Default::default(),)*
                    twin: $crate::io::Opaque(twin),
                    $($s: $crate::io::Opaque($s),)*
                }
            }
        }

        impl<$(const $g: $gt),*> Default for $Unit<$($g),*> {
            fn default() -> Self {
                $default
            }
        }

        impl<$(const $g: $gt),*> $crate::io::rh::Logic for $Unit<$($g),*> {
            fn update(&mut self) {
                #[allow(unused_mut)]
                let mut $i = <$In>::default();
                $($crate::__hdl_if!($dir, in, {
                    $crate::io::PortField::get(&mut $acc, &$crate::io::PortBits::to_words(&self.$name.val()), <$ty as $crate::io::PortBits>::WIDTH, $crate::__hdl_lane!(<$ty as $crate::io::PortBits>::WIDTH $(, $lane)?));
                });)*
                if self.clock.pos_edge() {
                    $crate::twin::Twin::tick(&mut *self.twin, &$i);
                }
                let $o: $Out = $crate::__hdl_shown!(self, $i $(, |$st, $si| $shown)?);
                $($crate::__hdl_if!($dir, out, {
                    let mut w = [0u64; $crate::io::MAX_WORDS];
                    $crate::io::PortField::put(&$acc, <$ty as $crate::io::PortBits>::WIDTH, $crate::__hdl_lane!(<$ty as $crate::io::PortBits>::WIDTH $(, $lane)?), &mut w);
                    self.$name.next = <$ty as $crate::io::PortBits>::from_words(&w);
                });)*
            }

            fn connect(&mut self) {
                $($crate::__hdl_if!($dir, out, { self.$name.connect(); });)*
            }

            fn hdl(&self) -> $crate::io::rh::Verilog {
                let $u = self;
                $hdl
            }
        }

        impl<$(const $g: $gt),*> $crate::io::HdlIo for $Unit<$($g),*> {
            type In = $In;
            type Out = $Out;
            const PORTS: &'static [$crate::io::PortSpec] = &[
                $($crate::io::PortSpec { name: stringify!($name), dir: $crate::__hdl_dir!($dir) },)*
            ];

            fn clock(&mut self) -> &mut $crate::io::rh::Signal<$crate::io::rh::In, $crate::io::rh::Clock> {
                &mut self.clock
            }

            fn drive(&mut self, $i: &$In) {
                $($crate::__hdl_if!($dir, in, {
                    let mut w = [0u64; $crate::io::MAX_WORDS];
                    $crate::io::PortField::put(&$acc, <$ty as $crate::io::PortBits>::WIDTH, $crate::__hdl_lane!(<$ty as $crate::io::PortBits>::WIDTH $(, $lane)?), &mut w);
                    self.$name.next = <$ty as $crate::io::PortBits>::from_words(&w);
                });)*
            }

            fn sample(&self) -> $Out {
                #[allow(unused_mut)]
                let mut $o = <$Out>::default();
                $($crate::__hdl_if!($dir, out, {
                    $crate::io::PortField::get(&mut $acc, &$crate::io::PortBits::to_words(&self.$name.val()), <$ty as $crate::io::PortBits>::WIDTH, $crate::__hdl_lane!(<$ty as $crate::io::PortBits>::WIDTH $(, $lane)?));
                });)*
                $crate::__hdl_sampled!($o $(, |$so| $sampled)?)
            }

            fn pack($i: &$In, slots: &mut [u64]) {
                let mut at = 0;
                $($crate::__hdl_if!($dir, in, {
                    let width = <$ty as $crate::io::PortBits>::WIDTH;
                    let s = &mut slots[at..at + width.div_ceil(64)];
                    s.fill(0);
                    $crate::io::PortField::put(&$acc, width, $crate::__hdl_lane!(width $(, $lane)?), s);
                    at += s.len();
                });)*
                let _ = at;
            }

            fn unpack_in(slots: &[u64]) -> $In {
                #[allow(unused_mut)]
                let mut $i = <$In>::default();
                let mut at = 0;
                $($crate::__hdl_if!($dir, in, {
                    let width = <$ty as $crate::io::PortBits>::WIDTH;
                    let s = &slots[at..at + width.div_ceil(64)];
                    $crate::io::PortField::get(&mut $acc, s, width, $crate::__hdl_lane!(width $(, $lane)?));
                    at += s.len();
                });)*
                let _ = at;
                $i
            }

            fn step_twin(&mut self, i: &$In) -> $Out {
                $crate::twin::Twin::step(&mut *self.twin, i)
            }

            fn unpack(slots: &[u64]) -> $Out {
                #[allow(unused_mut)]
                let mut $o = <$Out>::default();
                let mut at = 0;
                $($crate::__hdl_if!($dir, out, {
                    let width = <$ty as $crate::io::PortBits>::WIDTH;
                    let s = &slots[at..at + width.div_ceil(64)];
                    $crate::io::PortField::get(&mut $acc, s, width, $crate::__hdl_lane!(width $(, $lane)?));
                    at += s.len();
                });)*
                let _ = at;
                $crate::__hdl_sampled!($o $(, |$so| $sampled)?)
            }
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __hdl_sig {
    (in $ty:ty) => { $crate::io::rh::Signal<$crate::io::rh::In, $ty> };
    (out $ty:ty) => { $crate::io::rh::Signal<$crate::io::rh::Out, $ty> };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __hdl_dir {
    (in) => { $crate::io::Dir::Input };
    (out) => { $crate::io::Dir::Output };
}

/// The statements in braces when the port's direction is the one asked for.
#[doc(hidden)]
#[macro_export]
macro_rules! __hdl_if {
    (in, in, { $($t:tt)* }) => { $($t)* };
    (out, out, { $($t:tt)* }) => { $($t)* };
    (in, out, { $($t:tt)* }) => {};
    (out, in, { $($t:tt)* }) => {};
}

#[doc(hidden)]
#[macro_export]
macro_rules! __hdl_lane {
    ($width:expr) => { $width };
    ($width:expr, $lane:expr) => { $lane };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __hdl_shown {
    ($s:ident, $i:ident) => { $crate::twin::Twin::eval(&*$s.twin, &$i) };
    ($s:ident, $i:ident, |$st:ident, $si:ident| $shown:expr) => {{
        let $st = &*$s.twin;
        let $si = &$i;
        $shown
    }};
}

#[doc(hidden)]
#[macro_export]
macro_rules! __hdl_sampled {
    ($o:ident) => { $o };
    ($o:ident, |$so:ident| $sampled:expr) => {{
        let $so = $o;
        $sampled
    }};
}

/// Direction of a top-level port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Input,
    Output,
}

/// A top-level port as the emitted Verilog declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    pub width: usize,
    pub dir: Dir,
}

struct PortProbe {
    depth: usize,
    ports: Vec<Port>,
}

impl Probe for PortProbe {
    fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth += 1;
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        if self.depth != 1 {
            return;
        }
        let dir = match signal.kind() {
            AtomKind::InputParameter => Dir::Input,
            AtomKind::OutputParameter => Dir::Output,
            _ => return,
        };
        self.ports.push(Port {
            name: name.to_string(),
            width: signal.bits(),
            dir,
        });
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth -= 1;
    }
}

/// The ports of a block's top-level module, in declaration order.
pub fn top_ports(uut: &dyn Block) -> Vec<Port> {
    let mut p = PortProbe {
        depth: 0,
        ports: vec![],
    };
    uut.accept("top", &mut p);
    p.ports
}

/// Plain Rust state inside a block (tables, register files the Verilog declares itself):
/// invisible to rust-hdl's visitors, so it is neither a port nor emitted as a signal.
#[derive(Clone, Debug, Default)]
pub struct Opaque<T>(pub T);

impl<T> Logic for Opaque<T> {
    fn update(&mut self) {}
}

impl<T> Block for Opaque<T> {
    fn connect_all(&mut self) {}
    fn update_all(&mut self) {}
    fn has_changed(&self) -> bool {
        false
    }
    fn accept(&self, _name: &str, _probe: &mut dyn Probe) {}
}

impl<T> std::ops::Deref for Opaque<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Opaque<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}
