/* Helpers for the build-system tests: working families, temporary installs, file times. */
#include "test_build_util.h"
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

char *path_join(const char *a, const char *b) {
    size_t n = strlen(a) + strlen(b) + 2;
    char *p = malloc(n);
    snprintf(p, n, "%s/%s", a, b);
    return p;
}

void free_names(char **names, int n) {
    for (int i = 0; i < n; i++) free(names[i]);
}

int working_targets(char **names, int max) {
    RunResult r = run_qdc("--list-targets", NULL);
    char *ex = root_path("examples/histogram.qd"), *tmp = make_temp_dir(), *out = path_join(tmp, "k.out");
    int n = 0;
    for (char *line = r.out; r.status == 0 && *line && n < max;) {
        char name[64] = {0};
        char *nl = strchr(line, '\n');
        if (sscanf(line, "%63s", name) == 1 && name[0] >= 'a' && name[0] <= 'z') {
            char target[80];
            snprintf(target, sizeof target, "--target=%s", name);
            RunResult c = run_qdc(target, "-o", out, ex, NULL);
            if (c.status == 0) names[n++] = strdup(name);
            run_free(&c);
        }
        line = nl ? nl + 1 : line + strlen(line);
    }
    run_free(&r), remove_tree(tmp), free(tmp), free(out), free(ex);
    return n;
}

char *install_to_temp(void) {
    char bdir[4096];
    snprintf(bdir, sizeof bdir, "%s", qdc_bin());
    char *slash = strrchr(bdir, '/');
    if (!slash) return NULL;
    *slash = 0;
    size_t len = strlen(bdir);
    if (len >= 5 && !strcmp(bdir + len - 5, "/asan")) bdir[len - 5] = 0;
    char *dest = make_temp_dir(), bvar[4200], dvar[4200];
    snprintf(bvar, sizeof bvar, "B=%s", bdir);
    snprintf(dvar, sizeof dvar, "DESTDIR=%s", dest);
    const char *argv[] = {"make", "-s", "-C", qdc_root(), bvar, "install-files", dvar, "PREFIX=/usr", NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    if (r.status != 0) {
        fprintf(stderr, "make install-files failed (%d):\n%s%s", r.status, r.out, r.err);
        remove_tree(dest), free(dest), dest = NULL;
    }
    run_free(&r);
    return dest;
}

void set_mtime(const char *path, int secs) {
    struct timespec ts[2];
    clock_gettime(CLOCK_REALTIME, &ts[0]);
    ts[0].tv_sec += secs;
    ts[1] = ts[0];
    utimensat(AT_FDCWD, path, ts, 0);
}

bool copy_file(const char *from, const char *to) {
    size_t len = 0;
    char *data = read_text(from, &len);
    if (!data) return false;
    FILE *f = fopen(to, "wb");
    bool ok = f && fwrite(data, 1, len, f) == len;
    if (f) ok = fclose(f) == 0 && ok;
    free(data);
    return ok;
}

char *public_qdc_copy(char **qdc) {
    char tmpl[] = "/tmp/qdc-public-XXXXXX";
    if (!mkdtemp(tmpl) || chmod(tmpl, 0755) != 0) return NULL;
    char *dir = strdup(tmpl), *bin = path_join(dir, "bin"), *share = path_join(dir, "share");
    char *qshare = path_join(share, "qdc"), *db = path_join(qshare, "capability-db");
    char *src_db = path_join(qdc_root(), "capability-db");
    *qdc = path_join(bin, "qdc");
    bool ok = mkdir(bin, 0755) == 0 && mkdir(share, 0755) == 0 && mkdir(qshare, 0755) == 0 &&
              mkdir(db, 0755) == 0 && copy_file(qdc_bin(), *qdc) && chmod(*qdc, 0755) == 0;
    DIR *d = ok ? opendir(src_db) : NULL;
    ok = ok && d;
    for (struct dirent *e; ok && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".yaml")) continue;
        char *from = path_join(src_db, e->d_name), *to = path_join(db, e->d_name);
        ok = copy_file(from, to) && chmod(to, 0644) == 0;
        free(from), free(to);
    }
    if (d) closedir(d);
    free(bin), free(share), free(qshare), free(db), free(src_db);
    if (!ok) remove_tree(dir), free(dir), free(*qdc), dir = *qdc = NULL;
    return dir;
}

int count_lines_with(const char *text, const char *needle) {
    int n = 0;
    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char *copy = strndup(line, len);
        n += strstr(copy, needle) != NULL;
        free(copy);
        line += len + (nl != NULL);
    }
    return n;
}

static int backdate_secs;
static int backdate_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)ftw;
    if (flag == FTW_F) set_mtime(path, backdate_secs);
    return 0;
}
void backdate_tree(const char *dir, int secs) {
    backdate_secs = secs;
    nftw(dir, backdate_one, 16, FTW_PHYS);
}
