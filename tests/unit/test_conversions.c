/* Float -> integer conversions have one meaning (ir.h IR_CAST, qdc-semantics(7) CONVERSIONS):
 * toward zero, saturating at the type's range, NaN to 0. The same values from the constant
 * folder, from x86-64 (LLVM fptosi.sat) on 1 and 4 threads and from SPIR-V on lavapipe (its
 * own select sequence around OpConvertFToS/U). */
#include "../../support/util.h"
#include "test_x86.h"
#include "vk_exec.h"
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NVAL = 12, NTYPE = 8, NSRC = 2, NOUT = NSRC * NVAL * NTYPE };

/* z = 0.0 at run time, so nothing folds: NaN, +-inf, out of range both ways, fractions. */
static const char src[] =
    "import quadrants as qd\n\n"
    "@qd.kernel\n"
    "def conv(n: qd.i32, o: qd.types.ndarray(qd.i64, ndim=1)):\n"
    "    for i in range(1):\n"
    "        z = qd.f32(n)\n"
    "        vals = [z / z, 1.0 / z, -1.0 / z, 3e9 + z, -3e9 + z, 2.75 + z, -2.75 + z, 300.5 + z, -129.5 + z,\n"
    "                65535.5 + z, 1e20 + z, -0.75 + z]\n"
    "        for s in qd.static(range(2)):\n"
    "            for k in qd.static(range(12)):\n"
    "                x = vals[k] if s == 0 else qd.f32(qd.f16(vals[k]))\n"
    "                h = qd.f16(x)\n"
    "                b = (s * 12 + k) * 8\n"
    "                if qd.static(s == 0):\n"
    "                    o[b + 0] = qd.i64(qd.i32(x))\n"
    "                    o[b + 1] = qd.i64(qd.u32(x))\n"
    "                    o[b + 2] = qd.i64(qd.i8(x))\n"
    "                    o[b + 3] = qd.i64(qd.u8(x))\n"
    "                    o[b + 4] = qd.i64(qd.i16(x))\n"
    "                    o[b + 5] = qd.i64(qd.u16(x))\n"
    "                    o[b + 6] = qd.i64(x)\n"
    "                    o[b + 7] = qd.i64(qd.u64(x))\n"
    "                else:\n"
    "                    o[b + 0] = qd.i64(qd.i32(h))\n"
    "                    o[b + 1] = qd.i64(qd.u32(h))\n"
    "                    o[b + 2] = qd.i64(qd.i8(h))\n"
    "                    o[b + 3] = qd.i64(qd.u8(h))\n"
    "                    o[b + 4] = qd.i64(qd.i16(h))\n"
    "                    o[b + 5] = qd.i64(qd.u16(h))\n"
    "                    o[b + 6] = qd.i64(h)\n"
    "                    o[b + 7] = qd.i64(qd.u64(h))\n";

static const int bits[NTYPE] = {32, 32, 8, 8, 16, 16, 64, 64};
static const bool sgn[NTYPE] = {true, false, true, false, true, false, true, false};

/* The rule, in double (every input is exact there): the result's bits, as qd.i64() keeps them. */
static int64_t saturate(double v, int n, bool s) {
    double hi = ldexp(1.0, s ? n - 1 : n), lo = s ? -hi : 0;
    uint64_t r;
    if (isnan(v)) r = 0;
    else if (v >= hi) r = s ? UINT64_MAX >> (65 - n) : UINT64_MAX >> (64 - n);
    else if (v <= lo) r = s ? (uint64_t)1 << (n - 1) : 0;
    else r = v < 0 ? (uint64_t)(int64_t)trunc(v) : (uint64_t)trunc(v);
    if (n < 64) { /* qd.i64 of the n-bit value: sign-extend a signed type, zero-extend an unsigned one */
        r &= (UINT64_C(1) << n) - 1;
        if (s && (r >> (n - 1))) r |= ~((UINT64_C(1) << n) - 1);
    }
    return (int64_t)r;
}

static void expected(int64_t *want) {
    const float v[NVAL] = {NAN, INFINITY, -INFINITY, 3e9f, -3e9f, 2.75f, -2.75f, 300.5f, -129.5f, 65535.5f, 1e20f, -0.75f};
    for (int s = 0; s < NSRC; s++)
        for (int k = 0; k < NVAL; k++) {
            double x = s == 0 ? (double)v[k] : (double)(_Float16)v[k];
            for (int t = 0; t < NTYPE; t++) want[(s * NVAL + k) * NTYPE + t] = saturate(x, bits[t], sgn[t]);
        }
}

static void expect_all(const int64_t *got, const char *where) {
    int64_t want[NOUT];
    expected(want);
    int bad = 0;
    for (int i = 0; i < NOUT; i++)
        if (got[i] != want[i] && bad++ < 8)
            cr_expect_eq(got[i], want[i], "%s: %s value %d to %s%d: got %lld, want %lld", where, i / (NVAL * NTYPE) ? "f16" : "f32",
                         i / NTYPE % NVAL, sgn[i % NTYPE] ? "i" : "u", bits[i % NTYPE], (long long)got[i], (long long)want[i]);
    cr_expect_eq(bad, 0, "%s: %d of %d conversions differ", where, bad, NOUT);
}

static const char host[] = "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
                           "int main(int argc, char **argv) {\n    (void)argc;\n    static int64_t o[192];\n"
                           "    conv_args a = {0, o, {192}};\n    if (conv(&a, atoi(argv[1])) != 0) return 2;\n"
                           "    for (int i = 0; i < 192; i++) printf(\"%lld\\n\", (long long)o[i]);\n    return 0;\n}\n";

Test(conversions, x86_saturates_on_every_thread_count, .timeout = 120) {
    if (!x86_have_runtime()) return;
    char *dir = make_temp_dir();
    const char *threads[] = {"1", "4"};
    for (int t = 0; t < 2; t++) {
        int64_t got[NOUT];
        x86_run_ints(dir, "c.py", src, host, threads[t], got, NOUT);
        char where[32];
        snprintf(where, sizeof where, "x86_64, %s threads", threads[t]);
        expect_all(got, where);
    }
    remove_tree(dir);
    free(dir);
}

Test(conversions, spirv_saturates_on_lavapipe, .timeout = 120) {
    char *dir = make_temp_dir(), *spv = NULL;
    char *meta = vk_compile(dir, "c", "vulkan1.1", src, &spv);
    static int64_t got[NOUT];
    memset(got, 0x55, sizeof got);
    VkArray arr[1] = {{got, sizeof got, NOUT}};
    const char *kernels[] = {"conv"};
    int32_t n = 0;
    char *err = NULL;
    int rc = vk_run(dir, spv, meta, kernels, 1, arr, 1, &n, 1, VK_FULL, true, &err);
    cr_expect_neq(rc, -1, "%s", err ? err : "");
    if (rc == 1) expect_all(got, "vulkan1.1 on lavapipe");
    free(err), free(meta), free(spv);
    remove_tree(dir);
    free(dir);
}

/* The constant folder computes the same: a conversion folded at compile time and one computed
 * on the device agree. */
Test(conversions, the_folder_saturates) {
    char *dir = make_temp_dir(), *qd = xasprintf("%s/f.py", dir);
    cr_assert(write_text(qd, "import quadrants as qd\n\n@qd.kernel\ndef f(o: qd.types.ndarray(qd.i64, ndim=1)):\n"
                             "    for i in range(1):\n        o[0] = qd.i64(qd.cast(3e9, qd.i32))\n        o[1] = qd.i64(qd.cast(-1.5, qd.u8))\n"
                             "        o[2] = qd.i64(qd.cast(-1e10, qd.i16))\n        o[3] = qd.i64(qd.cast(1e30, qd.u32))\n        o[4] = qd.i64(qd.cast(-2.5, qd.i8))\n"));
    RunResult r = run_qdc("--target=x86_64", "--emit=ir", qd, "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    static const char *const want[] = {"= 2147483647:i64", "= 0:i64", "= -32768:i64", "= 4294967295:i64", "= -2:i64"};
    for (int i = 0; i < 5; i++) cr_expect(strstr(r.out, want[i]), "no '%s' in:\n%s", want[i], r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(qd);
}
