//! A composed block described once: its instances (each a block's twin and Verilog
//! module), what drives each instance input, and what drives each top-level output.
//! From that one description come both the Rust cycle stepper (the twins called in a
//! fixed order, no settle loop) and the Verilog top that instantiates the modules by
//! named ports. See [`netlist!`](crate::netlist) and `crate::link_port` for its use.

use crate::emit::{param_list, EmittedModule, GENERATOR};
use crate::io::{Dir, Port};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A value carried by a net from a block's output record to another's input record:
/// the same type, or an integer of another width (truncated to the receiver's type, as
/// a Verilog net of the receiver's port width carries it).
pub trait Wire<T> {
    fn wire(self) -> T;
}

impl<T> Wire<T> for T {
    #[inline(always)]
    fn wire(self) -> T {
        self
    }
}

macro_rules! wire_ints {
    ($($from:ty => $($to:ty),+;)*) => {
        $($(impl Wire<$to> for $from {
            #[inline(always)]
            fn wire(self) -> $to {
                self as $to
            }
        })+)*
    };
}
wire_ints! {
    u8 => u16, u32, u64;
    u16 => u8, u32, u64;
    u32 => u8, u16, u64;
    u64 => u8, u16, u32;
    bool => u8, u16, u32, u64;
}

/// Sets bit `b` of `dst` to bit 0 of `v` (a top output driven bit by bit).
#[inline(always)]
pub fn set_bit<T: Copy + std::ops::BitOr<Output = T>>(dst: &mut T, v: u64, b: u32)
where
    u64: Wire<T>,
{
    *dst = *dst | ((v & 1) << b).wire();
}

/// One instance input and what drives it (`src` is `top` for a top-level input; `bit`:
/// one bit of a top-level input, `top.x[b]`).
#[derive(Clone, Copy, Debug)]
pub struct Conn {
    pub dst: &'static str,
    pub dst_path: &'static str,
    pub src: &'static str,
    pub src_path: &'static str,
    pub bit: Option<u32>,
}

/// A top-level output and the instance output that drives it (`bit`: one bit of the
/// port, `"x" o.x => a.y [b]`; every bit of such a port is driven once).
#[derive(Clone, Copy, Debug)]
pub struct TopOut {
    pub port: &'static str,
    pub src: &'static str,
    pub src_path: &'static str,
    pub bit: Option<u32>,
}

/// A Rust field path's Verilog port, where the two differ.
#[derive(Clone, Copy, Debug)]
pub struct Name {
    pub inst: &'static str,
    pub path: &'static str,
    pub port: &'static str,
}

/// The static description the macro records.
#[derive(Clone, Copy, Debug)]
pub struct Description {
    pub instances: &'static [&'static str],
    pub conns: &'static [Conn],
    pub top_outs: &'static [TopOut],
    pub names: &'static [Name],
}

/// An instance as the Verilog top places it.
#[derive(Clone, Debug)]
pub struct Placed {
    pub module: String,
    pub params: Vec<(String, String)>,
    pub ports: Vec<Port>,
    /// The module's Verilog (its header's width expressions, for a parameterised top).
    pub text: String,
}

/// What makes a rendered top one parameterised module for every configuration: its
/// parameters, what each instance's parameters take, and the text before the instances.
#[derive(Clone, Debug, Default)]
pub struct Parameterised {
    /// The header's parameter declarations, each with its comment lines (`// ...`), in
    /// order: `(comment, "NAME = default")`.
    pub params: Vec<(String, String)>,
    /// Localparams and constant functions the parameter defaults or instances use.
    pub body: String,
    /// `(instance, its module's parameter, the expression it takes)` where that is not
    /// the top's parameter of the same name; a parameter of neither kind keeps the
    /// configuration's value.
    pub rename: Vec<(&'static str, &'static str, String)>,
}

impl Parameterised {
    /// The parameters' names, in order (a declaration is `[range] NAME = default`).
    fn names(&self) -> impl Iterator<Item = &str> {
        self.params.iter().filter_map(|(_, d)| d.split('=').next().unwrap_or("").split_whitespace().last())
    }

    fn is_param(&self, name: &str) -> bool {
        self.names().any(|n| n == name)
    }

    /// The expressions an instance's module parameters take in the top.
    fn instance_params(&self, inst: &str, placed: &Placed) -> Vec<(String, String)> {
        placed
            .params
            .iter()
            .map(|(k, v)| {
                let e = match self.rename.iter().find(|(i, p, _)| *i == inst && p == k) {
                    Some((_, _, e)) => e.clone(),
                    None if self.is_param(k) => k.clone(),
                    None => v.clone(),
                };
                (k.clone(), e)
            })
            .collect()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum NetlistError {
    #[error("{module}: instance `{inst}` has no Verilog port `{port}` (Rust path `{path}`)")]
    NoPort { module: String, inst: String, port: String, path: String },
    #[error("{module}: input `{port}` of instance `{inst}` is driven {count} times")]
    Drivers { module: String, inst: String, port: String, count: usize },
    #[error("{module}: top-level port `{port}` is not connected or unknown")]
    Top { module: String, port: String },
    #[error("{module}: net {net} is {from} bits wide, but `{inst}.{port}` takes {to}")]
    Width { module: String, net: String, from: usize, inst: String, port: String, to: usize },
    #[error("{module}: no placement for instance `{inst}`")]
    Unplaced { module: String, inst: String },
}

fn norm(p: &str) -> String {
    p.chars().filter(|c| !c.is_whitespace()).collect()
}

impl Description {
    /// The Verilog port of an instance's Rust field path.
    pub fn port_of(&self, inst: &str, path: &str) -> String {
        let path = norm(path);
        self.names
            .iter()
            .find(|n| n.inst == inst && norm(n.path) == path)
            .map(|n| n.port.to_string())
            .unwrap_or(path)
    }

    /// The Verilog top: `module` with the ports `top`, one instance of each placed
    /// module, named-port connections; every input of every instance driven exactly once,
    /// widths equal on both ends of every net.
    ///
    /// With `param`, the top is one parameterised module: its ports and nets take the
    /// width expressions of the instance ports they connect (from the modules' headers,
    /// in the top's parameters), its instances the parameter expressions `param` gives;
    /// the widths of `top` and `placed` (one configuration) are still checked.
    pub fn render_top(
        &self,
        module: &str,
        doc: &str,
        top: &[Port],
        placed: &BTreeMap<&str, Placed>,
        param: Option<&Parameterised>,
    ) -> Result<String, NetlistError> {
        let err_mod = module.to_string();
        let find = |inst: &str, port: &str, path: &str| -> Result<Port, NetlistError> {
            let p = placed.get(inst).ok_or_else(|| NetlistError::Unplaced { module: err_mod.clone(), inst: inst.into() })?;
            p.ports.iter().find(|x| x.name == port).cloned().ok_or_else(|| NetlistError::NoPort {
                module: err_mod.clone(),
                inst: inst.into(),
                port: port.into(),
                path: path.into(),
            })
        };
        let top_port = |name: &str| top.iter().find(|p| p.name == name).cloned();
        // Net names: an instance output is `<inst>_<port>`; a top-level input is itself.
        let net_of = |src: &str, path: &str| -> Result<(String, usize), NetlistError> {
            if src == "top" {
                let p = top_port(&norm(path)).filter(|p| p.dir == Dir::Input).ok_or_else(|| NetlistError::Top {
                    module: err_mod.clone(),
                    port: norm(path),
                })?;
                Ok((p.name, p.width))
            } else {
                let port = self.port_of(src, path);
                let p = find(src, &port, path)?;
                Ok((format!("{src}_{port}"), p.width))
            }
        };
        // A port's width as written: a number, or (parameterised) the expression its
        // module's header gives, in the top's parameters.
        let inst_params: BTreeMap<&str, Vec<(String, String)>> = match param {
            Some(pp) => placed.iter().map(|(i, p)| (*i, pp.instance_params(i, p))).collect(),
            None => BTreeMap::new(),
        };
        let expr_of = |inst: &str, port: &Port| -> String {
            let Some(p) = placed.get(inst).filter(|_| param.is_some()) else { return port.width.to_string() };
            match crate::verilog::header_ports(&p.text, &p.module).into_iter().find(|h| h.name == port.name) {
                Some(h) => crate::verilog::substitute(&h.width, &inst_params[inst]),
                None => port.width.to_string(),
            }
        };
        // A top port's expression: that of the instance port it drives or is driven by.
        let top_expr = |p: &Port| -> String {
            if param.is_none() {
                return p.width.to_string();
            }
            let hit = if p.dir == Dir::Input {
                self.conns
                    .iter()
                    .find(|c| c.src == "top" && c.bit.is_none() && norm(c.src_path) == p.name)
                    .map(|c| (c.dst, self.port_of(c.dst, c.dst_path)))
            } else {
                self.top_outs.iter().find(|o| o.port == p.name && o.bit.is_none()).map(|o| (o.src, self.port_of(o.src, o.src_path)))
            };
            match hit.and_then(|(inst, port)| placed.get(inst).and_then(|pl| pl.ports.iter().find(|x| x.name == port)).map(|x| (inst, x.clone()))) {
                Some((inst, x)) => expr_of(inst, &x),
                None => p.width.to_string(),
            }
        };
        let mut v = String::new();
        v.push_str(doc);
        v.push_str("`default_nettype none\n");
        match param {
            Some(pp) => {
                let _ = writeln!(v, "module {module} #(");
                let decls: Vec<String> = pp
                    .params
                    .iter()
                    .map(|(c, d)| {
                        let comment: String = c.lines().map(|l| format!("    // {l}\n")).collect();
                        format!("{comment}    parameter {d}")
                    })
                    .collect();
                let _ = writeln!(v, "{}\n) (", decls.join(",\n"));
            }
            None => {
                let _ = writeln!(v, "module {module} (");
            }
        }
        let decls: Vec<String> = top
            .iter()
            .map(|p| {
                let dir = if p.dir == Dir::Input { "input " } else { "output" };
                let w = crate::verilog::range(&top_expr(p));
                format!("    {dir} wire {w:<8} {}", p.name)
            })
            .collect();
        let _ = writeln!(v, "{}\n);\n", decls.join(",\n"));
        if let Some(pp) = param {
            v.push_str(&pp.body);
        }
        // Every instance output is a net.
        let mut used: BTreeMap<String, bool> = BTreeMap::new();
        for inst in self.instances {
            let p = placed.get(inst).ok_or_else(|| NetlistError::Unplaced { module: module.into(), inst: inst.to_string() })?;
            for port in p.ports.iter().filter(|x| x.dir == Dir::Output) {
                let net = format!("{inst}_{}", port.name);
                if top_port(&net).is_some() {
                    return Err(NetlistError::Top { module: module.into(), port: format!("{net} (also the net of {inst}.{})", port.name) });
                }
                let w = crate::verilog::range(&expr_of(inst, port));
                let w = if w.is_empty() { w } else { format!("{w} ") };
                let _ = writeln!(v, "wire {w}{inst}_{};", port.name);
                used.insert(format!("{inst}_{}", port.name), false);
            }
        }
        v.push('\n');
        for inst in self.instances {
            let p = &placed[inst];
            let mut conns: Vec<String> = vec![];
            for port in &p.ports {
                if port.dir == Dir::Output {
                    conns.push(format!(".{0}({1}_{0})", port.name, inst));
                    continue;
                }
                if port.name == "clock" {
                    conns.push(".clock(clock)".into());
                    continue;
                }
                let drivers: Vec<&Conn> =
                    self.conns.iter().filter(|c| c.dst == *inst && self.port_of(inst, c.dst_path) == port.name).collect();
                if drivers.len() != 1 {
                    return Err(NetlistError::Drivers {
                        module: module.into(),
                        inst: inst.to_string(),
                        port: port.name.clone(),
                        count: drivers.len(),
                    });
                }
                let c = drivers[0];
                let (net, width) = match (net_of(c.src, c.src_path)?, c.bit) {
                    ((n, w), Some(b)) if (b as usize) < w => (format!("{n}[{b}]"), 1),
                    ((n, _), Some(b)) => return Err(NetlistError::Top { module: module.into(), port: format!("{n}[{b}]") }),
                    (nw, None) => nw,
                };
                if width != port.width {
                    return Err(NetlistError::Width {
                        module: module.into(),
                        net,
                        from: width,
                        inst: inst.to_string(),
                        port: port.name.clone(),
                        to: port.width,
                    });
                }
                if let Some(u) = used.get_mut(&net) {
                    *u = true;
                }
                conns.push(format!(".{}({net})", port.name));
            }
            // Every connection names a port the module has.
            for c in self.conns.iter().filter(|c| c.dst == *inst) {
                find(inst, &self.port_of(inst, c.dst_path), c.dst_path)?;
            }
            let params = inst_params.get(inst).unwrap_or(&p.params);
            let _ = writeln!(v, "{}{} {inst} (\n    {}\n);\n", p.module, param_list(params), conns.join(",\n    "));
        }
        for t in top.iter().filter(|p| p.dir == Dir::Output) {
            let drivers: Vec<&TopOut> = self.top_outs.iter().filter(|o| o.port == t.name).collect();
            if drivers.is_empty() {
                return Err(NetlistError::Top { module: module.into(), port: t.name.clone() });
            }
            // Whole, by one driver; or bit by bit, every bit once.
            let mut bits: Vec<Option<u32>> = drivers.iter().map(|o| o.bit).collect();
            bits.sort();
            let whole = bits == [None];
            if !whole && bits != (0..t.width as u32).map(Some).collect::<Vec<_>>() {
                return Err(NetlistError::Drivers { module: module.into(), inst: "top".into(), port: t.name.clone(), count: drivers.len() });
            }
            for o in drivers {
                let (net, width) = net_of(o.src, o.src_path)?;
                let (lhs, to) = match o.bit {
                    Some(b) => (format!("{}[{b}]", t.name), 1),
                    None => (t.name.clone(), t.width),
                };
                if width != to {
                    return Err(NetlistError::Width { module: module.into(), net, from: width, inst: "top".into(), port: lhs, to });
                }
                if let Some(u) = used.get_mut(&net) {
                    *u = true;
                }
                let _ = writeln!(v, "assign {lhs} = {net};");
            }
        }
        for o in self.top_outs {
            if top_port(o.port).filter(|p| p.dir == Dir::Output).is_none() {
                return Err(NetlistError::Top { module: module.into(), port: o.port.into() });
            }
        }
        let unused: Vec<&String> = used.iter().filter(|(_, u)| !**u).map(|(n, _)| n).collect();
        if !unused.is_empty() {
            v.push_str("\n// Block outputs this composition does not use.\n/* verilator lint_off UNUSEDSIGNAL */\n");
            let names: Vec<&str> = unused.iter().map(|s| s.as_str()).collect();
            let _ = writeln!(v, "wire unused_ok = &{{1'b0, {}, 1'b0}};", names.join(", "));
            v.push_str("/* verilator lint_on UNUSEDSIGNAL */\n");
        }
        let _ = writeln!(v, "\nendmodule\n`default_nettype wire");
        Ok(v)
    }
}

/// A file list (`.f`) naming `files`, one a line, for Verilator, Yosys or a vendor tool.
pub fn file_list(name: &str, block: &'static str, files: &[String]) -> EmittedModule {
    let top = name.trim_end_matches(".f");
    let mut text = format!("// {name}: generated by {GENERATOR}: the files of {top}, top first.\n");
    for f in files {
        let _ = writeln!(text, "{f}");
    }
    EmittedModule {
        name: name.to_string(),
        block,
        config: vec![],
        text,
    }
}

/// A composed top as one configuration of its parameterised module: the module `module`
/// rendered from `desc` with `doc` over it (the same text for every configuration: the
/// header lists the parameters, and its configuration line names them), then every module its
/// blocks (`(instance, variant)`) name, each once, in order. The variant is named `name`
/// and sets the module's parameters to `values`; `ports` are the top's at them.
#[allow(clippy::too_many_arguments)] // the pieces of a composed top
pub fn composed_variant(
    desc: &Description,
    module: &str,
    name: &str,
    block: &'static str,
    doc: &str,
    param: &Parameterised,
    values: Vec<(String, String)>,
    ports: Vec<Port>,
    blocks: &[(&'static str, crate::emit::Variant)],
) -> Result<crate::emit::Variant, NetlistError> {
    let placed: BTreeMap<&str, Placed> = blocks
        .iter()
        .map(|(inst, v)| {
            let text = v.modules.iter().find(|m| m.name == v.top).map_or(String::new(), |m| m.text.clone());
            (*inst, Placed { module: v.top.clone(), params: v.params.clone(), ports: v.ports.clone(), text })
        })
        .collect();
    let body = desc.render_top(module, doc, &ports, &placed, Some(param))?;
    // The header's configuration line: the parameters it takes.
    let config = vec![("parameters".to_string(), param.names().collect::<Vec<_>>().join(", "))];
    let mut modules: Vec<EmittedModule> = vec![crate::emit::generated(module, block, config, &body)];
    for (_, v) in blocks {
        for m in &v.modules {
            if !modules.iter().any(|x| x.name == m.name) {
                modules.push(m.clone());
            }
        }
    }
    Ok(crate::emit::Variant { name: name.to_string(), block, top: module.to_string(), params: values, modules, ports })
}


/// `src` of a connection: a top-level input (`top.x`) or an instance output.
#[doc(hidden)]
#[macro_export]
macro_rules! __netlist_src {
    ($t:ident, $o:ident, top $(. $p:ident)+) => { $t $(. $p)+ };
    ($t:ident, $o:ident, $s:ident $(. $p:ident)+) => { $o.$s $(. $p)+ };
}

/// A value, or one bit of it (`bool`).
#[doc(hidden)]
#[macro_export]
macro_rules! __netlist_bit {
    ($e:expr) => { $e };
    ($e:expr, $b:literal) => { ($e as u64) >> $b & 1 == 1 };
}

/// A top output driven whole, or one bit of it.
#[doc(hidden)]
#[macro_export]
macro_rules! __netlist_set {
    ($dst:expr, $e:expr) => { $dst = $e.wire() };
    ($dst:expr, $e:expr, $b:literal) => { $crate::netlist::set_bit(&mut $dst, $e as u64, $b) };
}

/// `Some(bit)` or `None`.
#[doc(hidden)]
#[macro_export]
macro_rules! __netlist_opt {
    () => { None };
    ($b:literal) => { Some($b) };
}

/// Describe a composition once; see the module docs. Generates the stepper struct (a
/// [`Twin`](crate::twin::Twin) of the whole), a struct of every instance's latest
/// outputs, and the static [`Description`] the Verilog top is rendered from.
///
/// `schedule` is the order the instances' `eval` runs in within a clock; an instance may
/// appear more than once (an output that another instance needs before this one's inputs
/// are all known). With `check` set, every clock re-evaluates each instance on its final
/// inputs and panics if an output differs from what was used: a wrong schedule cannot
/// pass silently.
#[macro_export]
macro_rules! netlist {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident ($tin:ty => $tout:ty), outputs $outs:ident {
            $( $inst:ident : $ty:ty { $( $($dpath:ident).+ <- $src:ident $(. $spath:ident)+ $([$bit:literal])? ; )* } )*
        }
        top($o:ident) { $( $vport:literal $dst:expr => $osrc:ident $(. $ospath:ident)+ $([$obit:literal])? ; )* }
        schedule [ $( $step:ident ),* $(,)? ]
        names { $( $ninst:ident . $($npath:ident).+ = $vname:literal ; )* }
    ) => {
        /// Every instance's outputs during the current clock.
        #[derive(Clone, Copy, Debug, Default)]
        $vis struct $outs {
            $( pub $inst: <$ty as $crate::twin::Twin>::Out, )*
        }

        $(#[$meta])*
        $vis struct $name {
            $( pub $inst: $ty, )*
            outs: $outs,
            /// Re-evaluate every instance on its final inputs each clock (tests).
            pub check: bool,
        }

        #[allow(non_snake_case, unused_mut, clippy::needless_update)]
        mod __build {
            use super::*;
            use $crate::netlist::Wire as _;
            $(
                #[inline(always)]
                pub(super) fn $inst(t: &$tin, o: &$outs) -> <$ty as $crate::twin::Twin>::In {
                    let _ = (t, o);
                    let mut i = <<$ty as $crate::twin::Twin>::In as Default>::default();
                    $( i.$($dpath).+ = $crate::__netlist_bit!($crate::__netlist_src!(t, o, $src $(. $spath)+) $(, $bit)?).wire(); )*
                    i
                }
            )*
            #[inline(always)]
            pub(super) fn top(o: &$outs) -> $tout {
                let mut $o = <$tout as Default>::default();
                $( $crate::__netlist_set!($dst, $crate::__netlist_src!(t, o, $osrc $(. $ospath)+) $(, $obit)?); )*
                $o
            }
        }

        impl $name {
            /// The static description (for the Verilog top).
            pub const DESCRIPTION: $crate::netlist::Description = $crate::netlist::Description {
                instances: &[$( stringify!($inst) ),*],
                conns: &[$($( $crate::netlist::Conn {
                    dst: stringify!($inst),
                    dst_path: stringify!($($dpath).+),
                    src: stringify!($src),
                    src_path: stringify!($($spath).+),
                    bit: $crate::__netlist_opt!($($bit)?),
                }, )*)*],
                top_outs: &[$( $crate::netlist::TopOut {
                    port: $vport,
                    src: stringify!($osrc),
                    src_path: stringify!($($ospath).+),
                    bit: $crate::__netlist_opt!($($obit)?),
                }, )*],
                names: &[$( $crate::netlist::Name {
                    inst: stringify!($ninst),
                    path: stringify!($($npath).+),
                    port: $vname,
                }, )*],
            };

            #[allow(clippy::too_many_arguments)] // one argument per instance
            fn __new($( $inst: $ty ),*) -> Self {
                Self { $( $inst, )* outs: Default::default(), check: false }
            }

            /// Every instance's outputs in the last clock stepped.
            pub fn outputs(&self) -> &$outs {
                &self.outs
            }

            #[inline(always)]
            fn __settle(&self, t: &$tin) -> $outs {
                use $crate::twin::Twin as _;
                let mut o = self.outs;
                $( o.$step = self.$step.eval(&__build::$step(t, &o)); )*
                o
            }
        }

        impl $crate::twin::Twin for $name {
            type In = $tin;
            type Out = $tout;

            fn eval(&self, t: &$tin) -> $tout {
                __build::top(&self.__settle(t))
            }

            fn tick(&mut self, t: &$tin) {
                self.step(t);
            }

            #[inline]
            fn step(&mut self, t: &$tin) -> $tout {
                let o = self.__settle(t);
                $(
                    let i = __build::$inst(t, &o);
                    if self.check {
                        let again = self.$inst.eval(&i);
                        assert!(again == o.$inst, "netlist {}: instance `{}` settles to other outputs on its final inputs: the schedule is wrong\nused:  {:?}\nfinal: {:?}", stringify!($name), stringify!($inst), o.$inst, again);
                    }
                    self.$inst.tick(&i);
                )*
                self.outs = o;
                __build::top(&o)
            }
        }
    };
}
