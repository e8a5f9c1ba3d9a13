/* Environment faults (issue 8): unreadable, missing or directory inputs, oversized input,
 * unwritable / vanished output directories, a full disk (ulimit -f), `-o -` into a closed pipe or
 * /dev/full, a missing or corrupted capability database and a missing ld.lld-19. Each must give
 * one clear diagnostic, the documented exit status, and leave no output (or temp file) behind. */
#include "harness.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const kernel_src =
    "import quadrants as qd\n"
    "\n"
    "@qd.kernel\n"
    "def bump(a: qd.types.NDArray[qd.i32, 1]):\n"
    "    for i in range(64):\n"
    "        qd.atomic_add(a[i % 4], 1)\n";

typedef struct {
    char *dir, *input;
} Scratch;

static Scratch scratch_new(void) {
    Scratch s = {make_temp_dir(), NULL};
    cr_assert(s.dir, "cannot make a temporary directory");
    s.input = malloc(strlen(s.dir) + 16);
    sprintf(s.input, "%s/k.qd", s.dir);
    cr_assert(write_text(s.input, kernel_src));
    return s;
}

static void scratch_free(Scratch *s) {
    chmod(s->dir, 0700);
    remove_tree(s->dir);
    free(s->dir), free(s->input);
}

static char *path_in(const char *dir, const char *name) {
    char *p = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(p, "%s/%s", dir, name);
    return p;
}

/* Number of directory entries besides . and .. (-1 if the directory cannot be opened). */
static int entries(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* The full pipeline exists (not the temporary stubs): output-side faults need a real output. */
static void need_pipeline(const Scratch *s, const char *target) {
    char *t = xasprintf("--target=%s", target);
    char *out = path_in(s->dir, "probe.out");
    RunResult r = run_qdc(s->input, t, "-o", out, NULL);
    bool ok = r.status == 0 && file_exists(out);
    unlink(out);
    run_free(&r);
    free(out), free(t);
    if (!ok) cr_skip_test("pipeline for %s not available yet (compile of a valid kernel failed)", target);
}

static void expect_diag(const RunResult *r, int status, const char *code, const char *text) {
    cr_expect_eq(r->status, status, "exit status %d, expected %d; stderr:\n%s", r->status, status, r->err);
    cr_expect(strstr(r->err, code), "no %s in stderr:\n%s", code, r->err);
    if (text) cr_expect(strstr(r->err, text), "no '%s' in stderr:\n%s", text, r->err);
    cr_expect(!strstr(r->err, "internal error"), "internal error:\n%s", r->err);
}

Test(envfaults, missing_input) {
    RunResult r = run_qdc("/nonexistent/qdc/k.qd", "--check", NULL);
    expect_diag(&r, 1, "error[QD0001]", "no such file");
    run_free(&r);
}

Test(envfaults, input_through_a_file_is_unreadable) {
    Scratch s = scratch_new();
    char *bad = path_in(s.input, "x.qd"); /* ENOTDIR: readable by nobody, root included */
    RunResult r = run_qdc(bad, "--check", NULL);
    expect_diag(&r, 1, "error[QD0001]", "cannot read");
    run_free(&r);
    free(bad);
    scratch_free(&s);
}

Test(envfaults, unreadable_input_permissions) {
    if (geteuid() == 0) cr_skip_test("running as root: file permissions do not deny reading");
    Scratch s = scratch_new();
    chmod(s.input, 0);
    RunResult r = run_qdc(s.input, "--check", NULL);
    expect_diag(&r, 1, "error[QD0001]", "Permission denied");
    run_free(&r);
    scratch_free(&s);
}

Test(envfaults, directory_input) {
    Scratch s = scratch_new();
    RunResult r = run_qdc(s.dir, "--check", NULL);
    expect_diag(&r, 1, "error[QD0002]", "is a directory");
    run_free(&r);
    scratch_free(&s);
}

Test(envfaults, oversized_input) {
    Scratch s = scratch_new();
    char *big = path_in(s.dir, "big.qd");
    int fd = open(big, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    cr_assert(fd >= 0 && ftruncate(fd, (65 << 20)) == 0); /* sparse: 65 MiB > the 64 MiB limit */
    close(fd);
    char *out = path_in(s.dir, "big.o");
    RunResult r = run_qdc(big, "-o", out, NULL);
    expect_diag(&r, 1, "error[QD0004]", "64 MiB");
    cr_expect(!file_exists(out));
    run_free(&r);
    free(big), free(out);
    scratch_free(&s);
}

/* qdc(1): "Missing parent directories are created" (for -o out/%t/k.%e), so a directory that
 * vanished is made again; one that cannot be made again is QD0003 with nothing left behind. */
Test(envfaults, vanished_output_directory) {
    Scratch s = scratch_new();
    need_pipeline(&s, "x86_64");
    char *gone = path_in(s.dir, "gone");
    mkdir(gone, 0755);
    rmdir(gone);
    char *out = path_in(gone, "k.o");
    RunResult r = run_qdc(s.input, "-o", out, NULL);
    cr_expect_eq(r.status, 0, "stderr:\n%s", r.err);
    cr_expect(file_exists(out));
    run_free(&r);
    char *blocked = path_in(s.dir, "k.qd/gone/k.o"); /* the parent would sit under a plain file */
    r = run_qdc(s.input, "-o", blocked, NULL);
    expect_diag(&r, 1, "error[QD0003]", "Not a directory");
    cr_expect_eq(entries(s.dir), 2, "something besides k.qd and gone/ was left in %s", s.dir);
    run_free(&r);
    free(gone), free(out), free(blocked);
    scratch_free(&s);
}

Test(envfaults, unwritable_output_location) {
    Scratch s = scratch_new();
    need_pipeline(&s, "x86_64");
    /* /proc refuses new files even for root; a plain file as the parent gives ENOTDIR. */
    RunResult r = run_qdc(s.input, "-o", "/proc/qdc-envfault.o", NULL);
    expect_diag(&r, 1, "error[QD0003]", "/proc/qdc-envfault.o");
    run_free(&r);
    char *out = path_in(s.input, "k.o");
    r = run_qdc(s.input, "-o", out, NULL);
    expect_diag(&r, 1, "error[QD0003]", "Not a directory");
    cr_expect_eq(entries(s.dir), 1);
    run_free(&r);
    free(out);
    scratch_free(&s);
}

Test(envfaults, existing_output_untouched_on_failure) {
    Scratch s = scratch_new();
    need_pipeline(&s, "x86_64");
    char *bad = path_in(s.dir, "bad.qd"), *out = path_in(s.dir, "bad.o");
    cr_assert(write_text(bad, "import quadrants as qd\n@qd.kernel\ndef k(:\n"));
    cr_assert(write_text(out, "previous build"));
    RunResult r = run_qdc(bad, "-o", out, NULL);
    cr_expect_eq(r.status, 1, "stderr:\n%s", r.err);
    char *kept = read_text(out, NULL);
    cr_expect_str_eq(kept, "previous build");
    cr_expect_eq(entries(s.dir), 3);
    free(kept);
    run_free(&r);
    free(bad), free(out);
    scratch_free(&s);
}

/* ulimit -f 1 allows 1024 bytes; the emitted assembly is larger. The shell only sets the limit. */
Test(envfaults, full_disk_file_size_limit) {
    Scratch s = scratch_new();
    need_pipeline(&s, "x86_64");
    char *out = path_in(s.dir, "k.ll"); /* LLVM IR: well over the 1 KiB limit (the asm is ~530 bytes) */
    const char *argv[] = {"bash", "-c", "ulimit -f 1 && exec \"$@\"", "bash", qdc_bin(), s.input,
                          "--emit=llvm-ir", "-o", out, NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    expect_diag(&r, 1, "error[QD0003]", "File too large");
    cr_expect(!file_exists(out));
    cr_expect_eq(entries(s.dir), 1, "a partial or temporary output was left in %s", s.dir);
    run_free(&r);
    free(out);
    scratch_free(&s);
}

Test(envfaults, stdout_to_full_device) {
    Scratch s = scratch_new();
    need_pipeline(&s, "x86_64");
    const char *argv[] = {"bash", "-c", "exec \"$@\" >/dev/full", "bash", qdc_bin(), s.input,
                          "--emit=llvm-ir", "-o", "-", NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    expect_diag(&r, 1, "error[QD0003]", "No space left on device");
    run_free(&r);
    scratch_free(&s);
}

/* The reader closes its end and only then lets qdc start (through a FIFO), so the write
 * deterministically meets a pipe without readers: EPIPE, not a silent SIGPIPE death. */
Test(envfaults, stdout_into_closed_pipe) {
    Scratch s = scratch_new();
    need_pipeline(&s, "x86_64");
    char *fifo = path_in(s.dir, "sync");
    cr_assert(mkfifo(fifo, 0600) == 0);
    const char *script = "f=$1; shift; { read -r _ <\"$f\"; exec \"$@\"; } | { exec 0<&-; echo go >\"$f\"; }; "
                         "exit \"${PIPESTATUS[0]}\"";
    const char *argv[] = {"bash", "-c", script, "bash", fifo, qdc_bin(), s.input, "--emit=llvm-ir", "-o", "-", NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    expect_diag(&r, 1, "error[QD0003]", "Broken pipe");
    run_free(&r);
    free(fifo);
    scratch_free(&s);
}

/* Runs qdc under `env NAME=VALUE`, compiling s->input for target into out. */
static RunResult run_with_env(const char *assign, const Scratch *s, const char *target, const char *out) {
    char *t = xasprintf("--target=%s", target);
    const char *argv[] = {"env", assign, qdc_bin(), s->input, t, "-o", out, NULL};
    RunResult r = run_argv(argv, NULL, NULL);
    free(t);
    return r;
}

Test(envfaults, ld_lld_missing) {
    Scratch s = scratch_new();
    need_pipeline(&s, "gfx942");
    char *out = path_in(s.dir, "k.hsaco");
    RunResult r = run_with_env("QDC_LD_LLD=/nonexistent/ld.lld-19", &s, "gfx942", out);
    expect_diag(&r, 1, "error[QD5005]", "QDC_LD_LLD='/nonexistent/ld.lld-19' cannot be run: No such file or directory");
    cr_expect_eq(entries(s.dir), 1);
    run_free(&r);
    r = run_with_env("QDC_LD_LLD=/bin/false", &s, "gfx942", out); /* the linker fails */
    expect_diag(&r, 1, "error[QD5005]", "failed");
    cr_expect_eq(entries(s.dir), 1);
    run_free(&r);
    free(out);
    scratch_free(&s);
}

/* The AMDGPU link step needs no scratch directory (ld.lld-19 reads the object from a pipe and
 * writes the code object to an in-memory file): a TMPDIR that does not exist changes nothing,
 * the code object is written and nothing else is left behind. */
Test(envfaults, tmpdir_missing_for_link) {
    Scratch s = scratch_new();
    need_pipeline(&s, "gfx942");
    char *out = path_in(s.dir, "k.hsaco");
    RunResult r = run_with_env("TMPDIR=/nonexistent/qdc-tmp", &s, "gfx942", out);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_empty(r.err);
    size_t len = 0;
    char *co = read_text(out, &len);
    cr_expect(co && len > 64 && !memcmp(co, "\177ELF", 4), "no linked code object");
    free(co);
    cr_expect_eq(entries(s.dir), 2);
    run_free(&r);
    free(out);
    scratch_free(&s);
}

/* A qdc copied away from its share/ and build-tree databases, with no QDC_CAPDB_PATH. */
Test(envfaults, capdb_missing) {
    Scratch s = scratch_new();
    char *bin = path_in(s.dir, "bin"), *exe = path_in(bin, "qdc"), *out = path_in(s.dir, "k.o");
    mkdir(bin, 0755);
    const char *cp[] = {"cp", qdc_bin(), exe, NULL};
    RunResult r = run_argv(cp, NULL, NULL);
    cr_assert_eq(r.status, 0);
    run_free(&r);
    const char *argv[] = {"env", "-u", "QDC_CAPDB_PATH", exe, s.input, "-o", out, NULL};
    r = run_argv(argv, NULL, NULL);
    expect_diag(&r, 1, "error[QD3007]", "no capability files");
    cr_expect(!file_exists(out));
    run_free(&r);
    free(bin), free(exe), free(out);
    scratch_free(&s);
}

static void corrupted_db(const char *bytes, size_t len, const char *code, const char *where) {
    Scratch s = scratch_new();
    char *db = path_in(s.dir, "db"), *bad = path_in(db, "broken.yaml"), *out = path_in(s.dir, "k.o");
    mkdir(db, 0755);
    FILE *f = fopen(bad, "wb");
    cr_assert(f && fwrite(bytes, 1, len, f) == len && fclose(f) == 0);
    /* the family that is that file fails, located, with no output (issue 34 item 16) */
    RunResult r = run_qdc(s.input, "--capdb-dir", db, "--target=broken", "-o", out, NULL);
    expect_diag(&r, 1, code, where);
    cr_expect(!file_exists(out));
    run_free(&r);
    /* a family whose chain does not include it compiles as without the directory */
    r = run_qdc(s.input, "--capdb-dir", db, "--target=x86_64", "-o", out, NULL);
    cr_expect_eq(r.status, 0, "x86_64 failed because of an unrelated capability file: %s", r.err);
    cr_expect_str_empty(r.err);
    cr_expect(file_exists(out));
    run_free(&r);
    free(db), free(bad), free(out);
    scratch_free(&s);
}

Test(envfaults, capdb_corrupted_yaml) {
    const char text[] = "schema: 1\nname: broken\nbackend: [x86_64\n";
    corrupted_db(text, sizeof text - 1, "error[QD3001]", "broken.yaml:4:1: error[QD3001]");
}

Test(envfaults, capdb_binary_garbage) {
    const char bytes[] = "\x7f" "ELF\x02\x01\x01\x00\xff\xfe\x00\x00\x01";
    corrupted_db(bytes, sizeof bytes - 1, "error[QD3001]", "broken.yaml:1:");
}
