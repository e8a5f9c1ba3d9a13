/* Outputs the way build systems and CI use them (issue 13 items 1-3, 17, 21, 22, 27, 28):
 * special files written in place, outputs that name the input or each other refused, all
 * outputs of a run written or none, stdout write errors reported, temporaries removed on
 * signals, a single -o taken literally, 255-byte names, --stats kept out of `-o -`. */
#include "harness.h"
#include "test_build_util.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static const char *const kernel_src =
    "import quadrants as qd\n"
    "\n"
    "@qd.kernel\n"
    "def bump(a: qd.types.NDArray[qd.i32, 1]):\n"
    "    for i in range(64):\n"
    "        qd.atomic_add(a[i % 4], 1)\n";

static char *in_dir(const char *dir, const char *name) { return xasprintf("%s/%s", dir, name); }

/* A scratch directory holding k.qd. */
static char *scratch(void) {
    char *dir = make_temp_dir();
    char *k = in_dir(dir, "k.qd");
    cr_assert(write_text(k, kernel_src));
    free(k);
    return dir;
}

/* The names in dir other than . and .., sorted and joined with spaces. */
static char *listing(const char *dir) {
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    StrBuf b;
    sb_init(&b);
    for (int i = 0; i < n; i++) {
        if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, ".."))
            sb_printf(&b, "%s%s", b.len ? " " : "", names[i]->d_name);
        free(names[i]);
    }
    free(names);
    return sb_take(&b);
}

static void expect_listing(const char *dir, const char *want) {
    char *got = listing(dir);
    cr_expect_str_eq(got, want, "directory %s holds '%s', expected '%s'", dir, got, want);
    free(got);
}

/* ---- item 1: special files are written in place ---- */

typedef struct {
    const char *path;
    char *data;
    size_t len;
} Reader;

static void *read_fifo(void *arg) {
    Reader *r = arg;
    int fd = open(r->path, O_RDONLY);
    char buf[4096];
    for (ssize_t n; fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0;) {
        r->data = realloc(r->data, r->len + (size_t)n);
        memcpy(r->data + r->len, buf, (size_t)n);
        r->len += (size_t)n;
    }
    if (fd >= 0) close(fd);
    return NULL;
}

Test(io, output_into_a_fifo_goes_through_the_pipe) {
    char *dir = scratch(), *fifo = in_dir(dir, "pipe");
    cr_assert(mkfifo(fifo, 0600) == 0);
    Reader rd = {fifo, NULL, 0};
    pthread_t th;
    pthread_create(&th, NULL, read_fifo, &rd);
    const char *args[] = {"k.qd", "-o", "pipe", NULL};
    RunResult r = run_qdc_argv(args, NULL, dir);
    pthread_join(th, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    struct stat st;
    cr_expect(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO was replaced");
    cr_expect(rd.len > 64 && !memcmp(rd.data, "\177ELF", 4), "the reader got no object (%zu bytes)", rd.len);
    expect_listing(dir, "k.qd pipe");
    run_free(&r), free(rd.data), free(fifo), remove_tree(dir), free(dir);
}

/* A private null device node inside the scratch directory (mknod needs root; the suite's CI
 * runs as root). The node must survive and stay empty-reading, like /dev/null under gcc. */
Test(io, output_into_a_device_node_keeps_the_node) {
    char *dir = scratch(), *node = in_dir(dir, "null");
    if (mknod(node, S_IFCHR | 0666, makedev(1, 3)) != 0) {
        free(node), remove_tree(dir), free(dir);
        cr_skip_test("cannot create a device node here (not root?): %s", strerror(errno));
    }
    int probe = open(node, O_WRONLY);
    if (probe < 0) {
        free(node), remove_tree(dir), free(dir);
        cr_skip_test("device nodes cannot be opened on this mount (nodev?)");
    }
    close(probe);
    const char *args[] = {"k.qd", "-o", "null", "-MD", "-MF", "null", NULL};
    RunResult r = run_qdc_argv(args, NULL, dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    struct stat st;
    cr_expect(lstat(node, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3), "the node was replaced");
    expect_listing(dir, "k.qd null");
    run_free(&r), free(node), remove_tree(dir), free(dir);
}

/* -o through a symlink to qdc's own standard output (what /dev/stdout and `-o >(cmd)` are):
 * the bytes arrive on stdout and the link stays a link. */
Test(io, output_through_a_proc_fd_link_reaches_stdout) {
    char *dir = scratch(), *link = in_dir(dir, "out");
    cr_assert(symlink("/proc/self/fd/1", link) == 0);
    const char *args[] = {"k.qd", "--emit=llvm-ir", "-o", "out", NULL};
    RunResult r = run_qdc_argv(args, NULL, dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(r.out_len > 0 && strstr(r.out, "define"), "no IR on stdout");
    struct stat st;
    cr_expect(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the link was replaced");
    run_free(&r), free(link), remove_tree(dir), free(dir);
}

/* A symlink to a regular file: the file behind it is replaced, the link is kept. */
Test(io, output_through_a_symlink_keeps_the_link) {
    char *dir = scratch(), *link = in_dir(dir, "k.ll"), *real = in_dir(dir, "real.ll");
    cr_assert(write_text(real, "old"));
    cr_assert(symlink("real.ll", link) == 0);
    const char *args[] = {"k.qd", "--emit=llvm-ir", "-o", "k.ll", NULL};
    RunResult r = run_qdc_argv(args, NULL, dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    struct stat st;
    cr_expect(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the link was replaced");
    char *got = read_text(real, NULL);
    cr_expect(got && strstr(got, "define"), "the file behind the link was not written");
    expect_listing(dir, "k.ll k.qd real.ll");
    run_free(&r), free(got), free(link), free(real), remove_tree(dir), free(dir);
}

/* ---- item 2: an output naming the input or another output ---- */

static void refused(const char *dir, const char *const *args, const char *message) {
    char *before = listing(dir), *src = in_dir(dir, "k.qd");
    RunResult r = run_qdc_argv(args, NULL, dir);
    cr_expect_eq(r.status, 1, "exit %d; stderr: %s", r.status, r.err);
    cr_expect_str_eq(r.err, message);
    char *text = read_text(src, NULL);
    cr_expect_str_eq(text, kernel_src, "the source was changed");
    expect_listing(dir, before);
    run_free(&r), free(text), free(src), free(before);
}

Test(io, output_equal_to_the_input_is_refused) {
    char *dir = scratch();
    const char *a1[] = {"k.qd", "-o", "k.qd", NULL};
    refused(dir, a1, "qdc: error[QD0007]: the output file 'k.qd' is the input file\n");
    const char *a2[] = {"k.qd", "-o", "./sub/../k.qd", NULL};
    char *sub = in_dir(dir, "sub");
    mkdir(sub, 0755);
    refused(dir, a2, "qdc: error[QD0007]: the output file './sub/../k.qd' is the input file\n");
    /* a hard link is the same file under another name */
    char *src = in_dir(dir, "k.qd"), *alias = in_dir(dir, "alias.qd");
    cr_assert(link(src, alias) == 0);
    const char *a3[] = {"k.qd", "-o", "alias.qd", NULL};
    refused(dir, a3, "qdc: error[QD0007]: the output file 'alias.qd' is the input file\n");
    const char *a4[] = {"k.qd", "-o", "k.o", "-MD", "-MF", "alias.qd", NULL};
    refused(dir, a4, "qdc: error[QD0007]: the depfile 'alias.qd' is the input file\n");
    free(src), free(alias), free(sub), remove_tree(dir), free(dir);
}

Test(io, depfile_equal_to_an_output_is_refused) {
    char *dir = scratch();
    /* the default depfile is <output>.d, so only -MF can name an output */
    const char *a1[] = {"k.qd", "--emit=metadata", "-o", "m.d", "-MD", "-MF", "m.d", NULL};
    refused(dir, a1, "qdc: error[QD0007]: the depfile 'm.d' is also the output file 'm.d'\n");
    const char *a2[] = {"k.qd", "-o", "k.o", "-MD", "-MF", "k.o", NULL};
    refused(dir, a2, "qdc: error[QD0007]: the depfile 'k.o' is also the output file 'k.o'\n");
    const char *a3[] = {"k.qd", "-o", "k.o", "-MD", "-MF", "./k.o", NULL};
    refused(dir, a3, "qdc: error[QD0007]: the depfile './k.o' is also the output file 'k.o'\n");
    remove_tree(dir), free(dir);
}

Test(io, two_targets_writing_one_file_are_refused) {
    char *dir = scratch();
    const char *a1[] = {"k.qd", "--target=x86_64,x86_64", "-o", "%t.o", NULL};
    refused(dir, a1, "qdc: error[QD0007]: the output file 'x86_64.o' would be written for both x86_64 and x86_64\n");
    remove_tree(dir), free(dir);
}

/* ---- item 3: all outputs of a run, or none ---- */

Test(io, failed_second_target_leaves_no_first_output) {
    char *dir = scratch(), *out = in_dir(dir, "out"), *blocker = in_dir(dir, "out/sm_90");
    mkdir(out, 0755);
    cr_assert(write_text(blocker, "a file where a directory is needed"));
    const char *args[] = {"k.qd", "--target=x86_64,sm_90", "-o", "out/%t/k.%e", NULL};
    RunResult r = run_qdc_argv(args, NULL, dir);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "error[QD0003]: cannot write 'out/sm_90/k.ptx': Not a directory"), "%s", r.err);
    expect_listing(out, "sm_90");
    run_free(&r);
    /* an earlier output that existed keeps its old contents */
    char *x86 = in_dir(dir, "out/x86_64"), *old = in_dir(dir, "out/x86_64/k.o");
    mkdir(x86, 0755);
    cr_assert(write_text(old, "old"));
    r = run_qdc_argv(args, NULL, dir);
    cr_expect_eq(r.status, 1, "%s", r.err);
    char *kept = read_text(old, NULL);
    cr_expect_str_eq(kept, "old");
    expect_listing(x86, "k.o");
    run_free(&r), free(kept), free(x86), free(old), free(out), free(blocker), remove_tree(dir), free(dir);
}

/* The last step, putting the temporaries in place, fails for the second output (an immutable
 * file: rename gives EPERM): the first output, already in place, is put back as it was. */
static bool chattr(const char *flag, const char *path) {
    const char *argv[] = {"chattr", flag, path, NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    bool ok = r.status == 0;
    run_free(&r);
    return ok;
}

Test(io, failed_rename_puts_earlier_outputs_back) {
    char *dir = scratch(), *x86 = in_dir(dir, "out/x86_64"), *ptx = in_dir(dir, "out/sm_90"), *old = in_dir(x86, "k.o"),
         *locked = in_dir(ptx, "k.ptx"), *out = in_dir(dir, "out");
    mkdir(out, 0755), mkdir(x86, 0755), mkdir(ptx, 0755);
    cr_assert(write_text(old, "old object"));
    cr_assert(write_text(locked, "locked"));
    if (!tool_available("chattr") || !chattr("+i", locked)) {
        remove_tree(dir);
        cr_skip_test("cannot make a file immutable here (chattr +i needs root and ext2/3/4, xfs or btrfs)");
    }
    const char *args[] = {"k.qd", "--target=x86_64,sm_90", "-o", "out/%t/k.%e", NULL};
    RunResult r = run_qdc_argv(args, NULL, dir);
    chattr("-i", locked);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect_str_eq(r.err, "qdc: error[QD0003]: cannot write 'out/sm_90/k.ptx': Operation not permitted\n");
    char *kept = read_text(old, NULL);
    cr_expect_str_eq(kept, "old object");
    expect_listing(x86, "k.o");
    expect_listing(ptx, "k.ptx");
    run_free(&r), free(kept), free(x86), free(ptx), free(old), free(locked), free(out), remove_tree(dir), free(dir);
}

/* Issue 34 item 14: a parent directory that cannot be made gives its own reason (here EACCES,
 * as uid 65534 under a root-owned 0555 directory), not the ENOENT of writing under it. */
Test(io, uncreatable_parent_directory_says_why) {
    if (geteuid() != 0 || !tool_available("setpriv")) cr_skip_test("needs root and setpriv to test as another user");
    char *qdc = NULL, *pub = public_qdc_copy(&qdc);
    cr_assert(pub, "cannot copy qdc into a directory under /tmp");
    char *k = in_dir(pub, "k.qd"), *locked = in_dir(pub, "locked"), *out = in_dir(pub, "locked/sub/k.o");
    cr_assert(write_text(k, kernel_src) && chmod(k, 0644) == 0);
    cr_assert(mkdir(locked, 0555) == 0 && chmod(locked, 0555) == 0);
    const char *argv[] = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", qdc, k, "--target=x86_64",
                          "-o", out, NULL};
    RunResult r = run_argv(argv, NULL, "/");
    char *want = xasprintf("qdc: error[QD0003]: cannot write '%s': Permission denied\n", out);
    cr_expect_str_eq(r.err, want);
    cr_expect_eq(r.status, 1);
    expect_listing(locked, "");
    run_free(&r), free(want), free(k), free(locked), free(out), free(qdc), remove_tree(pub), free(pub);
}

Test(io, failed_depfile_leaves_no_output) {
    char *dir = scratch(), *dd = in_dir(dir, "k.o.d"), *obj = in_dir(dir, "k.o");
    mkdir(dd, 0755);
    const char *args[] = {"k.qd", "-o", "k.o", "-MD", NULL};
    RunResult r = run_qdc_argv(args, NULL, dir);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "error[QD0003]: cannot write 'k.o.d': Is a directory"), "%s", r.err);
    expect_listing(dir, "k.o.d k.qd");
    run_free(&r);
    cr_assert(write_text(obj, "old"));
    r = run_qdc_argv(args, NULL, dir);
    cr_expect_eq(r.status, 1, "%s", r.err);
    char *kept = read_text(obj, NULL);
    cr_expect_str_eq(kept, "old");
    expect_listing(dir, "k.o k.o.d k.qd");
    run_free(&r), free(kept), free(dd), free(obj), remove_tree(dir), free(dir);
}

/* ---- item 17: write errors on standard output ---- */

static void full_stdout(const char *what, const char *const *extra) {
    char *dir = scratch();
    const char *argv[16] = {"bash", "-c", "exec \"$@\" >/dev/full", "bash", qdc_bin()};
    int n = 5;
    for (int i = 0; extra[i]; i++) argv[n++] = extra[i];
    argv[n] = NULL;
    RunResult r = run_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 1, "%s: exit %d, stderr: %s", what, r.status, r.err);
    cr_expect_str_eq(r.err, "qdc: error[QD0003]: cannot write standard output: No space left on device\n", "%s", what);
    run_free(&r), remove_tree(dir), free(dir);
}

Test(io, stdout_write_errors_are_exit_1) {
    const char *a1[] = {"k.qd", "--report-lowering", NULL}, *a2[] = {"k.qd", "--check", "--stats", NULL},
               *a3[] = {"--list-targets", NULL}, *a4[] = {"--print-caps", "x86_64", NULL},
               *a5[] = {"--help", NULL}, *a6[] = {"--support-matrix", "--targets=x86_64", NULL},
               *a7[] = {"--version", NULL}, *a8[] = {"--list-diagnostics", NULL},
               *a9[] = {"k.qd", "--report-lowering=json", "-o", "k.o", NULL};
    full_stdout("--report-lowering", a1), full_stdout("--stats", a2), full_stdout("--list-targets", a3);
    full_stdout("--print-caps", a4), full_stdout("--help", a5), full_stdout("--support-matrix", a6);
    full_stdout("--version", a7), full_stdout("--list-diagnostics", a8);
    full_stdout("--report-lowering=json -o k.o", a9);
}

/* With the report failing, the object must not be written either (all or nothing). */
Test(io, stdout_failure_writes_no_output) {
    char *dir = scratch();
    const char *argv[] = {"bash", "-c", "exec \"$@\" >/dev/full", "bash", qdc_bin(), "k.qd", "--stats", "-o", "k.o", NULL};
    RunResult r = run_argv(argv, NULL, dir);
    cr_expect_eq(r.status, 1, "%s", r.err);
    expect_listing(dir, "k.qd");
    run_free(&r), remove_tree(dir), free(dir);
}

/* ---- item 21: signals remove temporaries ----
 * `-o FIFO -MD -MF k.d`: the depfile is staged as a temporary, then qdc blocks opening the FIFO
 * (no reader) - a deterministic window in which to deliver the signal. */
static void killed_in_write_window(int sig) {
    char *dir = scratch(), *fifo = in_dir(dir, "pipe");
    cr_assert(mkfifo(fifo, 0600) == 0);
    char *const argv[] = {(char *)qdc_bin(), "k.qd", "-o", "pipe", "-MD", "-MF", "k.d", NULL};
    char cwd[4096];
    cr_assert(getcwd(cwd, sizeof cwd));
    cr_assert(chdir(dir) == 0);
    /* qdc keeps a signal its parent ignores ignored (as nohup asks), so the child gets the
     * signal's default disposition and an empty mask whatever the suite was started under. */
    posix_spawnattr_t attr;
    sigset_t dfl, none;
    sigemptyset(&dfl), sigaddset(&dfl, sig), sigemptyset(&none);
    cr_assert(posix_spawnattr_init(&attr) == 0);
    cr_assert(posix_spawnattr_setsigdefault(&attr, &dfl) == 0);
    cr_assert(posix_spawnattr_setsigmask(&attr, &none) == 0);
    cr_assert(posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK) == 0);
    pid_t pid;
    int rc = posix_spawn(&pid, qdc_bin(), NULL, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    cr_assert(chdir(cwd) == 0);
    cr_assert_eq(rc, 0);
    bool staged = false;
    for (int i = 0; i < 2000 && !staged; i++) { /* up to 20 s on a loaded machine */
        char *l = listing(dir);
        staged = strstr(l, "qdc-tmp") != NULL;
        free(l);
        if (!staged) nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    cr_expect(staged, "no temporary appeared");
    kill(pid, sig);
    int status;
    waitpid(pid, &status, 0);
    cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == sig, "qdc did not die of signal %d (status %#x)", sig, status);
    expect_listing(dir, "k.qd pipe");
    free(fifo), remove_tree(dir), free(dir);
}

Test(io, sigterm_removes_temporaries) { killed_in_write_window(SIGTERM); }
Test(io, sigint_removes_temporaries) { killed_in_write_window(SIGINT); }
Test(io, sighup_removes_temporaries) { killed_in_write_window(SIGHUP); }

/* ---- item 22: a -o without %t, %e, %m or %% is a file name, not a template ---- */

Test(io, output_without_template_sequences_is_literal) {
    char *dir = scratch();
    const char *a1[] = {"k.qd", "-o", "my%file.o", NULL};
    RunResult r = run_qdc_argv(a1, NULL, dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    const char *a2[] = {"k.qd", "-o", "100%.o", "-MD", NULL};
    r = run_qdc_argv(a2, NULL, dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    expect_listing(dir, "100%.o 100%.o.d k.qd my%file.o");
    run_free(&r);
    const char *a3[] = {"k.qd", "-o", "50%.o", "--print-output-names", NULL};
    r = run_qdc_argv(a3, NULL, dir);
    cr_expect_str_eq(r.out, "50%.o\n");
    run_free(&r);
    const char *a4[] = {"k.qd", "-o", "%%/k_%t.%e", "--print-output-names", NULL}; /* a template */
    r = run_qdc_argv(a4, NULL, dir);
    cr_expect_str_eq(r.out, "%/k_x86_64.o\n");
    run_free(&r), remove_tree(dir), free(dir);
}

/* A single-target name holding "%t" itself is written by doubling every '%'. */
Test(io, doubled_percent_writes_any_name) {
    char *dir = scratch();
    const char *a1[] = {"k.qd", "-o", "r%%t%%e.o", NULL};
    RunResult r = run_qdc_argv(a1, NULL, dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    expect_listing(dir, "k.qd r%t%e.o");
    run_free(&r);
    const char *a2[] = {"k.qd", "-o", "100%%.o", "--print-output-names", NULL};
    r = run_qdc_argv(a2, NULL, dir);
    cr_expect_str_eq(r.out, "100%.o\n");
    run_free(&r), remove_tree(dir), free(dir);
}

/* ---- item 23: a name a depfile cannot hold is refused, not written wrong ---- */

Test(io, depfile_names_make_cannot_read_are_refused) {
    static const struct { const char *out, *why; } cases[] = {
        {"a\nb.o", "a line break"},
        {"a\\#b.o", "a backslash before '#'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *dir = scratch();
        const char *args[] = {"k.qd", "-o", cases[i].out, "-MD", "-MF", "k.d", NULL};
        RunResult r = run_qdc_argv(args, NULL, dir);
        cr_expect_eq(r.status, 1, "%s", r.err);
        cr_expect(strstr(r.err, "error[QD0009]: the depfile cannot name"), "%s", r.err);
        cr_expect(strstr(r.err, cases[i].why), "%s", r.err);
        expect_listing(dir, "k.qd");
        run_free(&r), remove_tree(dir), free(dir);
    }
    char *dir = scratch();
    const char *mq[] = {"k.qd", "-o", "k.o", "-MD", "-MF", "k.d", "-MQ", "t\\", NULL};
    RunResult r = run_qdc_argv(mq, NULL, dir);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "a backslash at its end"), "%s", r.err);
    expect_listing(dir, "k.qd");
    run_free(&r);
    const char *mt[] = {"k.qd", "-o", "k.o", "-MD", "-MF", "k.d", "-MT", "t\\", NULL}; /* -MT is verbatim */
    r = run_qdc_argv(mt, NULL, dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    expect_listing(dir, "k.d k.o k.qd");
    run_free(&r), remove_tree(dir), free(dir);
}

/* ---- item 27: names up to NAME_MAX ---- */

Test(io, output_names_up_to_255_bytes) {
    char *dir = scratch();
    char name[256];
    memset(name, 'a', 253);
    memcpy(name + 253, ".o", 3); /* 255 bytes */
    const char *args[] = {"k.qd", "-o", name, NULL};
    RunResult r = run_qdc_argv(args, NULL, dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    char *want = xasprintf("%s k.qd", name);
    expect_listing(dir, want);
    run_free(&r), free(want), remove_tree(dir), free(dir);
}

/* ---- item 28: --stats with -o - ---- */

Test(io, stats_with_output_on_stdout_go_to_stderr) {
    char *dir = scratch(), *ref = in_dir(dir, "ref.ll");
    const char *a0[] = {"k.qd", "--emit=llvm-ir", "-o", "ref.ll", NULL};
    RunResult r = run_qdc_argv(a0, NULL, dir);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    const char *args[] = {"k.qd", "--emit=llvm-ir", "--stats", "-o", "-", NULL};
    r = run_qdc_argv(args, NULL, dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    char *want = read_text(ref, NULL);
    cr_expect_str_eq(r.out, want, "stdout must be the IR alone");
    cr_expect_str_eq(r.err, "k: 1 kernel (bump), 1 task, 1 atomic, 0 volatile loads, 0 fences\n");
    run_free(&r), free(want), free(ref), remove_tree(dir), free(dir);
}
