/* Unit tests for semantic analysis: Quadrants type promotion of operators, the IR built for
 * atomics, augmented assignment and parallel loops (through frontend_parse/frontend_check). */
#include "frontend/frontend.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static void quiet(void) {
    DiagConfig c = {.format = DIAG_TEXT, .color = DIAG_COLOR_NEVER, .out = fopen("/dev/null", "w")};
    diag_init(&c);
}
TestSuite(sema, .init = quiet);

static Arena arena;

/* IR dump of a one-kernel module whose body is `body` (indented by the caller). */
static char *ir_of(const char *decls, const char *params, const char *body) {
    char *text;
    if (asprintf(&text, "import quadrants as qd\n%s\n@qd.kernel\ndef k(%s):\n%s", decls, params, body) < 0) return NULL;
    Source *src = source_new("t.qd", text, strlen(text));
    AstModule *ast = frontend_parse(src, &arena);
    cr_assert(ast, "parse failed:\n%s", text);
    IrModule *m = frontend_check(ast, &arena);
    cr_assert(m, "check failed:\n%s", text);
    StrBuf b;
    sb_init(&b);
    ir_dump(m, NULL, &b);
    free(text);
    return sb_take(&b); /* src is referenced by the IR spans: leaked with the test process */
}

static void expect_has(const char *ir, const char *needle) {
    cr_expect(strstr(ir, needle), "missing '%s' in:\n%s", needle, ir);
}

Test(sema, promotion_and_explicit_casts) {
    char *ir = ir_of("", "a: qd.types.ndarray(dtype=qd.f64, ndim=1), u: qd.u32, b: qd.u8, h: qd.i16",
                     "    for i in range(4):\n"
                     "        a[0] = i + 1.5\n"                /* i32 + f32 -> f32 */
                     "        a[1] = i + a[2]\n"               /* i32 + f64 -> f64 */
                     "        a[2] = u + i\n"                  /* u32 + i32 -> u32 */
                     "        a[3] = b + h\n"                  /* u8 + i16 -> i16 */
                     "        a[4] = i / 2\n"                  /* true division -> f32 */
                     "        a[5] = i // 2\n"
                     "        a[6] = (i < 2) + 0\n");
    expect_has(ir, "(add:f32 (cast:f32 %1) 1.5:f32)");
    expect_has(ir, "(add:f64 (cast:f64 %1) (load ndarray a[2:i32]:f64))");
    expect_has(ir, "(add:u32 $u (cast:u32 %1))");
    expect_has(ir, "(add:i16 (cast:i16 $b) $h)");
    expect_has(ir, "(div:f32 (cast:f32 %1) 2:f32)");
    expect_has(ir, "(floordiv:i32 %1 2:i32)");
    expect_has(ir, "= (cast:f64 (cast:i32 (lt:u1 %1 2:i32)))"); /* + 0 folded away */
    free(ir);
}

Test(sema, constant_folding_of_module_constants) {
    char *ir = ir_of("N = 10\nM = N * 3 + 0x10\nE = 1e-3\n", "a: qd.types.ndarray(dtype=qd.f32, ndim=1)",
                     "    for i in range(M // 2):\n        a[i] = E * N - (-7 // 2) - (-7 % 3)\n");
    expect_has(ir, "extent=23:i32");
    expect_has(ir, "= 2.0100002288818359:f32\n"); /* 0.001f * 10 + 4 - 2 in f32 */
    free(ir);
    ir = ir_of("P = 2 ** 10 + 3 ** 0\nQ = 1 << 40\n", "a: qd.types.ndarray(dtype=qd.i64, ndim=1)",
               "    a[0] = P\n    a[1] = Q\n    a[2] = 0xFFFFFFFF\n    a[3] = qd.cast(300, qd.i8)\n");
    expect_has(ir, "a[0:i32]:i64 = 1025:i64\n");
    expect_has(ir, "a[1:i32]:i64 = 1099511627776:i64\n"); /* module level computes like Python */
    expect_has(ir, "a[2:i32]:i64 = 4294967295:i64\n"); /* a literal beyond i32 is i64 */
    expect_has(ir, "a[3:i32]:i64 = 44:i64\n");         /* qd.cast(300, qd.i8) wraps (qd.i8(300) is Quadrants' range error) */
    free(ir);
}

Test(sema, atomic_memops_carry_result_use_order_scope_and_casts) {
    char *ir = ir_of("c = qd.field(qd.u32, shape=())\nf = qd.field(qd.f32, shape=(4,))\n", "",
                     "    for i in range(4):\n"
                     "        old = qd.atomic_add(c[None], 1)\n"
                     "        qd.atomic_sub(f[i], 2, order=\"release\", scope=\"block\")\n"
                     "        qd.atomic_cas(c[None], -1, 0)\n"
                     "        f[i] += 1.0\n"
                     "        f[i] *= 2.0\n"
                     "        x = 0\n"
                     "        x += 1\n"
                     "        qd.atomic_max(x, 3)\n"
                     "        y = qd.volatile_load(c[None])\n");
    expect_has(ir, "= (atomic_add:u32 relaxed device field c[]:u32 1:u32)");
    expect_has(ir, "eval (atomic_sub:f32 release block field f[%1]:f32 2:f32 unused)");
    expect_has(ir, "eval (atomic_cas:u32 relaxed device field c[]:u32 4294967295:u32 0:u32 unused)");
    expect_has(ir, "eval (atomic_add:f32 relaxed device field f[%1]:f32 1:f32 unused augassign)");
    expect_has(ir, "store field f[%1]:f32 = (mul:f32 (load field f[%1]:f32) 2:f32)");
    expect_has(ir, "= (add:i32 %3 1:i32)");
    expect_has(ir, "eval (atomic_max:i32 relaxed device local %3[]:i32 3:i32 unused)");
    expect_has(ir, "(volatile_load:u32 relaxed device field c[]:u32)");
    free(ir);
}

Test(sema, tasks_ndrange_and_block_usage) {
    char *ir = ir_of("", "a: qd.types.ndarray(dtype=qd.i32, ndim=2), n: qd.i32",
                     "    a[0, 0] = 1\n"
                     "    qd.loop_config(block_dim=128)\n"
                     "    for i, j in qd.ndrange((1, 4), n):\n"
                     "        s = qd.simt.block.SharedArray((8, 2), qd.f32)\n"
                     "        qd.simt.block.sync()\n"
                     "        qd.simt.grid.mem_fence()\n"
                     "        a[i, j] = qd.simt.block.thread_idx()\n"
                     "    x = 1\n");
    expect_has(ir, "task k_t0 serial\n");
    expect_has(ir, "task k_t1 parallel extent=(mul:i32 3:i32 (max:i32 $n 0:i32)) index=%0 block_dim=128 uses_block\n");
    expect_has(ir, "= (rem:i32 %0 (max:i32 $n 0:i32))");
    expect_has(ir, "= (add:i32 1:i32 (div:i32 %0 (max:i32 $n 0:i32)))");
    expect_has(ir, "shared s: f32[8, 2] task 1");
    expect_has(ir, "    barrier\n    fence seq_cst device\n");
    expect_has(ir, "task k_t2 serial\n");
    free(ir);
}

Test(sema, serial_for_and_func_inlining) {
    char *ir = ir_of("@qd.func\ndef sq(x: qd.f32) -> qd.f32:\n    y = x * x\n    return y\n",
                     "a: qd.types.ndarray(dtype=qd.f32, ndim=1)",
                     "    for i in range(4):\n"
                     "        for j in range(3, 10):\n"
                     "            a[j] = sq(a[i])\n");
    expect_has(ir, "for %3 = 3:i32 to 10:i32 step 1\n");
    expect_has(ir, "\n      %2 = %3\n");
    expect_has(ir, "\n      %5 = (mul:f32 %4 %4)\n      %6 = %5\n      store ndarray a[%2]:f32 = %6\n");
    expect_has(ir, "local %6 $sq_ret: f32");
    free(ir);
}

Test(sema, static_if_at_top_level_keeps_loops_parallel) {
    char *ir = ir_of("USE = False\n", "a: qd.types.ndarray(dtype=qd.i32, ndim=1)",
                     "    if qd.static(USE):\n        for i in range(4):\n            a[i] = 1\n"
                     "    else:\n        for i in range(8):\n            a[i] = 2\n");
    expect_has(ir, "task k_t0 parallel extent=8:i32");
    cr_expect(!strstr(ir, "k_t1"), "one task only:\n%s", ir);
    free(ir);
}
