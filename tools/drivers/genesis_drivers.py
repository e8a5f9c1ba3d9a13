#!/usr/bin/env python3
"""Writes instantiation drivers (qdc(1), INSTANTIATION DRIVERS) for the kernels of a Genesis tree.

    genesis_drivers.py GENESIS_ROOT MODULE.py OUTDIR

For each module-level @qd.kernel of MODULE.py (a path under GENESIS_ROOT), OUTDIR/<kernel>.py is
a driver that imports the module and calls the kernel once with placeholder arguments:

  * array_class.X (X = StructX if gs.use_ndarray else ...): StructX(...) built member by member,
    each array member a qd.ndarray / qd.Vector.ndarray / qd.Matrix.ndarray whose element type and
    number of axes are read from the builder function of array_class that returns StructX
    (V(dtype=..., shape=(a, b)), V_VEC(3, dtype=..., shape=...), maybe_shape(...), a shape
    variable of that function); nested structs recursively;
  * the static config classes (StructRigidSimStaticConfig, ...) built with their annotated
    names (bool False, int 0 / their default);
  * an untyped qd.types.ndarray(): its number of axes from the kernel's subscripts of it (and
    those of the module's qd.funcs it is passed to), in the code the driver's configs and
    template flags keep (`if qd.static(flag == 0)`); a vector ndarray when subscripted twice
    (a[i][j]); its element type bool when an element is the operand of `not`, int when its name
    says index (idx, _start, _n, ...) or its values index arrays, else gs.qd_float;
  * the static configs' solver_type: Genesis's default, gs.constraint_solver.Newton;
  * bvh_nodes / bvh_morton_codes (qd.template()): fields declared as LBVH declares them;
  * a qd.template() parameter the kernel subscripts: a field of the driver (a vector field when
    subscripted twice); other qd.template() flags: False; scalars: 0 / 0.5.

Placeholders only fix types: the values qdc sees are what Genesis builds at scene set-up only
in their element types and numbers of axes. A kernel this cannot describe is written anyway
(the compile then says what is missing). Reads the source with Python's ast; never imports it.
"""
import ast
import os
import re
import sys

VEC = {f"qd_vec{n}": (n, 0, "gs.qd_float") for n in (2, 3, 4, 6, 7, 11)}
VEC.update({f"qd_ivec{n}": (n, 0, "gs.qd_int") for n in (2, 3, 4)})
VEC.update({"qd_mat3": (3, 3, "gs.qd_float"), "qd_mat4": (4, 4, "gs.qd_float")})
INDEX = re.compile(r"(idx|_start|_end|_n$|^n_|count|_id$|offset|flag|mask|errno|_cnt|num)", re.I)


def dotted(e):
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        d = dotted(e.value)
        return d and f"{d}.{e.attr}"
    return None


class ArrayClass:
    """What array_class.py declares: dataclass members, configs, aliases, builders' arrays."""

    def __init__(self, path):
        tree = ast.parse(open(path).read())
        self.members, self.configs, self.aliases, self.arrays, self.by_builder = {}, {}, {}, {}, {}
        self.builds = {}  # a builder's name (get_mpr_state: mpr_state) -> the Struct class it returns
        self.grads = set()  # (Struct class, member) built with needs_grad=<not False>
        self.read_grad = set()  # members whose .grad the module being driven reads (x.vel.grad[...])
        self.plain = {"V_ANNOTATION"}  # names standing for an untyped array (X = V_ANNOTATION)
        self.by_name = {}  # an array's name (a builder's keyword, self.X = V(...)) -> its description
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                decos = [dotted(d) for d in node.decorator_list]
                fields = [(s.target.id, s.annotation, s.value) for s in node.body
                          if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
                if "DATA_ORIENTED" in decos:
                    self.members[node.name] = [(n, dotted(a)) for n, a, _ in fields]
                elif "qd.data_oriented" in decos:
                    self.configs[node.name] = fields
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.IfExp) and len(node.targets) == 1:
                body = dotted(node.value.body)
                if isinstance(node.targets[0], ast.Name) and body:
                    self.aliases[node.targets[0].id] = body
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in self.plain:
                self.plain.update(t.id for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.FunctionDef):
                self.builder(node)
        for s in ast.walk(tree):  # self.errno = V(dtype=gs.qd_int, shape=(solver._B,)) in a class
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Attribute) \
                    and isinstance(s.value, ast.Call) and self.array(s.value, {}):
                self.name(s.targets[0].attr, self.array(s.value, {}))

    def builder(self, fn):
        shapes = {}
        for s in ast.walk(fn):
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
                shapes[s.targets[0].id] = s.value
        for s in ast.walk(fn):
            if isinstance(s, ast.Call) and isinstance(s.func, ast.Name) and s.func.id.startswith("Struct"):
                arrays = self.arrays.setdefault(s.func.id, {})
                mine = self.by_builder.setdefault(fn.name[4:] if fn.name.startswith("get_") else fn.name, {})
                if any(isinstance(r, ast.Return) and r.value is s for r in ast.walk(fn)):
                    self.builds[fn.name[4:] if fn.name.startswith("get_") else fn.name] = s.func.id
                for kw in s.keywords:  # of two returns (a 0-d stand-in, the real one), the most axes
                    if kw.arg and isinstance(kw.value, ast.Call) and any(
                            k.arg == "needs_grad" and not (isinstance(k.value, ast.Constant) and not k.value.value)
                            for k in kw.value.keywords):
                        self.grads.add((s.func.id, kw.arg))  # V(..., needs_grad=requires_grad): may have a .grad
                    if kw.arg and isinstance(kw.value, ast.Call):
                        desc = self.array(kw.value, shapes)
                        for table in (arrays, mine, self.by_name):
                            if desc and (not table.get(kw.arg) or desc[3] > table[kw.arg][3]):
                                table[kw.arg] = desc

    def name(self, name, desc):
        """Remembers desc for arrays called name, the one with the most axes (a builder's shape=()
        stand-in for a disabled feature is not the array's real shape)."""
        if desc and (name not in self.by_name or desc[3] > self.by_name[name][3]):
            self.by_name[name] = desc

    def array(self, call, shapes):
        fn = dotted(call.func)
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        if fn == "V_SCALAR_FROM":  # a 0-d array holding one value
            return (0, 0, dotted(kw.get("dtype")) or "gs.qd_float", 0)
        if fn not in ("V", "V_VEC", "V_MAT"):
            return None
        ndim = self.ndim(kw.get("shape"), shapes)
        dtype = dotted(kw.get("dtype")) or "gs.qd_float"
        n = m = 0
        if fn == "V_VEC":
            n = self.const(kw.get("n") or (call.args[0] if call.args else None))
        if fn == "V_MAT":
            n = self.const(kw.get("n") or (call.args[0] if call.args else None))
            m = self.const(kw.get("m") or (call.args[1] if len(call.args) > 1 else None))
        leaf = dtype.split(".")[-1]
        if leaf in VEC:
            n, m, dtype = VEC[leaf]
        return (n, m, dtype, ndim)

    @staticmethod
    def const(e):
        return e.value if isinstance(e, ast.Constant) and isinstance(e.value, int) else 3

    def ndim(self, e, shapes, depth=0):
        if e is None or depth > 4:
            return 1
        if isinstance(e, ast.Tuple):
            return len(e.elts)
        if isinstance(e, ast.Name) and e.id in shapes:
            return self.ndim(shapes[e.id], shapes, depth + 1)
        if isinstance(e, ast.Call) and dotted(e.func) == "maybe_shape" and e.args:
            return self.ndim(e.args[0], shapes, depth + 1)
        if isinstance(e, ast.BinOp):  # (a,) + shape
            return self.ndim(e.left, shapes, depth + 1) + self.ndim(e.right, shapes, depth + 1)
        if isinstance(e, ast.Constant) and isinstance(e.value, int):
            return 1
        return 1

    def build(self, cls, var, depth=0, axes=None):
        """Python text that builds an instance of dataclass cls (var: the parameter or member it is for:
        get_<var> of array_class, when there is one, says its arrays)."""
        args = []
        own = self.by_builder.get(var, {})
        for name, ann in self.members.get(cls, []):
            if ann and ann.startswith("Struct") and ann in self.members:
                args.append(f"{name}={self.build(ann, name, depth + 1)}")
                continue
            n, m, dtype, ndim = (own.get(name) or self.arrays.get(cls, {}).get(name) or (0, 0, "gs.qd_float", 1))
            ndim = max(ndim, (axes or {}).get(name, 0))  # x.vgeom_start[i_l, i_b] in a kernel run only when batched
            shape = "(" + ", ".join(["2"] * ndim) + ("," if ndim == 1 else "") + ")"  # ndim 0: ()
            grad = ", needs_grad=True" if (cls, name) in self.grads and name in self.read_grad else ""
            if n and m:
                args.append(f"{name}=qd.Matrix.ndarray({n}, {m}, {dtype}, {shape}{grad})")
            elif n:
                args.append(f"{name}=qd.Vector.ndarray({n}, {dtype}, {shape}{grad})")
            else:
                args.append(f"{name}=qd.ndarray({dtype}, {shape}{grad})")
        return f"array_class.{cls}(" + ", ".join(args) + ")"

    def config(self, cls):
        args = []
        for name, ann, dflt in self.configs.get(cls, []):
            if dflt is not None:
                continue
            t = dotted(ann)
            args.append(f"{name}={CONFIG_DEFAULTS.get(name, 'False' if t == 'bool' else '0')}")
        return f"array_class.{cls}(" + ", ".join(args) + ")"


def used_as_index(fn, name):
    """Whether values read from name end up indexing an array or bounding a range (x = name[i];
    y = [x, i_b]; a[y] / range(x)), followed through assignments."""
    reads, grew = set(), True
    while grew:
        grew = False
        for s in ast.walk(fn):
            if not isinstance(s, ast.Assign):
                continue
            names = {n.id for n in ast.walk(s.value) if isinstance(n, ast.Name)}
            src = any(isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == name for n in ast.walk(s.value))
            if src or names & reads:
                for t in s.targets:  # x = name[i], (x, y) = ...: not a[i] = name[j] (a stores, i indexes)
                    for n in ([t] if isinstance(t, ast.Name) else t.elts if isinstance(t, ast.Tuple) else []):
                        if isinstance(n, ast.Name) and n.id not in reads:
                            reads.add(n.id), (grew := True)
    for s in ast.walk(fn):
        slots = [s.slice] if isinstance(s, ast.Subscript) else s.args if isinstance(s, ast.Call) and dotted(s.func) == "range" else []
        for e in slots:
            for n in ast.walk(e):
                if isinstance(n, ast.Name) and n.id in reads:
                    return True
                if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == name:
                    return True
    return False


def used_in_bits(fn, name):
    """Whether an element of name is an operand of a bitwise atomic or operator (qd.atomic_or(flag,
    name[i]), name[i] & m): Quadrants takes integer operands only there."""
    for s in ast.walk(fn):
        ops = s.args if isinstance(s, ast.Call) and (dotted(s.func) or "").split(".")[-1] in ("atomic_or", "atomic_and", "atomic_xor") \
            else [s.left, s.right] if isinstance(s, ast.BinOp) and isinstance(s.op, (ast.BitOr, ast.BitAnd, ast.BitXor, ast.LShift, ast.RShift)) else []
        for o in ops:
            if isinstance(o, ast.Subscript) and isinstance(o.value, ast.Name) and o.value.id == name:
                return True
    return False


def used_as_bool(fn, name):
    """Whether an element of name is the operand of `not` (Quadrants' logic_not takes integral
    inputs only: a mask, a bool array)."""
    for s in ast.walk(fn):
        if isinstance(s, ast.UnaryOp) and isinstance(s.op, ast.Not) and isinstance(s.operand, ast.Subscript) \
                and isinstance(s.operand.value, ast.Name) and s.operand.value.id == name:
            return True
    return False


def element_width(fn, name):
    """For name[i][j] (a vector element read or written component-wise): the vector's length, from
    the largest constant component index or the qd.static(range(n)) its index runs over; 0 when
    name is not subscripted twice."""
    statics = {}
    for s in ast.walk(fn):
        if isinstance(s, ast.For) and isinstance(s.target, ast.Name) and isinstance(s.iter, ast.Call):
            it = s.iter.args[0] if dotted(s.iter.func) == "qd.static" and s.iter.args else s.iter
            if isinstance(it, ast.Call) and dotted(it.func) == "range" and len(it.args) == 1 \
                    and isinstance(it.args[0], ast.Constant):
                statics[s.target.id] = it.args[0].value
    n = 0
    for s in ast.walk(fn):
        if isinstance(s, ast.Subscript) and isinstance(s.value, ast.Subscript) and isinstance(s.value.value, ast.Name) \
                and s.value.value.id == name:
            i = s.slice
            if isinstance(i, ast.Constant) and isinstance(i.value, int):
                n = max(n, i.value + 1)
            elif isinstance(i, ast.Name) and i.id in statics:
                n = max(n, statics[i.id])
            else:
                n = max(n, 3)
    return n


def static_truth(e, templates=()):
    """The value of an `if qd.static(...)` test under the driver's configs (every flag False, every
    number 0): True / False, or None when it depends on more than that."""
    if isinstance(e, ast.Call) and dotted(e.func) == "qd.static" and len(e.args) == 1:
        return static_truth(e.args[0], templates)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        v = static_truth(e.operand, templates)
        return None if v is None else not v
    if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id in CONFIGS:
        return False
    if isinstance(e, ast.Name) and e.id in templates:  # a qd.template() flag the driver passes False (0)
        return False
    if isinstance(e, ast.Compare) and len(e.ops) == 1 and isinstance(e.left, ast.Name) and e.left.id in templates \
            and isinstance(e.comparators[0], ast.Constant) and isinstance(e.ops[0], (ast.Eq, ast.NotEq)):
        return (e.comparators[0].value == 0) == isinstance(e.ops[0], ast.Eq)  # flag == 0 with flag False
    return None


def template_flags(fn):
    return {p.arg for p in fn.args.args if isinstance(p.annotation, ast.Call) and dotted(p.annotation.func) == "qd.template"
            and p.arg not in CONFIGS}


def live_nodes(node, templates=()):
    """The nodes of node the driver's instance compiles: an `if qd.static(flag)` contributes only
    the branch its configs and template flags (all False) take."""
    if isinstance(node, ast.If):
        v = static_truth(node.test, templates)
        if v is not None and isinstance(node.test, ast.Call):
            for s in (node.body if v else node.orelse):
                yield from live_nodes(s, templates)
            return
    yield node
    for child in ast.iter_child_nodes(node):
        yield from live_nodes(child, templates)


def subscript_ndim(fn, name, funcs=None, depth=0):
    """The number of axes of name's subscripts in fn's live code, followed into the qd.funcs of the
    module fn passes name to (by position or keyword)."""
    nd = 0
    grouped = {}  # for J in qd.static(qd.grouped(qd.ndrange(4, 4))): J spreads (*J) into 2 indices
    for s in ast.walk(fn):
        if isinstance(s, ast.For) and isinstance(s.target, ast.Name):
            for c in ast.walk(s.iter):
                if isinstance(c, ast.Call) and (dotted(c.func) or "").endswith("ndrange"):
                    grouped[s.target.id] = len(c.args)
    for s in live_nodes(fn, template_flags(fn)):
        if isinstance(s, ast.Subscript) and isinstance(s.value, ast.Name) and s.value.id == name:
            nd = max(nd, sum(grouped.get(e.value.id, 1) if isinstance(e, ast.Starred) and isinstance(e.value, ast.Name) else 1
                             for e in s.slice.elts) if isinstance(s.slice, ast.Tuple) else 1)
        if funcs and depth < 4 and isinstance(s, ast.Call) and isinstance(s.func, ast.Name) and s.func.id in funcs:
            callee = funcs[s.func.id]
            params = [p.arg for p in callee.args.args]
            for i, a in enumerate(s.args):
                if isinstance(a, ast.Name) and a.id == name and i < len(params):
                    nd = max(nd, subscript_ndim(callee, params[i], funcs, depth + 1))
            for k in s.keywords:
                if isinstance(k.value, ast.Name) and k.value.id == name and k.arg in params:
                    nd = max(nd, subscript_ndim(callee, k.arg, funcs, depth + 1))
    return nd if nd or depth else 1


def grads_read(fn, funcs):
    """The members whose gradient fn or the module's qd.funcs it calls read or write (x.vel.grad[...]):
    the driver gives those (when their builder passes needs_grad=) needs_grad=True."""
    got, seen, todo = set(), set(), [fn]
    while todo:
        f = todo.pop()
        if f.name in seen:
            continue
        seen.add(f.name)
        for e in ast.walk(f):
            if isinstance(e, ast.Attribute) and e.attr == "grad" and isinstance(e.value, ast.Attribute):
                got.add(e.value.attr)
            if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in funcs:
                todo.append(funcs[e.func.id])
    return got


def attrs_read(fn, name, funcs=None, depth=0):
    """The attributes of name (name.X) read in fn's live code, followed into the module's qd.funcs
    fn passes name to (by position or keyword)."""
    got = set()
    for s in live_nodes(fn, template_flags(fn)):
        if isinstance(s, ast.Attribute) and isinstance(s.value, ast.Name) and s.value.id == name:
            got.add(s.attr)
        if funcs and depth < 4 and isinstance(s, ast.Call) and isinstance(s.func, ast.Name) and s.func.id in funcs:
            callee = funcs[s.func.id]
            params = [p.arg for p in callee.args.args]
            for i, a in enumerate(s.args):
                if isinstance(a, ast.Name) and a.id == name and i < len(params):
                    got |= attrs_read(callee, params[i], funcs, depth + 1)
            for k in s.keywords:
                if isinstance(k.value, ast.Name) and k.value.id == name and k.arg in params:
                    got |= attrs_read(callee, k.arg, funcs, depth + 1)
    return got


class Classes:
    """The @qd.data_oriented classes of a Genesis tree: the attributes their __init__ sets
    (self.X = ...) and its parameters, to build a program's own object for a qd.template()
    parameter whose attributes a kernel reads."""

    def __init__(self, root):
        self.found = {}  # class name -> (module, attributes, [(param, annotation, has default)])
        for d, _, files in os.walk(os.path.join(root, "genesis")):
            for f in sorted(files):
                path = os.path.join(d, f)
                if not f.endswith(".py") or "@qd.data_oriented" not in open(path).read():
                    continue
                mod = os.path.relpath(path, root)[:-3].replace("/", ".")
                for c in ast.parse(open(path).read()).body:
                    if not isinstance(c, ast.ClassDef) or "qd.data_oriented" not in [dotted(x) for x in c.decorator_list]:
                        continue
                    init = next((m for m in c.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"), None)
                    if not init:
                        continue
                    attrs = {t.attr for s in ast.walk(init) if isinstance(s, ast.Assign) for t in s.targets
                             if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"}
                    nd = len(init.args.args) - len(init.args.defaults)
                    params = [(a.arg, dotted(a.annotation), i >= nd) for i, a in enumerate(init.args.args[1:], 1)]
                    self.found[c.name] = (mod, attrs, params)

    def build(self, want, objects, depth=0):
        """The name of a driver variable holding an instance of the class whose __init__ sets every
        attribute of want (of several, the one that sets fewest: LBVH copies AABB's aabbs; its
        parameters: a class of the tree built the same way, else 4), adding (variable, module, class,
        arguments) to objects; None when no class fits or two fit equally."""
        fits = sorted((len(attrs), c) for c, (_, attrs, _) in self.found.items() if want and want <= attrs)
        if not fits or (len(fits) > 1 and fits[0][0] == fits[1][0]) or depth > 3:
            return None
        cls = fits[0][1]
        mod, _, params = self.found[cls]
        args = []
        for name, ann, dflt in params:
            if ann in self.found:
                sub = self.build(self.found[ann][1], objects, depth + 1) if ann != cls else None
                if not sub:
                    return None
                args.append(f"{name}={sub}")
            elif not dflt:
                if ann not in (None, "int"):
                    return None
                args.append(f"{name}=4")
        var = f"object_{cls}"
        if all(o[0] != var for o in objects):
            objects.append((var, mod, cls, ", ".join(args)))
        return var


# Config members whose placeholder is Genesis's default option rather than 0: solver_type is
# RigidOptions.constraint_solver, gs.constraint_solver.Newton (0 is CG, whose branch of
# backward.py's kernel_solve_adjoint_u reads static_rigid_sim_config.iterations, a member
# StructRigidSimStaticConfig does not have: Quadrants raises AttributeError there too).
CONFIG_DEFAULTS = {"solver_type": "gs.constraint_solver.Newton"}

# qd.template() fields Genesis passes from its LBVH (genesis/engine/bvh.py: raycaster.py passes
# self._bvh.nodes, self._bvh.morton_codes), declared as LBVH.__init__ declares them: a field of
# Node structs (left, right, parent, an AABB bound of two vec3) and a field of (morton code,
# index) u32 pairs. qdc does not evaluate LBVH(AABB(...)) itself (its Node dataclass is made in
# __init__ from the AABB object's dataclass).
TEMPLATE_FIELDS = {
    "bvh_nodes": "BvhNode.field(shape=(2, 3))",
    "bvh_morton_codes": "qd.field(qd.types.vector(2, qd.u32), shape=(2, 2))",
}
TEMPLATE_TYPES = {  # the struct types those fields need, declared before them
    "bvh_nodes": ["BvhAABB = qd.types.struct(min=gs.qd_vec3, max=gs.qd_vec3)",
                  "BvhNode = qd.types.struct(left=qd.i32, right=qd.i32, parent=qd.i32, bound=BvhAABB)"],
}

CONFIGS = {"static_rigid_sim_config": "StructRigidSimStaticConfig", "collider_static_config": "StructColliderStaticConfig",
           "gjk_static_config": "StructGJKStaticConfig"}


def argument(ac, fn, p, configs, funcs=None, fields=None, classes=None, objects=None):
    ann = p.annotation
    d = dotted(ann)
    if d and d.startswith("array_class.") and d.split(".", 1)[1] in ac.plain:
        known = ac.by_name.get(p.arg)  # an array the builders name as the parameter is named
        if known and (known[3] or known[0]):
            n, m, dt, ndim = known
            shape = "(" + ", ".join(["2"] * ndim) + ("," if ndim == 1 else "") + ")"
            return (f"qd.Matrix.ndarray({n}, {m}, {dt}, {shape})" if m else f"qd.Vector.ndarray({n}, {dt}, {shape})"
                    if n else f"qd.ndarray({dt}, {shape})")
        ann = ast.Call(func=ast.Attribute(value=ast.Attribute(value=ast.Name("qd"), attr="types"), attr="ndarray"),
                       args=[], keywords=[])
    elif d and d.startswith("array_class."):
        cls = ac.aliases.get(d.split(".", 1)[1], d.split(".", 1)[1])
        axes = {}  # param.member[a, b]: the member has at least that many axes
        for s in live_nodes(fn, template_flags(fn)):
            if isinstance(s, ast.Subscript) and isinstance(s.value, ast.Attribute) and isinstance(s.value.value, ast.Name) \
                    and s.value.value.id == p.arg and isinstance(s.slice, ast.Tuple):
                axes[s.value.attr] = max(axes.get(s.value.attr, 0), len(s.slice.elts))
        return ac.build(cls, p.arg, axes=axes) if cls in ac.members else None
    if isinstance(ann, ast.Call) and dotted(ann.func) in ("qd.types.ndarray", "qd.types.NDArray"):
        kw = {k.arg: k.value for k in ann.keywords if k.arg}
        dt = dotted(kw.get("dtype") or (ann.args[0] if ann.args else None))
        nd = kw.get("ndim") or (ann.args[1] if len(ann.args) > 1 else None)
        ndim = nd.value if isinstance(nd, ast.Constant) else subscript_ndim(fn, p.arg, funcs)
        width = element_width(fn, p.arg)
        if not dt and width:  # a[i][j]: an ndarray of vectors
            return f"qd.Vector.ndarray({width}, gs.qd_float, (" + ", ".join(["2"] * ndim) + ("," if ndim == 1 else "") + "))"
        dt = dt or ("gs.qd_bool" if used_as_bool(fn, p.arg) else
                    "gs.qd_int" if INDEX.search(p.arg) or used_as_index(fn, p.arg) or used_in_bits(fn, p.arg) else "gs.qd_float")
        if dt.split(".")[-1] in VEC:
            n, m, base = VEC[dt.split(".")[-1]]
            shape = "(" + ", ".join(["2"] * ndim) + ("," if ndim == 1 else "") + ")"
            return f"qd.Matrix.ndarray({n}, {m}, {base}, {shape})" if m else f"qd.Vector.ndarray({n}, {base}, {shape})"
        shape = "(" + ", ".join(["2"] * ndim) + ("," if ndim == 1 else "") + ")"
        return f"qd.ndarray({dt}, {shape})"
    if isinstance(ann, ast.Call) and dotted(ann.func) == "qd.template":
        if p.arg in CONFIGS:
            configs[p.arg] = CONFIGS[p.arg]
            return p.arg
        if p.arg in ac.builds and ac.builds[p.arg] in ac.members:  # mpr_state: what get_mpr_state builds
            return ac.build(ac.builds[p.arg], p.arg)
        if classes is not None and objects is not None:  # aabb_state.aabbs[...]: the program's class that sets .aabbs
            obj = classes.build(attrs_read(fn, p.arg, funcs), objects)
            if obj:
                return obj
        if p.arg in TEMPLATE_FIELDS and fields is not None:
            fields[f"field_{p.arg}"] = TEMPLATE_FIELDS[p.arg]
            return f"field_{p.arg}"
        ndim = subscript_ndim(fn, p.arg, funcs, 1)
        if ndim and fields is not None:  # subscripted: a field (Genesis passes its fields as templates)
            width, shape = element_width(fn, p.arg), "(" + ", ".join(["2"] * ndim) + ("," if ndim == 1 else "") + ")"
            fields[f"field_{p.arg}"] = (f"qd.Vector.field({width}, gs.qd_float, shape={shape})" if width
                                        else f"qd.field(gs.qd_float, shape={shape})")
            return f"field_{p.arg}"
        return "False"
    if d in ("int", "qd.i32", "gs.qd_int", "qd.i64", "qd.u32"):
        return "1"
    if d in ("float", "qd.f32", "gs.qd_float", "qd.f64"):
        return "0.5"
    if d in ("bool", "qd.u1", "gs.qd_bool"):
        return "False"
    return None


def main(root, module, outdir):
    ac = ArrayClass(os.path.join(root, "genesis/utils/array_class.py"))
    classes = Classes(root)
    rel = os.path.relpath(module, root)
    modname = rel[:-3].replace("/", ".")
    tree = ast.parse(open(module).read())
    os.makedirs(outdir, exist_ok=True)
    written = []
    funcs = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)
             and any((dotted(d.func if isinstance(d, ast.Call) else d) or "") == "qd.func" for d in f.decorator_list)}
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        if not any((dotted(d.func if isinstance(d, ast.Call) else d) or "") == "qd.kernel" for d in fn.decorator_list):
            continue
        configs, args, fields, objects = {}, [], {}, []
        ac.read_grad = grads_read(fn, funcs)
        for p in fn.args.args:
            args.append(argument(ac, fn, p, configs, funcs, fields, classes, objects) or "None")
        lines = ["import quadrants as qd", "import genesis as gs", "import genesis.utils.array_class as array_class",
                 f"import {modname} as target", ""]
        for name, cls in configs.items():
            lines.append(f"{name} = {ac.config(cls)}")
        for name, decl in fields.items():
            lines += TEMPLATE_TYPES.get(name[len("field_"):], [])
            lines.append(f"{name} = {decl}")
        for var, mod, cls, cargs in objects:
            lines += [f"from {mod} import {cls}", f"{var} = {cls}({cargs})"]
        lines += ["", "", "def drive():", f"    target.{fn.name}(" + ", ".join(args) + ")", ""]
        path = os.path.join(outdir, f"{fn.name}.py")
        open(path, "w").write("\n".join(lines))
        written.append(path)
    print("\n".join(written))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
