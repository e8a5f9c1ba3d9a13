#!/usr/bin/env python3
"""Compiles the inputs written by quadrants_tests.py and prints what happened.

    measure_quadrants.py OUTDIR [--qdc=build/qdc] [--target=x86_64|auto] [--jobs=2]
                         [--every=N] [--only=GLOB] [--exclude=GLOB] [--json=FILE] [--quiet]

Runs `qdc INPUT --target=T --check --stats` (and --debug where the test is decorated
@test_utils.test(debug=True); --ad-stack=off, Quadrants' default, unless it has
require=qd.extension.adstack or ad_stack_experimental_enabled=True) for every input of OUTDIR/manifest.json and prints
one line per test (PASS/FAIL, category, the first diagnostic), then totals per category and
the failures clustered by their first diagnostic (code and message with names and numbers
blanked).

--target=auto compiles each test for a family it runs on in Quadrants: its
@test_utils.test(arch=..., exclude=...) decides the architectures (qd.gpu is cuda, metal, vulkan,
amdgpu; the names the test files define, such as supported_archs_quadrants_ndarray, are
spelled out in ARCH_NAMES), and the first of x86_64 (cpu), sm_90 (cuda), vulkan1.3 (vulkan),
gfx942 (amdgpu), apple9 (metal) that is left is used; a test with no arch runs on every
architecture, so on x86_64. A test decorated arch=qd.gpu (Tile16x16, for instance) is not run
on the CPU by Quadrants, and compiling it for x86_64 measures nothing Quadrants promises.

What counts:
  compile   passes when qdc exits 0 and its --stats line names at least one kernel;
  rejected  passes when qdc exits 1 (a located error); "with the reason" is judged by hand
            from the recorded exception and match text (printed with each line);
  rejected-host  (an expected error with no kernel reachable) and
  nokernel  not counted in the ratio (no kernel is reachable from the test); printed apart;
  empty     a test whose body is only a docstring or pass.
A crash (exit status 3 or a signal) or a time-out is always a failure.
"""
import argparse
import fnmatch
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

DIAG = re.compile(r"^[^:\n]+:(\d+):(\d+): error\[(QD\d+)\]: (.*)$", re.M)


def cluster_key(code, msg):
    msg = re.sub(r"'[^']*'", "'_'", msg)
    msg = re.sub(r"\b\d+\b", "N", msg)
    return f"{code} {msg[:110]}"


# Architectures in the order --target=auto prefers them, with the qdc family each stands for.
AUTO_ORDER = [("cpu", "x86_64"), ("cuda", "sm_90"), ("vulkan", "vulkan1.3"), ("amdgpu", "gfx942"),
              ("metal", "apple9")]
ALL_ARCHS = {a for a, _ in AUTO_ORDER}
# Names the test files bind to architecture lists (read in Quadrants' tests and quadrants/lang/misc.py).
ARCH_NAMES = {
    "gpu": {"cuda", "metal", "vulkan", "amdgpu"},
    "cpu": {"cpu"}, "x64": {"cpu"}, "arm64": {"cpu"},
    "get_host_arch_list()": {"cpu"},
    "archs_support_ndarray_ad": {"cpu", "cuda", "amdgpu", "metal"},
    "supported_archs_quadrants_ndarray": {"cpu", "cuda", "vulkan", "metal", "amdgpu"},
    "archs_with_physical_storage_buffer": {"metal", "vulkan"},
}


def arch_set(text):
    """The architectures an arch=/exclude= keyword names, or None when it names something unknown."""
    if text is None:
        return None
    out = set()
    for item in re.split(r"[\[\],]", str(text)):
        item = item.strip()
        if not item or item.startswith(("vk_on_mac", "cuda_on_windows", "(")) or item.endswith(")") and "(" not in item:
            continue
        name = item[3:] if item.startswith("qd.") else item
        if name in ALL_ARCHS:
            out.add(name)
        elif name in ARCH_NAMES:
            out |= ARCH_NAMES[name]
        else:
            return None
    return out


def auto_target(entry):
    tu = entry.get("test_utils") or {}
    archs = arch_set(tu.get("arch")) if tu.get("arch") is not None else set(ALL_ARCHS)
    if archs is None:
        archs = set(ALL_ARCHS)
    excluded = arch_set(tu.get("exclude")) if tu.get("exclude") is not None else set()
    archs -= excluded or set()
    for arch, family in AUTO_ORDER:
        if arch in archs:
            return family
    return "x86_64"


def run_one(qdc, outdir, target, entry, timeout):
    if target == "auto":
        target = auto_target(entry)
    cmd = [qdc, entry["input"], f"--target={target}", "--check", "--stats"]
    tu = entry.get("test_utils") or {}
    if str(tu.get("debug")) == "True":
        cmd.append("--debug")  # @test_utils.test(debug=True): Quadrants runs the test with qd.init(debug=True)
    if "adstack" not in str(tu.get("require")) and str(tu.get("ad_stack_experimental_enabled")) != "True":
        cmd.append("--ad-stack=off")  # Quadrants' default; its harness enables the stack for require=qd.extension.adstack
    try:
        p = subprocess.run(cmd, cwd=outdir, capture_output=True, text=True, timeout=timeout)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = "timeout", "", ""
    m = DIAG.search(err)
    first = None
    if m:
        first = {"line": int(m.group(1)), "col": int(m.group(2)), "code": m.group(3), "msg": m.group(4)}
    elif err.strip():
        first = {"line": 0, "col": 0, "code": "other", "msg": err.strip().splitlines()[0][:200]}
    kernels = 0
    km = re.search(r": (\d+) kernels?", out)
    if km:
        kernels = int(km.group(1))
    cat = entry["category"]
    if cat.startswith("rejected"):
        ok = rc == 1 and first is not None
    else:
        ok = rc == 0 and kernels > 0
    return {"input": entry["input"], "category": cat, "rc": rc, "kernels": kernels,
            "first": first, "ok": ok, "raises": entry.get("raises"), "params": entry.get("params"),
            "test_utils": entry.get("test_utils"), "target": target}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--qdc", default=os.path.join(os.path.dirname(__file__), "..", "..", "build", "qdc"))
    ap.add_argument("--target", default="x86_64", help="a family, or auto: one each test runs on")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--only", default="*")
    ap.add_argument("--exclude", default=None)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--json", default=None, help="also write the results to FILE")
    ap.add_argument("--quiet", action="store_true", help="totals and clusters only")
    args = ap.parse_args()
    qdc = os.path.abspath(args.qdc)
    manifest = json.load(open(os.path.join(args.outdir, "manifest.json")))
    entries = [e for i, e in enumerate(manifest) if i % args.every == 0
               and fnmatch.fnmatch(e["input"], args.only)
               and not (args.exclude and fnmatch.fnmatch(e["input"], args.exclude))]
    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        results = list(ex.map(lambda e: run_one(qdc, args.outdir, args.target, e, args.timeout), entries))
    totals, clusters = {}, {}
    for r in results:
        t = totals.setdefault(r["category"], [0, 0])
        t[1] += 1
        t[0] += r["ok"]
        f = r["first"]
        diag = f"{f['line']}:{f['col']}: {f['code']}: {f['msg']}" if f else ""
        if not args.quiet:
            extra = ""
            if r["category"].startswith("rejected") and r["raises"]:
                x = r["raises"][0]
                extra = f"  [expects {x['exception']} {x['match'] or ''}]"
            print(f"{'PASS' if r['ok'] else 'FAIL'} {r['category']:9} rc={r['rc']} k={r['kernels']} "
                  + (f"[{r['target']}] " if args.target == "auto" else "") +
                  f"{r['input']}  {diag}{extra}")
        if not r["ok"] and r["category"] in ("compile", "rejected"):
            key = ("crash/timeout rc=%s" % r["rc"]) if r["rc"] not in (0, 1, 2) else (
                cluster_key(f["code"], f["msg"]) if f else f"rc={r['rc']} no diagnostic, {r['kernels']} kernels")
            clusters.setdefault((r["category"], key), []).append(r["input"])
    print(f"\n== {args.target}: {len(results)} inputs")
    for cat in ("compile", "rejected", "rejected-host", "nokernel", "empty"):
        if cat in totals:
            ok, n = totals[cat]
            print(f"  {cat:9} {ok}/{n} {'rejected by qdc' if cat.startswith('rejected') else 'pass'}"
                  f" ({100.0 * ok / n:.1f}%)")
    print("\n== failure clusters (category, first diagnostic): count, examples")
    for (cat, key), items in sorted(clusters.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(items):4} {cat:8} {key}\n       e.g. {', '.join(items[:3])}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
