/* Progress on a terminal (issue 20, item 16): qdc run with its stderr on a pseudo-terminal
 * (posix_openpt, never the real console) shows one rewritten progress line naming the phase,
 * erases it before a diagnostic and at the end; with stderr on a pipe, or TERM=dumb, nothing.
 * QDC_PROGRESS_AFTER_MS=0 stands in for an input that takes more than a second. */
#include "test_build_util.h"
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* print() is compiled out for SPIR-V with warning QD5180 at 6:9, during lower+emit. */
static const char *const KERNEL = "import quadrants as qd\n"
                                  "\n"
                                  "@qd.kernel\n"
                                  "def k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                                  "    for i in range(a.shape[0]):\n"
                                  "        print(a[i])\n";

/* Runs qdc in dir with stdout and stderr on a new pty; returns what the terminal received. */
static char *run_on_pty(const char *dir, const char *const *args, int *status) {
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    cr_assert(master >= 0, "posix_openpt: %s", strerror(errno));
    cr_assert(grantpt(master) == 0 && unlockpt(master) == 0);
    int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
    cr_assert(slave >= 0, "open pty slave: %s", strerror(errno));
    const char *argv[16] = {qdc_bin()};
    int n = 1;
    for (; args[n - 1]; n++) argv[n] = args[n - 1];
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, slave, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, slave, STDERR_FILENO);
    posix_spawn_file_actions_addclose(&fa, master);
    posix_spawn_file_actions_addchdir_np(&fa, dir);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    cr_assert_eq(rc, 0, "posix_spawn: %s", strerror(rc));
    close(slave);
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    for (;;) { /* EIO once the child has exited and the slave is closed everywhere */
        if (len + 1024 > cap) buf = realloc(buf, cap *= 2);
        ssize_t got = read(master, buf + len, cap - len - 1);
        if (got > 0) len += (size_t)got;
        else if (got < 0 && errno == EINTR) continue;
        else break;
    }
    buf[len] = 0;
    close(master);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return buf;
}

static char *kernel_dir(void) {
    char *dir = make_temp_dir(), *src = path_join(dir, "k.qd");
    cr_assert(write_text(src, KERNEL));
    free(src);
    return dir;
}

Test(progress, terminal_shows_phases_and_erases_before_diagnostics_and_at_the_end) {
    setenv("QDC_PROGRESS_AFTER_MS", "0", 1);
    setenv("TERM", "xterm", 1);
    char *dir = kernel_dir();
    const char *args[] = {"--target=vulkan1.2,vulkan1.3", "--color=never", "-o", "%t.spv", "k.qd", NULL};
    int status;
    char *tty = run_on_pty(dir, args, &status);
    cr_expect_eq(status, 0, "%s", tty);
    cr_expect(strstr(tty, "\r\033[Kqdc: k.qd: parse, "), "%s", tty);
    cr_expect(strstr(tty, "\r\033[Kqdc: k.qd: lower+emit vulkan1.2 (1/2), "), "%s", tty);
    cr_expect(strstr(tty, "\r\033[Kqdc: k.qd: lower+emit vulkan1.3 (2/2), "), "%s", tty);
    /* the warning starts on an erased line, never after the progress text */
    cr_expect(strstr(tty, "\r\033[Kk.qd:6:9: warning[QD5180]: print(...) is compiled out"), "%s", tty);
    size_t n = strlen(tty);
    cr_expect(n >= 4 && !strcmp(tty + n - 4, "\r\033[K"), "the line is erased at the end: %s", tty);
    char *spv = path_join(dir, "vulkan1.3.spv");
    cr_expect(file_exists(spv));
    free(spv), free(tty);
    remove_tree(dir), free(dir);
}

Test(progress, nothing_on_a_pipe_or_a_dumb_terminal) {
    setenv("QDC_PROGRESS_AFTER_MS", "0", 1);
    setenv("TERM", "xterm", 1);
    char *dir = kernel_dir();
    const char *args[] = {"--target=vulkan1.2", "--color=never", "-o", "k.spv", "k.qd", NULL};
    RunResult r = run_qdc_argv(args, NULL, dir); /* stderr is a pipe */
    cr_expect_eq(r.status, 0);
    cr_expect(!strncmp(r.err, "k.qd:6:9: warning[QD5180]: print(...) is compiled out", 52), "%s", r.err);
    cr_expect(!strchr(r.err, '\r') && !strchr(r.err, '\033'), "%s", r.err);
    run_free(&r);
    setenv("TERM", "dumb", 1);
    int status;
    char *tty = run_on_pty(dir, args, &status);
    cr_expect_eq(status, 0);
    cr_expect(!strstr(tty, "\033[K") && !strstr(tty, "qdc: k.qd:"), "%s", tty);
    cr_expect(strstr(tty, "k.qd:6:9: warning[QD5180]"), "%s", tty);
    free(tty);
    setenv("TERM", "xterm", 1);
    const char *json[] = {"--target=vulkan1.2", "--diagnostics-format=json", "-o", "k.spv", "k.qd", NULL};
    tty = run_on_pty(dir, json, &status);
    cr_expect_eq(status, 0);
    cr_expect(!strstr(tty, "\033[K") && !strstr(tty, "qdc: k.qd:"), "%s", tty);
    free(tty);
    remove_tree(dir), free(dir);
}
