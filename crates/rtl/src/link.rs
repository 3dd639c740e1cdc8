//! The link state as the link-path blocks see it: one 2-bit code, defined here once for
//! every block that takes it (the FCP TX framer, the link TX mux, the port top).
//!
//! docs/spec.md §5: in `LinkInitialize` FCPs carry Op 1 and no data packets are sent; in
//! `LinkArm` and `LinkActive` FCPs carry Op 0; data packets flow only in `LinkActive`.
//! `Down` sends nothing. The codes follow the declaration order of the model's
//! `iblink_model::port::LinkState` (this crate does not depend on the model; the
//! simulation adapters map one to the other).

/// Width of a `link_state` port.
pub const LINK_STATE_BITS: usize = 2;
/// The link is down: nothing is sent; flow control restarts when it comes up.
pub const LINK_DOWN: u8 = 0;
/// `LinkInitialize`: FCPs with Op 1 (flow-control init), no data packets.
pub const LINK_INIT: u8 = 1;
/// `LinkArm`: FCPs with Op 0, no data packets.
pub const LINK_ARM: u8 = 2;
/// `LinkActive`: FCPs with Op 0, data packets flow.
pub const LINK_ACTIVE: u8 = 3;

/// Name and meaning of each code, in code order.
pub const LINK_STATES: [(&str, &str); 4] = [
    ("LINK_DOWN", "nothing is sent"),
    ("LINK_INIT", "LinkInitialize: FCP Op 1, no data"),
    ("LINK_ARM", "LinkArm: FCP Op 0, no data"),
    ("LINK_ACTIVE", "LinkActive: FCP Op 0, data flows"),
];

/// Verilog for a module body that takes `link_state`: the whole encoding as a comment,
/// and a localparam for each code in `used` (declaring unused ones would be a lint
/// warning).
pub fn link_state_localparams(used: &[u8]) -> String {
    let mut s =
        String::from("// link_state codes (iblink_rtl::link, shared by every link-path block):\n");
    for (code, (name, what)) in LINK_STATES.iter().enumerate() {
        s.push_str(&format!("//   {code} {name}: {what}\n"));
    }
    for (code, (name, _)) in LINK_STATES.iter().enumerate() {
        if used.contains(&(code as u8)) {
            s.push_str(&format!("localparam [1:0] {name} = 2'd{code};\n"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_two_bit_values() {
        let codes = [LINK_DOWN, LINK_INIT, LINK_ARM, LINK_ACTIVE];
        for (i, c) in codes.iter().enumerate() {
            assert!((*c as usize) < 1 << LINK_STATE_BITS);
            assert!(!codes[..i].contains(c));
        }
        for (c, (name, _)) in codes.iter().zip(LINK_STATES) {
            let p = link_state_localparams(&[*c]);
            assert!(
                p.contains(&format!("localparam [1:0] {name} = 2'd{c};")),
                "{p}"
            );
            assert_eq!(p.matches("localparam").count(), 1, "{p}");
        }
    }
}
