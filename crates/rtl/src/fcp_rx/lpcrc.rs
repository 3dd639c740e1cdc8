//! The LPCRC of a link packet's four header bytes (docs/spec.md §3), shared by the FCP RX
//! framer (the LPCRC a received FCP must carry) and the FCP TX framer (the LPCRC it
//! sends): [`LpcrcEquations`] derives the 16 XOR equations from the CRC unit's, and
//! [`module`] writes them as the generated module `iblink_lpcrc`, which both
//! hand-written modules instantiate. The equations are data; the module is their text.

use crate::crc16::{Crc16Equations, INIT, XOROUT};
use crate::emit::{generated, EmittedModule};
use std::fmt::Write as _;

/// The generated module's name (`hdl_out/iblink_lpcrc.v`).
pub const MODULE: &str = "iblink_lpcrc";

/// The LPCRC of four header bytes as 16 equations over the 32 header bits: bit `j` of
/// the expected LPCRC is `parity(head & data_mask[j]) ^ invert[j]` (`head` holds byte
/// `k` in bits `8k+7:8k`). The CRC unit's next-state equations after four bytes, with
/// the all-ones init folded in and the final XOR applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LpcrcEquations {
    pub data_mask: [u32; 16],
    pub invert: [bool; 16],
}

impl LpcrcEquations {
    pub fn derive() -> Self {
        let eq = Crc16Equations::derive(4);
        let mut data_mask = [0u32; 16];
        let mut invert = [false; 16];
        for j in 0..16 {
            let t = eq.term(4, j);
            data_mask[j] = t.data_mask as u32;
            // Initial state bits are the constant INIT; XOROUT complements the result.
            let from_init = (t.state_mask & INIT).count_ones() & 1 == 1;
            invert[j] = from_init ^ (XOROUT >> j & 1 == 1);
        }
        Self { data_mask, invert }
    }

    /// The expected LPCRC of header bytes `head` (byte 0 in bits 7:0).
    #[inline]
    pub fn lpcrc(&self, head: u32) -> u16 {
        let mut c = 0u16;
        for j in 0..16 {
            let bit = ((head & self.data_mask[j]).count_ones() & 1 == 1) ^ self.invert[j];
            c |= (bit as u16) << j;
        }
        c
    }
}

/// The module `iblink_lpcrc` (from `` `default_nettype none `` to `` `default_nettype wire ``):
/// one `assign` per LPCRC bit, the XOR of the header bits its equation names, inverted
/// where the init value and the final XOR fold in a one.
pub fn verilog(eq: &LpcrcEquations) -> String {
    let mut v = String::new();
    let _ = write!(
        v,
        "\
`default_nettype none
// {MODULE}: the LPCRC (docs/spec.md §3: CRC-16, poly 0x100B, reflected, init 0xFFFF, xorout
// 0xFFFF) of a link packet's four header bytes, combinational: the CRC unit's equations
// after four bytes, with the init value and the final XOR folded into the '~' of the
// bits where they add a one. Each bit is the XOR of 13 to 24 header bits (about three
// LUT4 levels). Used by iblink_fcp_rx (the LPCRC a received FCP must carry) and
// iblink_fcp_tx (the one it sends); a header bit tied to a constant folds away.
module {MODULE} (
    // Bytes 0-3 of the link packet, byte k at [8k+7:8k] (byte 0 first on the wire)
    input  wire [31:0] head,
    // Its LPCRC: byte 4 on the wire is [7:0], byte 5 is [15:8]
    output wire [15:0] lpcrc
);

"
    );
    for j in 0..16 {
        let terms: Vec<String> = (0..32)
            .filter(|b| eq.data_mask[j] >> b & 1 == 1)
            .map(|b| format!("head[{b}]"))
            .collect();
        let x = terms.join(" ^ ");
        if eq.invert[j] {
            let _ = writeln!(v, "assign lpcrc[{j}] = ~({x});");
        } else {
            let _ = writeln!(v, "assign lpcrc[{j}] = {x};");
        }
    }
    v.push_str("\nendmodule\n`default_nettype wire\n");
    v
}

/// `hdl_out/iblink_lpcrc.v`: the generated module with its header.
pub fn module() -> EmittedModule {
    generated(
        MODULE,
        "lpcrc",
        vec![
            ("equations".into(), "LPCRC of 4 header bytes (docs/spec.md §3)".into()),
            ("used_by".into(), "iblink_fcp_rx, iblink_fcp_tx".into()),
        ],
        &verilog(&LpcrcEquations::derive()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use iblink_model::crc16::crc16;

    #[test]
    fn lpcrc_equations_match_reference() {
        let eq = LpcrcEquations::derive();
        // docs/spec.md §3: header 10 00 00 00 -> LPCRC 0x0558.
        assert_eq!(eq.lpcrc(0x0000_0010), 0x0558);
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..5000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let h = x as u32;
            assert_eq!(eq.lpcrc(h), crc16(&h.to_le_bytes()), "head {h:#010x}");
        }
    }

    #[test]
    fn every_header_bit_reaches_the_lpcrc() {
        // Any single flipped header bit changes the expected LPCRC.
        let eq = LpcrcEquations::derive();
        let cover = eq.data_mask.iter().fold(0u32, |a, m| a | m);
        assert_eq!(cover, u32::MAX);
    }

    #[test]
    fn module_text_is_the_equations() {
        // Each assign names exactly its equation's bits, inverted where it says.
        let eq = LpcrcEquations::derive();
        let text = verilog(&eq);
        for j in 0..16 {
            let line = text
                .lines()
                .find(|l| l.starts_with(&format!("assign lpcrc[{j}] = ")))
                .unwrap_or_else(|| panic!("no assign for bit {j}"));
            let mut mask = 0u32;
            for b in 0..32 {
                if line.contains(&format!("head[{b}]")) {
                    mask |= 1 << b;
                }
            }
            assert_eq!(mask, eq.data_mask[j], "bit {j}: {line}");
            assert_eq!(line.contains('~'), eq.invert[j], "bit {j}: {line}");
        }
    }
}
