/* qd.algorithms (Quadrants' device algorithms library; qdc-lang(7), "ALGORITHMS"): the
 * graph-composable qd.funcs reduce_add/min/max, exclusive_scan_add/min/max, select,
 * reduce_by_key_add and sort, called at the top level of a user's kernel, and the host- and
 * kernel-callable sizing helpers (*_scratch_slots, _reduce_depth_for_n, _min_log256_for_n).
 * qdc defines them in its own source text below, evaluated once per compile in a scope of its
 * own (as sema_tile.c builds the tiles), so they are ordinary kernel code every backend compiles.
 *
 * Their results are Quadrants': out[0] = the reduction of arr[0:n] (the op's identity when n is
 * 0), out[i] = the exclusive scan, select's stable compaction and count, reduce_by_key's runs of
 * equal consecutive keys, sort's stable ascending order of keys[0:n[()]] by the low end_bit bits
 * of the radix order (signed and float keys mapped as Quadrants' twiddle does), values following.
 * The algorithms are not: reduce is one parallel loop of atomics, the others one serial loop
 * each (sort a bottom-up merge sort through tmp_keys / tmp_values), and scratch is not written.
 * The helpers compute Quadrants' slot counts exactly, so programs size their buffers as before.
 * The deprecated host objects PrefixSumExecutor and parallel_sort are host values whose library
 * kernels qdc does not compile. */
#include "sema.h"
#include "../support/diag.h"
#include <string.h>

static const char algo_text[] =
    "import quadrants as qd\n"
    "\n"
    "BLOCK_DIM = 256\n"
    "\n"
    "\n"
    "def _reduce_depth_for_n(n):\n"
    "    depth = 1\n"
    "    cap = BLOCK_DIM\n"
    "    while cap < n:\n"
    "        cap *= BLOCK_DIM\n"
    "        depth += 1\n"
    "    return depth\n"
    "\n"
    "\n"
    "def _min_log256_for_n(n):\n"
    "    return _reduce_depth_for_n(n)\n"
    "\n"
    "\n"
    "def _at_least_one(slots):\n"
    "    return slots + (slots < 1)\n"
    "\n"
    "\n"
    "def _level_partials_slots(n, start_cursor=0):\n"
    "    cursor = start_cursor\n"
    "    t = n\n"
    "    for _ in range(8):\n"
    "        t = (t + BLOCK_DIM - 1) // BLOCK_DIM\n"
    "        cursor = cursor + t * (t > 1)\n"
    "    return cursor\n"
    "\n"
    "\n"
    "def reduce_scratch_slots(n, log256_max_n=None):\n"
    "    if log256_max_n is None:\n"
    "        log256_max_n = _reduce_depth_for_n(n)\n"
    "    if log256_max_n > 4:\n"
    "        raise ValueError(f\"log256_max_n={log256_max_n} exceeds the maximum of 4\")\n"
    "    cursor = 0\n"
    "    cur = n\n"
    "    for _ in range(log256_max_n - 1):\n"
    "        cur = (cur + (BLOCK_DIM - 1)) // BLOCK_DIM\n"
    "        cursor = cursor + cur\n"
    "    return _at_least_one(cursor)\n"
    "\n"
    "\n"
    "def exclusive_scan_scratch_slots(n, log256_max_n=None):\n"
    "    if log256_max_n is None:\n"
    "        log256_max_n = _reduce_depth_for_n(n)\n"
    "    if log256_max_n > 4:\n"
    "        raise ValueError(f\"log256_max_n={log256_max_n} exceeds the maximum of 4\")\n"
    "    if log256_max_n <= 1:\n"
    "        return 1\n"
    "    cursor = (n + (BLOCK_DIM - 1)) // BLOCK_DIM\n"
    "    cur = cursor\n"
    "    for _ in range(log256_max_n - 2):\n"
    "        cur = (cur + (BLOCK_DIM - 1)) // BLOCK_DIM\n"
    "        cursor = cursor + cur\n"
    "    return _at_least_one(cursor)\n"
    "\n"
    "\n"
    "def select_scratch_slots(n):\n"
    "    pos = n > 0\n"
    "    b0 = (n + BLOCK_DIM - 1) // BLOCK_DIM\n"
    "    return _at_least_one(_level_partials_slots(b0, n + b0) * pos)\n"
    "\n"
    "\n"
    "def reduce_by_key_scratch_slots(n):\n"
    "    pos = n > 0\n"
    "    big = n > BLOCK_DIM\n"
    "    small_pos = pos * (1 - big)\n"
    "    b0 = (n + BLOCK_DIM - 1) // BLOCK_DIM\n"
    "    return _at_least_one(n * small_pos + _level_partials_slots(b0, n + b0) * big)\n"
    "\n"
    "\n"
    "def sort_scratch_slots(n, log256_max_n=None):\n"
    "    if log256_max_n is None:\n"
    "        log256_max_n = _min_log256_for_n(n)\n"
    "    if log256_max_n > 4:\n"
    "        raise ValueError(f\"log256_max_n={log256_max_n} exceeds the maximum of 4\")\n"
    "    hist_len = (n + (BLOCK_DIM - 1)) // BLOCK_DIM * 256\n"
    "    cursor = hist_len\n"
    "    nn = hist_len\n"
    "    for _ in range(log256_max_n - 1):\n"
    "        b = (nn + (BLOCK_DIM - 1)) // BLOCK_DIM\n"
    "        cursor = cursor + b\n"
    "        nn = b\n"
    "    return _at_least_one(cursor)\n"
    "\n"
    "\n"
    "@qd.func\n"
    "def _identity(dtype: qd.template(), op: qd.template()):\n"
    "    r = qd.cast(0, dtype)\n"
    "    if qd.static(op == 1 and (dtype == qd.f32 or dtype == qd.f64)):\n"
    "        r = qd.cast(qd.math.inf, dtype)\n"
    "    elif qd.static(op == 2 and (dtype == qd.f32 or dtype == qd.f64)):\n"
    "        r = qd.cast(-qd.math.inf, dtype)\n"
    "    elif qd.static(op == 1 and dtype == qd.i32):\n"
    "        r = qd.i32(2147483647)\n"
    "    elif qd.static(op == 2 and dtype == qd.i32):\n"
    "        r = qd.i32(-2147483648)\n"
    "    elif qd.static(op == 1 and dtype == qd.u32):\n"
    "        r = qd.bit_cast(qd.i32(-1), qd.u32)\n"
    "    elif qd.static(op == 1 and dtype == qd.i64):\n"
    "        r = qd.i64(9223372036854775807)\n"
    "    elif qd.static(op == 2 and dtype == qd.i64):\n"
    "        r = qd.bit_cast(qd.u64(1) << qd.u64(63), qd.i64)\n"
    "    elif qd.static(op == 1 and dtype == qd.u64):\n"
    "        r = qd.bit_cast(qd.i64(-1), qd.u64)\n"
    "    return r\n"
    "\n"
    "\n"
    "@qd.func\n"
    "def _combine(a, b, op: qd.template()):\n"
    "    r = a\n"
    "    if qd.static(op == 0):\n"
    "        r = a + b\n"
    "    elif qd.static(op == 1):\n"
    "        r = qd.min(a, b)\n"
    "    else:\n"
    "        r = qd.max(a, b)\n"
    "    return r\n"
    "\n"
    "\n"
    "@qd.func\n"
    "def _reduce(arr: qd.template(), out: qd.template(), n: qd.i32, dtype: qd.template(), op: qd.template()):\n"
    "    out[0] = _identity(dtype, op)\n"
    "    for i in range(n):\n"
    "        if qd.static(op == 0):\n"
    "            qd.atomic_add(out[0], arr[i])\n"
    "        elif qd.static(op == 1):\n"
    "            qd.atomic_min(out[0], arr[i])\n"
    "        else:\n"
    "            qd.atomic_max(out[0], arr[i])\n"
    "\n"
    "\n"
    "@qd.func(requires_top_level=True)\n"
    "def reduce_add(arr: qd.template(), out: qd.template(), scratch: qd.template(), n: qd.i32, dtype: qd.template(), log256_max_n: qd.template()):\n"
    "    qd.static_assert(log256_max_n <= 4, \"log256_max_n exceeds the maximum of 4\")\n"
    "    _reduce(arr, out, n, dtype, 0)\n"
    "\n"
    "\n"
    "@qd.func(requires_top_level=True)\n"
    "def reduce_min(arr: qd.template(), out: qd.template(), scratch: qd.template(), n: qd.i32, dtype: qd.template(), log256_max_n: qd.template()):\n"
    "    qd.static_assert(log256_max_n <= 4, \"log256_max_n exceeds the maximum of 4\")\n"
    "    _reduce(arr, out, n, dtype, 1)\n"
    "\n"
    "\n"
    "@qd.func(requires_top_level=True)\n"
    "def reduce_max(arr: qd.template(), out: qd.template(), scratch: qd.template(), n: qd.i32, dtype: qd.template(), log256_max_n: qd.template()):\n"
    "    qd.static_assert(log256_max_n <= 4, \"log256_max_n exceeds the maximum of 4\")\n"
    "    _reduce(arr, out, n, dtype, 2)\n"
    "\n"
    "\n"
    "@qd.func\n"
    "def _scan(arr: qd.template(), out: qd.template(), n: qd.i32, dtype: qd.template(), op: qd.template()):\n"
    "    for _ in range(1):\n"
    "        acc = _identity(dtype, op)\n"
    "        for i in range(n):\n"
    "            v = arr[i]\n"
    "            out[i] = acc\n"
    "            acc = _combine(acc, v, op)\n"
    "\n"
    "\n"
    "@qd.func(requires_top_level=True)\n"
    "def exclusive_scan_add(arr: qd.template(), out: qd.template(), scratch: qd.template(), n: qd.i32, dtype: qd.template(), log256_max_n: qd.template()):\n"
    "    qd.static_assert(log256_max_n <= 4, \"log256_max_n exceeds the maximum of 4\")\n"
    "    _scan(arr, out, n, dtype, 0)\n"
    "\n"
    "\n"
    "@qd.func(requires_top_level=True)\n"
    "def exclusive_scan_min(arr: qd.template(), out: qd.template(), scratch: qd.template(), n: qd.i32, dtype: qd.template(), log256_max_n: qd.template()):\n"
    "    qd.static_assert(log256_max_n <= 4, \"log256_max_n exceeds the maximum of 4\")\n"
    "    _scan(arr, out, n, dtype, 1)\n"
    "\n"
    "\n"
    "@qd.func(requires_top_level=True)\n"
    "def exclusive_scan_max(arr: qd.template(), out: qd.template(), scratch: qd.template(), n: qd.i32, dtype: qd.template(), log256_max_n: qd.template()):\n"
    "    qd.static_assert(log256_max_n <= 4, \"log256_max_n exceeds the maximum of 4\")\n"
    "    _scan(arr, out, n, dtype, 2)\n"
    "\n"
    "\n"
    "@qd.func(requires_top_level=True)\n"
    "def select(arr: qd.template(), flags: qd.template(), out: qd.template(), num_out: qd.template(), scratch: qd.template(), n: qd.i32, log256_max_n: qd.template()):\n"
    "    qd.static_assert(log256_max_n <= 4, \"log256_max_n exceeds the maximum of 4\")\n"
    "    for _ in range(1):\n"
    "        k = 0\n"
    "        for i in range(n):\n"
    "            if flags[i] != 0:\n"
    "                out[k] = arr[i]\n"
    "                k += 1\n"
    "        num_out[0] = k\n"
    "\n"
    "\n"
    "@qd.func(requires_top_level=True)\n"
    "def reduce_by_key_add(keys_in: qd.template(), values_in: qd.template(), keys_out: qd.template(), values_out: qd.template(), num_runs: qd.template(), scratch: qd.template(), n: qd.i32, value_dtype: qd.template(), log256_max_n: qd.template()):\n"
    "    qd.static_assert(log256_max_n <= 4, \"log256_max_n exceeds the maximum of 4\")\n"
    "    for i in range(n):\n"
    "        values_out[i] = qd.cast(0, value_dtype)\n"
    "    for _ in range(1):\n"
    "        r = -1\n"
    "        for i in range(n):\n"
    "            head = i == 0\n"
    "            if i > 0:\n"
    "                head = keys_in[i] != keys_in[i - 1]\n"
    "            if head:\n"
    "                r += 1\n"
    "                keys_out[r] = keys_in[i]\n"
    "            values_out[r] += values_in[i]\n"
    "        num_runs[0] = r + 1\n"
    "\n"
    "\n"
    "@qd.func\n"
    "def _sort_key(k, key_dtype: qd.template(), end_bit: qd.template()):\n"
    "    if qd.static(key_dtype == qd.u32 or key_dtype == qd.i32 or key_dtype == qd.f32):\n"
    "        u = qd.bit_cast(k, qd.u32)\n"
    "        if qd.static(key_dtype == qd.i32):\n"
    "            u = u ^ qd.u32(0x80000000)\n"
    "        elif qd.static(key_dtype == qd.f32):\n"
    "            if (u & qd.u32(0x80000000)) != qd.u32(0):\n"
    "                u = ~u\n"
    "            else:\n"
    "                u = u ^ qd.u32(0x80000000)\n"
    "        if qd.static(end_bit < 32):\n"
    "            u = u & qd.u32((1 << end_bit) - 1)\n"
    "        return qd.u64(u)\n"
    "    else:\n"
    "        w = qd.bit_cast(k, qd.u64)\n"
    "        if qd.static(key_dtype == qd.i64):\n"
    "            w = w ^ (qd.u64(1) << qd.u64(63))\n"
    "        elif qd.static(key_dtype == qd.f64):\n"
    "            if (w & (qd.u64(1) << qd.u64(63))) != qd.u64(0):\n"
    "                w = ~w\n"
    "            else:\n"
    "                w = w ^ (qd.u64(1) << qd.u64(63))\n"
    "        if qd.static(end_bit < 64):\n"
    "            w = w & ((qd.u64(1) << qd.u64(end_bit)) - qd.u64(1))\n"
    "        return w\n"
    "\n"
    "\n"
    "@qd.func(requires_top_level=True)\n"
    "def sort(keys: qd.template(), tmp_keys: qd.template(), values: qd.template(), tmp_values: qd.template(), scratch: qd.template(), n: qd.template(), key_dtype: qd.template(), has_values: qd.template(), end_bit: qd.template(), log256_max_n: qd.template()):\n"
    "    qd.static_assert(log256_max_n <= 4, \"log256_max_n exceeds the maximum of 4\")\n"
    "    for _ in range(1):\n"
    "        count = n[()]\n"
    "        width = 1\n"
    "        while width < count:\n"
    "            lo = 0\n"
    "            while lo < count:\n"
    "                mid = qd.min(lo + width, count)\n"
    "                hi = qd.min(lo + 2 * width, count)\n"
    "                a = lo\n"
    "                b = mid\n"
    "                for j in range(lo, hi):\n"
    "                    take_a = a < mid\n"
    "                    if a < mid and b < hi:\n"
    "                        take_a = _sort_key(keys[a], key_dtype, end_bit) <= _sort_key(keys[b], key_dtype, end_bit)\n"
    "                    if take_a:\n"
    "                        tmp_keys[j] = keys[a]\n"
    "                        if qd.static(has_values):\n"
    "                            tmp_values[j] = values[a]\n"
    "                        a += 1\n"
    "                    else:\n"
    "                        tmp_keys[j] = keys[b]\n"
    "                        if qd.static(has_values):\n"
    "                            tmp_values[j] = values[b]\n"
    "                        b += 1\n"
    "                lo = hi\n"
    "            for j in range(count):\n"
    "                keys[j] = tmp_keys[j]\n"
    "                if qd.static(has_values):\n"
    "                    values[j] = tmp_values[j]\n"
    "            width *= 2\n";

static const char *const public_names[] = {"reduce_add", "reduce_min", "reduce_max", "reduce_scratch_slots", "exclusive_scan_add", "exclusive_scan_min", "exclusive_scan_max", "exclusive_scan_scratch_slots", "select", "select_scratch_slots", "reduce_by_key_add", "reduce_by_key_scratch_slots", "sort", "sort_scratch_slots", "_reduce_depth_for_n", "_min_log256_for_n", "BLOCK_DIM"};

/* NAME of qd.algorithms.NAME or qd.algorithms._module.NAME. */
static const char *algo_name(const char *p) {
    if (strncmp(p, "qd.algorithms.", 14)) return NULL;
    p += 14;
    const char *dot = strchr(p, '.');
    if (dot && *p == '_') p = dot + 1;
    return strchr(p, '.') ? NULL : p;
}

static bool host_object(const char *name) { return !strcmp(name, "PrefixSumExecutor") || !strcmp(name, "parallel_sort"); }

bool sema_is_algo_call(Val f) {
    const char *name = f.kind == V_NS ? algo_name(f.path) : NULL;
    if (!name) return false;
    if (host_object(name)) return true;
    for (size_t k = 0; k < ARRAY_LEN(public_names); k++)
        if (!strcmp(public_names[k], name)) return true;
    return false;
}

/* The library's scope, evaluated on first use. */
static Scope *library(Sema *S, Span at) {
    if (S->algo) return S->algo;
    Source *src = source_new("<qd.algorithms>", algo_text, sizeof algo_text - 1);
    src->library = true;
    if (S->files) vec_push(S->files, src);
    else vec_push(&S->spec_sources, src);
    AstModule *ast = frontend_parse(src, S->arena);
    if (!ast) return NULL;
    Scope *sc = xcalloc(1, sizeof *sc);
    sc->library = true;
    vec_push(&S->host_scopes, sc);
    scope_bind(S, sc, "qd", (Val){.kind = V_NS, .path = "qd"}, at);
    Scope *hscope = S->hscope, *bind_to = S->bind_to, *scope = S->scope;
    IrStmtVec *cur = S->cur;
    const char *prefix = S->prefix;
    bool returned = S->host_returned;
    int loops = S->host_loops;
    S->hscope = sc, S->bind_to = NULL, S->scope = NULL, S->cur = NULL, S->prefix = "", S->host_returned = false, S->host_loops = 0;
    sema_module_body(S, &ast->body);
    S->hscope = hscope, S->bind_to = bind_to, S->scope = scope, S->cur = cur, S->prefix = prefix;
    S->host_returned = returned, S->host_loops = loops, S->host_jump = HJ_NONE;
    return S->algo = sc;
}

Val sema_algo_call(Sema *S, const Expr *call, Val f) {
    const char *name = algo_name(f.path);
    if (host_object(name)) {
        if (!S->k && !S->cur) /* host code: Quadrants' own kernels run on the object; the program's are compiled */
            return (Val){.kind = V_HOST, .path = arena_printf(S->arena, "a qd.algorithms.%s object (Quadrants' deprecated host-side "
                                                                        "algorithms, whose kernels qdc does not compile)", name)};
        diag_error(call->call.fn->span, QD2008, "'%s' is Quadrants' host-side algorithms API; call it outside kernels, or use "
                                                "qd.algorithms.%s in a kernel", f.path, name[0] == 'P' ? "exclusive_scan_add" : "sort");
        return val_err();
    }
    Scope *sc = library(S, call->span);
    Binding *b = sc ? scope_find(sc, name) : NULL;
    if (!b) return diag_error(call->call.fn->span, QD2008, "'%s' is not supported", f.path), val_err();
    return sema_call(S, call, b->v);
}
