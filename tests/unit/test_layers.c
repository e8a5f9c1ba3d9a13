/* The compiler's files form no circle larger than tools/layers/circles.py's LIMIT (measured on
 * the objects this suite was built with), and the tool finds a circle it is shown. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

static char *obj_dir(void) {
    /* build/qdc → build/obj, build/asan/qdc → build/asan/obj */
    const char *bin = qdc_bin();
    const char *slash = strrchr(bin, '/');
    size_t n = slash ? (size_t)(slash - bin) : 0;
    char *d = malloc(n + 8);
    snprintf(d, n + 8, "%.*s%sobj", (int)n, bin, slash ? "/" : "");
    return d;
}

static RunResult circles(const char *max, const char *src, const char *objs) {
    char *tool = root_path("tools/layers/circles.py");
    const char *with[] = {"python3", tool, "--max", max, "--root", src, objs, NULL};
    const char *without[] = {"python3", tool, "--root", src, objs, NULL};
    RunResult r = run_argv(max ? with : without, NULL, NULL);
    free(tool);
    return r;
}

Test(layers, compiler_within_limit) {
    char *objs = obj_dir();
    cr_assert(file_exists(objs), "no object directory %s", objs);
    RunResult r = circles(NULL, qdc_root(), objs);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "frontend/sema_expr.o"), "the frontend was not measured:\n%s", r.out);
    run_free(&r), free(objs);
}

/* The compile-time Python evaluator (frontend/py/) is a layer below kernel semantics: it reaches
 * the core only through Sema.core (py/core.def) and the features only through Sema.up
 * (hooks.def), so a py/ object calls no frontend object but py/'s and the syntax's (lex, parse)
 * (issue 29 item 1). */
Test(layers, evaluator_calls_no_frontend_file_above_it) {
    char *objs = obj_dir(), *tool = root_path("tools/layers/circles.py");
    RunResult r = run_argv((const char *[]){"python3", tool, "--edges", "--root", qdc_root(), objs, NULL}, NULL, NULL);
    cr_expect(strstr(r.out, "frontend/py/sema_lang.o -> frontend/py/"), "the evaluator was not measured:\n%s", r.out);
    for (const char *line = r.out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        const char *end = strchr(line, '\n'), *arrow = strstr(line, " -> frontend/");
        if (strncmp(line, "frontend/py/", 12) || !arrow || (end && arrow > end)) continue;
        bool below = !strncmp(arrow, " -> frontend/py/", 16) || !strncmp(arrow, " -> frontend/parse.o:", 21) ||
                     !strncmp(arrow, " -> frontend/lex.o:", 19);
        cr_expect(below, "%.*s", end ? (int)(end - line) : (int)strlen(line), line);
    }
    run_free(&r), free(objs), free(tool);
}

/* Three files: a and b call each other, c calls a; a stale d.o without its source is ignored. */
Test(layers, finds_a_circle) {
    char *tmp = make_temp_dir(), path[4200];
    const char *src[][2] = {{"a", "int b(int); int a(int x) { return x ? b(x - 1) : 0; }\n"},
                            {"b", "int a(int); int b(int x) { return a(x); }\n"},
                            {"c", "int a(int); int c(void) { return a(3); }\n"},
                            {"d", "int c(void); int d(void) { return c(); }\n"}};
    for (int i = 0; i < 4; i++) {
        char o[4200];
        snprintf(path, sizeof path, "%s/%s.c", tmp, src[i][0]);
        cr_assert(write_text(path, src[i][1]));
        snprintf(o, sizeof o, "%s/%s.o", tmp, src[i][0]);
        RunResult cc = run_argv((const char *[]){"cc", "-c", path, "-o", o, NULL}, NULL, NULL);
        cr_assert_eq(cc.status, 0, "%s", cc.err);
        run_free(&cc);
    }
    snprintf(path, sizeof path, "%s/d.c", tmp);
    remove(path);
    RunResult r = circles("1", tmp, tmp);
    cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
    cr_expect_str_eq(r.out, "2 files: a.o b.o\nlargest circle: 2 files (limit 1)\n"
                            "file-to-file dependencies: 3, inside circles: 2\n");
    cr_expect(strstr(r.err, "a circle of 2 files is more than the limit of 1"), "%s", r.err);
    run_free(&r);
    r = circles("2", tmp, tmp);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    run_free(&r);
    remove_tree(tmp), free(tmp);
}
