//! What the composed tops read off the hand-written modules: each port's width as the
//! module writes it (`[11*VLS-1:0]` is `11*VLS`), so a parameterised top can declare its
//! nets with the same expressions. The modules are written in one style (ANSI ports, one
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

/// The value of a width expression (integers, names from `vars`, `+ - * /`, parentheses),
/// or `None` when it names something else or does not parse.
pub fn eval(expr: &str, vars: &[(String, String)]) -> Option<i64> {
    struct P<'a> {
        s: &'a [u8],
        at: usize,
        vars: &'a [(String, String)],
    }
    impl P<'_> {
        fn skip(&mut self) {
            while self.at < self.s.len() && self.s[self.at] == b' ' {
                self.at += 1;
            }
        }
        fn sum(&mut self) -> Option<i64> {
            let mut v = self.product()?;
            loop {
                self.skip();
                match self.s.get(self.at) {
                    Some(b'+') => {
                        self.at += 1;
                        v += self.product()?;
                    }
                    Some(b'-') => {
                        self.at += 1;
                        v -= self.product()?;
                    }
                    _ => return Some(v),
                }
            }
        }
        fn product(&mut self) -> Option<i64> {
            let mut v = self.atom()?;
            loop {
                self.skip();
                match self.s.get(self.at) {
                    Some(b'*') => {
                        self.at += 1;
                        v *= self.atom()?;
                    }
                    Some(b'/') => {
                        self.at += 1;
                        v = v.checked_div(self.atom()?)?;
                    }
                    _ => return Some(v),
                }
            }
        }
        fn atom(&mut self) -> Option<i64> {
            self.skip();
            if self.s.get(self.at) == Some(&b'(') {
                self.at += 1;
                let v = self.sum()?;
                self.skip();
                (self.s.get(self.at) == Some(&b')')).then(|| self.at += 1)?;
                return Some(v);
            }
            let start = self.at;
            while self.at < self.s.len() && (self.s[self.at].is_ascii_alphanumeric() || self.s[self.at] == b'_') {
                self.at += 1;
            }
            let w = std::str::from_utf8(&self.s[start..self.at]).ok()?;
            if let Ok(n) = w.parse::<i64>() {
                return Some(n);
            }
            let (_, e) = self.vars.iter().find(|(k, _)| k == w)?;
            eval(e, self.vars)
        }
    }
    let mut p = P { s: expr.as_bytes(), at: 0, vars };
    let v = p.sum()?;
    p.skip();
    (p.at == expr.len()).then_some(v)
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
    fn substitutes_and_evaluates() {
        let s = vec![("FILL_BITS".to_string(), "16".to_string()), ("Q".to_string(), "QUEUES".to_string()), ("K".to_string(), "DATA_WIDTH/8".to_string())];
        assert_eq!(substitute("FILL_BITS*Q", &s), "16*QUEUES");
        assert_eq!(substitute("K*Q-1", &s), "(DATA_WIDTH/8)*QUEUES-1");
        let v = vec![("QUEUES".to_string(), "3".to_string()), ("DATA_WIDTH".to_string(), "64".to_string())];
        assert_eq!(eval("(DATA_WIDTH/8)*QUEUES", &v), Some(24));
        assert_eq!(eval("16*QUEUES+1", &v), Some(49));
        assert_eq!(eval("NOPE", &v), None);
    }
}
