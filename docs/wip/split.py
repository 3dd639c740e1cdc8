"""Split docs/wip/fv_credit_loop.sv into one proof per assertion: h_<k>.sv asserts the
k-th property and assumes every other one at the previous clock only (a register of it,
1 at power-up). All the files proven together are the whole harness proven, by induction
on time: at each clock every assertion holds if all held at every earlier clock.
Run each with yosys-smtbmc -i -t 2 (docs/formal.md, "Not yet proven")."""
import re
import sys

src = open(sys.argv[1] if len(sys.argv) > 1 else "fv_credit_loop.sv").read()
lines = src.split("\n")
asserts = []
for n, l in enumerate(lines):
    m = re.match(r"^always @\(\*\) (?:if \((.*?)\) )?assert\((.*)\);\s*$", l)
    if m:
        asserts.append((n, m.group(1), m.group(2)))
for target in range(len(asserts)):
    out = list(lines)
    for k, (n, cond, expr) in enumerate(asserts):
        ok = f"(!({cond}) || ({expr}))" if cond else f"({expr})"
        if k == target:
            out[n] = f"wire ok_{k} = {ok};\nalways @(*) assert(ok_{k});"
        else:
            out[n] = (f"wire ok_{k} = {ok};\nreg okq_{k} = 1'b1;\n"
                      f"always @(posedge clock) okq_{k} <= ok_{k};\nalways @(*) assume(okq_{k});")
    open(f"h_{target}.sv", "w").write("\n".join(out))
print(f"{len(asserts)} proofs written", file=sys.stderr)
