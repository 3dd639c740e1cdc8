//! What `iblink emit` can generate: every block family and its supported variants.

use crate::crc16::WIDTHS;
use crate::emit::{EmitError, EmittedModule, Variant};
use crate::rx_credits::{self, DEFAULT_CAPACITY};
use crate::vl::VL_CAPS;


/// Block families, by the name used on the command line.
pub const BLOCKS: &[&str] = &["crc16", "crc16_dword", "tx_credits", "rx_credits", "sl2vl", "vl15_rx", "vl_arb", "fcp_rx", "fcp_tx", "link_tx", "link_rx", "failsafe", "link_port"];

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
    #[error("a VL15 buffer of {0} packets is not generated: sizes are 1 and 4")]
    UnsupportedVl15Capacity(usize),
    #[error("VLCap {vls} with {width}-bit link words is not generated: VLCap 1, 2, 4, 8 or 15, width 32 or 64")]
    UnsupportedLinkVariant { vls: usize, width: usize },
    #[error("link words of {0} bits are not generated: the link TX path takes 32 or 64")]
    UnsupportedLinkTxWidth(usize),
    #[error(transparent)]
    Emit(#[from] EmitError),
}

/// Name of the CRC module for a data width.
pub fn crc16_module_name(width: usize) -> String {
    format!("iblink_crc16_w{width}")
}

/// Render one CRC unit.
pub fn crc16_variant(width: usize) -> Result<Variant, RequestError> {
    let name = crc16_module_name(width);
    let cfg = vec![
        ("data_width".to_string(), width.to_string()),
        ("keep_width".to_string(), (width / 8).to_string()),
    ];
    crate::with_crc16!(width, |T| Ok(Variant::rendered(&mut T::default(), &name, "crc16", cfg)?),
        _ => Err(RequestError::UnsupportedWidth(width)))
}

/// Name of the pipelined dword CRC unit for a data width (32 bits only).
pub fn crc16_dword_module_name(width: usize) -> String {
    format!("iblink_crc16_dword_w{width}")
}

/// Render the pipelined dword CRC unit (SPEC.md §3; the link path's VCRC and LPCRC).
pub fn crc16_dword_variant(width: usize) -> Result<Variant, RequestError> {
    let name = crc16_dword_module_name(width);
    let cfg = vec![
        ("data_width".to_string(), width.to_string()),
        ("latency_last_to_crc".to_string(), crate::crc16_dword::LATENCY.to_string()),
    ];
    crate::with_crc16_dword!(width, |T| Ok(Variant::rendered(&mut T::default(), &name, "crc16_dword", cfg)?),
        _ => Err(RequestError::UnsupportedDwordWidth(width)))
}

/// Name of the TX credits module for VLCap `vls`.
pub fn tx_credits_module_name(vls: usize) -> String {
    format!("iblink_tx_credits_vl{vls}")
}

/// The TX credits block for VLCap `vls` (SPEC.md §4).
pub fn tx_credits_variant(vls: usize) -> Result<Variant, RequestError> {
    if !VL_CAPS.contains(&vls) {
        return Err(RequestError::UnsupportedVlCap(vls));
    }
    Ok(crate::tx_credits::variant(vls))
}

/// Name of the RX credits configuration: the default buffer size goes unnamed.
pub fn rx_credits_module_name(vls: usize, capacity: u16) -> String {
    rx_credits::variant_name(vls, capacity)
}

/// The RX credits block for VLCap `vls` and `capacity` blocks of buffer per VL
/// (SPEC.md §4), a parameter of the module. `hdl_out/` holds the one module; the
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

/// The module files of `variants`, each once, in the order first needed.
pub fn files(variants: &[Variant]) -> Vec<EmittedModule> {
    let mut out: Vec<EmittedModule> = Vec::new();
    for v in variants {
        for m in &v.modules {
            match out.iter().find(|x| x.name == m.name) {
                Some(x) => assert_eq!(x.text, m.text, "two different texts for module {}", m.name),
                None => out.push(m.clone()),
            }
        }
    }
    out
}

/// Every variant a request names, in memory (nothing touches the file system).
pub fn variants(req: &EmitRequest) -> Result<Vec<Variant>, RequestError> {
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
    // The credit blocks come in every VLCap the spec allows (SPEC.md §7), with the
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
    if wants("failsafe") {
        for n in VL_CAPS {
            out.push(failsafe_variant(n)?);
        }
    }
    Ok(out)
}

/// Name of the failsafe configuration for VLCap `vls`.
pub fn failsafe_module_name(vls: usize) -> String {
    format!("iblink_failsafe_vl{vls}")
}

/// The failsafe (SPEC.md §8: update monitor, overrun threshold) for VLCap `vls`.
pub fn failsafe_variant(vls: usize) -> Result<Variant, RequestError> {
    if !VL_CAPS.contains(&vls) {
        return Err(RequestError::UnsupportedVlCap(vls));
    }
    Ok(crate::failsafe::variant(vls))
}

/// Name of the link RX classifier for VLCap `vls` and `width`-bit link words.
pub fn link_rx_module_name(vls: usize, width: usize) -> String {
    format!("iblink_link_rx_vl{vls}_w{width}")
}

/// Render the link RX classifier (SPEC.md §1, §3, §4, §7) for VLCap `vls`, `width`-bit
/// link words.
pub fn link_rx_variant(vls: usize, width: usize) -> Result<Variant, RequestError> {
    use crate::link_rx::{COUNT_BITS, LATENCY, OUT_LATENCY};
    let name = link_rx_module_name(vls, width);
    let cfg = vec![
        ("vl_cap".to_string(), vls.to_string()),
        ("data_width".to_string(), width.to_string()),
        ("keep_width".to_string(), (width / 8).to_string()),
        ("latency_rx_to_out".to_string(), OUT_LATENCY.to_string()),
        ("latency_eop_to_done".to_string(), LATENCY.to_string()),
        ("vcrc".to_string(), "kept on out_*".to_string()),
        ("counter_bits".to_string(), COUNT_BITS.to_string()),
    ];
    crate::with_link_rx!((vls, width), |T| Ok(Variant::rendered(&mut T::default(), &name, "link_rx", cfg)?),
        _ => Err(RequestError::UnsupportedLinkVariant { vls, width }))
}

/// Name of the link TX path for `width`-bit link words.
pub fn link_tx_module_name(width: usize) -> String {
    format!("iblink_link_tx_w{width}")
}

/// Render the link TX path (SPEC.md §2, §3, §5) for `width`-bit link words.
pub fn link_tx_variant(width: usize) -> Result<Variant, RequestError> {
    use crate::link_tx::{READ_TO_WIRE, START_TO_SOP};
    let name = link_tx_module_name(width);
    let cfg = vec![
        ("data_width".to_string(), width.to_string()),
        ("keep_width".to_string(), (width / 8).to_string()),
        ("latency_start_to_sop".to_string(), START_TO_SOP.to_string()),
        ("latency_src_rd_to_wire".to_string(), READ_TO_WIRE.to_string()),
    ];
    crate::with_link_tx!(width, |T| Ok(Variant::rendered(&mut T::default(), &name, "link_tx", cfg)?),
        _ => Err(RequestError::UnsupportedLinkTxWidth(width)))
}

/// Name of the FCP receive framer for VLCap `vls` and `width`-bit link words.
pub fn fcp_rx_module_name(vls: usize, width: usize) -> String {
    format!("iblink_fcp_rx_vl{vls}_w{width}")
}

/// Render the FCP receive framer (SPEC.md §2–§4) for VLCap `vls`, `width`-bit words.
pub fn fcp_rx_variant(vls: usize, width: usize) -> Result<Variant, RequestError> {
    use crate::fcp_rx::{COUNT_BITS, LATENCY};
    let name = fcp_rx_module_name(vls, width);
    let cfg = vec![
        ("vl_cap".to_string(), vls.to_string()),
        ("data_width".to_string(), width.to_string()),
        ("keep_width".to_string(), (width / 8).to_string()),
        ("latency_eop_to_upd".to_string(), LATENCY.to_string()),
        ("counter_bits".to_string(), COUNT_BITS.to_string()),
    ];
    crate::with_fcp_rx!((vls, width), |T| Ok(Variant::rendered(&mut T::default(), &name, "fcp_rx", cfg)?),
        _ => Err(RequestError::UnsupportedLinkVariant { vls, width }))
}

/// Name of the FCP transmit framer for VLCap `vls` and `width`-bit link words.
pub fn fcp_tx_module_name(vls: usize, width: usize) -> String {
    format!("iblink_fcp_tx_vl{vls}_w{width}")
}

/// Render the FCP transmit framer and scheduler (SPEC.md §2, §3, §5) for VLCap `vls`,
/// `width`-bit words.
pub fn fcp_tx_variant(vls: usize, width: usize) -> Result<Variant, RequestError> {
    use crate::fcp_tx::TIMER_BITS;
    let name = fcp_tx_module_name(vls, width);
    let cfg = vec![
        ("vl_cap".to_string(), vls.to_string()),
        ("data_width".to_string(), width.to_string()),
        ("keep_width".to_string(), (width / 8).to_string()),
        ("timer_bits".to_string(), TIMER_BITS.to_string()),
        ("latency_due_to_pending".to_string(), "2".to_string()),
        ("sample_to_sop".to_string(), "1".to_string()),
    ];
    crate::with_fcp_tx!((vls, width), |T| Ok(Variant::rendered(&mut T::default(), &name, "fcp_tx", cfg)?),
        _ => Err(RequestError::UnsupportedLinkVariant { vls, width }))
}

/// Name of the SLtoVL table module for VLCap `vls`.
pub fn sl2vl_module_name(vls: usize) -> String {
    format!("iblink_sl2vl_vl{vls}")
}

/// Render the SLtoVL table for VLCap `vls`.
pub fn sl2vl_variant(vls: usize) -> Result<Variant, RequestError> {
    let name = sl2vl_module_name(vls);
    let cfg = vec![("vl_cap".to_string(), vls.to_string())];
    crate::with_sl2vl!(vls, |T| Ok(Variant::rendered(&mut T::default(), &name, "sl2vl", cfg)?),
        _ => Err(RequestError::UnsupportedVlCap(vls)))
}

/// VL15 buffer sizes generated: the IBA minimum (one packet, the default) and four.
pub const VL15_CAPACITIES: [usize; 2] = [1, 4];

/// Name of the VL15 receive buffer module holding `cap` packets.
pub fn vl15_rx_module_name(cap: usize) -> String {
    format!("iblink_vl15_rx_cap{cap}")
}

/// Render the VL15 receive buffer for `cap` packets.
pub fn vl15_rx_variant(cap: usize) -> Result<Variant, RequestError> {
    let name = vl15_rx_module_name(cap);
    let cfg = vec![("capacity_packets".to_string(), cap.to_string())];
    crate::with_vl15_rx!(cap, |T| Ok(Variant::rendered(&mut T::default(), &name, "vl15_rx", cfg)?),
        _ => Err(RequestError::UnsupportedVl15Capacity(cap)))
}

/// Name of the data-VL arbiter module for VLCap `vls`.
pub fn vl_arb_module_name(vls: usize) -> String {
    format!("iblink_vl_arb_vl{vls}")
}

/// Render the data-VL arbiter (SPEC.md §6) for VLCap `vls`: 64 + 64 table entries.
pub fn vl_arb_variant(vls: usize) -> Result<Variant, RequestError> {
    use crate::vl_arb::{CONFIG_GAP, ENTRIES, HEAD_DELAY, LEN_BITS, TAKE_GAP};
    let name = vl_arb_module_name(vls);
    let cfg = vec![
        ("vl_cap".to_string(), vls.to_string()),
        ("table_entries".to_string(), format!("{ENTRIES} high + {ENTRIES} low")),
        ("head_len_width".to_string(), (LEN_BITS * vls).to_string()),
        ("heads_sampled_before_offer".to_string(), HEAD_DELAY.to_string()),
        ("take_to_next_offer".to_string(), TAKE_GAP.to_string()),
        ("config_to_next_offer".to_string(), CONFIG_GAP.to_string()),
    ];
    crate::with_vl_arb!(vls, |T| Ok(Variant::rendered(&mut T::default(), &name, "vl_arb", cfg)?),
        _ => Err(RequestError::UnsupportedVlCap(vls)))
}

/// The default emission: what `hdl_out/` holds.
pub fn default_request() -> EmitRequest {
    EmitRequest {
        blocks: vec![],
        crc_widths: vec![],
    }
}

/// Name of the link port module for VLCap `vls` and `width`-bit link words.
pub fn link_port_module_name(vls: usize, width: usize) -> String {
    format!("iblink_link_port_vl{vls}_w{width}")
}

/// Render the link port generated from `p` (one self-contained file: the blocks are its
/// sub-modules). `iblink emit --config` calls this with the configuration file's values.
pub fn link_port_variant(p: &crate::link_port::PortParams) -> Result<Variant, RequestError> {
    let name = link_port_module_name(p.vl_cap, p.width);
    crate::with_link_port!((p.vl_cap, p.width), |T| Ok(Variant::rendered(&mut T::new(p.clone()), &name, "link_port", p.config_lines())?),
        _ => Err(RequestError::UnsupportedVlCap(p.vl_cap)))
}
