#!/usr/bin/env python3
"""Writes N mutated kernels for fuzz/campaign.sh: usage mutate.py SEED N OUTDIR SOURCE...

Each output is one source kernel with 1-4 mutations, chosen with random.Random(SEED) so a
campaign is reproducible: a line deleted, duplicated or swapped with its neighbour; an integer
literal replaced by an edge value; an operator, a dtype or a name swapped for another of its
kind; a token deleted; a bracket or colon dropped; indentation changed."""
import random
import re
import sys

EDGE = ["0", "1", "-1", "2", "3", "31", "32", "33", "63", "64", "65", "127", "128", "255", "256", "1023",
        "1024", "65535", "65536", "2147483647", "2147483648", "-2147483648", "4294967296",
        "9223372036854775807", "18446744073709551616", "10**30", "0.5", "1e308", "-0.0"]
OPS = ["+", "-", "*", "//", "/", "%", "**", "<<", ">>", "&", "|", "^", "<", "<=", "==", "!=", ">", ">="]
DTYPES = ["qd.i8", "qd.i16", "qd.i32", "qd.i64", "qd.u8", "qd.u16", "qd.u32", "qd.u64", "qd.f16", "qd.f32", "qd.f64", "qd.u1"]


def mutate(text, rng):
    lines = text.split("\n")
    kind = rng.randrange(10)
    i = rng.randrange(len(lines)) if lines else 0
    if kind == 0 and len(lines) > 1:
        del lines[i]
    elif kind == 1:
        lines.insert(i, lines[i])
    elif kind == 2 and i + 1 < len(lines):
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
    elif kind == 3:
        nums = [m for m in re.finditer(r"(?<![\w.])\d+(?![\w.])", text)]
        if nums:
            m = rng.choice(nums)
            return text[:m.start()] + rng.choice(EDGE) + text[m.end():]
    elif kind == 4:
        ops = [m for m in re.finditer(r"(?<=\s)(\*\*|//|<<|>>|<=|>=|==|!=|[-+*/%&|^<>])(?=\s)", text)]
        if ops:
            m = rng.choice(ops)
            return text[:m.start()] + rng.choice(OPS) + text[m.end():]
    elif kind == 5:
        ds = [m for m in re.finditer(r"qd\.(?:[iu](?:8|16|32|64)|f(?:16|32|64)|u1)\b", text)]
        if ds:
            m = rng.choice(ds)
            return text[:m.start()] + rng.choice(DTYPES) + text[m.end():]
    elif kind == 6:
        toks = [m for m in re.finditer(r"[A-Za-z_]\w*|\S", lines[i])]
        if toks:
            m = rng.choice(toks)
            lines[i] = lines[i][:m.start()] + lines[i][m.end():]
    elif kind == 7:
        names = re.findall(r"\b[a-z_]\w*\b", text)
        if names:
            a, b = rng.choice(names), rng.choice(names)
            occ = [m for m in re.finditer(r"\b%s\b" % re.escape(a), text)]
            m = rng.choice(occ)
            return text[:m.start()] + b + text[m.end():]
    elif kind == 8:
        marks = [m for m in re.finditer(r"[()\[\]:,]", text)]
        if marks:
            m = rng.choice(marks)
            return text[:m.start()] + text[m.end():]
    else:
        lines[i] = rng.choice(["", " ", "    ", "        "]) + lines[i].lstrip()
    return "\n".join(lines)


def main():
    seed, n, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    sources = []
    for path in sys.argv[4:]:
        with open(path, encoding="utf-8", errors="replace") as f:
            sources.append(f.read())
    rng = random.Random(seed)
    for k in range(n):
        text = rng.choice(sources)
        for _ in range(rng.randint(1, 4)):
            text = mutate(text, rng)
        with open("%s/m%06d.qd" % (out, k), "w", encoding="utf-8") as f:
            f.write(text)


main()
