//! What is read off the hand-written modules' headers: each port's width as the module
//! writes it (`[11*VLS-1:0]` is `11*VLS`), so a parameterised top can declare its nets
//! with the same expressions; and each parameter with its default and comment (the
//! FuseSoC cores list them). The modules are written in one style (ANSI ports, one
//! a line), and the Yosys check of every configuration's ports (`tests/interfaces.rs`)
//! holds the expressions to the numbers.

/// A port of a module as its header declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderPort {
    pub name: String,
    pub input: bool,
    /// The width as an expression of the module's parameters (`1` without a range).
    pub width: String,
}

/// The ports of `module` in `text` (its ANSI header), in order; empty when absent.
pub fn header_ports(text: &str, module: &str) -> Vec<HeaderPort> {
    let Some(start) = text.find(&format!("module {module} ")).or_else(|| text.find(&format!("module {module}\n"))) else {
        return vec![];
    };
    let rest = &text[start..];
    // The port list: after the parameter list `#( ... )` when there is one.
    let mut depth = 0usize;
    let mut open = None;
    let mut after_params = false;
    for (k, c) in rest.char_indices() {
        match c {
            '#' if depth == 0 => after_params = true,
            '(' => {
                if depth == 0 && open.is_none() && !after_params {
                    open = Some(k + 1);
                }
                depth += 1;
            }
            ')' => {
                depth -= 1;
                if depth == 0 {
                    if after_params && open.is_none() {
                        after_params = false;
                        continue;
                    }
                    if let Some(o) = open {
                        return parse_ports(&rest[o..k]);
                    }
                }
            }
            _ => {}
        }
    }
    vec![]
}

fn parse_ports(list: &str) -> Vec<HeaderPort> {
    let mut out = vec![];
    for line in list.lines() {
        let code = line.split("//").next().unwrap_or("").trim().trim_end_matches(',');
        let input = code.starts_with("input");
        if !input && !code.starts_with("output") {
            continue;
        }
        let (range, name) = match (code.find('['), code.find(']')) {
            (Some(a), Some(b)) => (Some(&code[a + 1..b]), code[b + 1..].trim()),
            _ => (None, code.split_whitespace().last().unwrap_or("")),
        };
        let width = match range {
            None => "1".to_string(),
            Some(r) => {
                let msb = r.split(':').next().unwrap_or("").trim().replace(' ', "");
                match (msb.strip_suffix("-1"), msb.parse::<u64>()) {
                    (Some(e), _) => e.to_string(),
                    (None, Ok(n)) => (n + 1).to_string(),
                    (None, Err(_)) => format!("({msb})+1"),
                }
            }
        };
        out.push(HeaderPort { name: name.to_string(), input, width });
    }
    out
}

/// A parameter as a module's header declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderParam {
    pub name: String,
    /// The default as written (`4`, `DATA_WIDTH/8`, `"GENERIC"`).
    pub default: String,
    /// The comment lines right above it, joined.
    pub comment: String,
}

/// The parameters of `module` in `text` (`module M #( ... ) (`), in order.
pub fn header_params(text: &str, module: &str) -> Vec<HeaderParam> {
    let Some(start) = text.find(&format!("module {module} #(")) else { return vec![] };
    let mut out = Vec::new();
    let mut comment: Vec<String> = Vec::new();
    let mut after_param = false;
    for line in text[start..].lines().skip(1) {
        let t = line.trim();
        if t.starts_with(')') {
            break;
        }
        if let Some(c) = t.strip_prefix("//") {
            // A comment after a parameter starts the next group's.
            if after_param {
                comment.clear();
                after_param = false;
            }
            comment.push(c.trim().to_string());
            continue;
        }
        let Some(decl) = t.strip_prefix("parameter ") else {
            comment.clear();
            continue;
        };
        let decl = decl.split("//").next().unwrap_or("").trim().trim_end_matches(',').trim();
        // `[range] NAME = default` or `NAME = default`
        let decl = match decl.strip_prefix('[') {
            Some(r) => r.split_once(']').map_or("", |(_, rest)| rest.trim()),
            None => decl,
        };
        if let Some((name, default)) = decl.split_once('=') {
            out.push(HeaderParam {
                name: name.trim().to_string(),
                default: default.trim().to_string(),
                comment: comment.join(" "),
            });
            after_param = true;
        }
        // A comment above a group of parameters describes the group: keep it for the next.
    }
    out
}

/// A port's or net's range for a width written as `width` (a number or an expression):
/// none for 1, `[N-1:0]` for a number, `[width-1:0]` for an expression.
pub fn range(width: &str) -> String {
    match width.parse::<usize>() {
        Ok(1) => String::new(),
        Ok(n) => format!("[{}:0]", n - 1),
        Err(_) => format!("[{width}-1:0]"),
    }
}

/// `expr` with every identifier named in `subst` replaced by its expression (in
/// parentheses unless it is a name or a number).
pub fn substitute(expr: &str, subst: &[(String, String)]) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if let Some((_, e)) = subst.iter().find(|(k, _)| k == word) {
            if e.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                out.push_str(e);
            } else {
                out.push_str(&format!("({e})"));
            }
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in expr.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_header_and_its_widths() {
        let t = "// x\nmodule m #(\n    parameter VLS = 4,\n    parameter W = (2)\n) (\n    input  wire clock,\n    // a comment (with parentheses)\n    input  wire [11*VLS-1:0]  len,\n    output reg  [3:0] vl,\n    output wire [W:0] odd\n);\nendmodule\n";
        let p = header_ports(t, "m");
        let got: Vec<(&str, bool, &str)> = p.iter().map(|p| (p.name.as_str(), p.input, p.width.as_str())).collect();
        assert_eq!(got, [("clock", true, "1"), ("len", true, "11*VLS"), ("vl", false, "4"), ("odd", false, "(W)+1")]);
    }

    #[test]
    fn header_params_read_names_defaults_and_comments() {
        let text = "module m #(\n    // Data VLs\n    parameter VLS = 4,\n    // Width and\n    // layout\n    parameter [7:0] W = VLS*2, // x\n    parameter T = \"GENERIC\"\n) (\n    input wire a\n);\n";
        let p = header_params(text, "m");
        assert_eq!(p.iter().map(|p| (p.name.as_str(), p.default.as_str())).collect::<Vec<_>>(), [("VLS", "4"), ("W", "VLS*2"), ("T", "\"GENERIC\"")]);
        assert_eq!(p.iter().map(|p| p.comment.as_str()).collect::<Vec<_>>(), ["Data VLs", "Width and layout", "Width and layout"]);
        assert_eq!(header_params("module m (\n input wire a\n);\n", "m"), vec![]);
    }

    #[test]
    fn ranges() {
        assert_eq!((range("1"), range("8"), range("11*VLS")), (String::new(), "[7:0]".to_string(), "[11*VLS-1:0]".to_string()));
    }

    #[test]
    fn substitutes() {
        let s = vec![("FILL_BITS".to_string(), "16".to_string()), ("Q".to_string(), "QUEUES".to_string()), ("K".to_string(), "DATA_WIDTH/8".to_string())];
        assert_eq!(substitute("FILL_BITS*Q", &s), "16*QUEUES");
        assert_eq!(substitute("K*Q-1", &s), "(DATA_WIDTH/8)*QUEUES-1");
    }
}
