//! Reading ERF captures with Wireshark's tshark, frame by frame, and checking a data
//! frame's decode field by field. Used by `tests/erf_tshark.rs` here and by
//! `crates/cli/tests/sim_cli.rs`.
//!
//! tshark comes from the Debian package `tshark`, which `make deps` (tools/deps.sh)
//! installs; without it the callers fail and say so.

use iblink_model::crc16::crc16;
use iblink_model::iba::{PacketFields, Transport};
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

/// Fields asked of tshark for every frame (names as in tshark 4.0, `tshark -G fields`).
pub const FIELDS: &[&str] = &[
    "frame.number",
    "frame.len",
    "frame.time_epoch",
    "frame.protocols",
    "erf.types.type",
    "erf.flags.cap",
    "erf.flags.vlen",
    "erf.flags.rxe",
    "erf.rlen",
    "erf.wlen",
    "erf.lctr",
    "_ws.malformed",
    "_ws.expert.severity",
    "_ws.expert.message",
    "infiniband.lrh.vl",
    "infiniband.lrh.lver",
    "infiniband.lrh.sl",
    "infiniband.lrh.reserved2",
    "infiniband.lrh.lnh",
    "infiniband.lrh.dlid",
    "infiniband.lrh.reserved5",
    "infiniband.lrh.pktlen",
    "infiniband.lrh.slid",
    "infiniband.bth.opcode",
    "infiniband.bth.se",
    "infiniband.bth.m",
    "infiniband.bth.padcnt",
    "infiniband.bth.tver",
    "infiniband.bth.p_key",
    "infiniband.bth.destqp",
    "infiniband.bth.a",
    "infiniband.bth.reserved7",
    "infiniband.bth.psn",
    "infiniband.deth.q_key",
    "infiniband.deth.srcqp",
    "infiniband.invariant.crc",
    "infiniband.variant.crc",
    "data.data",
    "infiniband_link.op",
    "infiniband_link.fctbs",
    "infiniband_link.vl",
    "infiniband_link.fccl",
];

/// Expert severity of a warning (PI_WARN); errors are higher.
pub const PI_WARN: u64 = 0x0060_0000;

/// One frame as tshark reports it: field name -> value ("" when absent; several
/// occurrences joined with '|').
pub struct Frame(pub HashMap<&'static str, String>);

impl Frame {
    pub fn s(&self, f: &str) -> &str {
        self.0.get(f).map(String::as_str).unwrap_or("")
    }
    /// A single numeric field, decimal or 0x-hex as tshark prints it.
    pub fn n(&self, f: &str) -> u64 {
        num(self.s(f)).unwrap_or_else(|| panic!("{f}: not one number: {:?}", self.s(f)))
    }
    pub fn b(&self, f: &str) -> bool {
        match self.s(f) {
            "1" | "True" | "true" => true,
            "0" | "False" | "false" => false,
            v => panic!("{f}: not a boolean: {v:?}"),
        }
    }
}

pub fn num(v: &str) -> Option<u64> {
    match v.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    }
}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// tshark's per-frame fields for a capture file; fails clearly when tshark is missing.
pub fn tshark_fields(path: &Path) -> Vec<Frame> {
    tshark_fields_with(path, &[])
}

/// [`tshark_fields`] with extra tshark options (e.g. `--disable-heuristic NAME`).
pub fn tshark_fields_with(path: &Path, extra: &[&str]) -> Vec<Frame> {
    match Command::new("tshark").arg("--version").output() {
        Ok(o) if o.status.success() => {}
        Ok(o) => panic!(
            "`tshark --version` failed ({}): {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => panic!(
            "tshark is needed by this test and could not be run ({e}); install it with \
             `make deps` (tools/deps.sh installs the Debian package tshark)"
        ),
    }
    let mut cmd = Command::new("tshark");
    cmd.args(extra);
    cmd.arg("-n").arg("-r").arg(path).args(["-T", "fields"]);
    cmd.args([
        "-E",
        "separator=/t",
        "-E",
        "occurrence=a",
        "-E",
        "aggregator=|",
    ]);
    cmd.args(["-E", "quote=n"]);
    for f in FIELDS {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("run tshark");
    assert!(
        out.status.success(),
        "tshark -r {} failed ({}): {}",
        path.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("tshark output is UTF-8");
    text.lines()
        .map(|line| {
            let vals: Vec<&str> = line.split('\t').collect();
            assert_eq!(vals.len(), FIELDS.len(), "tshark line: {line}");
            Frame(
                FIELDS
                    .iter()
                    .zip(vals)
                    .map(|(f, v)| (*f, v.to_string()))
                    .collect(),
            )
        })
        .collect()
}

/// The expert messages tshark attaches to the ERF record itself (not to its packet):
/// the RX error flag and a non-zero loss counter.
pub const ERF_RX_ERROR: &str = "ERF Rx Error";
pub const ERF_LOSS: &str = "Packet loss occurred between previous and current packet";

/// One data frame: clean decode (no malformed packet; no expert warning or error other
/// than those in `allowed`), every header field, payload and CRC bytes.
pub fn check_data(
    fr: &Frame,
    ctx: &str,
    f: &PacketFields,
    payload: &[u8],
    bytes: &[u8],
    allowed: &[&str],
) {
    assert_eq!(
        fr.s("_ws.malformed"),
        "",
        "{ctx}: malformed: {}",
        fr.s("_ws.expert.message")
    );
    let sevs: Vec<&str> = fr
        .s("_ws.expert.severity")
        .split('|')
        .filter(|s| !s.is_empty())
        .collect();
    let msgs: Vec<&str> = fr
        .s("_ws.expert.message")
        .split('|')
        .filter(|s| !s.is_empty())
        .collect();
    for (k, sev) in sevs.iter().enumerate() {
        let msg = msgs.get(k).copied().unwrap_or("");
        assert!(
            num(sev).unwrap() < PI_WARN || allowed.contains(&msg),
            "{ctx}: expert info: {}",
            fr.s("_ws.expert.message")
        );
    }
    // Fully decoded by the InfiniBand dissector; the payload (if any) left as data.
    let pad = (4 - payload.len() % 4) % 4;
    let protocols = if payload.len() + pad == 0 {
        "erf:infiniband"
    } else {
        "erf:infiniband:data"
    };
    assert_eq!(fr.s("frame.protocols"), protocols, "{ctx}");
    assert_eq!(fr.n("erf.types.type"), 21, "{ctx}");
    assert_eq!(fr.n("frame.len"), bytes.len() as u64, "{ctx}");
    assert_eq!(fr.n("erf.wlen"), bytes.len() as u64, "{ctx}");
    // LRH.
    let pkt_len = (bytes.len() as u64 - 2) / 4;
    assert_eq!(fr.n("infiniband.lrh.vl"), f.vl as u64, "{ctx}: VL");
    assert_eq!(fr.n("infiniband.lrh.lver"), 0, "{ctx}: LVer");
    assert_eq!(fr.n("infiniband.lrh.sl"), f.sl as u64, "{ctx}: SL");
    assert_eq!(fr.n("infiniband.lrh.reserved2"), 0, "{ctx}");
    assert_eq!(fr.n("infiniband.lrh.lnh"), 2, "{ctx}: LNH");
    assert_eq!(fr.n("infiniband.lrh.dlid"), f.dlid as u64, "{ctx}: DLID");
    assert_eq!(fr.n("infiniband.lrh.reserved5"), 0, "{ctx}");
    assert_eq!(fr.n("infiniband.lrh.pktlen"), pkt_len, "{ctx}: PktLen");
    assert_eq!(fr.n("infiniband.lrh.slid"), f.slid as u64, "{ctx}: SLID");
    // BTH.
    assert_eq!(
        fr.n("infiniband.bth.opcode"),
        f.transport.opcode() as u64,
        "{ctx}: OpCode"
    );
    assert_eq!(fr.b("infiniband.bth.se"), f.se, "{ctx}: SE");
    assert_eq!(fr.b("infiniband.bth.m"), f.migreq, "{ctx}: M");
    assert_eq!(fr.n("infiniband.bth.padcnt"), pad as u64, "{ctx}: PadCnt");
    assert_eq!(fr.n("infiniband.bth.tver"), f.tver as u64, "{ctx}: TVer");
    assert_eq!(fr.n("infiniband.bth.p_key"), f.p_key as u64, "{ctx}: P_Key");
    assert_eq!(
        fr.n("infiniband.bth.destqp"),
        f.dest_qp as u64,
        "{ctx}: DestQP"
    );
    assert_eq!(fr.b("infiniband.bth.a"), f.ack_req, "{ctx}: A");
    assert_eq!(fr.n("infiniband.bth.reserved7"), 0, "{ctx}");
    assert_eq!(fr.n("infiniband.bth.psn"), f.psn as u64, "{ctx}: PSN");
    // DETH.
    if let Transport::UdSendOnly { q_key, src_qp } = f.transport {
        assert_eq!(fr.n("infiniband.deth.q_key"), q_key as u64, "{ctx}: Q_Key");
        assert_eq!(fr.n("infiniband.deth.srcqp"), src_qp as u64, "{ctx}: SrcQP");
    }
    // Payload as the data dissector shows it: payload and pad.
    let mut padded = payload.to_vec();
    padded.resize(payload.len() + pad, 0);
    assert_eq!(fr.s("data.data"), hex(&padded), "{ctx}: payload");
    // The CRCs, computed here from docs/spec.md §3 (zlib CRC-32 with the variant fields
    // set to ones; the §3 CRC-16), both stored low byte first. tshark shows the stored
    // bytes as big-endian numbers, hence the byte swap.
    let n = bytes.len();
    let mut masked = bytes[..n - 6].to_vec();
    masked[0] |= 0xf0;
    masked[12] = 0xff;
    let icrc = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC).checksum(&masked);
    let vcrc = crc16(&bytes[..n - 2]);
    assert_eq!(
        fr.n("infiniband.invariant.crc"),
        icrc.swap_bytes() as u64,
        "{ctx}: ICRC"
    );
    assert_eq!(
        fr.n("infiniband.variant.crc"),
        vcrc.swap_bytes() as u64,
        "{ctx}: VCRC"
    );
}
