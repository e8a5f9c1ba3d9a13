/* The AMDGPU link step: ELF relocatable -> code object (.hsaco) by spawning `ld.lld-19 -shared`
 * with an argv (posix_spawn, no shell). The linker is started before the object exists, so its
 * start-up (loading libLLVM) overlaps LLVM's optimisation and codegen; it reads the object from a
 * pipe on its stdin and writes the code object and its messages to in-memory files: no scratch
 * directory. /usr/bin/ld.lld is LLD 14 on Debian 12 and cannot link LLVM 19 objects: never used. */
#include "gpu.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* A linker started by amdgpu_link_start(): pid -1 when it could not start (lld NULL: not found,
 * else start_err holds what failed). in: write end of its stdin; out, log: its stdout, stderr. */
struct AmdLink {
    char *lld;
    pid_t pid;
    int in, out, log;
    char *start_err;
};

static bool is_executable(const char *path) { return access(path, X_OK) == 0; }

/* name searched in $PATH (a name with a '/' is taken as it is). NULL if not found. */
static char *search_path(const char *name) {
    if (strchr(name, '/')) return is_executable(name) ? xstrdup(name) : NULL;
    const char *path = getenv("PATH");
    char *copy = xstrdup(path ? path : "/usr/bin:/bin");
    char *found = NULL;
    for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char *cand = xasprintf("%s/%s", *dir ? dir : ".", name);
        if (is_executable(cand)) found = cand;
        else free(cand);
    }
    free(copy);
    return found;
}

/* $QDC_LD_LLD (a path, or a name looked up in PATH), else ld.lld-19 in PATH, else the LLVM 19
 * install path. NULL if none: *why then says what was wrong with $QDC_LD_LLD (NULL if unset). */
static char *find_lld(char **why) {
    const char *env = getenv("QDC_LD_LLD");
    *why = NULL;
    if (env && *env) {
        char *found = search_path(env);
        if (!found)
            *why = xasprintf("QDC_LD_LLD='%s' cannot be run: %s", env,
                             strchr(env, '/') ? strerror(errno) : "not found in PATH");
        return found;
    }
    char *found = search_path("ld.lld-19");
    if (!found && is_executable("/usr/lib/llvm-19/bin/ld.lld")) found = xstrdup("/usr/lib/llvm-19/bin/ld.lld");
    return found;
}

/* fd moved to a descriptor >= 3 with close-on-exec, so dup2 onto 0..2 in the child always
 * clears the flag (dup2(fd, fd) would not). -1 stays -1. */
static int high_fd(int fd) {
    if (fd < 0 || fd > 2) return fd;
    int h = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    close(fd);
    return h;
}

static bool write_all(int fd, const StrBuf *data) {
    size_t off = 0;
    while (off < data->len) {
        ssize_t n = write(fd, data->data + off, data->len - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        off += (size_t)n;
    }
    return true;
}

/* Everything written to the in-memory file fd, from its start. */
static bool read_all(int fd, StrBuf *out) {
    char buf[65536];
    off_t at = 0;
    for (;;) {
        ssize_t n = pread(fd, buf, sizeof buf, at);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;
        if (n == 0) return true;
        sb_append(out, buf, (size_t)n);
        at += n;
    }
}

/* Feeds the object to the linker's stdin and closes it. A linker that already exited (say
 * QDC_LD_LLD=/bin/false) makes the write fail with EPIPE: its exit status reports that, so
 * SIGPIPE is held back for the write and a pending one discarded. */
static void feed(AmdLink *l, const StrBuf *obj) {
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigprocmask(SIG_BLOCK, &pipe_set, &old);
    if (!write_all(l->in, obj) && errno == EPIPE) {
        struct timespec zero = {0, 0};
        sigtimedwait(&pipe_set, NULL, &zero);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(l->in);
    l->in = -1;
}

static int wait_exit(pid_t pid) {
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void report_link_failure(const AmdLink *l, int rc) {
    StrBuf log;
    sb_init(&log);
    if (l->log >= 0) read_all(l->log, &log);
    sb_putc(&log, 0), log.len--;
    Span none = {0};
    diag_error(none, QD5005, "'%s -shared' failed (exit status %d)%s%s", l->lld, rc, log.len ? ":\n" : "", log.data);
    sb_free(&log);
}

static void link_free(AmdLink *l) {
    if (l->in >= 0) close(l->in);
    if (l->out >= 0) close(l->out);
    if (l->log >= 0) close(l->log);
    free(l->lld), free(l->start_err), free(l);
}

/* Spawns lld reading the object from a pipe; false (l->start_err set) if that cannot be done. */
static bool spawn_lld(AmdLink *l) {
    int p[2] = {-1, -1};
    l->out = high_fd(memfd_create("qdc-lld-out", MFD_CLOEXEC));
    l->log = high_fd(memfd_create("qdc-lld-log", MFD_CLOEXEC));
    if (l->out < 0 || l->log < 0 || pipe2(p, O_CLOEXEC)) {
        l->start_err = xasprintf("cannot create its pipe and in-memory files: %s", strerror(errno));
        if (p[0] >= 0) close(p[0]), close(p[1]);
        return false;
    }
    int rd = high_fd(p[0]);
    l->in = high_fd(p[1]);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, rd, 0);
    posix_spawn_file_actions_adddup2(&fa, l->out, 1);
    posix_spawn_file_actions_adddup2(&fa, l->log, 2);
    char *argv[] = {l->lld, "-shared", "--no-undefined", "/dev/stdin", "-o", "-", NULL};
    int rc = posix_spawn(&l->pid, l->lld, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rd >= 0) close(rd);
    if (rc) l->pid = -1, l->start_err = xasprintf("cannot start '%s': %s", l->lld, strerror(rc));
    return rc == 0;
}

AmdLink *amdgpu_link_start(void) {
    AmdLink *l = xcalloc(1, sizeof *l);
    l->pid = -1, l->in = l->out = l->log = -1;
    l->lld = find_lld(&l->start_err);
    if (l->lld) spawn_lld(l);
    return l;
}

bool amdgpu_link_finish(AmdLink *l, const StrBuf *obj, StrBuf *hsaco) {
    Span none = {0};
    bool ok = false;
    if (!l->lld && l->start_err) {
        diag_error(none, QD5005, "cannot link the AMDGPU code object: %s", l->start_err);
    } else if (!l->lld) {
        diag_error(none, QD5005, "cannot link the AMDGPU code object: ld.lld-19 not found "
                                   "(install lld-19, or set QDC_LD_LLD)");
    } else if (l->pid < 0) {
        diag_error(none, QD5005, "cannot link the AMDGPU code object: %s", l->start_err);
    } else {
        feed(l, obj);
        int rc = wait_exit(l->pid);
        if (rc == 0 && !(ok = read_all(l->out, hsaco) && hsaco->len))
            diag_error(none, QD5005, "cannot link the AMDGPU code object: '%s' wrote no code object", l->lld);
        if (rc != 0) report_link_failure(l, rc);
    }
    link_free(l);
    return ok;
}

void amdgpu_link_abort(AmdLink *l) {
    if (l->pid > 0) {
        kill(l->pid, SIGKILL);
        wait_exit(l->pid);
    }
    link_free(l);
}

bool amdgpu_link(const StrBuf *obj, StrBuf *hsaco) { return amdgpu_link_finish(amdgpu_link_start(), obj, hsaco); }
