#!/usr/bin/env python3
"""Turns the tests of a Quadrants checkout into qdc inputs, one input per test function.

    quadrants_tests.py QUADRANTS_ROOT OUTDIR [--every=N] [--files=GLOB]

For each `test_*` function of QUADRANTS_ROOT/tests/python/test_*.py, OUTDIR/<file>__<test>.py
holds: the module's imports and module-level definitions (every statement but the test
functions), then the test function's body as module-level host code. Decorators are dropped:

  * `@test_utils.test(...)`: its keywords (arch=, require=, exclude=, debug=, default_fp=, ...)
    are recorded in the manifest; default_fp= and default_ip= become `qd.init(...)` before the
    body (test_utils.test calls qd.init with them before the test runs); debug=True is given
    by measure_quadrants.py as --debug;
  * `@pytest.mark.parametrize(NAMES, VALUES)`: the first value set is assigned to NAMES before
    the body (`a, b = VALUES[0]`); parameters left over (pytest fixtures) are recorded;
  * `@pytest.mark.skip*` / `xfail` are recorded.

What pytest runs is what an input holds: a test function defined twice in a file is its later
definition (the earlier one is rebound, never collected), and a body is cut at its first top-level
`return` (a test that returns at once compiles nothing: nokernel).

A test that expects an error (`with pytest.raises(E, match=M)` anywhere in its body) goes to the
"rejected" corpus: E and M are recorded, and each such `with` is replaced by its block (the
code Quadrants rejects is compiled like the rest of the program; qdc must reject it). OUTDIR/manifest.json lists every input with these
facts and a `category`:

  compile   a test whose body (or a module-level function it reaches) defines or calls a kernel
  rejected  as above, and expects an error
  rejected-host  expects an error, but no kernel is reachable (an error of Python-scope code:
            a field's constructor, to_numpy, ...): not a kernel Quadrants rejects
  nokernel  no `@qd.kernel` is reachable from the test (a pure Python-scope test)

The tool reads upstream files at run time; the project never contains upstream test code.
Reads the source with Python's ast; never imports it.
"""
import argparse
import ast
import copy
import fnmatch
import io
import json
import os
import sys
import textwrap
import tokenize


def dotted(e):
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        d = dotted(e.value)
        return d and f"{d}.{e.attr}"
    if isinstance(e, ast.Call):
        return dotted(e.func)
    return None


def is_kernel_decorator(d):
    n = dotted(d)
    return n is not None and n.split(".")[-1] in ("kernel", "real_func")


def segment(lines, node):
    """Source text of statement NODE (decorators included), dedented."""
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return textwrap.dedent("".join(lines[first - 1:node.end_lineno])).rstrip() + "\n"


def first_line(stmt):
    return min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])


def unwrap_raises(lines, fn):
    """LINES with every `with pytest.raises(...):` of FN replaced by its block (dedented to the
    with's column), so the code the test expects to fail is compiled like the rest."""
    lines = list(lines)
    withs = [n for n in ast.walk(fn) if isinstance(n, ast.With) and len(n.items) == 1
             and isinstance(n.items[0].context_expr, ast.Call)
             and dotted(n.items[0].context_expr.func) in ("pytest.raises", "raises")
             and first_line(n.body[0]) > n.lineno]
    for w in sorted(withs, key=lambda n: -n.lineno):  # inner ones first
        start = first_line(w.body[0])
        shift = w.body[0].col_offset - w.col_offset
        block = []
        for ln in lines[start - 1:w.end_lineno]:
            lead = len(ln) - len(ln.lstrip(" "))
            block.append(ln[min(shift, lead):] if ln.strip() else ln)
        # keep the line count: the header's lines become blank, so line numbers stay the test's
        lines[w.lineno - 1:w.end_lineno] = ["\n"] * (start - w.lineno) + block
    return lines


def string_inner_lines(text):
    """Numbers (1-based) of the lines of TEXT that continue a multi-line string token: their
    leading spaces are the string's own characters."""
    inner = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.STRING and tok.end[0] > tok.start[0]:
                inner.update(range(tok.start[0] + 1, tok.end[0] + 1))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return inner


def body_text(lines, fn, rejected=False, inner=None):
    """The body of FN as module-level code: each line less the body's indentation, except the lines
    inside a multi-line string (a triple-quoted expected output at column 0 would otherwise leave
    textwrap.dedent nothing to remove, and the indented body would continue the prelude's last
    def, which is not what pytest runs)."""
    body = fn.body
    if rejected:
        lines = unwrap_raises(lines, fn)
    first = first_line(body[0])
    chunk = lines[first - 1:body[-1].end_lineno]
    indent = body[0].col_offset
    if inner is None:
        inner = string_inner_lines("".join(lines))
    out = []
    for n, ln in enumerate(chunk, start=first):
        if n in inner:
            out.append(ln)
        else:
            lead = len(ln) - len(ln.lstrip(" \t"))
            out.append(ln[min(indent, lead):])
    return "".join(out).rstrip() + "\n"


def names_in(node):
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            d = dotted(n)
            if d:
                out.add(d.split(".")[0])
    return out


def defines_kernel(node):
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                is_kernel_decorator(d) for d in n.decorator_list):
            return True
    return False


def module_level_names(stmt):
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    out = set()
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name):
                    out.add(n.id)
    return out


def reaches_kernel(test, module_defs):
    """Whether TEST defines a kernel or reaches a module-level definition that does."""
    if defines_kernel(test):
        return True
    seen, todo = set(), list(names_in(test))
    while todo:
        name = todo.pop()
        if name in seen or name not in module_defs:
            continue
        seen.add(name)
        for stmt in module_defs[name]:
            if defines_kernel(stmt):
                return True
            todo.extend(names_in(stmt))
    return False


def live_part(fn):
    """FN with its body cut at its first top-level `return` (what follows is never run: pytest
    runs the statements before it, and a test that returns at once compiles nothing); FN itself
    when it has none."""
    for k, stmt in enumerate(fn.body):
        if isinstance(stmt, ast.Return):
            cut = copy.copy(fn)
            cut.body = fn.body[:k]
            return cut
    return fn


def kw_text(src, call):
    out = {}
    for k in call.keywords:
        out[k.arg or "**"] = ast.get_source_segment(src, k.value)
    if call.args:
        out["*args"] = [ast.get_source_segment(src, a) for a in call.args]
    return out


def raises_of(src, fn):
    out = []
    for n in ast.walk(fn):
        if isinstance(n, (ast.With, ast.AsyncWith)):
            for item in n.items:
                c = item.context_expr
                if isinstance(c, ast.Call) and dotted(c.func) in ("pytest.raises", "raises"):
                    exc = ast.get_source_segment(src, c.args[0]) if c.args else None
                    match = None
                    for k in c.keywords:
                        if k.arg == "match":
                            match = ast.get_source_segment(src, k.value)
                    out.append({"exception": exc, "match": match, "line": n.lineno})
    return out


def raise_guards(fn):
    """{name: truthiness} that the `if NAME:` / `if not NAME:` around FN's `with pytest.raises`
    blocks need for the block to run (a parametrized test that raises under one value only)."""
    want, bad = {}, set()

    def visit(node, conds):
        if (isinstance(node, ast.With) and len(node.items) == 1 and isinstance(node.items[0].context_expr, ast.Call)
                and dotted(node.items[0].context_expr.func) in ("pytest.raises", "raises")):
            for n, v in conds:
                if want.get(n, v) != v:
                    bad.add(n)
                want[n] = v
        if isinstance(node, ast.If):
            t, neg = node.test, False
            if isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not):
                t, neg = t.operand, True
            if isinstance(t, ast.Name):
                for c in node.body:
                    visit(c, conds + [(t.id, not neg)])
                for c in node.orelse:
                    visit(c, conds + [(t.id, neg)])
                return
        for c in ast.iter_child_nodes(node):
            visit(c, conds)

    for stmt in fn.body:
        visit(stmt, [])
    return {n: v for n, v in want.items() if n not in bad}


def first_params(src, deco, guards=None):
    """(names, first value set source) of a pytest.mark.parametrize decorator. GUARDS (from
    raise_guards): a one-name parametrize takes its first literal value of the truthiness the
    test's pytest.raises blocks need, so the input holds the code the test expects to fail."""
    if len(deco.args) < 2:
        return None
    names_node, values = deco.args[0], deco.args[1]
    if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
        names = [s.strip() for s in names_node.value.split(",") if s.strip()]
    elif isinstance(names_node, (ast.List, ast.Tuple)):
        names = [e.value for e in names_node.elts if isinstance(e, ast.Constant)]
    else:
        return None
    if isinstance(values, (ast.List, ast.Tuple)) and values.elts:
        first = values.elts[0]
        if guards and len(names) == 1 and names[0] in guards:
            for e in values.elts:
                try:
                    if bool(ast.literal_eval(e)) == guards[names[0]]:
                        first = e
                        break
                except (ValueError, SyntaxError, TypeError):
                    pass
        # pytest.param(v, ..., marks=...) -> its positional values
        if isinstance(first, ast.Call) and dotted(first.func) in ("pytest.param", "param"):
            vals = [ast.get_source_segment(src, a) for a in first.args]
            text = vals[0] if len(vals) == 1 else "(" + ", ".join(vals) + ",)"
        else:
            text = ast.get_source_segment(src, first)
    else:
        # a name or an expression: its first element at run time
        text = f"list({ast.get_source_segment(src, values)})[0]"
    return names, text


def extract_file(path, outdir, every, counter, manifest):
    src = open(path, encoding="utf-8").read()
    lines = src.splitlines(keepends=True)
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        print(f"{path}: not parsed: {e}", file=sys.stderr)
        return
    stem = os.path.splitext(os.path.basename(path))[0]
    inner = string_inner_lines(src)
    tests, prelude, module_defs = [], [], {}
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name.startswith("test"):
            tests.append(stmt)
            continue
        prelude.append(segment(lines, stmt))
        for name in module_level_names(stmt):
            module_defs.setdefault(name, []).append(stmt)
    prelude_text = "\n".join(prelude)
    # a test function defined again later in the file is that later one (the def rebinds the
    # module's name; pytest collects what the module holds): the earlier one never runs
    last = {fn.name: fn for fn in tests}
    tests = [fn for fn in tests if last[fn.name] is fn]
    for fn in tests:
        counter[0] += 1
        if every > 1 and (counter[0] - 1) % every:
            continue
        entry = {"file": os.path.basename(path), "test": fn.name, "line": fn.lineno,
                 "input": f"{stem}__{fn.name}.py", "test_utils": None, "params": [],
                 "fixtures": [], "marks": [], "raises": raises_of(src, fn)}
        assigned = []
        for d in fn.decorator_list:
            name = dotted(d)
            if name in ("test_utils.test", "test") and isinstance(d, ast.Call):
                entry["test_utils"] = kw_text(src, d)
            elif name and name.endswith("mark.parametrize") and isinstance(d, ast.Call):
                p = first_params(src, d, raise_guards(fn) if entry["raises"] else None)
                if p:
                    names, text = p
                    assigned += names
                    lhs = names[0] if len(names) == 1 else ", ".join(names)
                    entry["params"].append(f"{lhs} = {text}")
            elif name and ".mark." in name:
                entry["marks"].append(name.split(".mark.")[1])
        all_args = fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
        defaults = dict(zip([a.arg for a in fn.args.args][-len(fn.args.defaults):] if fn.args.defaults else [],
                            fn.args.defaults))
        for a in all_args:
            if a.arg in assigned:
                continue
            if a.arg in defaults:
                entry["params"].append(f"{a.arg} = {ast.get_source_segment(src, defaults[a.arg])}")
            else:
                entry["fixtures"].append(a.arg)
        fn = live_part(fn)
        if not fn.body:
            entry["category"] = "nokernel"  # returns before it does anything
        elif (len(fn.body) == 1 and isinstance(fn.body[0], ast.Expr)
                           and isinstance(fn.body[0].value, ast.Constant)):
            entry["category"] = "empty"
        elif entry["raises"]:
            entry["category"] = "rejected" if reaches_kernel(fn, module_defs) else "rejected-host"
        elif reaches_kernel(fn, module_defs):
            entry["category"] = "compile"
        else:
            entry["category"] = "nokernel"
        header = (f"# qdc input from Quadrants tests/python/{entry['file']}:{fn.lineno} {fn.name}\n"
                  f"# written by tools/corpus/quadrants_tests.py; test_utils.test: "
                  f"{json.dumps(entry['test_utils'])}\n")
        text = header + prelude_text + "\n\n# --- the test's body ---\n"
        text += "".join(p + "\n" for p in entry["params"])
        # @test_utils.test(default_fp=..., default_ip=...) runs the test after qd.init(...) with them
        # (--debug stands for its debug=True: measure_quadrants.py passes it)
        init = [f"{k}={(entry['test_utils'] or {})[k]}" for k in ("default_fp", "default_ip")
                if (entry["test_utils"] or {}).get(k)]
        if init:
            text += f"qd.init({', '.join(init)})\n"
        kdeco = [d for d in fn.decorator_list if is_kernel_decorator(d)]
        if kdeco and not (fn.args.args or fn.args.posonlyargs or fn.args.kwonlyargs) and entry["category"] == "compile":
            # the test is itself a kernel (@test_utils.test() over @qd.kernel def test_x():): pytest
            # calls it, so the input defines it and calls it (its body is kernel code, not host code)
            text += "@" + ast.get_source_segment(src, kdeco[0]) + "\n"
            text += "".join(lines[fn.lineno - 1:fn.end_lineno]).rstrip() + "\n\n" + f"{fn.name}()\n"
        else:
            text += body_text(lines, fn, entry["category"] == "rejected", inner) if fn.body else "pass\n"
        with open(os.path.join(outdir, entry["input"]), "w", encoding="utf-8") as f:
            f.write(text)
        manifest.append(entry)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", help="a Quadrants checkout (its tests/python is read)")
    ap.add_argument("outdir")
    ap.add_argument("--every", type=int, default=1, help="keep every Nth test function (1: all)")
    ap.add_argument("--files", default="test_*.py", help="glob of the test files to read")
    args = ap.parse_args()
    tdir = os.path.join(args.root, "tests", "python")
    os.makedirs(args.outdir, exist_ok=True)
    manifest, counter = [], [0]
    for name in sorted(os.listdir(tdir)):
        if fnmatch.fnmatch(name, args.files) and name.startswith("test_") and name.endswith(".py"):
            extract_file(os.path.join(tdir, name), args.outdir, args.every, counter, manifest)
    with open(os.path.join(args.outdir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    cats = {}
    for e in manifest:
        cats[e["category"]] = cats.get(e["category"], 0) + 1
    print(f"{counter[0]} test functions, {len(manifest)} inputs written: "
          + ", ".join(f"{k} {v}" for k, v in sorted(cats.items())))


if __name__ == "__main__":
    main()
