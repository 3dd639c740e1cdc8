//! What `iblink emit` can generate: every block family and its supported variants.

use crate::crc16::{Crc16W16, Crc16W32, Crc16W64, Crc16W8, WIDTHS};
use crate::emit::{render, EmitError, EmittedModule};


/// Block families, by the name used on the command line.
pub const BLOCKS: &[&str] = &["crc16"];

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
    #[error(transparent)]
    Emit(#[from] EmitError),
}

/// Name of the CRC module for a data width.
pub fn crc16_module_name(width: usize) -> String {
    format!("iblink_crc16_w{width}")
}

/// Render one CRC unit.
pub fn crc16_module(width: usize) -> Result<EmittedModule, RequestError> {
    let name = crc16_module_name(width);
    let cfg = vec![
        ("data_width".to_string(), width.to_string()),
        ("keep_width".to_string(), (width / 8).to_string()),
    ];
    Ok(match width {
        8 => render(&mut Crc16W8::default(), &name, "crc16", cfg)?,
        16 => render(&mut Crc16W16::default(), &name, "crc16", cfg)?,
        32 => render(&mut Crc16W32::default(), &name, "crc16", cfg)?,
        64 => render(&mut Crc16W64::default(), &name, "crc16", cfg)?,
        w => return Err(RequestError::UnsupportedWidth(w)),
    })
}

/// Render everything a request names, in memory (nothing touches the file system).
pub fn generate(req: &EmitRequest) -> Result<Vec<EmittedModule>, RequestError> {
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
            out.push(crc16_module(w)?);
        }
    }
    Ok(out)
}

/// The default emission: what `hdl_out/` holds.
pub fn default_request() -> EmitRequest {
    EmitRequest {
        blocks: vec![],
        crc_widths: vec![],
    }
}
