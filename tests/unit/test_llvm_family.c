/* Issue 13 item 14: a family's llvm.cpu / llvm.features are checked against LLVM's target when
 * the family is chosen (QD3012 at the capability file's line, exit 1, no output), and any LLVM
 * fatal error is qdc's internal error (exit 3), never an abort (134). */
#include "frontend/frontend.h"
#include "harness.h"
#include "lower/lower.h"
#include "support/util.h"
#include "targets/target.h"
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdlib.h>
#include <string.h>

static int count_lines_with(const char *text, const char *needle) {
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

/* A capability directory holding one family `name` that extends `parent` with `llvm` lines. */
static char *family_dir(const char *name, const char *parent, const char *llvm_lines) {
    char *dir = make_temp_dir(), *path = xasprintf("%s/%s.yaml", dir, name);
    char *text = xasprintf("schema: 1\nname: %s\nextends: %s\nllvm:\n%s", name, parent, llvm_lines);
    cr_assert(write_text(path, text));
    free(path), free(text);
    return dir;
}

/* Exactly want_fmt (%s: the directory) on stderr: one located error, its line and caret. */
static void expect_qd3012(const char *name, const char *parent, const char *llvm_lines, const char *want_fmt) {
    char *dir = family_dir(name, parent, llvm_lines), *src = root_path("examples/histogram.qd");
    char *out = xasprintf("%s/k.out", dir), *tgt = xasprintf("--target=%s", name);
    RunResult r = run_qdc("--capdb-dir", dir, tgt, src, "-o", out, NULL);
    cr_expect_eq(r.status, 1, "%s: status %d: %s", name, r.status, r.err);
    char *want = xasprintf(want_fmt, dir);
    cr_expect_str_eq(r.err, want, "%s", name);
    cr_expect_eq(count_lines_with(r.err, "error["), 1, "one error for %s:\n%s", name, r.err);
    cr_expect(!file_exists(out), "no output after an error");
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(out), free(tgt), free(want);
}

Test(llvm_family, unknown_cpu_is_located) {
    expect_qd3012("myx", "x86_64", "  cpu: not-a-cpu\n",
                  "%s/myx.yaml:5:3: error[QD3012]: LLVM's target for 'x86_64-unknown-linux-gnu' has no processor "
                  "'not-a-cpu' (llvm.cpu of 'myx')\n 5 |   cpu: not-a-cpu\n   |   ^~~~~~~~~~~~~~\n");
    expect_qd3012("myamd", "gfx942", "  cpu: gfx9999\n",
                  "%s/myamd.yaml:5:3: error[QD3012]: LLVM's target for 'amdgcn-amd-amdhsa' has no processor "
                  "'gfx9999' (llvm.cpu of 'myamd')\n 5 |   cpu: gfx9999\n   |   ^~~~~~~~~~~~\n");
}

Test(llvm_family, impossible_or_unknown_features_are_located) {
    expect_qd3012("my32", "x86_64", "  features: \"-64bit\"\n",
                  "%s/my32.yaml:5:3: error[QD3012]: LLVM cannot compile for 'my32' (llvm.cpu 'x86-64', llvm.features "
                  "'-64bit'): LLVM ERROR: 64-bit code requested on a subtarget that doesn't support it!\n"
                  " 5 |   features: \"-64bit\"\n   |   ^~~~~~~~~~~~~~~~~~\n");
    expect_qd3012("myf", "x86_64", "  features: \"+nosuchfeature\"\n",
                  "%s/myf.yaml:5:3: error[QD3012]: llvm.features of 'myf': '+nosuchfeature' is not a recognized "
                  "feature for this target (ignoring feature)\n 5 |   features: \"+nosuchfeature\"\n"
                  "   |   ^~~~~~~~~~~~~~~~~~~~~~~~~~\n");
}

Test(llvm_family, checked_in_families_pass) {
    char *src = root_path("examples/histogram.qd");
    RunResult r = run_qdc("--target=x86_64,sm_60,sm_90,gfx90a,gfx1100", "--check", src, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_empty(r.err);
    run_free(&r);
    free(src);
}

/* A shipped family is not probed per run (cap_shipped), so this probes each one here: a user
 * file that extends it and changes nothing is checked in the child like any user family. */
Test(llvm_family, every_shipped_llvm_family_probes_clean) {
    RunResult l = run_qdc("--list-targets", NULL);
    cr_assert_eq(l.status, 0, "%s", l.err);
    char *dir = make_temp_dir(), *src = root_path("examples/histogram.qd");
    int n = 0;
    for (char *line = l.out; line && *line;) {
        char name[64], backend[16];
        char *nl = strchr(line, '\n');
        if (sscanf(line, "%63s %15s", name, backend) == 2 &&
            (!strcmp(backend, "ptx") || !strcmp(backend, "amdgpu") || !strcmp(backend, "x86_64"))) {
            char *path = xasprintf("%s/probe-%s.yaml", dir, name), *text = xasprintf("schema: 1\nname: probe-%s\nextends: %s\n", name, name);
            char *tgt = xasprintf("--target=probe-%s", name);
            cr_assert(write_text(path, text));
            RunResult r = run_qdc("--capdb-dir", dir, tgt, "--check", src, NULL);
            cr_expect_eq(r.status, 0, "%s: %s", name, r.err);
            cr_expect_str_empty(r.err, "%s", name);
            run_free(&r);
            free(path), free(text), free(tgt);
            n++;
        }
        line = nl ? nl + 1 : NULL;
    }
    cr_expect_geq(n, 16, "only %d LLVM families listed", n);
    run_free(&l);
    remove_tree(dir);
    free(dir), free(src);
}

/* In process, past the check: LLVM's fatal error goes through qdc's handler (exit 3). */
Test(llvm_family, llvm_fatal_error_is_internal_error, .exit_code = 3, .init = cr_redirect_stderr) {
    char *dir = family_dir("my32", "x86_64", "  features: \"-64bit\"\n");
    char *root = root_path("capability-db");
    const char *both[] = {root, dir};
    CapDb *db = capdb_open(both, 2);
    cr_assert_not_null(db);
    const CapTarget *t = capdb_target(db, "my32");
    cr_assert_not_null(t);
    remove_tree(dir); /* read already; the test ends in exit(3), which would leave it behind */
    const char *text = "import quadrants as qd\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                       "    for i in range(a.shape[0]):\n        a[i] = i\n";
    Arena arena = {0};
    Source *src = source_new("k.qd", text, strlen(text));
    IrModule *m = frontend_check(frontend_parse(src, &arena), &arena);
    cr_assert_not_null(m);
    ir_expand_module(m, &arena); /* as the driver does: otherwise codegen stops before LLVM runs */
    const IrLowered *low = lower_module(m, t, NULL, &arena);
    cr_assert_not_null(low);
    TargetOptions o = {.emit = EMIT_OBJ, .opt_level = 2, .module_name = "k"};
    StrBuf out;
    sb_init(&out);
    backend_llvm_emit(m, low, t, &o, &out); /* exits 3 */
    cr_assert_fail("LLVM accepted an x86_64 subtarget without 64-bit code");
}

/* Issue 34 item 14: each fact is reported where it is set, in the user's file, not at the
 * shipped parent's line of a related key; an unknown llvm.triple is located too. */
static const char vec4_kernel[] = "import quadrants as qd\n\nvec4 = qd.types.vector(4, qd.f32)\n"
                                  "f = qd.Vector.field(4, qd.f32, shape=(16,))\n\n@qd.kernel\ndef k(w: vec4):\n"
                                  "    for i in range(16):\n        qd.atomic_add(f[i], w)\n";

/* Compiles vec4_kernel to PTX for a family `name` (text: its file) and expects exactly want_fmt
 * (with %s = the directory) on stderr: one located error, its source line and caret; exit 1 and
 * no output. */
static void expect_located(const char *name, const char *text, const char *want_fmt) {
    char *dir = make_temp_dir(), *path = xasprintf("%s/%s.yaml", dir, name), *src = xasprintf("%s/v.py", dir);
    char *out = xasprintf("%s/k.out", dir), *tgt = xasprintf("--target=%s", name), *want = xasprintf(want_fmt, dir);
    cr_assert(write_text(path, text) && write_text(src, vec4_kernel));
    RunResult r = run_qdc("--color=never", "--capdb-dir", dir, tgt, "--emit=ptx", src, "-o", out, NULL);
    cr_expect_eq(r.status, 1, "%s: status %d: %s", name, r.status, r.err);
    cr_expect_str_eq(r.err, want, "%s", name);
    cr_expect_eq(count_lines_with(r.err, "error["), 1, "one error for %s:\n%s", name, r.err);
    cr_expect(!strstr(r.err, "sm_60.yaml") && !strstr(r.err, "sm_90.yaml"), "a shipped file blamed:\n%s", r.err);
    cr_expect(!strstr(r.err, "\n'+"), "raw LLVM warning on stderr:\n%s", r.err);
    cr_expect(!file_exists(out), "no output after an error");
    run_free(&r), remove_tree(dir);
    free(dir), free(path), free(src), free(out), free(tgt), free(want);
}

Test(llvm_family, vector_atomics_facts_are_located_in_the_users_file) {
    expect_located("myv", "schema: 1\nname: myv\nextends: sm_90\nvector_atomics:\n  llvm_features: \"+ptx99\"\n",
                   "%s/myv.yaml:5:3: error[QD3012]: vector_atomics.llvm_features of 'myv': '+ptx99' is not a "
                   "recognized feature for this target (ignoring feature)\n 5 |   llvm_features: \"+ptx99\"\n"
                   "   |   ^~~~~~~~~~~~~~~~~~~~~~~\n");
    expect_located("myw", "schema: 1\nname: myw\nextends: sm_90\nvector_atomics:\n  ptx_isa: \"7.7\"\n",
                   "%s/myw.yaml:5:3: error[QD3013]: vector_atomics.ptx_isa of 'myw' is '7.7', but LLVM wrote PTX "
                   "'.version 8.1' (from llvm.cpu 'sm_90', vector_atomics.llvm_features '+ptx81')\n"
                   " 5 |   ptx_isa: \"7.7\"\n   |   ^~~~~~~~~~~~~~\n");
}

Test(llvm_family, unknown_triple_is_located) {
    expect_located("myt", "schema: 1\nname: myt\nextends: sm_90\nllvm:\n  triple: bogus-triple-xyz\n",
                   "%s/myt.yaml:5:3: error[QD5001]: LLVM has no target for triple 'bogus-triple-xyz' (llvm.triple "
                   "of 'myt'): No available targets are compatible with triple \"bogus-triple-xyz\"\n"
                   " 5 |   triple: bogus-triple-xyz\n   |   ^~~~~~~~~~~~~~~~~~~~~~~~\n");
}

/* Issue 33: a family's llvm.passes replaces LLVM's default<O2> at -O2 (qdc-capdb(5)). A pipeline
 * LLVM cannot parse is QD3012 at its line, before anything is compiled. */
Test(llvm_family, unknown_pass_in_the_pipeline_is_located) {
    expect_qd3012("myp", "x86_64", "  passes: \"function(sroa,nosuchpass)\"\n",
                  "%s/myp.yaml:5:3: error[QD3012]: llvm.passes of 'myp': LLVM cannot run this pipeline: unknown "
                  "function pass 'nosuchpass'\n 5 |   passes: \"function(sroa,nosuchpass)\"\n"
                  "   |   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
}

/* The pipeline is the family's at -O2 only: a family whose pipeline is mem2reg alone gives at -O2
 * the IR x86_64 gives at -O0 (where qdc runs mem2reg alone), and at -O3 x86_64's own -O3 IR. */
static char *llvm_ir(const char *capdb, const char *target, const char *olevel) {
    char *dir = make_temp_dir(), *out = xasprintf("%s/k.ll", dir), *src = root_path("examples/histogram.qd");
    char *tgt = xasprintf("--target=%s", target);
    RunResult r = capdb ? run_qdc("--capdb-dir", capdb, tgt, olevel, "--emit=llvm-ir", src, "-o", out, NULL)
                        : run_qdc(tgt, olevel, "--emit=llvm-ir", src, "-o", out, NULL);
    cr_assert_eq(r.status, 0, "%s %s: %s", target, olevel, r.err);
    char *ir = read_text(out, NULL);
    cr_assert(ir);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(out), free(src), free(tgt);
    return ir;
}

Test(llvm_family, the_familys_pipeline_runs_at_O2_only) {
    char *dir = family_dir("myq", "x86_64", "  passes: \"mem2reg\"\n");
    char *mine2 = llvm_ir(dir, "myq", "-O2"), *x86_0 = llvm_ir(NULL, "x86_64", "-O0"), *x86_2 = llvm_ir(NULL, "x86_64", "-O2");
    char *mine3 = llvm_ir(dir, "myq", "-O3"), *x86_3 = llvm_ir(NULL, "x86_64", "-O3");
    cr_expect_str_eq(mine2, x86_0);
    cr_expect_str_neq(mine2, x86_2, "x86_64's own pipeline optimises");
    cr_expect(strstr(x86_0, "alloca") == NULL && strstr(x86_0, "phi ") != NULL, "mem2reg ran");
    cr_expect_str_eq(mine3, x86_3);
    remove_tree(dir);
    free(dir), free(mine2), free(x86_0), free(x86_2), free(mine3), free(x86_3);
}

/* A module whose largest function has more than llvm.large_passes_function instructions before
 * the pipeline gets llvm.large_passes at -O2 instead of llvm.passes (the shipped NVIDIA and x86
 * families: fewer InstCombine runs on long kernels); at or under the size, and at -O3, it does
 * not. histogram's task functions have between 2 and 2147483647 instructions. */
Test(llvm_family, the_large_pipeline_runs_above_its_size_only) {
    char *small = family_dir("mys", "x86_64", "  large_passes: \"mem2reg\"\n  large_passes_function: 2\n");
    char *huge = family_dir("myh", "x86_64", "  large_passes: \"mem2reg\"\n  large_passes_function: 2147483647\n");
    char *s2 = llvm_ir(small, "mys", "-O2"), *s3 = llvm_ir(small, "mys", "-O3"), *h2 = llvm_ir(huge, "myh", "-O2");
    char *x86_0 = llvm_ir(NULL, "x86_64", "-O0"), *x86_2 = llvm_ir(NULL, "x86_64", "-O2"), *x86_3 = llvm_ir(NULL, "x86_64", "-O3");
    cr_expect_str_eq(s2, x86_0, "above the size: mem2reg alone");
    cr_expect_str_eq(h2, x86_2, "under the size: llvm.passes");
    cr_expect_str_eq(s3, x86_3, "-O3 keeps LLVM's pipeline");
    remove_tree(small), remove_tree(huge);
    free(small), free(huge), free(s2), free(s3), free(h2), free(x86_0), free(x86_2), free(x86_3);
}

Test(llvm_family, unknown_pass_in_the_large_pipeline_is_located) {
    expect_qd3012("myl", "sm_90", "  large_passes: \"function(nosuchpass)\"\n",
                  "%s/myl.yaml:5:3: error[QD3012]: llvm.large_passes of 'myl': LLVM cannot run this pipeline: "
                  "unknown function pass 'nosuchpass'\n 5 |   large_passes: \"function(nosuchpass)\"\n"
                  "   |   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
}
