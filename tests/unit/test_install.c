/* `make install` (issue 7): installs qdc, the capability database, the runtime, man pages and the
 * CMake package into DESTDIR/PREFIX; the installed qdc finds its database without flags. */
#include "test_build_util.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int count_suffix(const char *dir, const char *suffix) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t l = strlen(e->d_name), s = strlen(suffix);
        n += l > s && !strcmp(e->d_name + l - s, suffix);
    }
    if (d) closedir(d);
    return n;
}

Test(install, installs_everything_and_runs_from_destdir) {
    char *dest = install_to_temp();
    cr_assert(dest, "make install-files failed");
    const char *files[] = {"usr/bin/qdc", "usr/lib/libqdrt.a", "usr/share/man/man1/qdc.1", "usr/share/man/man7/qdc-lang.7",
                           "usr/lib/cmake/qdc/qdcConfig.cmake", "usr/lib/cmake/qdc/qdcConfigVersion.cmake",
                           "usr/bin/qdrun", "usr/include/qdc/qdrt_device.h", "usr/include/qdc/qdrt.h"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *p = path_join(dest, files[i]);
        cr_expect(file_exists(p), "%s not installed", files[i]);
        free(p);
    }
    char *internal = path_join(dest, "usr/include/qdc/qdrt_backend.h");
    cr_expect(!file_exists(internal), "the runtime's internal header is installed");
    free(internal);
    char *repo_db = root_path("capability-db"), *inst_db = path_join(dest, "usr/share/qdc/capability-db");
    cr_expect_eq(count_suffix(inst_db, ".yaml"), count_suffix(repo_db, ".yaml"), "every family file installed");
    /* The installed qdc lists the same families as the build tree's, with no flags. */
    char *qdc = path_join(dest, "usr/bin/qdc");
    const char *argv[] = {qdc, "--list-targets", NULL};
    RunResult mine = run_argv(argv, NULL, "/"), ref = run_qdc("--list-targets", NULL);
    cr_expect_eq(mine.status, 0, "%s", mine.err);
    cr_expect_str_eq(mine.out, ref.out);
    run_free(&mine), run_free(&ref);
    /* ... and compiles an example from there when a backend exists */
    char *names[1];
    if (working_targets(names, 1) == 1) {
        char tflag[80], *ex = root_path("examples/histogram.qd"), *out = path_join(dest, "k.out");
        snprintf(tflag, sizeof tflag, "--target=%s", names[0]);
        const char *a2[] = {qdc, tflag, "-o", out, ex, NULL};
        RunResult r = run_argv(a2, NULL, "/");
        cr_expect_eq(r.status, 0, "%s", r.err);
        cr_expect(file_exists(out));
        run_free(&r), free(ex), free(out), free(names[0]);
    } else {
        fprintf(stderr, "test_install: no family compiles yet; only --list-targets checked\n");
    }
    free(qdc), free(repo_db), free(inst_db), remove_tree(dest), free(dest);
}
