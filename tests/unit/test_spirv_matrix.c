/* Support-matrix verification for SPIR-V: one probe kernel per (target, dtype, op); the verdict
 * read with --report-lowering=json must show up in the module as the expected instruction
 * (native: that OpAtomic*, cas: a compare-exchange loop), and unsupported combinations must
 * be located QD4xxx diagnostics (exit 1), never internal errors. */
#include "../../support/util.h"
#include "harness.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *ops[] = {"add", "sub", "mul", "min", "max", "and", "or", "xor",
                            "exchange", "cas", "inc", "dec", "load", "store"};

static char *probe_source(const char *op, const char *dt) {
    char call[96];
    if (!strcmp(op, "cas")) snprintf(call, sizeof call, "qd.atomic_cas(a[i], v, v)");
    else if (!strcmp(op, "load")) snprintf(call, sizeof call, "qd.atomic_load(a[i])");
    else if (!strcmp(op, "store")) snprintf(call, sizeof call, "qd.atomic_store(a[i], v)");
    else snprintf(call, sizeof call, "qd.atomic_%s(a[i], v)", op);
    return xasprintf("import quadrants as qd\n@qd.kernel\n"
                     "def p(a: qd.types.ndarray(dtype=qd.%s, ndim=1), v: qd.%s):\n"
                     "    for i in range(a.shape[0]):\n        %s%s\n",
                     dt, dt, strcmp(op, "store") ? "a[0] = " : "", call);
}

static bool json_has(const char *json, const char *key, const char *val) {
    char pat[96];
    snprintf(pat, sizeof pat, "\"%s\":\"%s\"", key, val);
    return strstr(json, pat) != NULL;
}

/* The instruction a native decision must produce. */
static const char *native_inst(const char *json, bool is_float, bool is_signed) {
    static const struct { const char *op, *i, *f, *s; } rows[] = {
        {"add", "OpAtomicIAdd", "OpAtomicFAddEXT", NULL}, {"sub", "OpAtomicISub", "OpAtomicFAddEXT", NULL},
        {"min", "OpAtomicUMin", "OpAtomicFMinEXT", "OpAtomicSMin"}, {"max", "OpAtomicUMax", "OpAtomicFMaxEXT", "OpAtomicSMax"},
        {"and", "OpAtomicAnd", NULL, NULL}, {"or", "OpAtomicOr", NULL, NULL}, {"xor", "OpAtomicXor", NULL, NULL},
        {"exchange", "OpAtomicExchange", "OpAtomicExchange", NULL}, {"cas", "OpAtomicCompareExchange", NULL, NULL},
        {"load", "OpAtomicLoad", "OpAtomicLoad", NULL}, {"store", "OpAtomicStore", "OpAtomicStore", NULL}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (json_has(json, "emit_op", rows[i].op))
            return is_float ? rows[i].f : is_signed && rows[i].s ? rows[i].s : rows[i].i;
    return NULL;
}

static int checked;

static int count_loops(const char *s) {
    int n = 0;
    for (const char *p = s; (p = strstr(p, "OpLoopMerge")); p++) n++;
    return n;
}

static void probe(const char *dir, const char *target, const char *dt, const char *op, const char *cap) {
    char *src = probe_source(op, dt), *qd = xasprintf("%s/p.qd", dir), *out = xasprintf("%s/p.spvasm", dir);
    char *tgt = xasprintf("--target=%s", target);
    cr_assert(write_text(qd, src));
    const char *argv[] = {qd, tgt, "--emit=spirv-asm", "--report-lowering=json", "-o", out, cap, NULL};
    RunResult r = run_qdc_argv(argv, NULL, NULL);
    const char *what = xasprintf("%s %s %s", target, dt, op);
    bool is_float = dt[0] == 'f', is_signed = dt[0] == 'i';
    if (r.status == 1) {
        cr_expect(strstr(r.err, "p.qd:5:") && (strstr(r.err, "error[QD4") || strstr(r.err, "error[QD2")), "%s: %s", what, r.err);
    } else {
        cr_expect_eq(r.status, 0, "%s: status %d: %s", what, r.status, r.err);
        char *s = read_text(out, NULL);
        cr_assert(s, "%s: no output", what);
        if (json_has(r.out, "decision", "native")) {
            const char *inst = native_inst(r.out, is_float, is_signed);
            cr_expect(inst && strstr(s, inst), "%s: native but no %s", what, inst ? inst : "(op?)");
            cr_expect_eq(count_loops(s), 1, "%s: a native atomic needs no loop", what);
        } else if (json_has(r.out, "decision", "cas")) {
            cr_expect(strstr(s, "OpAtomicCompareExchange") && strstr(s, "OpPhi"), "%s: cas loop missing", what);
            cr_expect_eq(count_loops(s), 2, "%s: expected the task loop and one CAS loop", what);
        } else {
            cr_expect(json_has(r.out, "decision", "plain"), "%s: unexpected report %s", what, r.out);
        }
        free(s);
        checked++;
    }
    run_free(&r);
    free(src), free(qd), free(out), free(tgt), free((char *)what);
}

static void sweep(const char *target, const char *dt, const char *cap) {
    char *dir = make_temp_dir();
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) probe(dir, target, dt, ops[i], cap);
    remove_tree(dir);
    free(dir);
}

static bool ready(void) {
    RunResult r = run_qdc("--print-caps", "vulkan1.1", NULL);
    bool ok = r.status == 0;
    cr_expect(ok, "qdc --print-caps vulkan1.1 failed: %s", r.err);
    run_free(&r);
    return ok;
}

Test(spirv_matrix, vulkan11_defaults) {
    if (!ready()) return;
    checked = 0;
    sweep("vulkan1.1", "i32", NULL);
    sweep("vulkan1.1", "f32", NULL);
    cr_expect_geq(checked, 14 + 8);
    char *dir = make_temp_dir(); /* i64 without +int64-atomics: a QD4xxx diagnostic */
    int before = checked;
    probe(dir, "vulkan1.1", "i64", "add", NULL);
    cr_expect_eq(checked, before, "i64 add compiled on vulkan1.1 without +int64-atomics");
    remove_tree(dir);
    free(dir);
}

Test(spirv_matrix, vulkan13_with_optional_capabilities) {
    if (!ready()) return;
    checked = 0;
    sweep("vulkan1.3", "u64", "--cap=+int64-atomics");
    sweep("vulkan1.3", "f32", "--cap=+float-atomic-min-max");
    cr_expect_geq(checked, 14 + 8);
}

Test(spirv_matrix, apple8_spirv_shape) {
    if (!ready()) return;
    checked = 0;
    sweep("apple8", "u32", NULL);
    sweep("apple8", "f32", NULL);
    cr_expect_geq(checked, 8);
}
