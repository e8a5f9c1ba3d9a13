#!/usr/bin/env python3
"""Measures qdc on Quadrants' autodiff tests (tests/python/test_ad_*.py of a Quadrants checkout;
not part of this repository): per test function, whether its file compiles for a target with the
function's kernels and host calls (no error located in the function or at module level; the file is compiled again without the
functions that have errors, so one test's error does not hide the others' kernels), and,
for a test that differentiates (.grad(), qd.ad.Tape, qd.ad.FwdMode), whether its kernels got
their companions (no QD2112/QD2140 warning in it, and a <kernel>_grad / <kernel>_fwd entry for
a kernel it defines; a file that does not compile as a whole leaves them unverified: counted
as without gradients, as is a test whose kernels are all defined outside it). The file is
compiled again while a recompilation reports errors in further tests (a lowering error appears
only once the frontend's are gone), at most MEASURE_ROUNDS times (default 4; 1 is the first
version's single recompilation). An error inside a module-level function that is not a test (a
helper such as _run_case(dtype), whose kernels are compiled for the tests that call it) counts
against the tests that call it, directly or through other helpers, and is dropped with them;
an error elsewhere outside the tests, or in a helper no test calls, counts against every test
of the file (MEASURE_HELPERS=0: every error outside the tests does, as before). A test that
differentiates inside pytest.raises(..., match=R) passes where a QD2112 warning located in it
states R (Quadrants' refusal, expected by the test; MEASURE_RAISES=0: it fails, as before), and
one with a pytest.raises(E) without match= where a QD2112 warning in Quadrants' words (its
"... in AutoDiff", grad tensor and global data access rule texts) is located in it.
Usage: measure.py QDC DIR [TARGET...] (default x86_64 vulkan1.3)."""
import json, os, re, subprocess, sys, tempfile

ROUNDS = int(os.environ.get("MEASURE_ROUNDS", "4")) # recompilations without the failing tests (1: the original tool)
HELPERS = os.environ.get("MEASURE_HELPERS", "1") != "0" # errors in helpers count against their callers only
RAISES = os.environ.get("MEASURE_RAISES", "1") != "0"   # a refusal a test expects in pytest.raises counts as its result

def helper_ranges(src, tests):
    """(start, end, tests) per module-level function that is not a test: its lines and the
    (begin, end) ranges of the tests that call it, directly or through other helpers."""
    lines = src.split("\n")
    hs = []
    for i, l in enumerate(lines):
        m = re.match(r"def (\w+)", l)
        if not m or m.group(1).startswith("test_"):
            continue
        e = len(lines)
        for j in range(i + 1, len(lines)):
            if lines[j] and not lines[j][0].isspace() and not lines[j].startswith("#"):
                e = j
                break
        hs.append((m.group(1), i + 1, e, "\n".join(lines[i + 1:e])))
    calls = lambda body, name: re.search(r"(?<![\w.])" + re.escape(name) + r"\s*\(", body)
    reach = {n: {(b, e) for _, b, e, body in tests if calls(body, n)} for n, _, _, _ in hs}
    changed = True
    while changed:
        changed = False
        for n, _, _, body in hs:
            for m, _, _, _ in hs:
                if m != n and calls(body, n) and not reach[n] >= reach[m]:
                    reach[n] |= reach[m]
                    changed = True
    return [(b, e, reach[n]) for n, b, e, _ in hs if reach[n]] if HELPERS else []

def expected_refusal(body, b, e, err):
    """Whether the test expects a refusal (with pytest.raises(..., match=R)) that a QD2112 warning
    located in it states (R found in its message)."""
    if not RAISES:
        return False
    pats = [m.group(2) for m in re.finditer(r"pytest\.raises\([^)]*?match\s*=\s*r?(['\"])(.+?)\1", body)]
    msgs = [m.group(2) for m in re.finditer(r"^[^\s:]+:(\d+):\d+: warning\[QD2112\]: (.*)$", err, re.M) if b <= int(m.group(1)) <= e]
    # pytest.raises(E) without match=: any exception of the type passes, so a refusal in Quadrants' words
    # (its RuntimeError texts, not qdc's own limits) stated in the test does
    bare = re.search(r"pytest\.raises\((?![^)]*match\s*=)[^)]*\)", body)
    theirs = [x for x in msgs if re.search(r"in AutoDiff|through a grad tensor|global data access rule", x)]
    return any(re.search(p, x) for p in pats for x in msgs) or bool(bare and theirs)

def blamed(lines_err, helpers):
    """The test ranges an error in a helper counts against."""
    out = set()
    for x in lines_err:
        for b, e, ts in helpers:
            if b <= x <= e:
                out |= ts
    return out

def test_ranges(src):
    lines = src.split("\n")
    starts = [i + 1 for i, l in enumerate(lines) if re.match(r"def (test_\w+)", l)]
    out = []
    for k, s in enumerate(starts):
        name = re.match(r"def (test_\w+)", lines[s - 1]).group(1)
        b = s
        while b > 1 and lines[b - 2].startswith("@"):
            b -= 1
        e = len(lines)
        for j in range(s, len(lines)):
            if lines[j] and not lines[j][0].isspace() and not lines[j].startswith("#"):
                e = j
                break
        out.append((name, b, e, "\n".join(lines[s - 1:e])))
    return out

def run(qdc, path, target):
    with tempfile.TemporaryDirectory() as d:
        mf = os.path.join(d, "m.json")
        r = subprocess.run([qdc, "--target=" + target, "--emit=metadata", path, "-o", mf], capture_output=True, text=True)
        kernels = []
        if r.returncode == 0 and os.path.exists(mf):
            try:
                kernels = json.load(open(mf)).get("kernels", [])
            except ValueError:
                pass
        return r.returncode, r.stderr, kernels

def main():
    qdc, d = sys.argv[1], sys.argv[2]
    targets = sys.argv[3:] or ["x86_64", "vulkan1.3"]
    total = {t: [0, 0, 0] for t in targets}  # tests, compile, compile+gradients
    for f in sorted(os.listdir(d)):
        if not re.match(r"test_ad_.*\.py$", f):
            continue
        src = open(os.path.join(d, f)).read()
        tests = test_ranges(src)
        helpers = helper_ranges(src, tests)
        for t in targets:
            rc, err, kernels = run(qdc, os.path.join(d, f), t)
            errs0 = [int(m.group(1)) for m in re.finditer(r"^[^\s:]+:(\d+):\d+: error\[", err, re.M)]
            hit = blamed(errs0, helpers)
            drop = [(b, e) for _, b, e, _ in tests if any(b <= x <= e for x in errs0) or (b, e) in hit]
            rounds = 0
            while rc != 0 and drop and rounds < ROUNDS: # again without the tests that have errors (blanked: lines keep their numbers)
                lines = src.split("\n")
                for b, e in drop:
                    for i in range(b - 1, e):
                        lines[i] = ""
                with tempfile.TemporaryDirectory() as td:
                    p2 = os.path.join(td, f)
                    open(p2, "w").write("\n".join(lines))
                    rc, err2, kernels = run(qdc, p2, t)
                err = err + err2
                rounds += 1
                # errors of a later stage (lowering) appear only once the earlier ones are gone
                more = [int(m.group(1)) for m in re.finditer(r"^[^\s:]+:(\d+):\d+: error\[", err2, re.M)]
                hit = blamed(more, helpers)
                new = [(b, e) for _, b, e, _ in tests if (b, e) not in drop and (any(b <= x <= e for x in more) or (b, e) in hit)]
                if not new:
                    break
                drop += new
            errs = [int(m.group(1)) for m in re.finditer(r"^[^\s:]+:(\d+):\d+: error\[", err, re.M)]
            warns = [int(m.group(1)) for m in re.finditer(r"^[^\s:]+:(\d+):\d+: warning\[QD2(?:112|140)\]", err, re.M)]
            names = {k.get("name") for k in kernels}
            comp = {k.get("grad_of") for k in kernels if k.get("grad_of")} | {k.get("fwd_of") for k in kernels if k.get("fwd_of")}
            toplevel = [e for e in errs if not any(b <= e <= en for _, b, en, _ in tests) and not any(hb <= e <= he for hb, he, _ in helpers)]
            hit = blamed(errs, helpers)
            ok_c = ok_g = 0
            fails = []
            for name, b, e, body in tests:
                bad = any(b <= x <= e for x in errs) or (b, e) in hit or (rc != 0 and toplevel)
                if rc != 0 and not errs:
                    bad = True
                if bad:
                    fails.append(name + " (error)")
                    continue
                ok_c += 1
                diff = re.search(r"\.grad\(|Tape\(|FwdMode\(", body)
                mine = [n for n in names if n and n.startswith(name + "__")]
                if diff and expected_refusal(body, b, e, err):
                    ok_g += 1 # the test expects Quadrants' refusal (pytest.raises(match=)) and qdc's QD2112 says it
                    continue
                if diff and (rc != 0 or any(b <= x <= e for x in warns) or not mine or not any(n in comp for n in mine)):
                    fails.append(name + " (no gradient)")
                    continue
                ok_g += 1
            total[t][0] += len(tests)
            total[t][1] += ok_c
            total[t][2] += ok_g
            print(f"{t:10} {f:48} {len(tests):3} tests  {ok_c:3} compile  {ok_g:3} with gradients")
            for x in fails:
                print("    " + x)
    for t in targets:
        n, c, g = total[t]
        print(f"TOTAL {t}: {n} tests, {c} compile ({100*c/max(n,1):.1f}%), {g} with gradients ({100*g/max(n,1):.1f}%)")

main()
