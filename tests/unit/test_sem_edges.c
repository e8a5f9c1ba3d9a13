/* Issue 13 (items 5, 7, 12, 20): compile-time checks at the edges of the language, through the
 * qdc binary: exact diagnostic text, exit status and no output file. */
#include "harness.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRELUDE "import quadrants as qd\n\n"

typedef struct {
    RunResult r;
    bool out_exists;
} Compiled;

/* Compiles text (written to in.qd) with the given extra arguments and -o out. */
static Compiled compile_text(const char *text, const char *a1, const char *a2) {
    char *dir = make_temp_dir(), *in = xasprintf("%s/in.qd", dir), *out = xasprintf("%s/out", dir);
    cr_assert(write_text(in, text));
    const char *args[] = {"--color=never", in, "-o", out, a1, a2, NULL};
    Compiled c = {.r = run_qdc_argv(args, NULL, dir)};
    c.out_exists = file_exists(out);
    remove_tree(dir);
    free(dir), free(in), free(out);
    return c;
}

/* The compile fails with exit 1, writes nothing, and stderr contains every needle. */
static void expect_rejected(const char *text, const char *target, const char *const *needles) {
    Compiled c = compile_text(text, target, NULL);
    cr_expect_eq(c.r.status, 1, "exit status %d; stderr:\n%s", c.r.status, c.r.err);
    cr_expect(!c.out_exists, "an output was written by a failing compile");
    for (; *needles; needles++) cr_expect(strstr(c.r.err, *needles), "missing '%s' in:\n%s", *needles, c.r.err);
    run_free(&c.r);
}

#define NEEDLES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ---- item 7: constant indexes out of bounds ---- */

#define TWO_FIELDS PRELUDE "a = qd.field(qd.i32, shape=(16,))\nb = qd.field(qd.i32, shape=(16,))\n" \
                           "s = qd.field(qd.i32, shape=(4, 8))\n\n@qd.kernel\ndef k(x: qd.types.NDArray[qd.i32, 1]):\n"

/* A constant index outside its axis is warning QD2111 (Quadrants checks bounds only at run time,
 * in debug mode, so such code may be code that never runs): the output is written;
 * -Werror=index-out-of-bounds makes it fatal (exit 1, no output). */
static void expect_oob_warned(const char *text, const char *const *needles) {
    Compiled c = compile_text(text, "--target=x86_64", NULL);
    cr_expect_eq(c.r.status, 0, "exit status %d; stderr:\n%s", c.r.status, c.r.err);
    cr_expect(c.out_exists, "a warning stopped the output");
    for (const char *const *n = needles; *n; n++) cr_expect(strstr(c.r.err, *n), "missing '%s' in:\n%s", *n, c.r.err);
    run_free(&c.r);
    c = compile_text(text, "--target=x86_64", "-Werror=index-out-of-bounds");
    cr_expect_eq(c.r.status, 1, "-Werror=index-out-of-bounds: exit status %d; stderr:\n%s", c.r.status, c.r.err);
    cr_expect(!c.out_exists, "an output was written by a failing compile");
    run_free(&c.r);
}

Test(sem_edges, constant_index_out_of_bounds) {
    expect_oob_warned(TWO_FIELDS "    b[-1] = 7\n    b[16] = 9\n    b[15] = 1\n    s[3, 8] = 2\n    s[2, 7] = 2\n",
                      NEEDLES("in.qd:9:7: warning[QD2111]: index -1 is out of bounds for axis 0 of 'b' with size 16 [-Windex-out-of-bounds]\n",
                              "in.qd:10:7: warning[QD2111]: index 16 is out of bounds for axis 0 of 'b' with size 16 [-Windex-out-of-bounds]\n",
                              "in.qd:12:10: warning[QD2111]: index 8 is out of bounds for axis 1 of 's' with size 8 [-Windex-out-of-bounds]\n"));
    expect_oob_warned(TWO_FIELDS "    x[-3] = 1\n    x[2147483648] = 1\n    x[2147483647] = 1\n",
                      NEEDLES("in.qd:9:7: warning[QD2111]: index -3 is out of bounds for axis 0 of 'x' (indices are 0 to 2147483647) "
                              "[-Windex-out-of-bounds]\n",
                              "in.qd:10:7: warning[QD2111]: index 2147483648 is out of bounds for axis 0 of 'x' (indices are 0 to 2147483647) "
                              "[-Windex-out-of-bounds]\n"));
    Compiled c = compile_text(TWO_FIELDS "    b[15] = 1\n    s[3, 7] = 2\n    x[2147483647] = 1\n", "--target=x86_64", NULL);
    cr_expect_eq(c.r.status, 0, "in-bounds constant indexes are fine:\n%s", c.r.err);
    cr_expect_str_eq(c.r.err, "");
    run_free(&c.r);
}

Test(sem_edges, constant_index_into_shared_array) {
    expect_oob_warned(PRELUDE "@qd.kernel\ndef k(x: qd.types.NDArray[qd.i32, 1]):\n    qd.loop_config(block_dim=32)\n"
                      "    for i in range(64):\n        t = qd.simt.block.SharedArray((32,), qd.i32)\n        t[32] = i\n",
                      NEEDLES("in.qd:8:11: warning[QD2111]: index 32 is out of bounds for axis 0 of 't' with size 32 [-Windex-out-of-bounds]\n"));
}

/* ---- item 20: Trojan Source and terminal escapes ---- */

Test(sem_edges, bidi_controls_warn) {
    const char *text = PRELUDE "# access \xe2\x80\xae check \xe2\x81\xa6 x\n@qd.kernel\ndef k(x: qd.types.NDArray[qd.i32, 1]):\n"
                       "    x[0] = 1  # \xe2\x81\xa9\n";
    Compiled c = compile_text(text, "--target=x86_64", NULL);
    cr_expect_eq(c.r.status, 0, "a warning only:\n%s", c.r.err);
    cr_expect(c.out_exists);
    cr_expect(strstr(c.r.err, "in.qd:3:10: warning[QD2190]: Unicode bidirectional control U+202E: the source may display "
                              "differently from how it is compiled (Trojan Source, CVE-2021-42574) [-Wbidi-chars]\n"
                              " 3 | # access ? check ? x\n   |          ^\n"), "%s", c.r.err);
    cr_expect(strstr(c.r.err, "in.qd:3:20: warning[QD2190]: Unicode bidirectional control U+2066"), "%s", c.r.err);
    cr_expect(strstr(c.r.err, "in.qd:6:17: warning[QD2190]: Unicode bidirectional control U+2069"), "%s", c.r.err);
    cr_expect(!strstr(c.r.err, "\xe2\x80\xae") && !strstr(c.r.err, "\xe2\x81"), "bidi bytes echoed raw:\n%s", c.r.err);
    run_free(&c.r);
    c = compile_text(text, "--target=x86_64", "-Werror=bidi-chars");
    cr_expect_eq(c.r.status, 1, "-Werror=bidi-chars makes it an error:\n%s", c.r.err);
    cr_expect(!c.out_exists);
    run_free(&c.r);
}

Test(sem_edges, string_bytes_are_escaped_in_messages) {
    const char *text = PRELUDE "c = qd.field(qd.i32, shape=())\n\n@qd.kernel\ndef k():\n"
                       "    qd.atomic_add(c[None], 1, order=\"\x1b]0;TITLE\x07\x1b[31mX\xc2\x9b\x7f\")\n";
    Compiled c = compile_text(text, "--target=x86_64", NULL);
    cr_expect_eq(c.r.status, 1);
    cr_expect(strstr(c.r.err, "in.qd:7:37: error[QD2035]: unknown memory order \"\\x1b]0;TITLE\\x07\\x1b[31mX\\x9b\\x7f\"; "
                              "expected \"relaxed\", \"acquire\", \"release\", \"acq_rel\" or \"seq_cst\"\n"), "%s", c.r.err);
    for (const char *p = c.r.err; *p; p++)
        cr_expect((unsigned char)*p >= 0x20 || *p == '\n', "raw control byte 0x%02x in:\n%s", (unsigned char)*p, c.r.err);
    run_free(&c.r);
}

/* ---- item 11: the parallel loop's increment never overflows into poison ---- */

/* Every LLVM backend steps its task loop with one shared definition: `add nuw` and an unsigned
 * exit test, exact for extents up to INT32_MAX (a signed `add nsw` is poison once i + stride
 * passes INT32_MAX, which a grid-stride loop reaches for extents near the top of the range). */
Test(sem_edges, task_loop_increment_is_nuw_on_every_llvm_backend) {
    const char *text = PRELUDE "@qd.kernel\ndef k(a: qd.types.NDArray[qd.i32, 1]):\n    for i in range(a.shape[0]):\n"
                       "        a[i] += 1\n";
    const char *targets[] = {"--target=x86_64", "--target=gfx942", "--target=gfx1100", "--target=sm_90", "--target=sm_60"};
    for (size_t k = 0; k < ARRAY_LEN(targets); k++) {
        char *dir = make_temp_dir(), *in = xasprintf("%s/in.qd", dir);
        cr_assert(write_text(in, text));
        RunResult r = run_qdc(in, targets[k], "--emit=llvm-ir", "-o", "-", NULL);
        cr_expect_eq(r.status, 0, "%s: %s", targets[k], r.err);
        const char *body = strstr(r.out, "task.body:");
        cr_assert(body, "%s: no task loop:\n%s", targets[k], r.out);
        cr_expect(strstr(body, " = add nuw i32 %i"), "%s: the increment is not add nuw:\n%s", targets[k], body);
        cr_expect(strstr(body, " = icmp ult i32 "), "%s: the exit test is not unsigned:\n%s", targets[k], body);
        cr_expect(!strstr(body, "add nsw i32 %i"), "%s: add nsw on the index:\n%s", targets[k], body);
        run_free(&r);
        remove_tree(dir);
        free(dir), free(in);
    }
}

/* ---- item 5: Python int constants are exact and checked where they meet a type ---- */

Test(sem_edges, constants_do_not_wrap_to_32_bits) {
    const char *head = PRELUDE "x = qd.field(qd.i32, shape=(4,))\ng = qd.field(qd.i64, shape=(4,))\n\n@qd.kernel\ndef k(s: qd.i32):\n";
    char *text = xasprintf("%s    for i in range(2**32 + 5):\n        x[0] = s\n", head);
    expect_rejected(text, "--target=x86_64", NEEDLES("in.qd:8:20: error[QD2012]: range bound 4294967301 does not fit i32 (loop indices are i32)\n"));
    free(text);
    text = xasprintf("%s    for j in qd.static(range(2**40)):\n        x[1] = j\n", head);
    expect_rejected(text, "--target=x86_64", NEEDLES("in.qd:8:30: error[QD2012]: range bound 1099511627776 does not fit i32 (loop indices are i32)\n"));
    free(text);
    text = xasprintf("%s    for i in range(-2**62, 4):\n        x[0] = s\n", head);
    expect_rejected(text, "--target=x86_64", NEEDLES("in.qd:8:20: error[QD2012]: range bound -4611686018427387904 does not fit i32 (loop indices are i32)\n"));
    free(text);
    /* a run-time range has no step (Quadrants' build_range_for); qd.static(range(a, b, step)) unrolls */
    text = xasprintf("%s    for i in range(4, 0, -1):\n        x[0] = s\n", head);
    expect_rejected(text, "--target=x86_64", NEEDLES("in.qd:8:14: error[QD2012]: Range should have 1 or 2 arguments, found 3\n"));
    free(text);
    text = xasprintf("%s    g[0] = 2**64\n    g[1] = 1 << -1\n", head);
    expect_rejected(text, "--target=x86_64", NEEDLES("in.qd:8:12: error[QD2050]: integer 18446744073709551616 (2**64 <= value < 2**65) does not fit a kernel "
                                                     "integer (i64 or u64): an integer a kernel uses must fit in 64 bits (i64: -2**63 "
                                                     "to 2**63 - 1, u64: up to 2**64 - 1)\n",
                                                     "in.qd:9:12: error[QD2050]: negative shift count -1 in a constant expression\n"));
    free(text);
    /* exact values at full width, as Python computes them */
    text = xasprintf("%s    g[0] = 1 << 40\n    g[1] = 2**32 + 5\n    g[2] = -2**63\n    g[3] = qd.i32(2147483647) + 1\n"
                     "    x[0] = -2147483648\n    x[1] = (2**40 + 7) %% 2**32\n", head);
    char *dir = make_temp_dir(), *in = xasprintf("%s/in.qd", dir);
    cr_assert(write_text(in, text));
    RunResult r = run_qdc(in, "--target=x86_64", "--emit=ir", "-o", "-", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cr_expect(strstr(r.out, "store field g[0:i32]:i64 = 1099511627776:i64\n"), "%s", r.out);
    cr_expect(strstr(r.out, "store field g[1:i32]:i64 = 4294967301:i64\n"), "%s", r.out);
    cr_expect(strstr(r.out, "store field g[2:i32]:i64 = -9223372036854775808:i64\n"), "%s", r.out);
    cr_expect(strstr(r.out, "store field g[3:i32]:i64 = -2147483648:i64\n"), "a typed i32 wraps:\n%s", r.out);
    cr_expect(strstr(r.out, "store field x[0:i32]:i32 = -2147483648:i32\n"), "%s", r.out);
    cr_expect(strstr(r.out, "store field x[1:i32]:i32 = 7:i32\n"), "%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(in), free(text);
}

/* Python folds a literal expression exactly whatever its intermediate values: 2**64 - 1 is
 * UINT64_MAX (test_return.py: qd.u64(2**64 - 1)); only the result has to fit in 64 bits. */
Test(sem_edges, constant_intermediates_past_64_bits) {
    const char *text = PRELUDE "g = qd.field(qd.i64, shape=(4,))\n\n@qd.kernel\ndef k() -> qd.u64:\n"
                       "    g[0] = 2**70 // 2**10 - 1\n    g[1] = (1 << 100) >> 90\n    g[2] = (-1)**(2**62) + 0**0 + 3**3\n"
                       "    g[3] = -(2**64) // 2**2\n    return qd.u64(2**64 - 1)\n";
    char *dir = make_temp_dir(), *in = xasprintf("%s/in.qd", dir);
    cr_assert(write_text(in, text));
    RunResult r = run_qdc(in, "--target=x86_64", "--emit=ir", "-o", "-", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "store field g[0:i32]:i64 = 1152921504606846975:i64\n"), "%s", r.out);
    cr_expect(strstr(r.out, "store field g[1:i32]:i64 = 1024:i64\n"), "%s", r.out);
    cr_expect(strstr(r.out, "store field g[2:i32]:i64 = 29:i64\n"), "%s", r.out);
    cr_expect(strstr(r.out, "store field g[3:i32]:i64 = -4611686018427387904:i64\n"), "%s", r.out);
    cr_expect(strstr(r.out, "store field qdc_ret_k[]:u64 = 18446744073709551615:u64\n"), "%s", r.out);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(in);
}

Test(sem_edges, constant_conversion_warns) {
    const char *text = PRELUDE "x = qd.field(qd.i32, shape=(4,))\nu = qd.field(qd.u32, shape=(4,))\n\n@qd.kernel\ndef k():\n"
                       "    x[0] = 4294967301\n    v: qd.i8 = 300\n    x[1] = v\n    u[0] = qd.cast(-1, qd.u32)\n    u[1] = 0xFFFFFFFF\n"
                       "    u[2] = -1\n";
    Compiled c = compile_text(text, "--target=x86_64", NULL);
    cr_expect_eq(c.r.status, 0, "%s", c.r.err);
    cr_expect(strstr(c.r.err, "in.qd:8:12: warning[QD2150]: integer constant 4294967301 does not fit i32; it becomes 5 [-Wconstant-conversion]\n"), "%s", c.r.err);
    cr_expect(strstr(c.r.err, "in.qd:9:16: warning[QD2150]: integer constant 300 does not fit i8; it becomes 44 [-Wconstant-conversion]\n"), "%s", c.r.err);
    cr_expect(strstr(c.r.err, "in.qd:13:12: warning[QD2150]: integer constant -1 does not fit u32; it becomes 4294967295 [-Wconstant-conversion]\n"), "%s", c.r.err);
    cr_expect(!strstr(c.r.err, "in.qd:11:"), "an explicit cast does not warn:\n%s", c.r.err);
    cr_expect(!strstr(c.r.err, "in.qd:12:"), "0xFFFFFFFF fits u32:\n%s", c.r.err);
    run_free(&c.r);
    c = compile_text(text, "--target=x86_64", "-Werror=constant-conversion");
    cr_expect_eq(c.r.status, 1);
    cr_expect(!c.out_exists);
    run_free(&c.r);
}
