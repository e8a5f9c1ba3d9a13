/* The command line as a build tool sees it (issue 20): "did you mean" for options, targets,
 * warnings, --emit kinds, capabilities and memory orders; --emit and -o errors naming the kinds;
 * `--` and @file response files; --format=json listings; --version's build facts; outputs left
 * untouched when unchanged; --emit=c-array and --symbol-prefix; every failing family reported. */
#include "support/util.h"
#include "test_build_util.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool starts_with(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

static void expect_usage(const char *const *args, const char *want) {
    RunResult r = run_qdc_argv(args, NULL, NULL);
    cr_expect_eq(r.status, 2, "%s: exit %d", args[0], r.status);
    cr_expect_str_eq(r.err, want);
    cr_expect_str_empty(r.out);
    run_free(&r);
}

Test(cli_tooling, closest_name_edit_distance_case_and_abbreviation) {
    const char *opts[] = {"--target", "--targets", "--emit", "--check"};
    cr_expect_str_eq(closest_name("--trget", opts, 4), "--target");
    cr_expect_str_eq(closest_name("--emti", opts, 4), "--emit"); /* a transposition is one edit */
    cr_expect_null(closest_name("--frobnicate", opts, 4));
    const char *fams[] = {"sm_90", "sm_90a", "gfx942"};
    cr_expect_str_eq(closest_name("SM_90", fams, 3), "sm_90");
    cr_expect_str_eq(closest_name("gfx924", fams, 3), "gfx942");
    const char *orders[] = {"relaxed", "acquire", "release", "acq_rel", "seq_cst"};
    cr_expect_str_eq(closest_name("acquire_release", orders, 5), "acq_rel");
    cr_expect_str_eq(closest_name("seq_cts", orders, 5), "seq_cst");
    cr_expect_null(closest_name("x", orders, 5));
}

Test(cli_tooling, suggestions_for_options_warnings_and_emit_kinds) {
    const char *a[] = {"--trget=sm_90", "k.qd", NULL};
    expect_usage(a, "qdc: error: unknown option '--trget'; did you mean '--target'?\nqdc: run 'qdc --help' for usage\n");
    const char *b[] = {"-Wno-atomic-narowing", "k.qd", NULL};
    expect_usage(b, "qdc: error: unknown warning 'atomic-narowing' (see --list-warnings); did you mean "
                    "'-Wno-atomic-narrowing'?\nqdc: run 'qdc --help' for usage\n");
    const char *c[] = {"--emit=ptxx", "k.qd", NULL};
    expect_usage(c, "qdc: error: unknown --emit kind 'ptxx' (ast, ir, obj, asm, llvm-ir, header, metadata, ptx, hsaco, "
                    "spirv, spirv-asm, msl, c-array); did you mean 'ptx'?\nqdc: run 'qdc --help' for usage\n");
}

Test(cli_tooling, unknown_target_lists_and_suggests) {
    RunResult r = run_qdc("--target=SM_90", "k.qd", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "qdc: error: unknown target 'SM_90'; known targets: sm_60, "), "%s", r.err);
    cr_expect(strstr(r.err, "\nqdc: note: did you mean 'sm_90'?\n"), "%s", r.err);
    run_free(&r);
    r = run_qdc("--print-caps", "gfx924", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "\nqdc: note: did you mean 'gfx942'?\n"), "%s", r.err);
    run_free(&r);
}

Test(cli_tooling, emit_kind_errors_name_the_kind_and_the_allowed_ones) {
    char *ex = root_path("examples/histogram.qd");
    const char *a[] = {"--emit=hsaco", "--target=sm_90", ex, NULL};
    expect_usage(a, "qdc: error: --emit=hsaco is not available for target 'sm_90' (backend ptx); it produces: ast, ir, "
                    "asm, llvm-ir, header, metadata, ptx, c-array\n");
    char *dir = make_temp_dir(), *out = path_join(dir, "k.ptx");
    const char *b[] = {"--target=x86_64", "-o", out, ex, NULL};
    RunResult r = run_qdc_argv(b, NULL, NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "names a ptx file, which target 'x86_64' (backend x86_64) does not produce; pass "
                            "--emit=KIND (one of: ast, ir, obj, asm, llvm-ir, header, metadata, c-array)"), "%s", r.err);
    cr_expect(!file_exists(out), "nothing is written");
    run_free(&r);
    remove_tree(dir), free(dir), free(out), free(ex);
}

Test(cli_tooling, memory_order_and_capability_suggestions) {
    const char *src = "import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(qd.i32, ndim=1)):\n"
                      "    for i in range(a.shape[0]):\n        qd.atomic_add(a[0], 1, order=\"acquire_release\")\n";
    const char *args[] = {"--check", "-", NULL};
    RunResult r = run_qdc_argv(args, src, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "<stdin>:6:38: note: did you mean \"acq_rel\"?\n"), "%s", r.err);
    run_free(&r);
    char *ex = root_path("examples/histogram.qd");
    char *dir = make_temp_dir(), *out = path_join(dir, "k.spv");
    r = run_qdc("--target=vulkan1.3", "--cap=+float64-atomic-ad", "-o", out, ex, NULL);
    cr_expect(!file_exists(out));
    remove_tree(dir), free(dir), free(out);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "qdc: note: did you mean '--cap=+float64-atomic-add'?\n"), "%s", r.err);
    run_free(&r), free(ex);
}

Test(cli_tooling, double_dash_ends_options) {
    char *dir = make_temp_dir(), *src = path_join(dir, "-k.qd"), *ex = root_path("examples/histogram.qd");
    cr_assert(copy_file(ex, src));
    const char *args[] = {"--check", "--stats", "--", "-k.qd", NULL};
    RunResult r = run_qdc_argv(args, NULL, dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(!strncmp(r.out, "-k: 1 kernel (histogram)", 24), "%s", r.out);
    run_free(&r);
    remove_tree(dir), free(dir), free(src), free(ex);
}

Test(cli_tooling, response_files_quote_nest_and_fail_cleanly) {
    char *dir = make_temp_dir(), *ex = root_path("examples/histogram.qd");
    char *inner = path_join(dir, "inner.rsp"), *outer = path_join(dir, "args.rsp"), text[4400];
    cr_assert(write_text(inner, "--stats\n"));
    snprintf(text, sizeof text, "--check  '--target=x86_64'\n@%s \"%s\"\n", inner, ex);
    cr_assert(write_text(outer, text));
    char at[4200];
    snprintf(at, sizeof at, "@%s", outer);
    const char *args[] = {at, NULL};
    RunResult r = run_qdc_argv(args, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "histogram: 1 kernel"), "%s", r.out);
    run_free(&r);
    const char *missing[] = {"@/nonexistent/args.rsp", NULL};
    expect_usage(missing, "qdc: error: cannot read response file '/nonexistent/args.rsp': No such file or directory\n");
    char dir_at[4200];
    snprintf(dir_at, sizeof dir_at, "@%s", dir);
    const char *is_dir[] = {dir_at, NULL};
    char want_dir[4400];
    snprintf(want_dir, sizeof want_dir, "qdc: error: cannot read response file '%s': Is a directory\n", dir);
    expect_usage(is_dir, want_dir);
    snprintf(text, sizeof text, "@%s\n", outer);
    cr_assert(write_text(inner, text)); /* inner -> outer -> inner ... */
    r = run_qdc_argv(args, NULL, NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "qdc: error: response files nest more than 8 deep"), "%s", r.err);
    run_free(&r);
    remove_tree(dir), free(dir), free(ex), free(inner), free(outer);
}

Test(cli_tooling, json_listings_and_md_refused_where_meaningless) {
    RunResult r = run_qdc("--list-targets", "--format=json", NULL);
    cr_expect_eq(r.status, 0);
    cr_expect(starts_with(r.out, "{\"schema\":1,\"targets\":[\n{\"name\":\"sm_60\",\"backend\":\"ptx\",\"aliases\":[],"),
              "%s", r.out);
    cr_expect(strstr(r.out, "{\"name\":\"sm_90\",\"backend\":\"ptx\",\"aliases\":[\"h100\"],"), "%s", r.out);
    run_free(&r);
    r = run_qdc("--support-matrix", "--targets=sm_90,x86_64", "--format=json", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(starts_with(r.out, "{\"schema\":1,\"targets\":[\"sm_90\",\"x86_64\"],\"rows\":[\n{\"space\":\"global\","),
              "%s", r.out);
    cr_expect(strstr(r.out, "{\"space\":\"global\",\"op\":\"add\",\"dtype\":\"bf16\",\"cells\":[\"native\",\"CAS\"]},\n"), "%s", r.out);
    run_free(&r);
    r = run_qdc("--support-matrix", "--targets=all", NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "x86_64-v3"), "--targets=all lists every family");
    run_free(&r);
    const char *a[] = {"--print-caps", "sm_90", "--format=md", NULL};
    expect_usage(a, "qdc: error: --print-caps prints text or json, not md\n");
    const char *b[] = {"--list-targets", "--format=md", NULL};
    expect_usage(b, "qdc: error: --list-targets prints text or json, not md\n");
}

Test(cli_tooling, version_reports_build_facts_from_one_source) {
    RunResult r = run_qdc("--version", NULL);
    cr_expect_eq(r.status, 0);
    char *vf = root_path("VERSION"), *v = read_text(vf, NULL), want[128];
    cr_assert(v);
    v[strcspn(v, "\n")] = 0;
    snprintf(want, sizeof want, "qdc %s (git ", v);
    cr_expect(!strncmp(r.out, want, strlen(want)), "%s", r.out);
    cr_expect(strstr(r.out, "\nbackends: LLVM 19."), "%s", r.out);
    cr_expect(strstr(r.out, ", SPIRV-Tools "), "%s", r.out);
    cr_expect(strstr(r.out, ", SPIRV-Cross "), "%s", r.out);
    cr_expect(strstr(r.out, "\ncapability database: schema 1, /"), "%s", r.out);
    run_free(&r);
    /* the man pages carry the same version */
    const char *pages[] = {"man/qdc.1.head", "man/qdc-abi.7", "man/qdc-capdb.5", "man/qdc-spirv.7"};
    snprintf(want, sizeof want, "\"qdc %s\"", v);
    for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
        char *p = root_path(pages[i]), *t = read_text(p, NULL);
        if (t) cr_expect(strstr(t, want), "%s lacks %s", pages[i], want);
        free(p), free(t);
    }
    free(vf), free(v);
}

Test(cli_tooling, keep_unchanged_outputs_keep_their_time_stamp) {
    char *dir = make_temp_dir(), *ex = root_path("examples/histogram.qd"), *h = path_join(dir, "k.h"),
         *d = path_join(dir, "k.h.d");
    const char *args[] = {"--keep-unchanged", "--target=x86_64", "-o", h, "-MD", "-MF", d, ex, NULL};
    RunResult r = run_qdc_argv(args, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    set_mtime(h, -1000), set_mtime(d, -1000);
    struct stat before, bd, after, ad;
    cr_assert(!stat(h, &before) && !stat(d, &bd));
    r = run_qdc_argv(args, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    cr_assert(!stat(h, &after) && !stat(d, &ad));
    cr_expect_eq(after.st_mtime, before.st_mtime, "an identical header is not rewritten");
    cr_expect_eq(ad.st_mtime, bd.st_mtime, "an identical depfile is not rewritten");
    cr_assert(write_text(h, "/* stale */\n"));
    set_mtime(h, -1000);
    r = run_qdc_argv(args, NULL, NULL);
    run_free(&r);
    cr_assert(!stat(h, &after));
    cr_expect_gt(after.st_mtime, before.st_mtime, "a changed header is written");
    remove_tree(dir), free(dir), free(ex), free(h), free(d);
}

Test(cli_tooling, c_array_embeds_the_default_output) {
    char *dir = make_temp_dir(), *ex = root_path("examples/histogram.qd"), *c = path_join(dir, "k.c"),
         *ptx = path_join(dir, "k.ptx");
    RunResult r = run_qdc("--target=sm_90", "--symbol-prefix=lib1_", "-o", ptx, ex, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_qdc("--target=sm_90", "--symbol-prefix=lib1_", "-o", c, ex, NULL); /* .c picks c-array */
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    size_t plen;
    char *p = read_text(ptx, &plen), *text = read_text(c, NULL), decl[128];
    cr_assert(p && text);
    snprintf(decl, sizeof decl, "const size_t lib1_qdc_histogram_sm_90_size = %zu;\n", plen);
    cr_expect(strstr(text, decl), "%s", text);
    cr_expect(strstr(text, "const unsigned char lib1_qdc_histogram_sm_90["), "%s", text);
    /* the C compiler turns it back into the same bytes */
    char *obj = path_join(dir, "k.o"), *main_c = path_join(dir, "m.c"), *exe = path_join(dir, "m");
    cr_assert(write_text(main_c, "#include <stdio.h>\n#include <stddef.h>\nextern const size_t lib1_qdc_histogram_sm_90_size;\n"
                                 "extern const unsigned char lib1_qdc_histogram_sm_90[];\nint main(void) {\n"
                                 "    fwrite(lib1_qdc_histogram_sm_90, 1, lib1_qdc_histogram_sm_90_size, stdout);\n"
                                 "    return lib1_qdc_histogram_sm_90[lib1_qdc_histogram_sm_90_size];\n}\n"));
    const char *cc[] = {"cc", "-std=c17", "-Wall", "-Werror", "-o", exe, main_c, c, NULL};
    r = run_argv(cc, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    const char *run[] = {exe, NULL};
    r = run_argv(run, NULL, NULL);
    cr_expect_eq(r.status, 0, "the array ends with a NUL");
    cr_expect_eq(r.out_len, plen);
    cr_expect(r.out_len == plen && !memcmp(r.out, p, plen), "embedded bytes differ from the .ptx");
    run_free(&r);
    remove_tree(dir), free(dir), free(ex), free(c), free(ptx), free(p), free(text), free(obj), free(main_c), free(exe);
}

/* Two modules that both declare a field `counter` and a kernel `bump` link into one program
 * once each has its own --symbol-prefix; without it the link fails. */
Test(cli_tooling, symbol_prefix_lets_two_modules_link) {
    const char *src = "import quadrants as qd\n\ncounter = qd.field(qd.i32, shape=())\n\n@qd.kernel\n"
                      "def bump(a: qd.types.ndarray(qd.i32, ndim=1)):\n    for i in range(a.shape[0]):\n"
                      "        qd.atomic_add(counter[None], a[i])\n";
    char *dir = make_temp_dir(), *k = path_join(dir, "k.qd"), *a = path_join(dir, "a.o"), *b = path_join(dir, "b.o"),
         *ah = path_join(dir, "a.h"), *exe = path_join(dir, "m"), *mc = path_join(dir, "m.c");
    cr_assert(write_text(k, src));
    RunResult r = run_qdc("-o", a, k, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_qdc("-o", b, k, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    cr_assert(write_text(mc, "int main(void) { return 0; }\n"));
    const char *clash[] = {"cc", "-o", exe, mc, a, b, NULL};
    r = run_argv(clash, NULL, NULL);
    cr_expect_neq(r.status, 0, "the same symbols twice must clash");
    cr_expect(strstr(r.err, "multiple definition of `qd_field_counter'"), "%s", r.err);
    run_free(&r);
    r = run_qdc("--symbol-prefix=one_", "-o", a, k, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_qdc("--symbol-prefix=one_", "-o", ah, k, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_qdc("--symbol-prefix=two_", "-o", b, k, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *h = read_text(ah, NULL);
    cr_assert(h);
    cr_expect(strstr(h, "extern int32_t qd_field_one_counter;"), "%s", h);
    cr_expect(strstr(h, "static inline int one_bump(const one_bump_args *args, int nthreads)"), "%s", h);
    free(h);
    char *rt_inc = root_path("runtime");
    char main_text[600];
    snprintf(main_text, sizeof main_text, "#include \"a.h\"\nextern int32_t qd_field_two_counter;\n"
                                          "int main(void) { return qd_field_one_counter + qd_field_two_counter; }\n");
    cr_assert(write_text(mc, main_text));
    const char *rt = getenv("QDC_RT");
    cr_assert(rt);
    char inc[4200];
    snprintf(inc, sizeof inc, "-I%s", rt_inc);
    const char *ok[] = {"cc", inc, "-o", exe, mc, a, b, rt, "-lpthread", "-lm", NULL};
    r = run_argv(ok, NULL, dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    const char *bad[] = {"--symbol-prefix=9x", "k.qd", NULL};
    expect_usage(bad, "qdc: error: --symbol-prefix needs a C identifier prefix (letters, digits, _), got '9x'\n"
                      "qdc: run 'qdc --help' for usage\n");
    remove_tree(dir), free(dir), free(k), free(a), free(b), free(ah), free(exe), free(mc), free(rt_inc);
}

Test(cli_tooling, multi_target_run_reports_every_failing_family) {
    /* a standalone fence: apple7 and apple9 both refuse it (QD4005) */
    const char *src = "import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(qd.i32, ndim=1)):\n"
                      "    for i in range(16):\n        qd.simt.grid.mem_fence()\n";
    char *dir = make_temp_dir(), *k = path_join(dir, "k.qd"), *out = path_join(dir, "%t.%e");
    cr_assert(write_text(k, src));
    RunResult r = run_qdc("--target=apple7,x86_64,apple9", "-o", out, k, NULL);
    if (r.status == 1 && strstr(r.err, "QD4005")) {
        cr_expect(strstr(r.err, "target 'apple7'"), "%s", r.err);
        cr_expect(strstr(r.err, "target 'apple9'"), "%s", r.err);
    } else {
        cr_expect_fail("expected QD4005 on apple7 and apple9: exit %d\n%s", r.status, r.err);
    }
    run_free(&r);
    remove_tree(dir), free(dir), free(k), free(out);
}

/* User messages carry no research-note tags ([M5], [V1]); warnings name their switch. */
Test(cli_tooling, messages_without_internal_tags_and_warnings_with_switch) {
    char *bad = root_path("testdata/bad/lower-msl-grid-fence.qd"), *dir = make_temp_dir(), *out = path_join(dir, "k.metal");
    RunResult r = run_qdc("--target=apple7", "-o", out, bad, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "error[QD4005]: memory fence is not supported on target 'apple7' (capability-db/apple7.yaml:"),
              "%s", r.err);
    for (const char *p = r.err; (p = strchr(p, '[')); p++) /* the database's notes carry [S1], [M5] */
        cr_expect(!(p[1] >= 'A' && p[1] <= 'Z' && p[2] >= '0' && p[2] <= '9'), "internal tag in: %s", r.err);
    run_free(&r);
    const char *src = "import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(qd.f64, ndim=1)):\n"
                      "    for i in range(a.shape[0]):\n        qd.atomic_add(a[0], a[i])\n";
    char *k = path_join(dir, "k.qd"), *spv = path_join(dir, "k.spv");
    cr_assert(write_text(k, src));
    r = run_qdc("--target=vulkan1.3", "-o", spv, k, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "(VK_EXT_shader_atomic_float)\n"), "%s", r.err);
    for (const char *p = r.err; (p = strchr(p, '[')); p++)
        cr_expect(!(p[1] >= 'A' && p[1] <= 'Z' && p[2] >= '0' && p[2] <= '9'), "internal tag in: %s", r.err);
    run_free(&r);
    r = run_qdc("--print-caps", "vulkan1.3", NULL);
    cr_expect(!strstr(r.out, "[V1]"), "%s", r.out);
    run_free(&r);
    char *narrow = root_path("testdata/diag/narrowing.qd");
    r = run_qdc("--check", narrow, NULL);
    cr_expect(strstr(r.err, "warning[QD2101]: 'atomic_add' operand of type f32 is narrowed to the target's type i32 "
                            "[-Watomic-narrowing]\n"), "%s", r.err);
    run_free(&r);
    r = run_qdc("--check", "-Werror=atomic-narrowing", narrow, NULL);
    cr_expect(strstr(r.err, "error[QD2101]: 'atomic_add' operand of type f32 is narrowed to the target's type i32 "
                            "[-Werror=atomic-narrowing]\n"), "%s", r.err);
    run_free(&r);
    remove_tree(dir), free(dir), free(out), free(bad), free(k), free(spv), free(narrow);
}

/* Every `qdc ...` line of the README's sh blocks works when pasted in a checkout (here: a
 * directory whose examples/ is the checkout's), in order, so the golden check follows the
 * golden write. */
Test(cli_tooling, readme_qdc_commands_work) {
    char *readme = root_path("README.md"), *text = read_text(readme, NULL), *dir = make_temp_dir();
    char *examples = root_path("examples"), *link = path_join(dir, "examples");
    cr_assert(text);
    cr_assert(!symlink(examples, link));
    int ran = 0;
    bool in_sh = false;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strncmp(line, "```", 3)) {
            in_sh = !in_sh && !strcmp(line, "```sh");
            continue;
        }
        if (!in_sh || strncmp(line, "qdc ", 4)) continue;
        char *hash = strstr(line, "  #");
        if (hash) *hash = 0;
        const char *args[32];
        int n = 0;
        for (char *save = NULL, *w = strtok_r(line + 4, " ", &save); w && n < 31; w = strtok_r(NULL, " ", &save)) args[n++] = w;
        args[n] = NULL;
        RunResult r = run_qdc_argv(args, NULL, dir);
        cr_expect_eq(r.status, 0, "README: qdc %s ...: exit %d\n%s", args[0], r.status, r.err);
        run_free(&r);
        ran++;
    }
    cr_expect_geq(ran, 6, "the README's qdc commands were found");
    char *golden = path_join(dir, "out/golden/sm_90/float_sum.ptx");
    cr_expect(file_exists(golden), "the golden example wrote %s", golden);
    remove_tree(dir), free(dir), free(readme), free(text), free(examples), free(link), free(golden);
}

/* Diagnostics come out sorted by position although the checker visits fields before kernels;
 * the error limit still prints what was kept back before its fatal line. */
Test(cli_tooling, diagnostics_sorted_by_position) {
    const char *src = "import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(qd.i32, ndim=1)):\n"
                      "    for i in range(a.shape[0]):\n        a[i] = undefined_name\n\nbad = qd.field(qd.nosuch, shape=())\n";
    const char *args[] = {"--check", "--color=never", "-", NULL};
    RunResult r = run_qdc_argv(args, src, NULL);
    cr_expect_eq(r.status, 1);
    const char *first = strstr(r.err, "<stdin>:6:16: error[QD2001]"), *second = strstr(r.err, "<stdin>:8:16: error[QD2005]");
    cr_expect(first && second && first < second, "line 6 before line 8:\n%s", r.err);
    run_free(&r);
    const char *lim[] = {"--check", "--color=never", "--error-limit=1", "-", NULL};
    r = run_qdc_argv(lim, src, NULL);
    cr_expect_eq(r.status, 1);
    const char *err = strstr(r.err, "error[QD"), *fatal = strstr(r.err, "qdc: fatal error: too many errors emitted (1)");
    cr_expect(err && fatal && err < fatal, "the kept-back error comes first:\n%s", r.err);
    run_free(&r);
}
