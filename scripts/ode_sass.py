#!/usr/bin/env python3
"""SASS instructions of one accepted attempt of an adaptive ODE kernel, read from `cuobjdump -sass` output.

The attempt loop is the longest backward branch of the kernel (the `while not (Gpu.all done_)` back-edge). Inside
it, the accepted attempt's path is the longest path from the loop head to the back-edge through the forward
branches that avoids the failure block (the NaN masking of a failed run: `MUFU.RSQ` of real_nan and the calls of
its slow path). Predicated instructions count as issued. The step's arithmetic is FP32 FFMA/FMUL/FADD/FMNMX/MUFU;
everything else (float64, selects, integer, predicates, votes, branches, moves) is the loop's overhead.

usage: ode_sass.py FILE.sass [...]
"""

import re
import sys
from collections import Counter

LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
ARITHMETIC = ("FFMA", "FMUL", "FADD", "FMNMX", "MUFU")
FAILURE = ("MUFU.RSQ", "CALL")


def parse(path):
    out = []
    for line in open(path):
        m = LINE.search(line)
        if m:
            out.append((int(m.group(1), 16), m.group(2)))
    return out


def opcode(text):
    words = text.split()
    if words[0].startswith("@"):
        words = words[1:]
    return words[0]


def branch_target(text):
    m = re.search(r"\bBRA\b(?:\s+!?U?P\d,)?\s+(0x[0-9a-f]+)", text)
    return int(m.group(1), 16) if m else None


def loop_bounds(code):
    edges = [(a, t) for a, text in code if (t := branch_target(text)) is not None and t < a]
    if not edges:
        raise SystemExit("no backward branch: not a loop")
    return max(edges, key=lambda e: e[0] - e[1])


def accepted_path(code, head, back):
    """The longest failure-free path from head to back (forward branches only), as a list of instructions."""
    index = {a: i for i, (a, _) in enumerate(code)}
    body = [c for c in code if head <= c[0] <= back]
    best = {}

    def walk(addr):
        if addr == back:
            return [code[index[back]]]
        if addr in best:
            return best[addr]
        text = code[index[addr]][1]
        if any(opcode(text).startswith(f) for f in FAILURE):
            best[addr] = None
            return None
        nxt = code[index[addr] + 1][0]
        target = branch_target(text)
        choices = []
        if target is not None and head <= target <= back:
            choices.append(walk(target))
        unconditional = target is not None and not text.startswith("@")
        if not unconditional and "EXIT" not in text:
            choices.append(walk(nxt))
        paths = [p for p in choices if p is not None]
        best[addr] = [code[index[addr]]] + max(paths, key=len) if paths else None
        return best[addr]

    sys.setrecursionlimit(10000)
    path = walk(head)
    if path is None:
        raise SystemExit("no failure-free path through the loop")
    return path, len(body)


def main():
    for path in sys.argv[1:]:
        code = parse(path)
        back, head = loop_bounds(code)
        attempt, body = accepted_path(code, head, back)
        ops = Counter(opcode(t).split(".")[0] for _, t in attempt)
        arith = sum(n for op, n in ops.items() if op in ARITHMETIC)
        f64 = sum(n for op, n in ops.items() if op.startswith("D") or op == "F2F")
        print(f"{path}: loop {head:#x}..{back:#x} ({body} instructions), accepted attempt {len(attempt)}: "
              f"arithmetic {arith}, overhead {len(attempt) - arith} (float64 and conversions {f64})")
        print("  " + ", ".join(f"{op} {n}" for op, n in sorted(ops.items(), key=lambda x: (-x[1], x[0]))))


if __name__ == "__main__":
    main()
