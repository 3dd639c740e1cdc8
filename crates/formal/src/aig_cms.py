"""BMC and k-induction of a binary AIGER model (Yosys `write_aiger -zinit`) with
CryptoMiniSat, whose Gauss-Jordan elimination decides the XOR identities of two
differently factored CRC networks that z3 and plain CDCL do not finish.

  aig_cms.py MODEL.aig bmc DEPTH WITNESS.aiw   -> "held" | "failed FRAME BAD" (+ witness)
  aig_cms.py MODEL.aig step DEPTH WITNESS.aiw  -> "held" | "failed FRAME BAD" (+ witness)

bmc: from the initial state, is a bad state reachable in frames 0..DEPTH-1 with every
constraint (assumption) true in every frame up to it? step: from any state, DEPTH frames
in which no bad state occurs and every constraint holds, then a bad state in frame
DEPTH (with the constraints true there): if none exists, the assertions are
DEPTH-inductive. A witness (its initial state free in a step) is in the AIGER format
Yosys's `sim -r` replays.

Before unrolling, ABC's combinational synthesis (`&syn2; &dc2`, yosys-abc) rewrites the
AND gates; the inputs, latches, bad states and constraints keep their order, so a
witness is the same, and random simulation of both netlists must agree on every latch
input, bad state and constraint or the original is used.
Embedded in the `iblink` binary (crates/formal/src/run.rs) and written beside the model.
"""
import os
import random
import subprocess
import sys

from pycryptosat import Solver


def read_aig(path):
    data = open(path, "rb").read()
    nl = data.index(b"\n")
    head = data[:nl].split()
    if head[0] != b"aig":
        raise SystemExit(f"{path}: not a binary AIGER file")
    m, i, l, o, a = (int(x) for x in head[1:6])
    b, c = (int(head[6]) if len(head) > 6 else 0), (int(head[7]) if len(head) > 7 else 0)
    if len(head) > 8 and (int(head[8]) or (len(head) > 9 and int(head[9]))):
        raise SystemExit(f"{path}: justice and fairness properties are not supported")
    pos = nl + 1

    def line():
        nonlocal pos
        e = data.index(b"\n", pos)
        s = data[pos:e]
        pos = e + 1
        return [int(x) for x in s.split()]

    latches = []
    for _ in range(l):
        f = line()
        init = 0 if len(f) < 2 else f[1]
        latches.append((f[0], init))
    outs = [line()[0] for _ in range(o)]
    bads = [line()[0] for _ in range(b)]
    cons = [line()[0] for _ in range(c)]

    def num():
        nonlocal pos
        x, sh = 0, 0
        while True:
            ch = data[pos]
            pos += 1
            x |= (ch & 0x7F) << sh
            if not ch & 0x80:
                return x
            sh += 7

    ands = []
    for k in range(a):
        lhs = 2 * (i + l + k + 1)
        r0 = lhs - num()
        r1 = r0 - num()
        ands.append((lhs, r0, r1))
    # Old-style AIGER: the outputs are the bad states.
    return m, i, l, latches, ands, bads or outs, cons


def write_aig(path, aig):
    """Binary AIGER with the bad states, then the constraints, as plain outputs."""
    m, i, l, latches, ands, bads, cons = aig

    def num(x):
        out = bytearray()
        while x & ~0x7F:
            out.append((x & 0x7F) | 0x80)
            x >>= 7
        out.append(x)
        return bytes(out)

    outs = list(bads) + list(cons)
    body = bytearray(f"aig {m} {i} {l} {len(outs)} {len(ands)}\n".encode())
    for nxt, _ in latches:
        body += f"{nxt}\n".encode()
    for o in outs:
        body += f"{o}\n".encode()
    for lhs, r0, r1 in ands:
        body += num(lhs - r0) + num(r0 - r1)
    open(path, "wb").write(bytes(body))


def simulate(aig, cis):
    """Every latch input, bad state and constraint, bit-parallel over the patterns in cis
    (one int per input and latch)."""
    m, i, l, latches, ands, bads, cons = aig
    full = (1 << 64) - 1
    val = [0] * (m + 1)
    for k, x in enumerate(cis):
        val[k + 1] = x
    lit = lambda a: val[a >> 1] ^ full if a & 1 else val[a >> 1]
    for lhs, r0, r1 in ands:
        val[lhs >> 1] = lit(r0) & lit(r1)
    return [lit(n) for n, _ in latches] + [lit(b) for b in bads] + [lit(c) for c in cons]


def optimize(aig, path):
    """The AIG after ABC's &syn2; &dc2, or the original when ABC is missing, changes the
    interface, or its netlist disagrees with the original in simulation."""
    m, i, l, latches, ands, bads, cons = aig
    if any(init != 0 for _, init in latches):
        return aig, "kept (a latch not zero-initialised)"
    src, dst = path + ".in.aig", path + ".opt.aig"
    write_aig(src, aig)
    cmd = f"read_aiger {src}; &get -n; &syn2; &dc2; &put; write_aiger {dst}"
    try:
        subprocess.run(["yosys-abc", "-q", cmd], check=True, capture_output=True, timeout=600)
        m2, i2, l2, latches2, ands2, outs2, cons2 = read_aig(dst)
    except (OSError, subprocess.SubprocessError, SystemExit, ValueError) as e:
        return aig, f"kept (ABC: {e})"
    finally:
        for f in (src, dst):
            if os.path.exists(f):
                os.remove(f)
    nb = len(bads)
    if (i2, l2, len(outs2), cons2) != (i, l, nb + len(cons), []) or any(x != 0 for _, x in latches2):
        return aig, "kept (ABC changed the interface)"
    opt = (m2, i2, l2, latches2, ands2, outs2[:nb], outs2[nb:])
    rng = random.Random(0x1b11)
    for _ in range(16):
        cis = [rng.getrandbits(64) for _ in range(i + l)]
        if simulate(aig, cis) != simulate(opt, cis):
            return aig, "kept (ABC's netlist disagreed in simulation)"
    return opt, f"{len(ands)} -> {len(ands2)} AND gates"


class Unroll:
    """Frames of the AIG as CNF; variable 1 is constant true."""

    def __init__(self, aig, free_init):
        self.m, self.ni, self.nl, self.latches, self.ands, self.bads, self.cons = aig
        self.s = Solver(threads=1)
        self.next_var = 2
        self.s.add_clause([1])
        self.frames = []  # per frame: AIG variable -> CNF literal
        self.free_init = free_init
        self.gate = {lhs >> 1: (r0, r1) for lhs, r0, r1 in self.ands}
        # Each gate's XOR form, found once for every frame.
        self.xors = [self.xor_of(r0, r1) for _, r0, r1 in self.ands]

    def xor_of(self, r0, r1):
        """(u, v, c) when the AND gate of r0 and r1 is u ^ v ^ c: AND(!AND(a, b), !AND(!a, !b)) is a ^ b,
        AND(!AND(a, !b), !AND(!a, b)) is !(a ^ b) (the forms Yosys and ABC leave)."""
        if not (r0 & 1 and r1 & 1):
            return None
        p, q = self.gate.get(r0 >> 1), self.gate.get(r1 >> 1)
        if p is None or q is None:
            return None
        (a0, b0), (a1, b1) = p, q
        if {a0 ^ 1, b0 ^ 1} != {a1, b1}:
            return None
        a, b = a0 & ~1, b0 & ~1
        # p = AND(a0, b0), q = AND(!a0, !b0): x = !p & !q = a0 ^ b0.
        return (a, b, (a0 & 1) ^ (b0 & 1))

    def fresh(self):
        v = self.next_var
        self.next_var += 1
        return v

    def lit(self, f, aig_lit):
        v = self.frames[f][aig_lit >> 1]
        return -v if aig_lit & 1 else v

    def add_frame(self):
        f = len(self.frames)
        mp = [1] * (self.m + 1)  # variable 0 is constant false: literal 0 -> -1 (true negated)
        mp[0] = -1
        for k in range(self.ni):
            mp[k + 1] = self.fresh()
        for k, (nxt, init) in enumerate(self.latches):
            v = self.ni + k + 1
            if f > 0:
                p = self.frames[f - 1]
                mp[v] = -p[nxt >> 1] if nxt & 1 else p[nxt >> 1]
            elif self.free_init or init not in (0, 1):
                mp[v] = self.fresh()
            else:
                mp[v] = 1 if init == 1 else -1
        self.frames.append(mp)
        for (lhs, r0, r1), xor in zip(self.ands, self.xors):
            x = self.fresh()
            mp[lhs >> 1] = x
            a, b = self.lit(f, r0), self.lit(f, r1)
            self.s.add_clause([-x, a])
            self.s.add_clause([-x, b])
            self.s.add_clause([x, -a, -b])
            if xor:
                # The same gate as an XOR constraint, for Gauss-Jordan elimination:
                # x = u ^ v ^ c over the literals' variables.
                u, v, c = (self.lit(f, xor[0]), self.lit(f, xor[1]), xor[2])
                rhs = bool(c) ^ (u < 0) ^ (v < 0)
                if abs(u) != abs(v) and 1 not in (abs(u), abs(v)):
                    self.s.add_xor_clause([x, abs(u), abs(v)], rhs)
        for c in self.cons:
            self.s.add_clause([self.lit(f, c)])
        return f

    def any_bad(self, f):
        sel = self.fresh()
        self.s.add_clause([-sel] + [self.lit(f, b) for b in self.bads])
        return sel

    def value(self, model, v):
        return model[abs(v)] if v > 0 else not model[abs(v)]

    def first_bad(self, model, f):
        return next((k for k, b in enumerate(self.bads) if self.value(model, self.lit(f, b))), -1)


def write_witness(u, model, last, bad, path):
    """The AIGER witness of frames 0..last: the initial latches, then the inputs."""
    bit = lambda v: "1" if u.value(model, v) else "0"
    with open(path, "w") as w:
        w.write(f"1\nb{bad}\n")
        w.write("".join(bit(u.frames[0][u.ni + k + 1]) for k in range(u.nl)) + "\n")
        for g in range(last + 1):
            w.write("".join(bit(u.frames[g][k + 1]) for k in range(u.ni)) + "\n")
        w.write(".\n")


def bmc(aig, depth, witness):
    u = Unroll(aig, free_init=False)
    for f in range(depth):
        u.add_frame()
        sel = u.any_bad(f)
        sat, model = u.s.solve([sel])
        if sat:
            bad = u.first_bad(model, f)
            write_witness(u, model, f, bad, witness)
            return f"failed {f} {bad}"
        # No bad state in this frame: the later frames may take that as known.
        for b in u.bads:
            u.s.add_clause([-u.lit(f, b)])
    return "held"


def step(aig, depth, witness):
    u = Unroll(aig, free_init=True)
    for f in range(depth):
        u.add_frame()
        for b in u.bads:
            u.s.add_clause([-u.lit(f, b)])
    u.add_frame()
    sel = u.any_bad(depth)
    sat, model = u.s.solve([sel])
    if not sat:
        return "held"
    bad = u.first_bad(model, depth)
    write_witness(u, model, depth, bad, witness)
    return f"failed {depth} {bad}"


def main():
    path, mode, depth = sys.argv[1], sys.argv[2], int(sys.argv[3])
    aig, how = optimize(read_aig(path), path)
    print(f"ABC: {how}", flush=True)
    if mode == "bmc":
        print(bmc(aig, depth, sys.argv[4]))
    elif mode == "step":
        print(step(aig, depth, sys.argv[4]))
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
