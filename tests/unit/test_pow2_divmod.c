/* Python `//` and `%` by a constant positive power of two are a shift and a mask (ir/expand.c,
 * qdc-semantics(7)): x // 2^k == x >> k (arithmetic where x is signed), x % 2^k == x & (2^k - 1),
 * for every sign of x. The same values as Python's rule from x86-64 on 1 and 4 threads and from
 * SPIR-V on lavapipe, with negative, zero and positive operands; a negative or non-power-of-two
 * divisor keeps the general division. */
#include "../../support/util.h"
#include "test_x86.h"
#include "vk_exec.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NIN = 12, NOP = 16, NOUT = NIN * NOP };

static const char src[] =
    "import quadrants as qd\n\n"
    "@qd.kernel\n"
    "def dm(x: qd.types.ndarray(qd.i64, ndim=1), o: qd.types.ndarray(qd.i64, ndim=1)):\n"
    "    for i in range(x.shape[0]):\n"
    "        v = x[i]\n"
    "        w = qd.i32(v)\n"
    "        u = qd.u32(v)\n"
    "        b = i * 16\n"
    "        o[b + 0] = qd.i64(w // 8)\n"
    "        o[b + 1] = qd.i64(w % 8)\n"
    "        o[b + 2] = qd.i64(w // 1)\n"
    "        o[b + 3] = qd.i64(w % 1)\n"
    "        o[b + 4] = v // 1024\n"
    "        o[b + 5] = v % 1024\n"
    "        o[b + 6] = v // 1099511627776\n"
    "        o[b + 7] = v % 1099511627776\n"
    "        o[b + 8] = qd.i64(u // 16)\n"
    "        o[b + 9] = qd.i64(u % 16)\n"
    "        o[b + 10] = qd.i64(w // 1073741824)\n"
    "        o[b + 11] = qd.i64(w % 1073741824)\n"
    "        o[b + 12] = qd.i64(w // -8)\n"
    "        o[b + 13] = qd.i64(w % -8)\n"
    "        o[b + 14] = qd.i64(w // 6)\n"
    "        o[b + 15] = qd.i64(w % 6)\n";

static const int64_t in[NIN] = {0, 1, -1, 7, -7, 8, -8, 1023, -1025, INT32_MAX, INT32_MIN, -3298534883329LL /* -3*2^40-1 */};

/* Python's floor division and modulo, in exact 64-bit arithmetic (no operand here overflows). */
static int64_t py_div(int64_t x, int64_t y) {
    int64_t q = x / y, r = x % y;
    return r != 0 && ((r < 0) != (y < 0)) ? q - 1 : q;
}
static int64_t py_mod(int64_t x, int64_t y) {
    int64_t r = x % y;
    return r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
}

static void expected(int64_t *want) {
    for (int i = 0; i < NIN; i++) {
        int64_t v = in[i], w = (int32_t)(uint32_t)(uint64_t)v, u = (uint32_t)(uint64_t)v, *o = want + i * NOP;
        o[0] = py_div(w, 8), o[1] = py_mod(w, 8), o[2] = w, o[3] = 0;
        o[4] = py_div(v, 1024), o[5] = py_mod(v, 1024), o[6] = py_div(v, INT64_C(1) << 40), o[7] = py_mod(v, INT64_C(1) << 40);
        o[8] = u / 16, o[9] = u % 16, o[10] = py_div(w, 1 << 30), o[11] = py_mod(w, 1 << 30);
        o[12] = py_div(w, -8), o[13] = py_mod(w, -8), o[14] = py_div(w, 6), o[15] = py_mod(w, 6);
    }
}

static void expect_all(const int64_t *got, const char *where) {
    static const char *const ops[NOP] = {"i32 // 8", "i32 % 8", "i32 // 1", "i32 % 1", "i64 // 2^10", "i64 % 2^10",
                                         "i64 // 2^40", "i64 % 2^40", "u32 // 16", "u32 % 16", "i32 // 2^30", "i32 % 2^30",
                                         "i32 // -8", "i32 % -8", "i32 // 6", "i32 % 6"};
    int64_t want[NOUT];
    expected(want);
    int bad = 0;
    for (int i = 0; i < NOUT; i++)
        if (got[i] != want[i] && bad++ < 8)
            cr_expect_eq(got[i], want[i], "%s: x = %lld, %s: got %lld, want %lld", where, (long long)in[i / NOP], ops[i % NOP],
                         (long long)got[i], (long long)want[i]);
    cr_expect_eq(bad, 0, "%s: %d of %d results differ", where, bad, NOUT);
}

/* The module's SPIR-V divides only where the divisor is not a positive power of two. */
Test(pow2_divmod, only_other_divisors_divide) {
    char *dir = NULL;
    RunResult r = qdc_in_temp("dm.py", src, "--target=vulkan1.1", "--emit=spirv-asm", &dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *out = xasprintf("%s/out", dir), *text = read_text(out, NULL);
    cr_assert(text, "no %s", out);
    int divs = 0, shifts = 0, masks = 0;
    for (const char *p = text; (p = strstr(p, " = Op")); p += 5) {
        divs += !strncmp(p + 3, "OpSDiv ", 7) || !strncmp(p + 3, "OpSRem ", 7) || !strncmp(p + 3, "OpUDiv ", 7) ||
                !strncmp(p + 3, "OpUMod ", 7) || !strncmp(p + 3, "OpSMod ", 7);
        shifts += !strncmp(p + 3, "OpShiftRightArithmetic ", 23) || !strncmp(p + 3, "OpShiftRightLogical ", 20);
        masks += !strncmp(p + 3, "OpBitwiseAnd ", 13);
    }
    cr_expect_eq(shifts, 6, "%s", text); /* i32 // 8, // 1, // 2^30; i64 // 2^10, // 2^40; u32 // 16 */
    cr_expect_geq(masks, 6, "%s", text);
    cr_expect_eq(divs, 6, "%s", text); /* // -8 and // 6: a remainder for the sign fix, a quotient; % -8, % 6 */
    free(out), free(text);
    run_free(&r);
    remove_tree(dir);
    free(dir);
}

static const char host[] = "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
                           "int main(int argc, char **argv) {\n    (void)argc;\n"
                           "    static int64_t x[12] = {0, 1, -1, 7, -7, 8, -8, 1023, -1025, 2147483647LL, -2147483648LL, -3298534883329LL};\n"
                           "    static int64_t o[192];\n"
                           "    dm_args a = {x, {12}, o, {192}};\n    if (dm(&a, atoi(argv[1])) != 0) return 2;\n"
                           "    for (int i = 0; i < 192; i++) printf(\"%lld\\n\", (long long)o[i]);\n    return 0;\n}\n";

Test(pow2_divmod, x86_follows_python_on_every_thread_count, .timeout = 120) {
    if (!x86_have_runtime()) return;
    char *dir = make_temp_dir();
    const char *threads[] = {"1", "4"};
    for (int t = 0; t < 2; t++) {
        int64_t got[NOUT];
        x86_run_ints(dir, "dm.py", src, host, threads[t], got, NOUT);
        char where[32];
        snprintf(where, sizeof where, "x86_64, %s threads", threads[t]);
        expect_all(got, where);
    }
    remove_tree(dir);
    free(dir);
}

Test(pow2_divmod, spirv_follows_python_on_lavapipe, .timeout = 120) {
    char *dir = make_temp_dir(), *spv = NULL;
    char *meta = vk_compile(dir, "dm", "vulkan1.1", src, &spv);
    static int64_t x[NIN], got[NOUT];
    memcpy(x, in, sizeof x);
    memset(got, 0x55, sizeof got);
    VkArray arr[2] = {{x, sizeof x, NIN}, {got, sizeof got, NOUT}};
    const char *kernels[] = {"dm"};
    char *err = NULL;
    int rc = vk_run(dir, spv, meta, kernels, 1, arr, 2, NULL, NIN, VK_FULL, true, &err);
    cr_expect_neq(rc, -1, "%s", err ? err : "");
    if (rc == 1) expect_all(got, "vulkan1.1 on lavapipe");
    free(err), free(meta), free(spv);
    remove_tree(dir);
    free(dir);
}
