#!/usr/bin/env python3
"""How many rejected inputs qdc rejects with Quadrants' reason.

    reasons.py RESULTS.json [-v]

RESULTS.json is written by measure_quadrants.py --json. Of the inputs of category `rejected`
(a kernel is reachable and the test expects an exception) that qdc rejects, those whose
pytest.raises has a match= text are judged mechanically: the match text (a Python string literal,
r"..." or re.escape("...") as written in the test, or a name the test's parametrize combination
binds, read from the result's params) is searched as a regular expression in the
message of qdc's first error, as pytest.raises(match=) searches str(exception). Inputs whose
test gives no match text are counted apart (their reason is judged by hand, if at all). -v lists
the misses and the inputs without a match text. The rejected inputs are also counted by the
class of exception the test expects (COMPILE_TIME, RUN_OR_HOST below, else unclassified): a
check Quadrants makes when the kernel runs, or in host code, is not one an AOT compiler sees.
"""
import ast
import json
import re
import sys


def pattern(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        pass
    try:  # adjacent literals on several lines: "a "\n "b", one string in the test's parentheses
        return ast.literal_eval("(" + text + ")")
    except (ValueError, SyntaxError):
        pass
    if text.startswith("re.escape(") and text.endswith(")"):
        try:
            return re.escape(ast.literal_eval(text[10:-1]))
        except (ValueError, SyntaxError):
            pass
    return None


def bound(name, params):
    """The value a parametrize combination (the manifest's `params`, lines such as
    'bad_slice, match = ("neg_row", "Negative indices")') binds to name: pytest.raises(match=match)."""
    for line in params or []:
        try:
            node = ast.parse(line).body[0]
            value = ast.literal_eval(node.value)
        except (SyntaxError, ValueError, IndexError, AttributeError):
            continue
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        t = node.targets[0]
        if isinstance(t, ast.Name) and t.id == name:
            return value
        if isinstance(t, ast.Tuple) and isinstance(value, tuple) and len(value) == len(t.elts):
            for e, v in zip(t.elts, value):
                if isinstance(e, ast.Name) and e.id == name:
                    return v
    return None


# The exception classes Quadrants raises while it compiles a kernel (its AST transformer and the
# C++ frontend's ErrorEmitter); anything else a test expects (AssertionError, RuntimeError,
# ValueError, TypeError, QuadrantsAssertionError, QuadrantsRuntimeTypeError) is raised when the
# kernel runs or by host code around it (argument checks at the call, Tape, to_torch); a bare
# Exception (or an alias the extractor cannot resolve) says neither.
COMPILE_TIME = {"QuadrantsCompilationError", "QuadrantsSyntaxError", "QuadrantsTypeError", "QuadrantsNameError",
                "QuadrantsIndexError"}
RUN_OR_HOST = {"AssertionError", "RuntimeError", "ValueError", "TypeError", "QuadrantsAssertionError",
               "QuadrantsRuntimeTypeError"}


def when(r):
    names = set()
    for x in r["raises"] or []:
        for n in x["exception"].strip("()").split(","):
            names.add(n.strip().split(".")[-1])
    if names & COMPILE_TIME:
        return "compile-time"
    if names and names <= RUN_OR_HOST:
        return "run-time-or-host"
    return "unclassified"


def main():
    results = json.load(open(sys.argv[1]))
    verbose = "-v" in sys.argv[2:]
    rejected = [r for r in results if r["category"] == "rejected"]
    by_qdc = [r for r in rejected if r["ok"]]
    texts = lambda r: [x["match"] for x in (r["raises"] or []) if x.get("match")]
    with_text = [r for r in by_qdc if texts(r)]
    hits, misses = 0, []
    for r in with_text:
        msg = (r["first"] or {}).get("msg", "")
        found = False
        for t in texts(r):
            p = pattern(t)
            if p is None and t.isidentifier():  # match=NAME, a parametrize value (results of measure_quadrants.py carry params)
                p = bound(t, r.get("params"))
            if isinstance(p, str):
                try:
                    found = found or re.search(p, msg) is not None
                except re.error:
                    found = found or p in msg
        hits += found
        if not found:
            misses.append(r)
    no_text = [r for r in by_qdc if not texts(r)]
    print(f"rejected inputs {len(rejected)}, rejected by qdc {len(by_qdc)}; with a match text {len(with_text)}, "
          f"qdc's message matches it {hits}; without a match text {len(no_text)}")
    groups = {}
    for r in rejected:
        g = groups.setdefault(when(r), [0, 0])
        g[0] += r["ok"]
        g[1] += 1
    print("by the exception the test expects: " + "; ".join(f"{k} {v[0]}/{v[1]} rejected" for k, v in sorted(groups.items())))
    if verbose:
        name = lambda r: r["input"].split("/")[-1]
        for r in misses:
            f = r["first"] or {}
            print(f"MISS {name(r)}  want {texts(r)[0][:70]}  got {f.get('code')} {f.get('msg', '')[:110]}")
        for r in no_text:
            f = r["first"] or {}
            print(f"NOTEXT {name(r)}  {[x['exception'] for x in r['raises']]}  got {f.get('code')} {f.get('msg', '')[:110]}")


if __name__ == "__main__":
    main()
