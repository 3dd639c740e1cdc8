//! Ports of an emitted top module, read off its Verilog text.
//!
//! rust-hdl writes non-ANSI port lists: `module m(a,b,c);` followed by one declaration
//! per port, `input wire [31:0] data;` or `output reg crc_valid;`. Only the module whose
//! name is asked for is read (rust-hdl puts sub-modules in the same file).

use anyhow::{bail, Context};

/// The same port record the rest of the project uses (read there off the rust-hdl
/// description; here off the Verilog text).
pub use iblink_rtl::io::{Dir, Port};

/// The ports of module `top` in `text`, in the order of its port list.
pub fn parse_ports(text: &str, top: &str) -> anyhow::Result<Vec<Port>> {
    // Strip comments first so that `// module x(...)` in a header cannot match.
    let clean = strip_comments(text);
    let body = module_body(&clean, top).with_context(|| format!("module `{top}` not found"))?;
    let (list, decls) = body
        .split_once(';')
        .with_context(|| format!("module `{top}`: no `;` after the port list"))?;
    let list = list
        .trim()
        .strip_prefix('(')
        .and_then(|l| l.trim_end().strip_suffix(')'))
        .with_context(|| format!("module `{top}`: port list is not `( ... )`"))?;
    if list.contains("input") || list.contains("output") {
        bail!("module `{top}`: ANSI-style port list; expected rust-hdl's non-ANSI ports");
    }
    let names: Vec<&str> = list.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    let mut ports = Vec::new();
    for name in names {
        ports.push(find_decl(decls, name).with_context(|| format!("module `{top}`: port `{name}` has no input/output declaration"))?);
    }
    Ok(ports)
}

fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        out.push_str(line.split("//").next().unwrap_or(""));
        out.push('\n');
    }
    out
}

/// The text after `module <top>` up to `endmodule`.
fn module_body<'a>(text: &'a str, top: &str) -> Option<&'a str> {
    let mut rest = text;
    while let Some(i) = rest.find("module") {
        let after = &rest[i + "module".len()..];
        let before_ok = i == 0 || !is_ident(rest.as_bytes()[i - 1] as char);
        let name_start = after.trim_start();
        let name_len = name_start.find(|c: char| !is_ident(c)).unwrap_or(name_start.len());
        if before_ok && after.starts_with(char::is_whitespace) && &name_start[..name_len] == top {
            let body = &name_start[name_len..];
            let end = body.find("endmodule").unwrap_or(body.len());
            return Some(&body[..end]);
        }
        rest = after;
    }
    None
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

fn find_decl(decls: &str, name: &str) -> Option<Port> {
    for stmt in decls.split(';') {
        let toks: Vec<&str> = stmt.split_whitespace().collect();
        let dir = match toks.first() {
            Some(&"input") => Dir::Input,
            Some(&"output") => Dir::Output,
            _ => continue,
        };
        // The declared names are whatever follows the type and range, comma separated.
        let joined = toks[1..].join(" ");
        let mut width = 1;
        let mut names_part = joined.as_str();
        if let (Some(l), Some(r)) = (joined.find('['), joined.find(']')) {
            let range = &joined[l + 1..r];
            let (hi, lo) = range.split_once(':')?;
            let (hi, lo): (i64, i64) = (hi.trim().parse().ok()?, lo.trim().parse().ok()?);
            width = (hi - lo).unsigned_abs() as usize + 1;
            names_part = &joined[r + 1..];
        } else {
            for kw in ["wire", "reg", "signed", "logic"] {
                names_part = names_part.trim_start().strip_prefix(kw).unwrap_or(names_part);
            }
        }
        if names_part.split(',').any(|n| n.trim() == name) {
            return Some(Port {
                name: name.to_string(),
                width,
                dir,
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const CRC: &str = "// header: module fake(x);\n`default_nettype none\n\
module iblink_crc16_w32(clock,reset,start,valid,last,data,keep,crc,crc_valid);\n\
    // Module arguments\n    input wire  clock;\n    input wire  reset;\n    input wire  start;\n\
    input wire  valid;\n    input wire  last;\n    input wire  [31:0] data;\n    input wire  [3:0] keep;\n\
    output reg  [15:0] crc;\n    output reg  crc_valid;\n    reg [15:0] state;\nendmodule\n";

    #[test]
    fn reads_non_ansi_ports_in_list_order() {
        let p = parse_ports(CRC, "iblink_crc16_w32").unwrap();
        let got: Vec<(&str, usize, Dir)> = p.iter().map(|p| (p.name.as_str(), p.width, p.dir)).collect();
        assert_eq!(
            got,
            vec![
                ("clock", 1, Dir::Input),
                ("reset", 1, Dir::Input),
                ("start", 1, Dir::Input),
                ("valid", 1, Dir::Input),
                ("last", 1, Dir::Input),
                ("data", 32, Dir::Input),
                ("keep", 4, Dir::Input),
                ("crc", 16, Dir::Output),
                ("crc_valid", 1, Dir::Output),
            ]
        );
    }

    #[test]
    fn local_regs_are_not_ports_and_missing_module_is_an_error() {
        let p = parse_ports(CRC, "iblink_crc16_w32").unwrap();
        assert!(p.iter().all(|p| p.name != "state"));
        assert!(parse_ports(CRC, "fake").is_err(), "a module named only in a comment");
        assert!(parse_ports(CRC, "iblink_crc16").is_err(), "prefix of a module name");
    }

    #[test]
    fn undeclared_port_is_an_error() {
        let t = "module m(a,b);\n input wire a;\nendmodule\n";
        let e = parse_ports(t, "m").unwrap_err();
        assert!(format!("{e:#}").contains("`b`"), "{e:#}");
    }

    #[test]
    fn shared_declarations_and_sub_modules() {
        let t = "module sub(q); output reg q; endmodule\nmodule m(a,b,y);\n input wire [7:0] a, b;\n output wire [0:2] y;\n sub s(.q());\nendmodule\n";
        let p = parse_ports(t, "m").unwrap();
        assert_eq!(p.iter().map(|p| p.width).collect::<Vec<_>>(), vec![8, 8, 3]);
        assert_eq!(parse_ports(t, "sub").unwrap().len(), 1);
    }
}
