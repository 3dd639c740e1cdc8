//! Seed 003's Figure 25-10 walk-through as the trace tool prints it (docs/spec.md §6).
//! High table: VL6 weight 127, VL1 weight 63, VL7 weight 254. Low table: VL3 weight 2
//! first. VLHighLimit 4 -> HighPriCounter 4096 dwords. Every packet has a 4 KB payload:
//! LRH:PktLen 1024 dwords, 64 blocks. All VLs have packets and credits.

use iblink_model::arbiter::{ArbEntry, LowPolicy, TableId, VlArbiter};
use iblink_model::sl2vl::{VlCap, DATA_VLS};

fn scenario(policy: LowPolicy) -> Vec<String> {
    let mut a = VlArbiter::new(VlCap::new(8).unwrap(), 4, policy);
    a.set_table(
        TableId::High,
        &[
            ArbEntry::new(6, 127),
            ArbEntry::new(1, 63),
            ArbEntry::new(7, 254),
        ],
    )
    .unwrap();
    a.set_table(TableId::Low, &[ArbEntry::new(3, 2), ArbEntry::new(0, 64)])
        .unwrap();
    let mut heads = [None; DATA_VLS];
    for vl in [0, 1, 3, 6, 7] {
        heads[vl] = Some(1024u16);
    }
    (0..7)
        .map(|_| a.grant(&heads).unwrap().to_string())
        .collect()
}

#[test]
fn figure_25_10_trace() {
    let expected = [
        // VL6 transmits two 4 KB packets: weight 127 -> 63 -> -1; counter 4096 -> 3072 -> 2048.
        "vl=6 table=high entry=0 blocks=64 weight_left=63 high_counter=3072",
        "vl=6 table=high entry=0 blocks=64 weight_left=-1 high_counter=2048",
        // VL1 transmits one: 63 -> -1; counter 1024.
        "vl=1 table=high entry=1 blocks=64 weight_left=-1 high_counter=1024",
        // VL7: 254 -> 190, counter 0 (not negative: VL7 may go again) -> 126, negative.
        "vl=7 table=high entry=2 blocks=64 weight_left=190 high_counter=0",
        "vl=7 table=high entry=2 blocks=64 weight_left=126 high_counter=-1024",
        // Counter reloaded to 4096; the low table's VL3 (weight 2) sends one 4 KB packet.
        "vl=3 table=low entry=0 blocks=64 weight_left=-62 high_counter=4096",
        // Back to the high table's VL7, resuming with 126: 126 - 64 = 62.
        "vl=7 table=high entry=2 blocks=64 weight_left=62 high_counter=3072",
    ];
    // VL3 exhausts its weight with its one packet, so both low-table readings agree here.
    assert_eq!(scenario(LowPolicy::Weight), expected);
    assert_eq!(scenario(LowPolicy::OnePacket), expected);
}
