/* Determinism (issue 7): every example compiled twice, from two different working directories and
 * with a relative vs an absolute source path, gives identical bytes for every family that
 * compiles it today (no timestamps, no absolute paths, no addresses in the output). */
#include "test_build_util.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *compile_in(const char *cwd, const char *target, const char *src, size_t *len, int *status) {
    char tflag[80];
    snprintf(tflag, sizeof tflag, "--target=%s", target);
    const char *args[] = {tflag, "-o", "-", src, NULL};
    RunResult r = run_qdc_argv(args, NULL, cwd);
    *status = r.status, *len = r.out_len;
    free(r.err);
    return r.out;
}

Test(determinism, examples_identical_across_directories_and_paths) {
    char *names[64];
    int nt = working_targets(names, 64);
    if (!nt) {
        fprintf(stderr, "test_determinism: no family compiles yet; skipping\n");
        cr_skip_test();
    }
    char *a = make_temp_dir(), *b = make_temp_dir(), *exdir = root_path("examples");
    DIR *d = opendir(exdir);
    cr_assert(d);
    int compared = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (l < 4 || strcmp(e->d_name + l - 3, ".qd")) continue;
        char *abs = path_join(exdir, e->d_name), *rel = path_join(a, e->d_name);
        cr_assert(copy_file(abs, rel));
        for (int t = 0; t < nt; t++) {
            size_t l1, l2;
            int s1, s2;
            char *o1 = compile_in(a, names[t], e->d_name, &l1, &s1); /* relative, in dir a */
            char *o2 = compile_in(b, names[t], abs, &l2, &s2);       /* absolute, in dir b */
            cr_expect_eq(s1, s2, "%s on %s: exit %d vs %d", e->d_name, names[t], s1, s2);
            if (s1 == 0 && s2 == 0) {
                cr_expect(l1 == l2 && !memcmp(o1, o2, l1), "%s on %s differs between runs", e->d_name, names[t]);
                compared++;
            }
            free(o1), free(o2);
        }
        free(abs), free(rel);
    }
    closedir(d);
    cr_expect_gt(compared, 0);
    free_names(names, nt), remove_tree(a), remove_tree(b), free(a), free(b), free(exdir);
}
