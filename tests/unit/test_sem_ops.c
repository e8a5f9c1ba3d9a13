/* One meaning per operator (issue 13 item 6, issue 21 item 2): the edge cases of `//`, `%`,
 * qd.raw_div, qd.raw_mod, `<<` and `>>` (zero divisors, INT_MIN / -1, counts at and past the
 * width, negative counts) evaluated three ways on the same operands and compared with the C model
 * of qdc-semantics(7): by the constant folder (constant operands), by an x86-64 kernel at run
 * time (operands from an ndarray), and -- in --emit=llvm-ir/spirv-asm -- checked to reach every
 * backend only through the expansion (no unguarded division, no unmasked shift). */
#include "test_x86.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int64_t xs[] = {7, -7, 0, -1, INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX, 100};
static const int64_t ys[] = {2, -2, 0, -1, 1, 3, 31, 32, 33, 40, 63, 64, -33};
#define NX ((int)ARRAY_LEN(xs))
#define NY ((int)ARRAY_LEN(ys))
#define NP (NX * NY)

/* op: Python spelling, type, whether the right operand is a divisor (constants of 0 are QD2023). */
static const struct { const char *fmt; const char *type; bool divides; } ops[] = {
    {"%s // %s", "i32", true},           {"%s %% %s", "i32", true},
    {"qd.raw_div(%s, %s)", "i32", true}, {"qd.raw_mod(%s, %s)", "i32", true},
    {"%s << %s", "i32", false},          {"%s >> %s", "i32", false},
    {"%s // %s", "i64", true},           {"%s %% %s", "i64", true},
    {"qd.raw_div(%s, %s)", "i64", true}, {"qd.raw_mod(%s, %s)", "i64", true},
    {"%s << %s", "i64", false},          {"%s >> %s", "i64", false},
    {"%s >> %s", "u32", false},          {"%s // %s", "u32", true},
    {"%s %% %s", "u32", true},           {"%s << %s", "u64", false},
};
#define NOPS ((int)ARRAY_LEN(ops))

static char *lit(int64_t v) {
    if (v == INT64_MIN) return xstrdup("(-9223372036854775807 - 1)");
    return v < 0 ? xasprintf("(-%lld)", -(long long)v) : xasprintf("%lld", (long long)v);
}

/* The kernel: rt[k] from ndarray operands, cf[k] from the same values as constants. */
static char *kernel_source(void) {
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "import quadrants as qd\n\n@qd.kernel\ndef edges(x: qd.types.NDArray[qd.i64, 1], y: qd.types.NDArray[qd.i64, 1],"
                " rt: qd.types.NDArray[qd.i64, 1], cf: qd.types.NDArray[qd.i64, 1]):\n    for i in range(1):\n");
    for (int o = 0; o < NOPS; o++)
        for (int p = 0; p < NP; p++) {
            int k = o * NP + p;
            const char *t = ops[o].type;
            char *xr = xasprintf("qd.%s(x[%d])", t, p), *yr = xasprintf("qd.%s(y[%d])", t, p);
            char *lx = lit(xs[p / NY]), *ly = lit(ys[p % NY]);
            /* qd.cast wraps a literal (qd.i32(<literal>) annotates it: Quadrants' range error past i32) */
            char *xc = xasprintf("qd.cast(%s, qd.%s)", lx, t), *yc = xasprintf("qd.cast(%s, qd.%s)", ly, t);
            sb_printf(&b, "        rt[%d] = qd.i64(", k), sb_printf(&b, ops[o].fmt, xr, yr), sb_puts(&b, ")\n");
            bool zero = (uint64_t)ys[p % NY] << (64 - (t[1] == '3' ? 32 : 64)) == 0;
            if (ops[o].divides && zero) sb_printf(&b, "        cf[%d] = 0\n", k);
            else sb_printf(&b, "        cf[%d] = qd.i64(", k), sb_printf(&b, ops[o].fmt, xc, yc), sb_puts(&b, ")\n");
            free(xr), free(yr), free(lx), free(ly), free(xc), free(yc);
        }
    return sb_take(&b);
}

/* The C model of qdc-semantics(7), and a host that compares the kernel with it. */
static const char *host_model =
    "#include \"edges.h\"\n#include \"common.h\"\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
    "typedef struct { int bits; int sg; } T;\n"
    "static int64_t wrap(T t, uint64_t v) {\n"
    "    if (t.bits == 64) return (int64_t)v;\n"
    "    v &= 0xffffffffu;\n"
    "    return t.sg ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;\n}\n"
    "static int64_t model(int op, T t, int64_t x0, int64_t y0) {\n"
    "    int64_t x = wrap(t, (uint64_t)x0), y = wrap(t, (uint64_t)y0);\n"
    "    uint64_t ux = (uint64_t)x & (t.bits == 64 ? ~0ull : 0xffffffffull), uy = (uint64_t)y & (t.bits == 64 ? ~0ull : 0xffffffffull);\n"
    "    int64_t mn = t.bits == 64 ? INT64_MIN : INT32_MIN;\n"
    "    int bad = y == 0 || (t.sg && x == mn && y == -1);\n"
    "    unsigned n = (unsigned)(uy & (unsigned)(t.bits - 1));\n"
    "    switch (op) {\n"
    "    case 0: if (bad) return t.sg ? x : (int64_t)ux; if (!t.sg) return (int64_t)(ux / uy);\n"
    "            return x / y - ((x % y != 0) && ((x % y < 0) != (y < 0)));\n"
    "    case 1: if (bad) return 0; if (!t.sg) return (int64_t)(ux % uy);\n"
    "            return x % y + ((x % y != 0 && ((x % y < 0) != (y < 0))) ? y : 0);\n"
    "    case 2: if (bad) return t.sg ? x : (int64_t)ux; return t.sg ? x / y : (int64_t)(ux / uy);\n"
    "    case 3: if (bad) return 0; return t.sg ? x % y : (int64_t)(ux % uy);\n"
    "    case 4: return wrap(t, ux << n);\n"
    "    default: return t.sg ? wrap(t, (uint64_t)(x >> n)) : (int64_t)(ux >> n);\n    }\n}\n";

static const char *host_main =
    "int main(int argc, char **argv) {\n"
    "    int nt = host_threads(argc, argv), bad = 0;\n"
    "    int64_t *x = host_alloc(NP, 8), *y = host_alloc(NP, 8), *rt = host_alloc(NOPS * NP, 8), *cf = host_alloc(NOPS * NP, 8);\n"
    "    for (int p = 0; p < NP; p++) x[p] = xs[p / NY], y[p] = ys[p % NY];\n"
    "    edges_args a = {x, {NP}, y, {NP}, rt, {NOPS * NP}, cf, {NOPS * NP}};\n"
    "    if (!host_launch_ok(edges(&a, nt))) return 2;\n"
    "    for (int o = 0; o < NOPS; o++)\n"
    "        for (int p = 0; p < NP; p++) {\n"
    "            int k = o * NP + p;\n"
    "            T t = {types[o][1] == '3' ? 32 : 64, types[o][0] == 'i'};\n"
    "            int64_t want = model(kinds[o], t, x[p], y[p]);\n"
    "            int folded = !(divides[o] && wrap(t, (uint64_t)y[p]) == 0);\n"
    "            if (rt[k] != want || (folded && cf[k] != want)) {\n"
    "                if (bad++ < 10) printf(\"op %d (%s) x=%lld y=%lld: run time %lld, folded %lld, want %lld\\n\", o, types[o],\n"
    "                                       (long long)x[p], (long long)y[p], (long long)rt[k], (long long)cf[k], (long long)want);\n"
    "            }\n"
    "        }\n"
    "    printf(\"%d mismatches\\n\", bad);\n"
    "    free(x), free(y), free(rt), free(cf);\n"
    "    return bad != 0;\n}\n";

static char *host_source(void) {
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, host_model);
    sb_printf(&b, "enum { NX = %d, NY = %d, NP = %d, NOPS = %d };\nstatic const int64_t xs[] = {", NX, NY, NP, NOPS);
    for (int i = 0; i < NX; i++) {
        if (xs[i] == INT64_MIN) sb_printf(&b, "%sINT64_MIN", i ? ", " : ""); /* no decimal literal for it */
        else sb_printf(&b, "%s%lldLL", i ? ", " : "", (long long)xs[i]);
    }
    sb_puts(&b, "};\nstatic const int64_t ys[] = {");
    for (int i = 0; i < NY; i++) sb_printf(&b, "%s%lldLL", i ? ", " : "", (long long)ys[i]);
    sb_puts(&b, "};\nstatic const char *const types[] = {");
    for (int o = 0; o < NOPS; o++) sb_printf(&b, "%s\"%s\"", o ? ", " : "", ops[o].type);
    sb_puts(&b, "};\nstatic const int kinds[] = {");
    for (int o = 0; o < NOPS; o++) {
        const char *f = ops[o].fmt;
        int kind = strstr(f, "//") ? 0 : strstr(f, "%%") ? 1 : strstr(f, "raw_div") ? 2 : strstr(f, "raw_mod") ? 3 : strstr(f, "<<") ? 4 : 5;
        sb_printf(&b, "%s%d", o ? ", " : "", kind);
    }
    sb_puts(&b, "};\nstatic const int divides[] = {");
    for (int o = 0; o < NOPS; o++) sb_printf(&b, "%s%d", o ? ", " : "", ops[o].divides);
    sb_puts(&b, "};\n");
    sb_puts(&b, host_main);
    return sb_take(&b);
}

Test(sem_ops, folder_and_x86_agree_with_the_model, .timeout = 120) {
    if (!x86_have_runtime()) return;
    char *dir = make_temp_dir(), *qd = xasprintf("%s/edges.qd", dir), *obj = xasprintf("%s/edges.o", dir);
    char *hdr = xasprintf("%s/edges.h", dir), *src = kernel_source(), *host = host_source();
    cr_assert(write_text(qd, src));
    const char *opts[] = {"-O2", "-O0"};
    for (int i = 0; i < 2; i++) {
        RunResult r = run_qdc("--target=x86_64", opts[i], qd, "-o", obj, NULL);
        cr_assert_eq(r.status, 0, "qdc: %s", r.err);
        run_free(&r);
        r = run_qdc("--target=x86_64", "--emit=header", qd, "-o", hdr, NULL);
        cr_assert_eq(r.status, 0, "qdc --emit=header: %s", r.err);
        run_free(&r);
        cr_assert(x86_build_host(dir, host, (const char *const[]){"edges.o", NULL}), "host does not build");
        RunResult x = x86_run_host(dir, "1", NULL, NULL);
        cr_expect_eq(x.status, 0, "%s: folder or run time disagrees with qdc-semantics(7):\n%s%s", opts[i], x.out, x.err);
        cr_expect_str_eq(x.out, "0 mismatches\n");
        run_free(&x);
    }
    remove_tree(dir);
    free(dir), free(qd), free(obj), free(hdr), free(src), free(host);
}

/* The backends see only the expansion: SPIR-V divides by a selected (never zero) divisor and
 * shifts by a masked count, which Vulkan leaves undefined otherwise. */
Test(sem_ops, spirv_division_and_shifts_are_guarded) {
    char *dir = make_temp_dir(), *qd = xasprintf("%s/k.qd", dir);
    cr_assert(write_text(qd, "import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.NDArray[qd.i32, 1], b: qd.types.NDArray[qd.i32, 1]):\n"
                             "    for i in range(a.shape[0]):\n        a[i] = qd.raw_div(a[i], b[i]) + (a[i] << b[i])\n"));
    RunResult r = run_qdc("--target=vulkan1.3", "--emit=spirv-asm", qd, "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    const char *div = strstr(r.out, "OpSDiv %int"), *shl = strstr(r.out, "OpShiftLeftLogical %int");
    cr_assert(div && shl, "%s", r.out);
    cr_expect(strstr(r.out, "OpIEqual %bool") && strstr(r.out, "OpSelect %int") && strstr(r.out, "%int_n2147483648"),
              "the divisor is not guarded:\n%s", r.out);
    cr_expect(strstr(r.out, "OpBitwiseAnd %int") && strstr(r.out, "%int_31"), "the count is not masked:\n%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(qd);
}
