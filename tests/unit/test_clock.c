/* qd.clock_counter() (capability database: the clock section) and qd.randn() / qd.init(default_fp=)
 * beyond the corpus file testdata/lang/clock.py (which runs them on x86 on 1-8 threads): the
 * instruction each family reads the counter with, the 0 and warning QD4020 where a family has no
 * counter or its capability is not asserted, and the located errors. */
#include "harness.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const clock_src = "import quadrants as qd\n"
                                     "t = qd.field(qd.i64, shape=2)\n"
                                     "@qd.kernel\n"
                                     "def k():\n"
                                     "    t[0] = qd.clock_counter()\n";

static RunResult compile_clock(const char *src, const char *target, const char *emit, const char *cap) {
    char *dir = make_temp_dir(), *path = NULL, *topt = NULL;
    cr_assert(asprintf(&path, "%s/k.py", dir) > 0 && asprintf(&topt, "--target=%s", target) > 0);
    cr_assert(write_text(path, src));
    const char *argv[8] = {topt, emit, "-o", "-"};
    int n = 4;
    if (cap) argv[n++] = cap;
    argv[n++] = "k.py", argv[n] = NULL;
    RunResult r = run_qdc_argv(argv, NULL, dir);
    remove_tree(dir);
    free(dir), free(path), free(topt);
    return r;
}

/* Each LLVM family reads llvm.readcyclecounter; what LLVM 19 selects is the family's counter. */
Test(clock, llvm_families_read_their_cycle_counter) {
    static const struct { const char *target, *insn; } rows[] = {
        {"x86_64", "\trdtsc\n"},
        {"sm_60", "mov.u64 \t%rd1, %clock64;"},
        {"sm_90", "mov.u64 \t%rd1, %clock64;"},
        {"gfx906", "s_memtime s[0:1]"},
        {"gfx942", "s_memtime s[0:1]"},
        {"gfx1030", "s_memtime s[0:1]"},
        {"gfx1100", "hwreg(HW_REG_SHADER_CYCLES, 0, 20)"}, /* RDNA3: 20 bits (clock.bits) */
        {"gfx1200", "hwreg(HW_REG_SHADER_CYCLES_LO)"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        RunResult r = compile_clock(clock_src, rows[i].target, "--emit=asm", NULL);
        cr_expect_eq(r.status, 0, "%s: %s", rows[i].target, r.err);
        cr_expect_str_eq(r.err, "", "%s: no diagnostics", rows[i].target);
        cr_expect(r.out && strstr(r.out, rows[i].insn), "%s: expected '%s' in\n%s", rows[i].target, rows[i].insn, r.out);
        run_free(&r);
    }
}

/* Vulkan: OpReadClockKHR at Device scope only with --cap=+shader-clock, which the metadata lists. */
Test(clock, vulkan_reads_the_device_clock_with_the_capability) {
    RunResult r = compile_clock(clock_src, "vulkan1.2", "--emit=spirv-asm", "--cap=+shader-clock");
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cr_expect(strstr(r.out, "OpCapability ShaderClockKHR\n"), "%s", r.out);
    cr_expect(strstr(r.out, "OpExtension \"SPV_KHR_shader_clock\"\n"), "%s", r.out);
    cr_expect(strstr(r.out, "= OpReadClockKHR %ulong %uint_1\n"), "%s", r.out); /* Scope Device = 1 */
    run_free(&r);
    RunResult m = compile_clock(clock_src, "vulkan1.2", "--emit=metadata", "--cap=+shader-clock");
    cr_expect_eq(m.status, 0, "%s", m.err);
    cr_expect(strstr(m.out, "\"capabilities_used\": [\"shader-clock\"]"), "%s", m.out);
    run_free(&m);
}

/* Without the capability (and on Metal, which has no counter) the value is 0, as in Quadrants,
 * with a located warning that says why; -Werror=clock-counter-zero makes it an error. */
Test(clock, zero_with_a_warning_where_there_is_no_counter) {
    RunResult v = compile_clock(clock_src, "vulkan1.2", "--emit=spirv-asm", NULL);
    cr_expect_eq(v.status, 0, "%s", v.err);
    cr_expect(strstr(v.err, "k.py:5:12: warning[QD4020]: qd.clock_counter() is 0 on target 'vulkan1.2': pass "
                            "--cap=+shader-clock if the device has it (shaderDeviceClock (VK_KHR_shader_clock) and "
                            "shaderInt64: qd.clock_counter() reads the device clock) [-Wclock-counter-zero]\n"),
              "%s", v.err);
    cr_expect(!strstr(v.out, "ReadClock") && !strstr(v.out, "ShaderClock"), "%s", v.out);
    run_free(&v);
    RunResult a = compile_clock(clock_src, "apple8", "--emit=msl", NULL);
    cr_expect_eq(a.status, 0, "%s", a.err);
    cr_expect(strstr(a.err, "k.py:5:12: warning[QD4020]: qd.clock_counter() is 0 on target 'apple8': the family has "
                            "no cycle counter (capability-db/apple7.yaml:"),
              "%s", a.err);
    run_free(&a);
    RunResult e = compile_clock(clock_src, "apple8", "--emit=msl", "-Werror=clock-counter-zero");
    cr_expect_eq(e.status, 1, "%s", e.err);
    cr_expect(strstr(e.err, "k.py:5:12: error[QD4020]"), "%s", e.err);
    cr_expect_str_eq(e.out, "");
    run_free(&e);
}

/* Outside a kernel, with arguments, qd.randn of an integer type, a bad default_fp: located errors. */
Test(clock, errors) {
    static const struct { const char *src, *err; } rows[] = {
        {"import quadrants as qd\nx = qd.clock_counter()\n@qd.kernel\ndef k():\n    pass\n",
         "k.py:2:5: error[QD2019]: qd.clock_counter can only be called inside a kernel or qd.func\n"},
        {"import quadrants as qd\n@qd.kernel\ndef k():\n    a = qd.clock_counter(1)\n",
         "k.py:4:9: error[QD2007]: 'qd.clock_counter' takes 0"},
        {"import quadrants as qd\n@qd.kernel\ndef k():\n    a = qd.randn(qd.i32)\n",
         "k.py:4:18: error[QD2021]: qd.randn takes qd.f32 or qd.f64, got i32\n"},
        {"import quadrants as qd\n@qd.kernel\ndef k():\n    a = qd.randn(dtype=qd.f32)\n",
         "k.py:4:18: error[QD2007]: qd.randn takes one argument, dt\n"},
        {"import quadrants as qd\nqd.init(default_fp=qd.i32)\n@qd.kernel\ndef k():\n    pass\n",
         "k.py:2:20: error[QD2021]: qd.init's default_fp must be qd.f16, qd.f32 or qd.f64, got i32\n"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        RunResult r = compile_clock(rows[i].src, "x86_64", "--check", NULL);
        cr_expect_eq(r.status, 1, "row %zu: %s", i, r.err);
        cr_expect(strstr(r.err, rows[i].err), "row %zu: expected\n%s\ngot\n%s", i, rows[i].err, r.err);
        run_free(&r);
    }
}

/* qd.init(default_fp=qd.f64, default_ip=qd.i64): Python's float and int in annotations, casts and
 * qd.random/qd.randn mean f64 and i64. */
Test(clock, default_fp_and_ip) {
    const char *src = "import quadrants as qd\nqd.init(default_fp=qd.f64, default_ip=qd.i64)\n"
                      "@qd.kernel\ndef k(a: float, b: int) -> float:\n"
                      "    return float(b) + a + qd.randn() + qd.random(float)\n";
    RunResult r = compile_clock(src, "x86_64", "--emit=header", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "double a;") && strstr(r.out, "int64_t b;"), "%s", r.out);
    cr_expect(strstr(r.out, "/* k returns f64: stored in *ret"), "%s", r.out);
    run_free(&r);
}
