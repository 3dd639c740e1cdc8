//! Virtual lanes (docs/spec.md §7): the VLCap values a block is generated for.

/// VLCap values the spec allows: 1, 2, 4, 8 or 15 data VLs (VL0 .. VLCap-1).
pub const VL_CAPS: [usize; 5] = [1, 2, 4, 8, 15];
/// Data VLs at most: VL0..VL14 (VL15 is management: no credits, never arbitrated).
pub const MAX_VLS: usize = 15;
/// The management VL.
pub const VL15: u8 = 15;
