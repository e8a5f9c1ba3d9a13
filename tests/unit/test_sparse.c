/* Sparse SNodes (issue 30): pointer, bitmasked and dynamic nodes as dense storage plus activity
 * metadata (ir/sparse.h). Kernels of testdata/sparse/ run through qdrun on the CPU with several
 * threads and on lavapipe, results checked exactly; every family compiles them; the metadata
 * names the activity fields the host allocates; misuse gives located errors. A Vulkan run that
 * cannot happen is a counted skip (vk_exec.h). */
#include "harness.h"
#include "support/util.h"
#include "vk_exec.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *qdrun_bin(void) {
    static char *p;
    if (!p) p = getenv("QDC_QDRUN") && *getenv("QDC_QDRUN") ? xstrdup(getenv("QDC_QDRUN")) : root_path("build/qdrun");
    return p;
}

static void write_zeros(const char *path, size_t n) {
    char h[128];
    int len = snprintf(h, sizeof h, "{'descr': '<i4', 'fortran_order': False, 'shape': (%zu,), }", n);
    while ((10 + len + 1) % 64) h[len++] = ' ';
    h[len++] = '\n';
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)len, 0};
    fwrite(pre, 1, 10, f), fwrite(h, 1, (size_t)len, f);
    for (size_t i = 0; i < 4 * n; i++) fputc(0, f);
    fclose(f);
}

static void read_i32(const char *path, int *out, size_t n) {
    size_t len;
    char *t = read_text(path, &len);
    cr_assert(t && len >= 10, "%s not written", path);
    size_t hl = (unsigned char)t[8] | (size_t)(unsigned char)t[9] << 8;
    cr_assert_eq(len, 10 + hl + 4 * n, "%s: %zu bytes", path, len);
    memcpy(out, t + 10 + hl, 4 * n);
    free(t);
}

/* testdata/sparse/<name>.qd's kernel run(out) on the CPU (4 threads) or lavapipe; out: n i32
 * zeros before. False: a Vulkan run that could not happen (counted). */
static bool run_out(const char *name, bool vulkan, int *out, size_t n) {
    char *dir = make_temp_dir(), *rel = xasprintf("testdata/sparse/%s.qd", name), *src = root_path(rel);
    const char *fam = vulkan ? "--target=vulkan1.2" : "--target=x86_64";
    char *mod = xasprintf("%s/%s.%s", dir, name, vulkan ? "spv" : "o"), *meta = xasprintf("%s/%s.json", dir, name);
    char *npy = xasprintf("%s/out.npy", dir), *arg = xasprintf("out=@%s", npy);
    RunResult c = run_qdc(fam, src, "-o", mod, NULL), m = run_qdc(fam, "--emit=metadata", src, "-o", meta, NULL);
    cr_assert_eq(c.status, 0, "qdc %s %s: %s", fam, name, c.err);
    cr_assert_eq(m.status, 0, "qdc %s --emit=metadata %s: %s", fam, name, m.err);
    write_zeros(npy, n);
    setenv("QDRT_THREADS", "4", 1);
    const char *argv[] = {qdrun_bin(), mod, "run", arg, vulkan ? "--device=vulkan" : "--device=cpu", NULL};
    RunResult r = vk_spawn(argv);
    bool ran = !(vulkan && r.status == 77);
    if (!ran) vk_count_skip(1, r.err);
    else {
        cr_assert_eq(r.status, 0, "qdrun %s (%s): status %d: %s", name, fam, r.status, r.err);
        read_i32(npy, out, n);
    }
    run_free(&c), run_free(&m), run_free(&r);
    remove_tree(dir);
    free(dir), free(rel), free(src), free(mod), free(meta), free(npy), free(arg);
    return ran;
}

static void expect_ints(const char *what, const int *got, const int *want, size_t n) {
    for (size_t i = 0; i < n; i++) cr_expect_eq(got[i], want[i], "%s: out[%zu] = %d, want %d", what, i, got[i], want[i]);
}

/* bitmasked.qd: 3 writes activate 3 cells (visited 3 times, sum 42, is_active 3 inside and over
 * the whole space); after deactivating one, 2 cells with sum 22 and the cell reads 0 (also in a
 * dense loop); 24 atomic adds activate 24 more cells: 26. */
static const int bitmasked_want[] = {3, 42, 3, 3, 2, 22, 0, 22, 26};

Test(sparse, bitmasked_cpu) {
    int out[9];
    run_out("bitmasked", false, out, 9);
    expect_ints("bitmasked on the CPU", out, bitmasked_want, 9);
}

Test(sparse, bitmasked_vulkan) {
    int out[9];
    if (run_out("bitmasked", true, out, 9)) expect_ints("bitmasked on lavapipe", out, bitmasked_want, 9);
}

/* pointer.qd: cells 5, 17, 18 under pointer cells 0 and 2; deactivating pointer cell 2 clears its
 * bitmasked cells and zeroes their data; writing 20 activates it again alone; qd.activate. */
static const int pointer_want[] = {3, 2, 2, 3, 1, 0, 2, 0, 1, 1, 2, 1};

Test(sparse, pointer_bitmasked_cpu) {
    int out[12];
    run_out("pointer", false, out, 12);
    expect_ints("pointer on the CPU", out, pointer_want, 12);
}

Test(sparse, pointer_bitmasked_vulkan) {
    int out[12];
    if (run_out("pointer", true, out, 12)) expect_ints("pointer on lavapipe", out, pointer_want, 12);
}

/* dynamic.qd: 1600 appends from parallel threads into 8 lists: 200 each, every value t exactly
 * once in list t % 8 (a histogram); 100 appends into a list of 64: 36 dropped, length 64;
 * deactivating list 3 empties it (1400 elements left, its data 0); an append after it lands at 0. */
static void check_dynamic(const int *out, const char *where) {
    int head[16] = {200, 200, 200, 200, 200, 200, 200, 200, 0, 36, 64, 0, 1400, 0, 107, 0};
    expect_ints(where, out, head, 16);
    for (int t = 0; t < 1600; t++) cr_expect_eq(out[16 + t], 1, "%s: value %d appended %d times", where, t, out[16 + t]);
}

Test(sparse, dynamic_append_cpu) {
    static int out[1616];
    run_out("dynamic", false, out, 1616);
    check_dynamic(out, "dynamic on the CPU");
}

Test(sparse, dynamic_append_vulkan) {
    static int out[1616];
    if (run_out("dynamic", true, out, 1616)) check_dynamic(out, "dynamic on lavapipe");
}

/* Every family compiles the three. */
Test(sparse, every_family) {
    static const char *const fams[] = {"x86_64", "sm_90", "gfx942", "vulkan1.1", "vulkan1.3", "apple7", "apple9"};
    static const char *const names[] = {"bitmasked", "pointer", "dynamic"};
    for (size_t n = 0; n < 3; n++)
        for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
            char *rel = xasprintf("testdata/sparse/%s.qd", names[n]), *src = root_path(rel), *t = xasprintf("--target=%s", fams[f]);
            RunResult r = run_qdc(t, "--check", src, NULL);
            cr_expect_eq(r.status, 0, "%s %s: %s", names[n], t, r.err);
            run_free(&r);
            free(rel), free(src), free(t);
        }
}

/* The metadata lists the activity fields: a u32 mask per pointer/bitmasked node (one bit per
 * cell of the tree), an i32 length per cell of a dynamic node's parent. */
Test(sparse, metadata_fields) {
    char *src = root_path("testdata/sparse/pointer.qd");
    RunResult r = run_qdc("--target=x86_64", "--emit=metadata", src, "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "{\"name\": \"qdc_mask_y_1\", \"symbol\": \"qd_field_qdc_mask_y_1\", \"dtype\": \"u32\", \"shape\": [1]}"), "%s", r.out);
    cr_expect(strstr(r.out, "{\"name\": \"qdc_mask_y_2\", \"symbol\": \"qd_field_qdc_mask_y_2\", \"dtype\": \"u32\", \"shape\": [1]}"), "%s", r.out);
    cr_expect(strstr(r.out, "\"levels\": [{\"axes\": [0], \"sizes\": [4], \"cell_bytes\": 32, \"child_offset\": 0, \"sparse\": \"pointer\", "
                            "\"meta\": \"qdc_mask_y_1\"}, {\"axes\": [0], \"sizes\": [8], \"cell_bytes\": 4, \"child_offset\": 0, "
                            "\"sparse\": \"bitmasked\", \"meta\": \"qdc_mask_y_2\"}]"), "%s", r.out);
    run_free(&r), free(src);
    src = root_path("testdata/sparse/dynamic.qd");
    r = run_qdc("--target=x86_64", "--emit=metadata", src, "-o", "-", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "{\"name\": \"qdc_length_x_2\", \"symbol\": \"qd_field_qdc_length_x_2\", \"dtype\": \"i32\", \"shape\": [8]}"), "%s", r.out);
    cr_expect(strstr(r.out, "{\"name\": \"qdc_length_small_1\", \"symbol\": \"qd_field_qdc_length_small_1\", \"dtype\": \"i32\", \"shape\": [1]}"), "%s", r.out);
    run_free(&r), free(src);
}

/* Misuse: located errors in Quadrants' words, exit 1, no output file. */
static void expect_errors(const char *rel, const char *want) {
    char *dir = make_temp_dir(), *out = xasprintf("%s/out.o", dir);
    const char *args[] = {rel, "--target=x86_64", "-o", out, NULL};
    RunResult r = run_qdc_argv(args, NULL, qdc_root());
    cr_expect_eq(r.status, 1, "%s: status %d", rel, r.status);
    cr_expect_str_eq(r.err, want);
    cr_expect(!file_exists(out), "%s: an output file was written", rel);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(out);
}

Test(sparse, errors_in_kernels) {
    expect_errors("testdata/sparse/err-misuse.qd",
        "testdata/sparse/err-misuse.qd:11:15: error[QD2063]: qd.append needs a dynamic SNode (qd.root.dynamic(...)), got a bitmasked one\n"
        " 11 |     qd.append(bm, 0, 1)\n"
        "    |               ^~\n"
        "testdata/sparse/err-misuse.qd:15:22: error[QD2011]: qd.is_active: this SNode takes 1 index here but 2 were given\n"
        " 15 |     qd.is_active(bm, [0, 1])\n"
        "    |                      ^~~~~~\n"
        "testdata/sparse/err-misuse.qd:19:5: error[QD2019]: a value has no attribute 'append' in the kernel language\n"
        " 19 |     x[0].append(1)\n"
        "    |     ^~~~~~~~~~~\n"
        "testdata/sparse/err-misuse.qd:23:20: error[QD2011]: qd.length: this SNode takes 1 index here but 2 were given\n"
        " 23 |     qd.length(lst, [1, 2])\n"
        "    |                    ^~~~~~\n"
        "testdata/sparse/err-misuse.qd:27:24: error[QD2011]: qd.deactivate: this SNode takes 1 index here but 2 were given\n"
        " 27 |     qd.deactivate(lst, [0, 0])\n"
        "    |                        ^~~~~~\n");
}

Test(sparse, errors_in_layouts) {
    expect_errors("testdata/sparse/err-layout.qd",
        "testdata/sparse/err-layout.qd:3:17: error[QD2063]: a dynamic SNode has one axis (Quadrants: \"Dynamic SNode can only have one index\"), got 2\n"
        " 3 | qd.root.dynamic(qd.ij, (4, 4)).place(x)\n"
        "   |                 ^~~~~\n"
        "testdata/sparse/err-layout.qd:5:1: error[QD2063]: 'hash' SNodes are not supported: qdc compiles dense, pointer, bitmasked and dynamic layouts\n"
        " 5 | qd.root.hash(qd.i, 4).place(y)\n"
        "   | ^~~~~~~~~~~~\n"
        "testdata/sparse/err-layout.qd:7:1: error[QD2063]: a dynamic SNode holds fields only: place() under it, not 'dense'\n"
        " 7 | qd.root.dynamic(qd.i, 4).dense(qd.j, 2).place(z)\n"
        "   | ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
}

/* Sparse nodes bound to names in host functions (what test_snode.c's host-function handles
 * were rejected for before): they compile, and a kernel over them activates and visits. The
 * vector's components sit under different nodes of one shape (8,): Quadrants' materialize check
 * refuses members of different shapes (rejects::matrix_field_member_shapes). */
Test(sparse, handles_in_host_functions) {
    static const char *const srcs[] = {
        "import quadrants as qd\n\ndef test_p():\n    w = qd.field(qd.i32)\n    blk = qd.root.pointer(qd.ij, 4)\n"
        "    blk.place(w)\n\n    @qd.kernel\n    def k():\n        for i, j in w:\n            w[i, j] = 1\n",
        "import quadrants as qd\n\ndef test_p():\n    v = qd.Vector.field(3, qd.i32)\n    S0 = qd.root\n"
        "    S1 = S0.bitmasked(qd.i, 4)\n    S2 = S1.dense(qd.i, 2)\n    S2.place(v.get_scalar_field(0))\n"
        "    S1.dense(qd.i, 2).place(v.get_scalar_field(1), v.get_scalar_field(2))\n\n"
        "    @qd.kernel\n    def k():\n        v[0][0] = 1\n",
    };
    for (int k = 0; k < 2; k++) {
        char *dir = NULL;
        RunResult r = qdc_in_temp("h.py", srcs[k], "--target=x86_64", "--stats", &dir);
        cr_expect_eq(r.status, 0, "handle %d: %s", k, r.err);
        cr_expect(strstr(r.err, "1 kernel (test_p__k)") || strstr(r.out, "1 kernel (test_p__k)"), "handle %d: %s%s", k, r.out, r.err);
        run_free(&r);
        remove_tree(dir), free(dir);
    }
}
