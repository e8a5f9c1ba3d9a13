/* Test helpers: subprocesses with posix_spawn (no shell), captured output, temp dirs. */
#include "harness.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void append(char **buf, size_t *len, size_t *cap, const char *data, size_t n) {
    if (*len + n + 1 > *cap) {
        *cap = (*len + n + 1) * 2;
        *buf = realloc(*buf, *cap);
    }
    memcpy(*buf + *len, data, n);
    *len += n;
    (*buf)[*len] = 0;
}

RunResult run_argv(const char *const *argv, const char *stdin_data, const char *cwd) {
    RunResult r = {0};
    int in[2], out[2], err[2];
    if (pipe(in) || pipe(out) || pipe(err)) abort();
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    int fds[] = {in[0], in[1], out[0], out[1], err[0], err[1]};
    for (int i = 0; i < 6; i++) posix_spawn_file_actions_addclose(&fa, fds[i]);
    if (cwd) posix_spawn_file_actions_addchdir_np(&fa, cwd);
    pid_t pid;
    int rc = strchr(argv[0], '/') ? posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ)
                                  : posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]), close(out[1]), close(err[1]);
    size_t ocap = 0, ecap = 0;
    append(&r.out, &r.out_len, &ocap, "", 0);
    append(&r.err, &r.err_len, &ecap, "", 0);
    if (rc != 0) {
        close(in[1]), close(out[0]), close(err[0]);
        r.status = 127;
        return r;
    }
    size_t in_len = stdin_data ? strlen(stdin_data) : 0, in_off = 0;
    if (!in_len) close(in[1]), in[1] = -1;
    else fcntl(in[1], F_SETFL, O_NONBLOCK);
    struct pollfd p[3] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}, {in[1], POLLOUT, 0}};
    int open_fds = 2;
    char buf[65536];
    while (open_fds > 0 || in[1] >= 0) {
        p[2].fd = in[1];
        if (poll(p, 3, -1) < 0 && errno != EINTR) break;
        for (int k = 0; k < 2; k++) {
            if (p[k].fd < 0 || !(p[k].revents & (POLLIN | POLLHUP))) continue;
            ssize_t n = read(p[k].fd, buf, sizeof buf);
            if (n <= 0) {
                close(p[k].fd), p[k].fd = -1, open_fds--;
                continue;
            }
            if (k == 0) append(&r.out, &r.out_len, &ocap, buf, (size_t)n);
            else append(&r.err, &r.err_len, &ecap, buf, (size_t)n);
        }
        if (in[1] >= 0 && (p[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t n = write(in[1], stdin_data + in_off, in_len - in_off);
            if (n > 0) in_off += (size_t)n;
            if (n < 0 && errno != EAGAIN) in_off = in_len;
            if (in_off >= in_len) close(in[1]), in[1] = -1;
        }
        if (open_fds == 0 && in[1] >= 0) close(in[1]), in[1] = -1;
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return r;
}

const char *qdc_bin(void) {
    const char *b = getenv("QDC_BIN");
    return b ? b : "build/qdc";
}
const char *qdc_root(void) {
    const char *r = getenv("QDC_ROOT");
    return r ? r : ".";
}
char *root_path(const char *rel) {
    size_t n = strlen(qdc_root()) + strlen(rel) + 2;
    char *p = malloc(n);
    snprintf(p, n, "%s/%s", qdc_root(), rel);
    return p;
}

RunResult run_qdc_argv(const char *const *args, const char *stdin_data, const char *cwd) {
    int n = 0;
    while (args[n]) n++;
    const char **argv = calloc((size_t)n + 2, sizeof *argv);
    argv[0] = qdc_bin();
    for (int i = 0; i < n; i++) argv[i + 1] = args[i];
    RunResult r = run_argv(argv, stdin_data, cwd);
    free(argv);
    return r;
}

RunResult run_qdc(const char *first, ...) {
    const char *args[64];
    int n = 0;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && n < 63; a = va_arg(ap, const char *)) args[n++] = a;
    va_end(ap);
    args[n] = NULL;
    return run_qdc_argv(args, NULL, NULL);
}

RunResult qdc_in_temp(const char *name, const char *src, const char *a1, const char *a2, char **dir_out) {
    char *dir = make_temp_dir(), *path = xasprintf("%s/%s", dir, name), *out = xasprintf("%s/out", dir);
    cr_assert(write_text(path, src));
    RunResult r = a2 ? run_qdc(path, a1, a2, "-o", out, NULL) : run_qdc(path, a1, "-o", out, NULL);
    free(path), free(out);
    *dir_out = dir;
    return r;
}

void expect_lowering_report(const char *src, const TargetLine *fam, size_t n) {
    for (size_t f = 0; f < n; f++) {
        char *dir, *tgt = xasprintf("--target=%s", fam[f].target);
        RunResult r = qdc_in_temp("ad.py", src, tgt, "--report-lowering", &dir);
        cr_expect_eq(r.status, 0, "%s: %s", fam[f].target, r.err);
        cr_expect(strstr(r.out, fam[f].want), "%s: no '%s' in:\n%s", fam[f].target, fam[f].want, r.out);
        run_free(&r);
        remove_tree(dir);
        free(dir), free(tgt);
    }
}

void run_free(RunResult *r) {
    free(r->out), free(r->err);
    r->out = r->err = NULL;
}

char *make_temp_dir(void) {
    const char *t = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/qdc-test-XXXXXX", t && *t ? t : "/tmp");
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}
void remove_tree(const char *dir) {
    if (dir) nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

char *read_text(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    char tmp[65536];
    size_t k;
    append(&buf, &n, &cap, "", 0);
    while ((k = fread(tmp, 1, sizeof tmp, f)) > 0) append(&buf, &n, &cap, tmp, k);
    fclose(f);
    if (len) *len = n;
    return buf;
}

bool write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(text, 1, strlen(text), f) == strlen(text);
    return fclose(f) == 0 && ok;
}

bool file_exists(const char *path) { return access(path, F_OK) == 0; }

bool tool_available(const char *name) {
    if (strchr(name, '/')) return access(name, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path) return false;
    char *copy = strdup(path), *save = NULL;
    bool found = false;
    for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", d, name);
        found = access(full, X_OK) == 0;
    }
    free(copy);
    return found;
}

int qdc_x86_text(const char *name, const char *text, char **err, bool *wrote) {
    char *dir = make_temp_dir(), *src = NULL, *obj = NULL;
    size_t stem = strcspn(name, ".");
    cr_assert(asprintf(&src, "%s/%s", dir, name) > 0 && asprintf(&obj, "%s/%.*s.o", dir, (int)stem, name) > 0);
    cr_assert(write_text(src, text));
    const char *argv[] = {"--color=never", "--target=x86_64", "-o", obj, name, NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    int status = r.status;
    *err = strdup(r.err ? r.err : "");
    *wrote = file_exists(obj);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(obj);
    return status;
}

void expect_py_refused(const char *name, const char *text, const char *want) {
    char *err;
    bool wrote;
    int status = qdc_x86_text(name, text, &err, &wrote);
    cr_expect_eq(status, 1, "exit %d: %s", status, err);
    cr_expect_str_eq(err, want);
    cr_expect(!wrote, "an output was written after an error");
    free(err);
}

void expect_py_compiles(const char *name, const char *text) {
    char *err;
    bool wrote;
    int status = qdc_x86_text(name, text, &err, &wrote);
    cr_expect_eq(status, 0, "exit %d: %s", status, err);
    cr_expect_str_eq(err, "");
    cr_expect(wrote, "no output");
    free(err);
}

void expect_k_py_refused(const char *text, const char *want) { expect_py_refused("k.py", text, want); }
void expect_k_py_compiles(const char *text) { expect_py_compiles("k.py", text); }

static void g_py_error(const char *text, const char *want, bool one_error) {
    char *dir = make_temp_dir(), *src = NULL, *out = NULL;
    cr_assert(asprintf(&src, "%s/g.py", dir) > 0 && asprintf(&out, "%s/g.o", dir) > 0 && write_text(src, text));
    const char *argv[] = {"--color=never", "-o", out, "g.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 1, "exit %d: %s", r.status, r.err);
    cr_expect(!strncmp(r.err, want, strlen(want)), "got:\n%s\nwant:\n%s", r.err, want);
    if (one_error) cr_expect(strstr(r.err, "1 error") || !strstr(r.err + strlen(want), "error["), "more than one error:\n%s", r.err);
    cr_expect(!file_exists(out), "an output was written after an error");
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(out);
}

void expect_g_py_first_error(const char *text, const char *want) { g_py_error(text, want, true); }
void expect_g_py_error_prefix(const char *text, const char *want) { g_py_error(text, want, false); }
