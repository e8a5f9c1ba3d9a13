/* The golden-output workflow (issue 20 items 7-8): --emit-all writes every text artifact per
 * family, --golden-check compares and prints a unified diff (exit 1) when a lowering changes,
 * lowering reports carry their target and name database facts by key path; --time-report. */
#include "cli/golden.h"
#include "test_build_util.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *diff_of(const char *a, const char *b) {
    StrBuf d;
    sb_init(&d);
    unified_diff(&d, "a", a, strlen(a), "b", b, strlen(b));
    sb_putc(&d, 0);
    return sb_take(&d);
}

Test(golden, unified_diff_hunks_like_diff_u) {
    char *same = diff_of("x\ny\n", "x\ny\n");
    cr_expect_str_eq(same, "");
    char *d = diff_of("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\nsixteen\n");
    cr_expect_str_eq(d, "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n@@ -13,3 +13,4 @@\n 13\n 14\n 15\n+sixteen\n");
    char *nl = diff_of("a\nb", "a\nc\n");
    cr_expect_str_eq(nl, "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n");
    char *empty = diff_of("", "new\n");
    cr_expect_str_eq(empty, "--- a\n+++ b\n@@ -0,0 +1,1 @@\n+new\n");
    free(same), free(d), free(nl), free(empty);
}

Test(golden, emit_all_then_check_catches_a_changed_lowering) {
    char *dir = make_temp_dir(), *ex = root_path("examples/float_sum.qd"), *g = path_join(dir, "golden"), flag[4200];
    snprintf(flag, sizeof flag, "--emit-all=%s", g);
    RunResult r = run_qdc(flag, "--target=vulkan1.2,sm_90,x86_64", ex, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_empty(r.out);
    run_free(&r);
    const char *files[] = {"vulkan1.2/float_sum.spvasm", "vulkan1.2/float_sum.lowering.txt", "sm_90/float_sum.ptx",
                           "sm_90/float_sum.lowering.txt", "x86_64/float_sum.s", "x86_64/float_sum.lowering.txt"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *p = path_join(g, files[i]);
        cr_expect(file_exists(p), "missing %s", files[i]);
        free(p);
    }
    char *rep = path_join(g, "vulkan1.2/float_sum.lowering.txt"), *before = read_text(rep, NULL);
    cr_assert(before);
    cr_expect(strstr(before, "# lowering for target vulkan1.2 (spirv)\n"), "%s", before);
    cr_expect(strstr(before, "cas          CAS loop computing add on the integer bits; not reduced: the family's subgroup reduction "
                              "needs --cap=+subgroup-arithmetic  (capability-db/vulkan1.1.yaml:ops.add.f32.else)\n"),
              "%s", before);
    r = run_qdc(flag, "--golden-check", "--target=vulkan1.2,sm_90,x86_64", ex, NULL);
    cr_expect_eq(r.status, 0, "unchanged: %s%s", r.out, r.err);
    cr_expect_str_empty(r.out);
    cr_expect_str_empty(r.err);
    run_free(&r);
    /* the device gains float atomics: the lowering changes, the check fails and shows how */
    r = run_qdc(flag, "--golden-check", "--target=vulkan1.2", "--cap=+float-atomic-add", ex, NULL);
    cr_expect_eq(r.status, 1);
    char hdr[8400];
    snprintf(hdr, sizeof hdr, "--- %s\n+++ %s (now)\n@@ -1,3 +1,4 @@\n # lowering for target vulkan1.2 (spirv)\n-", rep, rep);
    cr_expect(strstr(r.out, hdr), "%s", r.out);
    cr_expect(strstr(r.out, "+++ "), "%s", r.out);
    cr_expect(strstr(r.out, "native       OpAtomicFAddEXT; relies on +float-atomic-add; not reduced: the family's subgroup reduction "
                               "needs --cap=+subgroup-arithmetic  (capability-db/vulkan1.1.yaml:ops.add.f32)\n"),
              "%s", r.out);
    cr_expect(strstr(r.out, "+               OpCapability AtomicFloat32AddEXT\n"), "%s", r.out);
    char want[4400];
    snprintf(want, sizeof want, "qdc: 2 of 2 golden files under '%s' differ; to accept the new outputs, run:\n"
                                "  %s %s --golden-check --target=vulkan1.2 --cap=+float-atomic-add %s\n", g, qdc_bin(), flag, ex);
    *strstr(want, "--golden-check ") = 0; /* the command is this one without --golden-check */
    snprintf(want + strlen(want), sizeof want - strlen(want), "--target=vulkan1.2 --cap=+float-atomic-add %s\n", ex);
    cr_expect_str_eq(r.err, want);
    run_free(&r);
    char *after = read_text(rep, NULL);
    cr_expect_str_eq(after, before, "--golden-check writes nothing");
    /* the update mode is the plain run; a missing file is reported */
    char *ptx = path_join(g, "sm_90/float_sum.ptx");
    cr_assert(!remove(ptx));
    r = run_qdc(flag, "--golden-check", "--target=sm_90", ex, NULL);
    cr_expect_eq(r.status, 1);
    snprintf(want, sizeof want, "qdc: golden file '%s' is missing (run without --golden-check to write it)\n"
                                "qdc: note: golden directory '%s/vulkan1.2' holds float_sum outputs for family 'vulkan1.2', "
                                "which this run does not build (add --target=vulkan1.2, or delete the directory)\n"
                                "qdc: note: golden directory '%s/x86_64' holds float_sum outputs for family 'x86_64', "
                                "which this run does not build (add --target=x86_64, or delete the directory)\n", ptx, g, g);
    cr_expect_str_eq(r.out, want);
    run_free(&r);
    const char *bad[] = {flag, "-o", "k.ptx", "k.qd", NULL};
    r = run_qdc_argv(bad, NULL, NULL);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "qdc: error: --emit-all names its own files: drop -o, --emit, --check and -MD, and give a file, not -\n");
    run_free(&r);
    free(after), free(before), free(rep), free(ptx), remove_tree(dir), free(dir), free(ex), free(g);
}

Test(golden, report_records_carry_target_and_key_path) {
    char *ex = root_path("examples/histogram.qd");
    RunResult r = run_qdc("--report-lowering=json", "--check", "--target=sm_80,gfx942", ex, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(!strncmp(r.out, "{\"file\":", 8), "%s", r.out);
    cr_expect(strstr(r.out, ",\"kernel\":\"histogram\",\"target\":\"sm_80\",\"op\":\"add\","), "%s", r.out);
    cr_expect(strstr(r.out, ",\"kernel\":\"histogram\",\"target\":\"gfx942\",\"op\":\"add\","), "%s", r.out);
    cr_expect(strstr(r.out, "\"reason\":\"capability-db/sm_60.yaml:ops.add.int32\""), "%s", r.out);
    run_free(&r), free(ex);
}

/* A user directory's family file shadows the shipped one, with warning QD0008 naming both; a
 * comment added to it moves its lines but changes no report. */
Test(golden, user_family_file_shadows_and_edits_elsewhere_change_no_report) {
    char *dir = make_temp_dir(), *db = path_join(dir, "db"), *ex = root_path("examples/histogram.qd");
    cr_assert(!mkdir(db, 0777));
    char *shipped = root_path("capability-db/sm_60.yaml"), *mine = path_join(db, "sm_60.yaml"), dflag[4200];
    cr_assert(copy_file(shipped, mine));
    snprintf(dflag, sizeof dflag, "--capdb-dir=%s", db);
    RunResult a = run_qdc(dflag, "--report-lowering", "--check", "--target=sm_60", ex, NULL);
    cr_expect_eq(a.status, 0, "%s", a.err);
    cr_expect(strstr(a.out, "  (db/sm_60.yaml:ops.add.int32)\n"), "the user's file decides: %s", a.out);
    char want[9000];
    snprintf(want, sizeof want, "qdc: warning[QD0008]: capability file '%s' shadows '", mine);
    cr_expect(!strncmp(a.err, want, strlen(want)), "%s", a.err);
    cr_expect(strstr(a.err, "/capability-db/sm_60.yaml' (user directories come first) [-Wcapdb-shadow]\n"), "%s", a.err);
    char *t = read_text(mine, NULL), *more = malloc(strlen(t) + 64);
    sprintf(more, "# an added comment\n# and another\n%s", t);
    cr_assert(write_text(mine, more));
    RunResult b = run_qdc(dflag, "-Wno-capdb-shadow", "--report-lowering", "--check", "--target=sm_60", ex, NULL);
    cr_expect_eq(b.status, 0, "%s", b.err);
    cr_expect_str_empty(b.err);
    cr_expect_str_eq(b.out, a.out, "a comment elsewhere in the file changes no report");
    run_free(&a), run_free(&b), free(t), free(more), free(shipped), free(mine), remove_tree(dir), free(dir), free(db), free(ex);
}

Test(golden, time_report_names_each_phase) {
    char *dir = make_temp_dir(), *ex = root_path("examples/histogram.qd"), *out = path_join(dir, "%t.%e");
    RunResult r = run_qdc("--time-report", "--target=sm_90,x86_64", "-o", out, ex, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    const char *phases[] = {"qdc: time report (wall clock, ms)\n  read ", "\n  parse ", "\n  check ", "\n  lower+emit sm_90 ",
                            "\n  lower+emit x86_64 ", "\n  write ", "\n  total "};
    const char *at = r.err;
    for (size_t i = 0; i < sizeof phases / sizeof phases[0]; i++) {
        const char *p = strstr(at, phases[i]);
        cr_expect(p, "no '%s' in order in:\n%s", phases[i], r.err);
        if (p) at = p;
    }
    run_free(&r), remove_tree(dir), free(dir), free(ex), free(out);
}

/* ---- issue 35 item 5, issue 34 item 10: diffs, golden files that are not files, accepting ---- */

/* A 20,000-line PTX-like text with one edit near its start and one near its end: a shortest
 * edit script (Myers) gives a diff within 1.2x of `diff -u`'s, not a whole-file replacement. */
Test(golden, two_edits_in_20k_lines_give_a_small_diff) {
    StrBuf a, b;
    sb_init(&a), sb_init(&b);
    for (int i = 0; i < 20000; i++) {
        sb_printf(&a, "\tadd.s32 \t%%r%d, %%r%d, %d;\n", i % 97, i % 89, i);
        if (i == 40) sb_puts(&b, "\tatom.global.max.s32 \t%r1, [%rd1], %r2;\n");
        else if (i == 19950) sb_puts(&b, "\tmax.s32 \t%r3, %r4, 7;\n\tbar.sync \t0;\n");
        else sb_printf(&b, "\tadd.s32 \t%%r%d, %%r%d, %d;\n", i % 97, i % 89, i);
    }
    StrBuf d;
    sb_init(&d);
    unified_diff(&d, "a", a.data, a.len, "b", b.data, b.len);
    sb_putc(&d, 0);
    cr_expect(strstr(d.data, "@@ -38,7 +38,7 @@\n"), "%.400s", d.data);
    cr_expect(strstr(d.data, "-\tadd.s32 \t%r40, %r40, 40;\n+\tatom.global.max.s32 \t%r1, [%rd1], %r2;\n"), "%.400s", d.data);
    cr_expect(strstr(d.data, "@@ -19948,7 +19948,8 @@\n"), "%s", d.data);
    int ours = count_lines_with(d.data, "");
    char *dir = make_temp_dir(), *pa = path_join(dir, "a"), *pb = path_join(dir, "b");
    cr_assert(write_text(pa, a.data) && write_text(pb, b.data));
    if (tool_available("diff")) {
        const char *argv[] = {"diff", "-u", pa, pb, NULL};
        RunResult r = run_argv(argv, NULL, NULL);
        int theirs = count_lines_with(r.out, "");
        cr_expect_eq(r.status, 1);
        cr_expect_leq(ours * 10, theirs * 12, "ours %d lines, diff -u %d", ours, theirs);
        run_free(&r);
    }
    cr_expect_leq(ours, 24, "%d lines", ours);
    sb_free(&a), sb_free(&b), sb_free(&d), remove_tree(dir), free(dir), free(pa), free(pb);
}

/* Golden files are read as capability files are: a FIFO is never opened (the check does not
 * block), a file over the limit is named as such (not "missing", not loaded), a directory too. */
Test(golden, fifo_large_and_directory_goldens_are_reported, .timeout = 60) {
    char *dir = make_temp_dir(), *ex = root_path("examples/float_sum.qd"), *g = path_join(dir, "g"), flag[4200];
    snprintf(flag, sizeof flag, "--emit-all=%s", g);
    RunResult r = run_qdc(flag, "--target=sm_90,x86_64,vulkan1.2", ex, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *ptx = path_join(g, "sm_90/float_sum.ptx"), *s = path_join(g, "x86_64/float_sum.s"),
         *rep = path_join(g, "vulkan1.2/float_sum.lowering.txt");
    cr_assert(!remove(ptx) && !mkfifo(ptx, 0666));
    cr_assert(!truncate(s, (off_t)65 << 20)); /* sparse: 65 MiB without the disk space */
    cr_assert(!remove(rep) && !mkdir(rep, 0777));
    r = run_qdc(flag, "--golden-check", "--target=sm_90,x86_64,vulkan1.2", ex, NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    char want[9000];
    snprintf(want, sizeof want,
             "qdc: golden file '%s' is not a regular file\n"
             "qdc: golden file '%s' is larger than the 64 MiB limit\n"
             "qdc: golden file '%s' is a directory, not a regular file\n",
             ptx, s, rep);
    cr_expect_str_eq(r.out, want);
    run_free(&r);
    remove_tree(dir), free(dir), free(ex), free(g), free(ptx), free(s), free(rep);
}

/* A failing check prints the exact command that accepts the new outputs (running it makes the
 * check pass) and notes golden directories of families the run no longer builds. */
Test(golden, check_prints_the_accept_command_and_stale_families) {
    char *dir = make_temp_dir(), *ex = root_path("examples/float_sum.qd"), *g = path_join(dir, "g"), flag[4200];
    snprintf(flag, sizeof flag, "--emit-all=%s", g);
    RunResult r = run_qdc(flag, "--target=sm_90,x86_64", ex, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_qdc(flag, "--golden-check", "--target=sm_90", "--symbol-prefix=p_", ex, NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    char want[9000];
    snprintf(want, sizeof want, "qdc: 1 of 2 golden files under '%s' differ; to accept the new outputs, run:\n  %s %s --target=sm_90 --symbol-prefix=p_ %s\n",
             g, qdc_bin(), flag, ex);
    cr_expect_str_eq(r.err, want);
    snprintf(want, sizeof want, "qdc: note: golden directory '%s/x86_64' holds float_sum outputs for family 'x86_64', "
                                "which this run does not build (add --target=x86_64, or delete the directory)\n", g);
    cr_expect(strstr(r.out, want), "%s", r.out);
    run_free(&r);
    r = run_qdc(flag, "--target=sm_90", "--symbol-prefix=p_", ex, NULL); /* the printed command */
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_qdc(flag, "--golden-check", "--target=sm_90", "--symbol-prefix=p_", ex, NULL);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect_str_empty(r.err);
    run_free(&r);
    remove_tree(dir), free(dir), free(ex), free(g);
}

/* Issue 35 item 5: SPIR-V goldens carry stable ids (friendly names; the rest numbered in order of
 * first appearance, per function), so the disassembly of a module renumbers predictably, aligned
 * as spirv-dis aligns it, and renumbering again changes nothing. */
Test(golden, spirv_stable_ids_number_per_function) {
    const char *raw = "; SPIR-V\n; Bound: 98\n         %18 = OpExtInstImport \"GLSL.std.450\"\n"
                      "               OpEntryPoint GLCompute %57 \"k_t0\" %x\n               OpDecorate %120 NoContraction\n"
                      "          %2 = OpTypeFunction %void\n         %57 = OpFunction %void None %2\n         %58 = OpLabel\n"
                      "        %120 = OpExtInst %int %18 SMax %x %int_0\n               OpBranch %58\n"
                      "               OpFunctionEnd\n          %7 = OpFunction %void None %2\n"
                      "          %8 = OpLabel\n%_ptr_Function_int = OpTypePointer Function %int\n"
                      "               OpFunctionEnd\n";
    const char *want = "; SPIR-V\n         %g1 = OpExtInstImport \"GLSL.std.450\"\n"
                       "               OpEntryPoint GLCompute %g2 \"k_t0\" %x\n               OpDecorate %g3 NoContraction\n"
                       "         %g4 = OpTypeFunction %void\n         %g2 = OpFunction %void None %g4\n          %1 = OpLabel\n"
                       "         %g3 = OpExtInst %int %g1 SMax %x %int_0\n               OpBranch %1\n"
                       "               OpFunctionEnd\n         %g5 = OpFunction %void None %g4\n"
                       "          %1 = OpLabel\n%_ptr_Function_int = OpTypePointer Function %int\n"
                       "               OpFunctionEnd\n";
    StrBuf a, b;
    sb_init(&a), sb_init(&b);
    spirv_stable_ids(raw, strlen(raw), &a);
    sb_putc(&a, 0);
    cr_expect_str_eq(a.data, want);
    spirv_stable_ids(a.data, strlen(a.data), &b);
    sb_putc(&b, 0);
    cr_expect_str_eq(b.data, want, "renumbering is idempotent");
    sb_free(&a), sb_free(&b);
}

/* One statement of the first of two kernels gains an operand: the raw disassembly renumbers
 * every id after it (the second kernel's included), the golden diff shows only the lines of the
 * first kernel that changed. A golden written with the raw numbering still compares clean. */
Test(golden, one_statement_changes_a_few_spirv_golden_lines) {
    const char *v1 = "import quadrants as qd\n\n@qd.kernel\ndef first(x: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                     "    for i in range(x.shape[0]):\n        x[i] = x[i] * 3 + 1\n\n"
                     "@qd.kernel\ndef second(y: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n"
                     "    for i in range(y.shape[0]):\n        y[i] = y[i] * 2.0 + 1.0\n";
    char *dir = make_temp_dir(), *k = path_join(dir, "k.qd"), *g = path_join(dir, "golden"), *gk = path_join(g, "vulkan1.2/k.spvasm");
    char *raw1 = path_join(dir, "k1.spvasm"), *raw2 = path_join(dir, "k2.spvasm"), flag[4200];
    snprintf(flag, sizeof flag, "--emit-all=%s", g);
    char *v2 = strdup(v1);
    cr_assert(write_text(k, v1));
    RunResult r = run_qdc("--target=vulkan1.2", "--emit=spirv-asm", "-o", raw1, k, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_qdc(flag, "--target=vulkan1.2", k, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *stored = read_text(gk, NULL);
    cr_assert(stored);
    cr_expect(!strstr(stored, "; Bound:") && strstr(stored, "         %g2 = OpFunction %void None %g4\n          %1 = OpLabel\n"),
              "%s", stored);
    /* the edit: x[i] * 3 + 1 becomes x[i] * 3 + 1 + i */
    size_t n1 = strlen(v1);
    v2 = realloc(v2, n1 + 5);
    char *at = strstr(v2, "* 3 + 1\n") + 7;
    memmove(at + 4, at, strlen(at) + 1), memcpy(at, " + i", 4);
    cr_assert(write_text(k, v2));
    r = run_qdc("--target=vulkan1.2", "--emit=spirv-asm", "-o", raw2, k, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *t1 = read_text(raw1, NULL), *t2 = read_text(raw2, NULL);
    cr_assert(t1 && t2);
    StrBuf rd;
    sb_init(&rd);
    unified_diff(&rd, "a", t1, strlen(t1), "b", t2, strlen(t2));
    sb_putc(&rd, 0);
    int raw_changed = -2; /* the "---" and "+++" lines */
    for (const char *l = rd.data; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) raw_changed += *l == '-' || *l == '+';
    cr_expect_geq(raw_changed, 60, "the raw numbering shifts: %d changed lines\n%s", raw_changed, rd.data);
    r = run_qdc(flag, "--golden-check", "--target=vulkan1.2", k, NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    char want[9000];
    snprintf(want, sizeof want, "--- %s\n+++ %s (now)\n@@ -101,13 +101,15 @@\n"
             "          %%26 = OpIMul %%int %%25 %%int_3\n          %%27 = OpIAdd %%int %%26 %%int_1\n"
             "          %%28 = OpLoad %%int %%3\n"
             "-         %%29 = OpAccessChain %%_ptr_StorageBuffer_int %%x %%int_0 %%28\n-               OpStore %%29 %%27\n"
             "+         %%29 = OpIAdd %%int %%27 %%28\n+         %%30 = OpLoad %%int %%3\n"
             "+         %%31 = OpAccessChain %%_ptr_StorageBuffer_int %%x %%int_0 %%30\n+               OpStore %%31 %%29\n"
             "                OpBranch %%17\n          %%17 = OpLabel\n"
             "-         %%30 = OpLoad %%int %%4\n-         %%31 = OpIAdd %%int %%30 %%14\n-               OpStore %%4 %%31\n"
             "+         %%32 = OpLoad %%int %%4\n+         %%33 = OpIAdd %%int %%32 %%14\n+               OpStore %%4 %%33\n"
             "                OpBranch %%15\n          %%16 = OpLabel\n                OpReturn\n", gk, gk);
    cr_expect_str_eq(r.out, want);
    run_free(&r);
    /* a golden directory written with the raw numbering (before stable ids) compares clean */
    cr_assert(write_text(gk, t2));
    r = run_qdc(flag, "--golden-check", "--target=vulkan1.2", k, NULL);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect_str_empty(r.out);
    run_free(&r);
    sb_free(&rd), free(t1), free(t2), free(stored), free(v2), free(raw1), free(raw2), free(gk), free(g), free(k);
    remove_tree(dir), free(dir);
}
