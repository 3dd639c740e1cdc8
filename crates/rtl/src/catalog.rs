//! What `iblink emit` can generate: every block family and its supported variants.

use crate::crc16::WIDTHS;
use crate::emit::{EmitError, EmittedModule, Variant};
use crate::rx_credits::{self, DEFAULT_CAPACITY};
use crate::vl::VL_CAPS;


/// Block families, by the name used on the command line.
pub const BLOCKS: &[&str] = &["crc16", "crc16_dword", "tx_credits", "rx_credits", "sl2vl", "vl15_rx", "vl_arb", "fcp_rx", "fcp_tx", "link_tx", "link_rx", "failsafe", "link_port", "pfc_tx", "pfc_frame", "pause_rx", "eth_rxbuf", "eth_txq", "eth_port"];

/// What to emit.
#[derive(Clone, Debug)]
pub struct EmitRequest {
    /// Block families; empty means all.
    pub blocks: Vec<String>,
    /// CRC data widths in bits; empty means all supported.
    pub crc_widths: Vec<usize>,
}

#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error("unknown block `{name}`: valid blocks are {valid}", valid = BLOCKS.join(", "))]
    UnknownBlock { name: String },
    #[error("--width {0} is not supported: the CRC unit takes 8, 16, 32 or 64 bits per clock")]
    UnsupportedWidth(usize),
    #[error("--width {0} is not supported by the dword CRC unit: it takes 32 bits per clock")]
    UnsupportedDwordWidth(usize),
    #[error("VLCap {0} is not supported: the credit blocks take 1, 2, 4, 8 or 15 data VLs")]
    UnsupportedVlCap(usize),
    #[error("a receive buffer of {0} blocks is not supported: 66..=4095 blocks per VL")]
    UnsupportedCapacity(u16),
    #[error("a VL15 buffer of {0} packets is not supported: 1..=255 packets")]
    UnsupportedVl15Capacity(usize),
    #[error("VLCap {vls} with {width}-bit link words is not generated: VLCap 1, 2, 4, 8 or 15, width 32 or 64")]
    UnsupportedLinkVariant { vls: usize, width: usize },
    #[error("link words of {0} bits are not generated: the link TX path takes 32 or 64")]
    UnsupportedLinkTxWidth(usize),
    #[error("a PAUSE/PFC transmit side with {queues} queues at {width} bits is not generated: 1 to 8 queues, 32 or 64 bits")]
    UnsupportedPfcTx { queues: usize, width: usize },
    #[error("a PAUSE/PFC frame builder with {queues} queues at {width} bits is not generated: 1 to 8 queues, 32 or 64 bits")]
    UnsupportedPfcFrame { queues: usize, width: usize },
    #[error("a PAUSE/PFC receive side at {0} bits is not generated: 32 or 64 bits")]
    UnsupportedPauseRx(usize),
    #[error("Ethernet receive buffers with {queues} queues at {width} bits are not generated: 1 to 8 queues, 32 or 64 bits")]
    UnsupportedEthRxbuf { queues: usize, width: usize },
    #[error("Ethernet transmit queues with {queues} queues at {width} bits are not generated: 1 to 8 queues, 32 or 64 bits")]
    UnsupportedEthTxq { queues: usize, width: usize },
    #[error("an Ethernet port with {queues} queues at {width} bits is not generated: 1 to 8 queues, 32 or 64 bits")]
    UnsupportedEthPort { queues: usize, width: usize },
    #[error(transparent)]
    Port(#[from] crate::link_port::ParamError),
    #[error(transparent)]
    Emit(#[from] EmitError),
}

/// The CRC unit at `width` bits a clock (docs/spec.md §3).
pub fn crc16_variant(width: usize) -> Result<Variant, RequestError> {
    if !WIDTHS.contains(&width) {
        return Err(RequestError::UnsupportedWidth(width));
    }
    Ok(crate::crc16::variant(width))
}

/// The pipelined dword CRC unit (docs/spec.md §3; the link path's VCRC and LPCRC).
pub fn crc16_dword_variant(width: usize) -> Result<Variant, RequestError> {
    if width != crate::crc16_dword::WIDTH {
        return Err(RequestError::UnsupportedDwordWidth(width));
    }
    Ok(crate::crc16_dword::variant())
}

/// The TX credits block for VLCap `vls` (docs/spec.md §4).
pub fn tx_credits_variant(vls: usize) -> Result<Variant, RequestError> {
    if !VL_CAPS.contains(&vls) {
        return Err(RequestError::UnsupportedVlCap(vls));
    }
    Ok(crate::tx_credits::variant(vls))
}

/// The RX credits block for VLCap `vls` and `capacity` blocks of buffer per VL
/// (docs/spec.md §4), a parameter of the module. `hdl_out/` holds the one module; the
/// default emission lists the default buffer size at every VLCap.
pub fn rx_credits_variant(vls: usize, capacity: u16) -> Result<Variant, RequestError> {
    if !VL_CAPS.contains(&vls) {
        return Err(RequestError::UnsupportedVlCap(vls));
    }
    if !(rx_credits::MIN_CAPACITY..=rx_credits::MAX_CAPACITY).contains(&capacity) {
        return Err(RequestError::UnsupportedCapacity(capacity));
    }
    Ok(rx_credits::variant(vls, capacity))
}

/// Every module file a request needs, each once (what `hdl_out/` holds), in memory.
pub fn generate(req: &EmitRequest) -> Result<Vec<EmittedModule>, RequestError> {
    Ok(files(&variants(req)?))
}

/// The module files of `variants`, each once, in the order first needed, each port's
/// file list, then a FuseSoC core per module ([`crate::fusesoc`]).
pub fn files(variants: &[Variant]) -> Vec<EmittedModule> {
    let mut out: Vec<EmittedModule> = Vec::new();
    for v in variants {
        let list = matches!(v.block, "link_port" | "eth_port").then(|| crate::link_port::netlist::files_of(v));
        for m in v.modules.iter().chain(list.iter()) {
            match out.iter().find(|x| x.name == m.name) {
                Some(x) => assert_eq!(x.text, m.text, "two different texts for module {}", m.name),
                None => out.push(m.clone()),
            }
        }
    }
    let cores = crate::fusesoc::cores(&out);
    out.extend(cores);
    out
}

/// Every variant a request names, in memory (nothing touches the file system).
pub fn variants(req: &EmitRequest) -> Result<Vec<Variant>, RequestError> {
    variants_of(req, false)
}

/// Memory a receive queue of the Ethernet blocks has in synthesis: a 4096-byte queue
/// (the least with an RX-fill trigger, docs/spec.md §9) and a maximum frame, to a power of two.
pub const SYNTH_RX_MEMORY_BYTES: usize = 8192;
/// Memory a transmit queue of the Ethernet blocks has in synthesis: one maximum frame,
/// to a power of two.
pub const SYNTH_TX_MEMORY_BYTES: usize = 2048;

/// The variants `iblink synth` runs for a request: [`variants`], with the Ethernet
/// blocks' memories at [`SYNTH_RX_MEMORY_BYTES`] and [`SYNTH_TX_MEMORY_BYTES`] a queue
/// (the emitted ones hold up to 64 KB a receive queue: more block RAM than the project's
/// boards have).
pub fn synth_variants(req: &EmitRequest) -> Result<Vec<Variant>, RequestError> {
    variants_of(req, true)
}

fn variants_of(req: &EmitRequest, synth: bool) -> Result<Vec<Variant>, RequestError> {
    for b in &req.blocks {
        if !BLOCKS.contains(&b.as_str()) {
            return Err(RequestError::UnknownBlock { name: b.clone() });
        }
    }
    for w in &req.crc_widths {
        if !WIDTHS.contains(w) {
            return Err(RequestError::UnsupportedWidth(*w));
        }
    }
    let wants = |b: &str| req.blocks.is_empty() || req.blocks.iter().any(|x| x == b);
    let mut out = Vec::new();
    if wants("crc16") {
        let widths: Vec<usize> = if req.crc_widths.is_empty() {
            WIDTHS.to_vec()
        } else {
            req.crc_widths.clone()
        };
        for w in widths {
            out.push(crc16_variant(w)?);
        }
    }
    if wants("crc16_dword") {
        out.push(crc16_dword_variant(crate::crc16_dword::WIDTH)?);
    }
    // The credit blocks come in every VLCap the spec allows (docs/spec.md §7), with the
    // default configuration's 256-block receive buffers.
    if wants("tx_credits") {
        for n in VL_CAPS {
            out.push(tx_credits_variant(n)?);
        }
    }
    if wants("rx_credits") {
        for n in VL_CAPS {
            out.push(rx_credits_variant(n, DEFAULT_CAPACITY)?);
        }
    }
    if wants("sl2vl") {
        for n in VL_CAPS {
            out.push(sl2vl_variant(n)?);
        }
    }
    if wants("vl15_rx") {
        for c in VL15_CAPACITIES {
            out.push(vl15_rx_variant(c)?);
        }
    }
    if wants("vl_arb") {
        for n in VL_CAPS {
            out.push(vl_arb_variant(n)?);
        }
    }
    // Link-path blocks: every VLCap at both link word widths.
    if wants("fcp_rx") {
        for w in crate::fcp_rx::WIDTHS {
            for n in crate::fcp_rx::VL_CAPS {
                out.push(fcp_rx_variant(n, w)?);
            }
        }
    }
    if wants("fcp_tx") {
        for w in crate::fcp_tx::WIDTHS {
            for n in VL_CAPS {
                out.push(fcp_tx_variant(n, w)?);
            }
        }
    }
    if wants("link_tx") {
        for w in crate::link_tx::WIDTHS {
            out.push(link_tx_variant(w)?);
        }
    }
    if wants("link_rx") {
        for w in crate::link_rx::WIDTHS {
            for n in crate::link_rx::VL_CAPS {
                out.push(link_rx_variant(n, w)?);
            }
        }
    }
    // The link port (every block composed) at each VLCap and width, with the default
    // configuration.
    if wants("link_port") {
        for w in crate::link_tx::WIDTHS {
            for n in VL_CAPS {
                out.push(link_port_variant(&crate::link_port::PortParams::defaults(n, w))?);
            }
        }
    }
    if wants("pfc_tx") {
        for w in crate::pfc_tx::WIDTHS {
            for q in CATALOG_PFC_QUEUES {
                out.push(pfc_tx_variant(q, w)?);
            }
        }
    }
    if wants("pfc_frame") {
        for w in crate::pfc_tx::WIDTHS {
            for q in CATALOG_PFC_QUEUES {
                out.push(pfc_frame_variant(q, w)?);
            }
        }
    }
    if wants("pause_rx") {
        for w in crate::pfc_tx::WIDTHS {
            out.push(pause_rx_variant(w)?);
        }
    }
    if wants("eth_rxbuf") {
        for w in crate::pfc_tx::WIDTHS {
            for q in CATALOG_PFC_QUEUES {
                out.push(if synth { crate::eth_rxbuf::sized_variant(q, w, SYNTH_RX_MEMORY_BYTES) } else { eth_rxbuf_variant(q, w)? });
            }
        }
    }
    if wants("eth_port") {
        for w in crate::pfc_tx::WIDTHS {
            for q in CATALOG_PFC_QUEUES {
                out.push(if synth {
                    crate::eth_port::sized_variant(q, w, SYNTH_RX_MEMORY_BYTES, SYNTH_TX_MEMORY_BYTES)
                } else {
                    eth_port_variant(q, w)?
                });
            }
        }
    }
    if wants("eth_txq") {
        for w in crate::pfc_tx::WIDTHS {
            for q in CATALOG_PFC_QUEUES {
                out.push(if synth { crate::eth_txq::sized_variant(q, w, SYNTH_TX_MEMORY_BYTES) } else { eth_txq_variant(q, w)? });
            }
        }
    }
    if wants("failsafe") {
        for n in VL_CAPS {
            out.push(failsafe_variant(n)?);
        }
    }
    Ok(out)
}

/// The failsafe (docs/spec.md §8: update monitor, overrun threshold) for VLCap `vls`.
pub fn failsafe_variant(vls: usize) -> Result<Variant, RequestError> {
    if !VL_CAPS.contains(&vls) {
        return Err(RequestError::UnsupportedVlCap(vls));
    }
    Ok(crate::failsafe::variant(vls))
}

/// The link RX classifier (docs/spec.md §1, §3, §4, §7) for VLCap `vls`, `width`-bit link
/// words.
pub fn link_rx_variant(vls: usize, width: usize) -> Result<Variant, RequestError> {
    if !crate::link_rx::VL_CAPS.contains(&vls) || !crate::link_rx::WIDTHS.contains(&width) {
        return Err(RequestError::UnsupportedLinkVariant { vls, width });
    }
    Ok(crate::link_rx::variant(vls, width))
}

/// The link TX path (docs/spec.md §2, §3, §5) for `width`-bit link words.
pub fn link_tx_variant(width: usize) -> Result<Variant, RequestError> {
    if !crate::link_tx::WIDTHS.contains(&width) {
        return Err(RequestError::UnsupportedLinkTxWidth(width));
    }
    Ok(crate::link_tx::variant(width))
}

/// The FCP receive framer (docs/spec.md §2–§4) for VLCap `vls`, `width`-bit words.
pub fn fcp_rx_variant(vls: usize, width: usize) -> Result<Variant, RequestError> {
    if !VL_CAPS.contains(&vls) || !crate::fcp_rx::WIDTHS.contains(&width) {
        return Err(RequestError::UnsupportedLinkVariant { vls, width });
    }
    Ok(crate::fcp_rx::variant(vls, width))
}

/// The FCP transmit framer and scheduler (docs/spec.md §2, §3, §5) for VLCap `vls`,
/// `width`-bit words.
pub fn fcp_tx_variant(vls: usize, width: usize) -> Result<Variant, RequestError> {
    if !VL_CAPS.contains(&vls) || !crate::fcp_tx::WIDTHS.contains(&width) {
        return Err(RequestError::UnsupportedLinkVariant { vls, width });
    }
    Ok(crate::fcp_tx::variant(vls, width))
}

/// The SLtoVL table for VLCap `vls` (docs/spec.md §7).
pub fn sl2vl_variant(vls: usize) -> Result<Variant, RequestError> {
    if !VL_CAPS.contains(&vls) {
        return Err(RequestError::UnsupportedVlCap(vls));
    }
    Ok(crate::sl2vl::variant(vls))
}

/// VL15 buffer sizes generated: the IBA minimum (one packet, the default) and four.
pub const VL15_CAPACITIES: [usize; 2] = [1, 4];

/// The VL15 receive buffer for `cap` packets (docs/spec.md §4, §7), a parameter of the module.
/// `hdl_out/` holds the one module; the default emission lists [`VL15_CAPACITIES`].
pub fn vl15_rx_variant(cap: usize) -> Result<Variant, RequestError> {
    if !(crate::vl15_rx::MIN_CAPACITY..=crate::vl15_rx::MAX_CAPACITY).contains(&cap) {
        return Err(RequestError::UnsupportedVl15Capacity(cap));
    }
    Ok(crate::vl15_rx::variant(cap))
}

/// The data-VL arbiter (docs/spec.md §6) for VLCap `vls`: 64 + 64 table entries.
pub fn vl_arb_variant(vls: usize) -> Result<Variant, RequestError> {
    if !VL_CAPS.contains(&vls) {
        return Err(RequestError::UnsupportedVlCap(vls));
    }
    Ok(crate::vl_arb::variant(vls))
}

/// The default emission: what `hdl_out/` holds.
pub fn default_request() -> EmitRequest {
    EmitRequest {
        blocks: vec![],
        crc_widths: vec![],
    }
}

/// The link port generated from `p`: its top, every module it instantiates (each its own
/// file) and its file list. `iblink emit --config` calls this with the configuration
/// file's values.
pub fn link_port_variant(p: &crate::link_port::PortParams) -> Result<Variant, RequestError> {
    Ok(crate::link_port::netlist::variant(p)?)
}

/// Queue counts `iblink emit` lists (any of 1 to 8 can be built).
pub const CATALOG_PFC_QUEUES: [usize; 3] = [1, 4, 8];

/// The PAUSE/PFC transmit side with `queues` queues at `width` bits a clock (docs/spec.md §9).
pub fn pfc_tx_variant(queues: usize, width: usize) -> Result<Variant, RequestError> {
    if !crate::pfc_tx::QUEUE_COUNTS.contains(&queues) || !crate::pfc_tx::WIDTHS.contains(&width) {
        return Err(RequestError::UnsupportedPfcTx { queues, width });
    }
    Ok(crate::pfc_tx::variant(queues, width))
}

/// The PAUSE/PFC frame builder with `queues` queues at `width` bits a clock (docs/spec.md §9).
pub fn pfc_frame_variant(queues: usize, width: usize) -> Result<Variant, RequestError> {
    if !crate::pfc_tx::QUEUE_COUNTS.contains(&queues) || !crate::pfc_tx::WIDTHS.contains(&width) {
        return Err(RequestError::UnsupportedPfcFrame { queues, width });
    }
    Ok(crate::pfc_frame::variant(queues, width))
}

/// The Ethernet port's receive buffers with `queues` queues at `width` bits a clock.
pub fn eth_rxbuf_variant(queues: usize, width: usize) -> Result<Variant, RequestError> {
    if !crate::pfc_tx::QUEUE_COUNTS.contains(&queues) || !crate::pfc_tx::WIDTHS.contains(&width) {
        return Err(RequestError::UnsupportedEthRxbuf { queues, width });
    }
    Ok(crate::eth_rxbuf::variant(queues, width))
}

/// The Ethernet port's transmit queues with `queues` queues at `width` bits a clock.
pub fn eth_txq_variant(queues: usize, width: usize) -> Result<Variant, RequestError> {
    if !crate::pfc_tx::QUEUE_COUNTS.contains(&queues) || !crate::pfc_tx::WIDTHS.contains(&width) {
        return Err(RequestError::UnsupportedEthTxq { queues, width });
    }
    Ok(crate::eth_txq::variant(queues, width))
}

/// The Ethernet flow-control port with `queues` queues at `width` bits a clock.
pub fn eth_port_variant(queues: usize, width: usize) -> Result<Variant, RequestError> {
    if !crate::pfc_tx::QUEUE_COUNTS.contains(&queues) || !crate::pfc_tx::WIDTHS.contains(&width) {
        return Err(RequestError::UnsupportedEthPort { queues, width });
    }
    Ok(crate::eth_port::variant(queues, width))
}

/// The PAUSE/PFC receive side at `width` bits a clock (docs/spec.md §9).
pub fn pause_rx_variant(width: usize) -> Result<Variant, RequestError> {
    if !crate::pfc_tx::WIDTHS.contains(&width) {
        return Err(RequestError::UnsupportedPauseRx(width));
    }
    Ok(crate::pause_rx::variant(width))
}
