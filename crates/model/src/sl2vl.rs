//! Service Level to Virtual Lane mapping and VLCap (docs/spec.md §7, seed 002).

/// Number of data VL slots (VL0..VL14); arrays indexed by data VL have this length.
pub const DATA_VLS: usize = 15;
/// The management VL: no credits, highest transmit priority (docs/spec.md §4, §5).
pub const VL15: u8 = 15;
/// The management SL: always mapped to VL15 (docs/spec.md §7).
pub const SL15: u8 = 15;

/// PortInfo.VLCap: the number of data VLs, VL0..VLCap-1. Only 1, 2, 4, 8 and 15 exist
/// (docs/spec.md §7, seed 002).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VlCap(u8);

/// A VLCap outside {1, 2, 4, 8, 15}.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("VLCap {0} is not one of 1, 2, 4, 8, 15")]
pub struct BadVlCap(pub u64);

impl VlCap {
    pub const ALL: [u8; 5] = [1, 2, 4, 8, 15];
    /// All 15 data VLs: the most permissive cap (used when decoding with no port context).
    pub const MAX: VlCap = VlCap(15);

    pub fn new(n: u64) -> Result<Self, BadVlCap> {
        if Self::ALL.iter().any(|&c| c as u64 == n) {
            Ok(Self(n as u8))
        } else {
            Err(BadVlCap(n))
        }
    }
    /// Number of data VLs.
    pub const fn get(self) -> u8 {
        self.0
    }
    /// Whether `vl` is an implemented data VL (VL15 never is).
    pub const fn has_data_vl(self, vl: u8) -> bool {
        vl < self.0
    }
}

impl Default for VlCap {
    /// Four data VLs: the project default (task: "VLCap 4").
    fn default() -> Self {
        Self(4)
    }
}

/// Errors from programming the SLtoVL table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SlToVlError {
    #[error("SL {0} is out of range 0..=14 (SL15 is fixed to VL15)")]
    BadSl(u8),
    #[error("VL {vl} is not a data VL of this port (VLCap {vl_cap})")]
    BadVl { vl: u8, vl_cap: u8 },
}

/// The 16 x 4-bit SLtoVLMappingTable (docs/spec.md §7). SL0..SL14 choose a data VL; SL15 is
/// management and always maps to VL15, whatever the table holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlToVl {
    vl_cap: VlCap,
    table: [u8; 16],
}

impl SlToVl {
    /// Default mapping: SL s -> VL (s mod VLCap), SL15 -> VL15.
    pub fn new(vl_cap: VlCap) -> Self {
        let mut table = [0u8; 16];
        for (sl, slot) in table.iter_mut().enumerate().take(15) {
            *slot = sl as u8 % vl_cap.get();
        }
        table[15] = VL15;
        Self { vl_cap, table }
    }
    /// Program SL `sl` (0..=14) to data VL `vl` (< VLCap).
    pub fn set(&mut self, sl: u8, vl: u8) -> Result<(), SlToVlError> {
        if sl >= SL15 {
            return Err(SlToVlError::BadSl(sl));
        }
        if !self.vl_cap.has_data_vl(vl) {
            return Err(SlToVlError::BadVl {
                vl,
                vl_cap: self.vl_cap.get(),
            });
        }
        self.table[sl as usize] = vl;
        Ok(())
    }
    /// The VL for a packet of service level `sl` (only the low 4 bits count, as in the
    /// 4-bit LRH field). SL15 -> VL15 always (docs/spec.md §7).
    #[inline]
    pub fn map(&self, sl: u8) -> u8 {
        let sl = sl & 0xf;
        if sl == SL15 {
            VL15
        } else {
            self.table[sl as usize]
        }
    }
    pub fn vl_cap(&self) -> VlCap {
        self.vl_cap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vlcap_values() {
        for n in [1, 2, 4, 8, 15] {
            assert_eq!(VlCap::new(n).unwrap().get() as u64, n);
        }
        for n in [0, 3, 5, 7, 9, 14, 16, 255] {
            assert_eq!(VlCap::new(n), Err(BadVlCap(n)));
        }
    }

    #[test]
    fn sl15_is_always_vl15() {
        let mut m = SlToVl::new(VlCap::new(8).unwrap());
        assert_eq!(m.map(15), 15);
        assert_eq!(m.set(15, 0), Err(SlToVlError::BadSl(15)));
        assert_eq!(m.map(15), 15);
        m.set(3, 7).unwrap();
        assert_eq!(m.map(3), 7);
        assert_eq!(m.set(3, 8), Err(SlToVlError::BadVl { vl: 8, vl_cap: 8 }));
        assert_eq!(m.set(3, 15), Err(SlToVlError::BadVl { vl: 15, vl_cap: 8 }));
        // Default: s mod VLCap for data SLs.
        let m = SlToVl::new(VlCap::new(4).unwrap());
        assert_eq!(
            (0..15).map(|s| m.map(s)).collect::<Vec<_>>(),
            [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2]
        );
    }
}
