/* Compile-time Python in kernels (issue 14, frontend/py/sema_lang.c and sema_builtin.c) beyond the
 * corpus files testdata/lang/pyforms.py and random.py: what qd.static_print prints and where,
 * get_max_shared_memory_bytes() from the capability database, and the AST of the new forms. */
#include "harness.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static RunResult compile_text(const char *text, const char *const *opts) {
    char *dir = make_temp_dir(), *src = NULL;
    cr_assert(asprintf(&src, "%s/k.py", dir) > 0);
    cr_assert(write_text(src, text));
    const char *argv[12];
    int n = 0;
    for (; opts[n]; n++) argv[n] = opts[n];
    argv[n++] = "k.py", argv[n] = NULL;
    RunResult r = run_qdc_argv(argv, NULL, dir);
    remove_tree(dir);
    free(dir), free(src);
    return r;
}

static const char *const shared_src = "import quadrants as qd\n\n"
                                      "@qd.kernel\n"
                                      "def k():\n"
                                      "    qd.static_print('max', qd.lang.impl.get_max_shared_memory_bytes(is_lowerbound_ok=True), None, 1 < 2, sep='|')\n";

/* The capability database's max_shared_bytes of the one target, printed when compiling. */
Test(lang_forms, max_shared_bytes_from_the_database) {
    const char *x86[] = {"--target=x86_64", "--check", NULL}, *sm90[] = {"--target=sm_90", "--check", NULL};
    RunResult a = compile_text(shared_src, x86), b = compile_text(shared_src, sm90);
    cr_expect_eq(a.status, 0, "%s", a.err);
    cr_expect_str_eq(a.out, "max|65536|None|True\n");
    cr_expect_str_eq(a.err, "");
    cr_expect_eq(b.status, 0, "%s", b.err);
    cr_expect_str_eq(b.out, "max|49152|None|True\n");
    run_free(&a), run_free(&b);
}

/* Targets that disagree: a located QD2080, no output. */
Test(lang_forms, max_shared_bytes_of_disagreeing_targets) {
    const char *both[] = {"--target=x86_64,sm_90", "--check", NULL};
    RunResult r = compile_text(shared_src, both);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "k.py:5:28: error[QD2080]: the targets of this compile have different max_shared_bytes"), "%s", r.err);
    cr_expect_str_eq(r.out, "");
    run_free(&r);
}

/* With the object on standard output, static_print goes to standard error. */
Test(lang_forms, static_print_keeps_stdout_for_the_output) {
    const char *src = "import quadrants as qd\n\n@qd.kernel\ndef k():\n    qd.static_print('x', 2.5, qd.f16)\n";
    const char *to_stdout[] = {"--target=x86_64", "-o", "-", NULL};
    RunResult r = compile_text(src, to_stdout);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "x 2.5 f16\n");
    cr_expect(r.out_len > 4 && !memcmp(r.out, "\177ELF", 4), "stdout holds the object");
    run_free(&r);
}

/* --emit=ast spells the new forms. */
Test(lang_forms, ast_of_the_new_forms) {
    const char *src = "import quadrants as qd\n\nf = lambda a: a\n\n@qd.kernel\ndef k():\n"
                      "    x = [i for i in range(3) if i]\n    y = g(*x)\n    z = x[1:]\n    w = x is not None\n    v = 1 not in x\n";
    const char *ast[] = {"--emit=ast", "-o", "-", NULL};
    RunResult r = compile_text(src, ast);
    cr_expect_eq(r.status, 0, "%s", r.err);
    const char *want[] = {"(lambda 1 (name a", "(listcomp (name i", "(for (name i", "(starred (name x",
                          "(slice (int 1",  "_ _ @", " is not (none", " not in (name x"};
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) cr_expect(strstr(r.out, want[k]), "%s missing in:\n%s", want[k], r.out);
    run_free(&r);
}
