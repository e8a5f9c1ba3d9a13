/* Each target of a run has its own lowering result (issue 21 item 1, issue 13 item 10): the
 * checked module is never changed by lowering, so one target's decisions and capabilities never
 * show in another's output, and the order of --target does not change any output. */
#include "harness.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* Compiles examples/float_sum.qd for `targets` with +coarse-grained-memory into dir/<family>.json. */
static void metadata_for(const char *dir, const char *targets) {
    char *src = root_path("examples/float_sum.qd");
    char *tgt = xasprintf("--target=%s", targets);
    char *out = xasprintf("%s/%%t.%%e", dir);
    RunResult r = run_qdc(tgt, "--cap=+coarse-grained-memory", "--emit=metadata", "-o", out, src, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    free(src), free(tgt), free(out);
}

static char *caps_line(const char *dir, const char *family) {
    char *path = xasprintf("%s/%s.json", dir, family);
    char *text = read_text(path, NULL);
    cr_assert_not_null(text, "%s was not written", path);
    char *line = strstr(text, "\"capabilities_used\"");
    cr_assert_not_null(line, "%s", text);
    char *copy = xstrndup(line, strcspn(line, "\n"));
    free(text), free(path);
    return copy;
}

Test(per_target, capabilities_used_do_not_leak_between_targets) {
    char *a = make_temp_dir(), *b = make_temp_dir();
    metadata_for(a, "gfx90a,gfx906");
    metadata_for(b, "gfx906,gfx90a");
    char *a90a = caps_line(a, "gfx90a"), *a906 = caps_line(a, "gfx906");
    char *b90a = caps_line(b, "gfx90a"), *b906 = caps_line(b, "gfx906");
    cr_expect_str_eq(a90a, "\"capabilities_used\": [\"coarse-grained-memory\"],");
    cr_expect_str_eq(a906, "\"capabilities_used\": [],");
    cr_expect_str_eq(b90a, a90a, "the order of targets changed gfx90a's metadata");
    cr_expect_str_eq(b906, a906, "the order of targets changed gfx906's metadata");
    free(a90a), free(a906), free(b90a), free(b906);
    remove_tree(a), remove_tree(b);
    free(a), free(b);
}

/* The same for the decisions themselves: --report-lowering of a two-target run is exactly the
 * concatenation of the two single-target reports. */
Test(per_target, decisions_are_per_target) {
    char *src = root_path("examples/float_sum.qd");
    RunResult both = run_qdc("--target=sm_60,apple7", "--report-lowering", "--check", src, NULL);
    RunResult one = run_qdc("--target=sm_60", "--report-lowering", "--check", src, NULL);
    RunResult two = run_qdc("--target=apple7", "--report-lowering", "--check", src, NULL);
    cr_assert_eq(both.status, 0, "%s", both.err);
    cr_assert_eq(one.status, 0, "%s", one.err);
    cr_assert_eq(two.status, 0, "%s", two.err);
    char *cat = xasprintf("%s%s", one.out, two.out);
    cr_expect_str_eq(both.out, cat);
    free(cat), free(src);
    run_free(&both), run_free(&one), run_free(&two);
}

/* Issue 21 item 3: the block-size limit is the database's max_block_dim, per target (QD4007),
 * not a number in the checker; a family that allows 256 rejects block_dim=512 and writes nothing
 * for any target of the run. */
Test(per_target, block_dim_is_checked_against_max_block_dim) {
    char *dir = make_temp_dir(), *yaml = xasprintf("%s/small.yaml", dir), *src = xasprintf("%s/k.qd", dir);
    cr_assert(write_text(yaml, "schema: 1\nname: small\nextends: sm_80\nlimits:\n  max_block_dim: 256\n"));
    cr_assert(write_text(src, "import quadrants as qd\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                              "    qd.loop_config(block_dim=512)\n    for i in range(a.shape[0]):\n        a[i] = i\n"));
    char *out = xasprintf("%s/o/%%t.%%e", dir), *o80 = xasprintf("%s/o/sm_80.ptx", dir);
    RunResult r = run_qdc("--capdb-dir", dir, "--target=sm_80,small", "-o", out, src, NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    char *want = xasprintf("%s:5:5: error[QD4007]: task 'k_t0' asks for block_dim=512; small allows 256 (max_block_dim)\n", src);
    cr_expect(!strncmp(r.err, want, strlen(want)), "%s", r.err);
    cr_expect(!file_exists(o80), "no output of the run is written");
    run_free(&r);
    RunResult ok = run_qdc("--capdb-dir", dir, "--target=sm_80", "-o", out, src, NULL);
    cr_expect_eq(ok.status, 0, "%s", ok.err);
    run_free(&ok);
    remove_tree(dir);
    free(dir), free(yaml), free(src), free(out), free(o80), free(want);
}

/* Issue 21 item 3: the checker has no block-size number of its own (it was 1024, QD2017): a
 * target-independent --check accepts block_dim=2048, sm_80 (max_block_dim 1024) rejects it with
 * QD4007, and a family whose database allows 2048 compiles it. */
Test(per_target, block_dim_limit_is_only_the_database) {
    char *dir = make_temp_dir(), *yaml = xasprintf("%s/big.yaml", dir), *src = xasprintf("%s/k.qd", dir);
    cr_assert(write_text(yaml, "schema: 1\nname: big\nextends: sm_80\nlimits:\n  max_block_dim: 2048\n"));
    cr_assert(write_text(src, "import quadrants as qd\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                              "    qd.loop_config(block_dim=2048)\n    for i in range(a.shape[0]):\n        a[i] = i\n"));
    RunResult c = run_qdc("--check", src, NULL);
    cr_expect_eq(c.status, 0, "%s", c.err);
    RunResult r = run_qdc("--target=sm_80", "-o", "-", src, NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    char *want = xasprintf("%s:5:5: error[QD4007]: task 'k_t0' asks for block_dim=2048; sm_80 allows 1024 (max_block_dim)\n", src);
    cr_expect(!strncmp(r.err, want, strlen(want)), "%s", r.err);
    RunResult ok = run_qdc("--capdb-dir", dir, "--target=big", "-o", "-", src, NULL);
    cr_expect_eq(ok.status, 0, "%s", ok.err);
    cr_expect(strstr(ok.out, "\n.reqntid 2048, 1, 1\n") != NULL, "%s", ok.out);
    run_free(&c), run_free(&r), run_free(&ok);
    remove_tree(dir);
    free(dir), free(yaml), free(src), free(want);
}

/* Issue 21 item 3: ptx.isa and ptx.sm are read. They state the .version and .target of the PTX
 * that llvm.features and llvm.cpu make LLVM write; a family whose facts disagree is QD3013 at
 * the database line and nothing is written; one whose facts agree compiles. */
Test(per_target, ptx_isa_and_sm_must_match_the_emitted_ptx) {
    char *dir = make_temp_dir(), *yaml = xasprintf("%s/old.yaml", dir), *out = xasprintf("%s/k.ptx", dir);
    char *src = root_path("examples/histogram.qd");
    cr_assert(write_text(yaml, "schema: 1\nname: old\nextends: sm_80\nptx:\n  isa: \"7.8\"\n"));
    RunResult r = run_qdc("--capdb-dir", dir, "--target=old", src, "-o", out, NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    char *want = xasprintf("%s:5:3: error[QD3013]: ptx.isa of 'old' is '7.8', but LLVM wrote PTX '.version 8.0' "
                           "(from llvm.cpu 'sm_80', llvm.features '+ptx80')\n", yaml);
    cr_expect(!strncmp(r.err, want, strlen(want)), "%s", r.err);
    cr_expect(!file_exists(out));
    run_free(&r), free(want);
    cr_assert(write_text(yaml, "schema: 1\nname: old\nextends: sm_80\nptx:\n  sm: sm_86\n"));
    RunResult t = run_qdc("--capdb-dir", dir, "--target=old", "--emit=asm", src, "-o", out, NULL);
    cr_expect_eq(t.status, 1, "%s", t.err);
    want = xasprintf("%s:5:3: error[QD3013]: ptx.sm of 'old' is 'sm_86', but LLVM wrote PTX '.target sm_80' "
                     "(from llvm.cpu 'sm_80', llvm.features '+ptx80')\n", yaml);
    cr_expect(!strncmp(t.err, want, strlen(want)), "%s", t.err);
    cr_expect(!file_exists(out));
    run_free(&t), free(want);
    cr_assert(write_text(yaml, "schema: 1\nname: old\nextends: sm_80\nllvm:\n  features: \"+ptx78\"\n"
                               "ptx:\n  isa: \"7.8\"\n"));
    RunResult ok = run_qdc("--capdb-dir", dir, "--target=old", src, "-o", "-", NULL);
    cr_expect_eq(ok.status, 0, "%s", ok.err);
    cr_expect(strstr(ok.out, "\n.version 7.8\n.target sm_80\n") != NULL, "%s", ok.out);
    run_free(&ok);
    remove_tree(dir);
    free(dir), free(yaml), free(out), free(src);
}

/* Issue 21 item 3: the SPIR-V version is the database's spirv.version (no second table in the
 * backend); an invalid one is a located QD3007 and nothing is written. */
Test(per_target, spirv_version_comes_from_the_database) {
    char *dir = make_temp_dir(), *yaml = xasprintf("%s/vk.yaml", dir), *out = xasprintf("%s/k.spv", dir);
    cr_assert(write_text(yaml, "schema: 1\nname: vk\nextends: vulkan1.2\nspirv:\n  version: \"2.0\"\n"));
    char *src = root_path("examples/histogram.qd");
    RunResult r = run_qdc("--capdb-dir", dir, "--target=vk", src, "-o", out, NULL);
    cr_expect_eq(r.status, 1, "%s", r.err);
    char *want = xasprintf("%s:5:3: error[QD3007]: family 'vk' has no valid spirv.version (\"1.N\": the SPIR-V version "
                           "its environment vulkan1.2 takes)\n", yaml);
    cr_expect(!strncmp(r.err, want, strlen(want)), "%s", r.err);
    cr_expect(!file_exists(out));
    run_free(&r);
    cr_assert(write_text(yaml, "schema: 1\nname: vk\nextends: vulkan1.2\nspirv:\n  version: \"1.4\"\n"));
    RunResult ok = run_qdc("--capdb-dir", dir, "--target=vk", "--emit=spirv-asm", src, "-o", "-", NULL);
    cr_expect_eq(ok.status, 0, "%s", ok.err);
    cr_expect(strstr(ok.out, "; Version: 1.4"), "%s", ok.out);
    run_free(&ok);
    remove_tree(dir);
    free(dir), free(yaml), free(out), free(src), free(want);
}
