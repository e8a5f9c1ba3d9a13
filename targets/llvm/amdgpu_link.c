/* The AMDGPU link step: ELF relocatable -> code object (.hsaco) by spawning `ld.lld-19 -shared`
 * with an argv (posix_spawn, no shell) in a private temporary directory. /usr/bin/ld.lld is
 * LLD 14 on Debian 12 and cannot link LLVM 19 objects, so it is never used. */
#include "gpu.h"
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static bool is_executable(const char *path) { return access(path, X_OK) == 0; }

/* $QDC_LD_LLD, else ld.lld-19 in PATH, else the LLVM 19 install path. NULL if none exists. */
static char *find_lld(void) {
    const char *env = getenv("QDC_LD_LLD");
    if (env && *env) return is_executable(env) ? xstrdup(env) : NULL;
    const char *path = getenv("PATH");
    char *copy = xstrdup(path ? path : "/usr/bin:/bin");
    char *found = NULL;
    for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char *cand = xasprintf("%s/ld.lld-19", *dir ? dir : ".");
        if (is_executable(cand)) found = cand;
        else free(cand);
    }
    free(copy);
    if (!found && is_executable("/usr/lib/llvm-19/bin/ld.lld")) found = xstrdup("/usr/lib/llvm-19/bin/ld.lld");
    return found;
}

static bool write_all(const char *path, const StrBuf *data) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    size_t off = 0;
    while (off < data->len) {
        ssize_t n = write(fd, data->data + off, data->len - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        off += (size_t)n;
    }
    return close(fd) == 0 && off == data->len;
}

static bool read_all(const char *path, StrBuf *out) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) sb_append(out, buf, n);
    bool ok = !ferror(f);
    fclose(f);
    return ok;
}

/* Runs argv with stdout/stderr sent to errpath; the exit status, or -1 if it could not start. */
static int spawn_wait(char *const *argv, const char *errpath) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc) return -1;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* lld's messages name the private temporary directory: drop it so output stays reproducible. */
static void strip_dir(StrBuf *log, const char *dir) {
    size_t n = strlen(dir);
    char *w = log->data;
    for (const char *r = log->data; r && *r;) {
        if (!strncmp(r, dir, n) && r[n] == '/') r += n + 1;
        else *w++ = *r++;
    }
    if (w) *w = 0, log->len = (size_t)(w - log->data);
}

static void report_link_failure(const char *lld, int rc, const char *errpath, const char *dir) {
    StrBuf log;
    sb_init(&log);
    read_all(errpath, &log);
    strip_dir(&log, dir);
    Span none = {0};
    diag_error(none, "QD5005", "'%s -shared' failed (exit status %d)%s%s", lld, rc, log.len ? ":\n" : "",
               log.len ? log.data : "");
    sb_free(&log);
}

bool amdgpu_link(const StrBuf *obj, StrBuf *hsaco) {
    Span none = {0};
    char *lld = find_lld();
    if (!lld) {
        diag_error(none, "QD5005", "cannot link the AMDGPU code object: ld.lld-19 not found "
                                   "(install lld-19, or set QDC_LD_LLD)");
        return false;
    }
    const char *tmp = getenv("TMPDIR");
    char *dir = xasprintf("%s/qdc-lld-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    bool ok = false;
    if (!mkdtemp(dir)) {
        diag_error(none, "QD5005", "cannot link the AMDGPU code object: cannot create a temporary "
                                   "directory '%s': %s (check TMPDIR)", dir, strerror(errno));
        free(dir), free(lld);
        return false;
    }
    char *in = xasprintf("%s/k.o", dir), *out = xasprintf("%s/k.hsaco", dir), *log = xasprintf("%s/lld.log", dir);
    if (!write_all(in, obj)) {
        diag_error(none, "QD5005", "cannot link the AMDGPU code object: cannot write '%s': %s", in, strerror(errno));
        unlink(in), rmdir(dir);
        free(in), free(out), free(log), free(dir), free(lld);
        return false;
    }
    char *argv[] = {lld, "-shared", "--no-undefined", in, "-o", out, NULL};
    int rc = spawn_wait(argv, log);
    if (rc == 0) ok = read_all(out, hsaco);
    if (rc == 0 && !ok) die("cannot read the linked code object %s", out);
    if (rc != 0) report_link_failure(lld, rc, log, dir);
    unlink(in), unlink(out), unlink(log), rmdir(dir);
    free(in), free(out), free(log), free(dir), free(lld);
    return ok;
}
