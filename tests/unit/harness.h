/* Shared helpers for the Criterion suite: run the qdc binary (or any tool) with an argv and
 * capture its exit status, stdout and stderr; temporary directories; file reading.
 * Environment: QDC_BIN (the qdc under test), QDC_ROOT (the checkout), QDC_RT (libqdrt.a),
 * QDC_ASAN=1 when the suite runs under sanitizers. */
#ifndef QDC_TEST_HARNESS_H
#define QDC_TEST_HARNESS_H
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    int status;   /* exit status, or 128+signal if killed */
    char *out;    /* captured stdout (NUL-terminated) */
    char *err;    /* captured stderr */
    size_t out_len, err_len;
} RunResult;

/* Runs argv[0] (searched in PATH if it has no '/') with argv, feeding stdin_data (may be NULL)
 * and an optional working directory; never through a shell. */
RunResult run_argv(const char *const *argv, const char *stdin_data, const char *cwd);
/* Runs $QDC_BIN with the given arguments (NULL-terminated list). */
RunResult run_qdc(const char *first, ...);
/* Writes src to <a fresh temporary directory>/name and runs qdc on it with a1 [a2] -o <dir>/out;
 * *dir_out gets the malloc'd directory (the caller removes it). */
RunResult qdc_in_temp(const char *name, const char *src, const char *a1, const char *a2, char **dir_out);
/* src compiles for each family with --report-lowering, and the report has the family's line. */
typedef struct {
    const char *target, *want;
} TargetLine;
void expect_lowering_report(const char *src, const TargetLine *fam, size_t n);
RunResult run_qdc_argv(const char *const *args, const char *stdin_data, const char *cwd);
void run_free(RunResult *r);

const char *qdc_bin(void);
const char *qdc_root(void);             /* repository root */
char *root_path(const char *rel);       /* malloc'd QDC_ROOT/rel */
char *make_temp_dir(void);              /* malloc'd, under $TMPDIR or /tmp */
void remove_tree(const char *dir);
char *read_text(const char *path, size_t *len); /* NULL if unreadable */
bool write_text(const char *path, const char *text);
bool file_exists(const char *path);
bool tool_available(const char *name);  /* an executable found in PATH or given by path */
/* Compiles text as NAME (e.g. "g.py") for x86_64 into NAME's .o in a new temporary directory:
 * the exit status, stderr in *err (malloc'd), *wrote: whether the .o was written. */
int qdc_x86_text(const char *name, const char *text, char **err, bool *wrote);
/* The same, expecting exit 1 with stderr exactly want and no .o, or exit 0 with nothing on
 * stderr and the .o written; the k_py forms name the source k.py. */
void expect_py_refused(const char *name, const char *text, const char *want);
void expect_py_compiles(const char *name, const char *text);
void expect_k_py_refused(const char *text, const char *want);
void expect_k_py_compiles(const char *text);
/* text as g.py, compiled for the default target: exit 1, no output, stderr starts with want
 * exactly, and there is one error. */
void expect_g_py_first_error(const char *text, const char *want);
/* The same without the one-error check: stderr starts with want. */
void expect_g_py_error_prefix(const char *text, const char *want);
#endif
