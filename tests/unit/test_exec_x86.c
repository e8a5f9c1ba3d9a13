/* The atomics matrix of exec_spec.c on x86-64 (issue 18): the same generated kernels (every op x
 * dtype x order x global/shared, old values used) compiled by qdc for x86_64, run by a C host
 * with libqdrt on 2 worker threads, and judged by the same exact sequential-history check. */
#include "../../support/util.h"
#include "exec_spec.h"
#include "test_x86.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool put(const char *dir, const char *name, const void *p, size_t n) {
    char *path = xasprintf("%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(p, 1, n, f) == n;
    if (f) fclose(f);
    free(path);
    return ok;
}
static bool get(const char *dir, const char *name, void *p, size_t n) {
    char *path = xasprintf("%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    bool ok = f && fread(p, 1, n, f) == n;
    if (f) fclose(f);
    free(path);
    return ok;
}

/* host.c: loads v, w, tgt, old from argv[1], runs every kernel in order, writes tgt and old. */
static char *host_source(const XFile *f, int n, const XData *d) {
    static const char *const ctype[XD_COUNT] = {"int32_t", "uint32_t", "int64_t", "uint64_t", "float", "double"};
    char *s = xasprintf("#include \"x.h\"\n#include <stdio.h>\n#include <stdlib.h>\ntypedef %s T;\n"
                        "static T *io(const char *dir, const char *name, size_t n, int out, T *p) {\n"
                        "    char path[4096]; snprintf(path, sizeof path, \"%%s/%%s\", dir, name);\n"
                        "    FILE *f = fopen(path, out ? \"wb\" : \"rb\"); if (!p) p = malloc(n * sizeof(T));\n"
                        "    if (!f || (out ? fwrite(p, sizeof(T), n, f) : fread(p, sizeof(T), n, f)) != n) exit(3);\n"
                        "    fclose(f); return p;\n}\n"
                        "int main(int argc, char **argv) {\n    if (argc < 2) return 2;\n    int rc = 0, n = %d;\n"
                        "    size_t nv = %zu, nt = %zu;\n"
                        "    T *v = io(argv[1], \"v\", nv, 0, 0), *w = io(argv[1], \"w\", nv, 0, 0), *tgt = io(argv[1], \"t\", nt, 0, 0),"
                        " *old = io(argv[1], \"o\", nv, 0, 0);\n",
                        ctype[f->dt], n, (size_t)n * (size_t)d->nk, (size_t)d->ntgt * (size_t)d->nk);
    for (int k = 0; k < f->nkernels; k++) {
        char *name = xkernel_name(f, k), *prev = s;
        s = xasprintf("%s    { %s_args a = {.n = n, .v = v, .v_shape = {(int32_t)nv}, .w = w, .w_shape = {(int32_t)nv},"
                      " .tgt = tgt, .tgt_shape = {(int32_t)nt}, .old = old, .old_shape = {(int32_t)nv}};"
                      " rc |= %s(&a, 2); }\n",
                      prev, name, name);
        free(prev), free(name);
    }
    char *prev = s;
    s = xasprintf("%s    io(argv[1], \"t\", nt, 1, tgt), io(argv[1], \"o\", nv, 1, old);\n"
                  "    free(v), free(w), free(tgt), free(old);\n    return rc;\n}\n", prev);
    free(prev);
    return s;
}

static void x86_matrix(int dt, int space) {
    if (!x86_have_runtime()) return;
    XFile f;
    xfile_init(&f, dt, space);
    char *dir = make_temp_dir(), *qd = xasprintf("%s/x.qd", dir), *obj = xasprintf("%s/x.o", dir), *hdr = xasprintf("%s/x.h", dir);
    char *text = xfile_source(&f);
    cr_assert(write_text(qd, text));
    RunResult r = run_qdc(qd, "--target=x86_64", "-o", obj, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    r = run_qdc(qd, "--emit=header", "-o", hdr, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    int n = space == XS_SHARED ? 1024 : 1000;
    XData d;
    xdata_init(&d, &f, n, 4242u);
    char *host = host_source(&f, n, &d);
    cr_assert(x86_build_host(dir, host, (const char *[]){"x.o", NULL}));
    cr_assert(put(dir, "v", d.v, xdata_bytes(&d, 'v')) && put(dir, "w", d.w, xdata_bytes(&d, 'v')) &&
              put(dir, "t", d.tgt, xdata_bytes(&d, 't')) && put(dir, "o", d.old, xdata_bytes(&d, 'o')));
    r = x86_run_host(dir, dir, NULL, NULL);
    cr_assert_eq(r.status, 0, "host: %s%s", r.out, r.err);
    run_free(&r);
    cr_assert(get(dir, "t", d.tgt, xdata_bytes(&d, 't')) && get(dir, "o", d.old, xdata_bytes(&d, 'o')));
    char why[512];
    for (int k = 0; k < f.nkernels; k++) cr_expect(xcheck(&f, &d, k, why, sizeof why), "x86_64: %s", why);
    xdata_free(&d);
    remove_tree(dir);
    free(dir), free(qd), free(obj), free(hdr), free(text), free(host);
}

#define MATRIX(dt, sp) \
    Test(exec_x86, atomics_##dt##_##sp, .timeout = 300) { x86_matrix(XD_##dt, XS_##sp); }
EXEC_MATRIX_CELLS(MATRIX)
