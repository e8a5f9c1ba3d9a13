/* libqdrt's device API and qdrun (issue 32): every example run through the public API and through
 * qdrun (.npy files) on lavapipe and on the CPU, checked exactly with the inputs and checks of the
 * execution tests (exec_spec.h); a small host program run on both with identical output; bad use
 * (argument count, dtype, ndim, a module for another family, a missing driver, .npy files
 * qdrun does not read) with exact messages and statuses. A Vulkan run that cannot happen (no
 * lavapipe) is counted as a skip (vk_exec.h), which CI fails. */
#include "exec_qdrt.h"
#include "harness.h"
#include "runtime/qdrt_device.h"
#include "support/util.h"
#include "vk_exec.h"
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

static const char *qdrun_bin(void) {
    static char *p;
    if (!p) p = getenv("QDC_QDRUN") && *getenv("QDC_QDRUN") ? xstrdup(getenv("QDC_QDRUN")) : root_path("build/qdrun");
    return p;
}

/* src compiled for family into dir/<stem>-<family>.<ext>, its metadata beside. */
static char *compile_file(const char *dir, const char *src, const char *stem, const char *family, const char *ext) {
    char *out = xasprintf("%s/%s-%s.%s", dir, stem, family, ext), *meta = xasprintf("%s/%s-%s.json", dir, stem, family);
    char *t = xasprintf("--target=%s", family);
    RunResult r = run_qdc(t, src, "-o", out, NULL), m = run_qdc(t, "--emit=metadata", src, "-o", meta, NULL);
    cr_assert_eq(r.status, 0, "qdc %s %s: %s", t, src, r.err);
    cr_assert_eq(m.status, 0, "qdc %s --emit=metadata %s: %s", t, src, m.err);
    run_free(&r), run_free(&m);
    free(meta), free(t);
    return out;
}

/* examples/<name>.qd compiled for family into dir/<name>-<family>.<ext>, its metadata beside. */
static char *compile(const char *dir, const char *name, const char *family, const char *ext) {
    char *rel = xasprintf("examples/%s.qd", name), *src = root_path(rel), *out = compile_file(dir, src, name, family, ext);
    free(rel), free(src);
    return out;
}

/* The two devices the suite runs kernels on: family, module extension, qdrun's --device. */
static const char *const both[2][3] = {{"x86_64", "o", "cpu"}, {"vulkan1.2", "spv", "vulkan"}};

/* Opens a device; a Vulkan device that is not there is a counted skip (NULL). */
static qdrt_device *open_dev(qdrt_device_kind k) {
    qdrt_device *d;
    qdrt_status st = qdrt_device_open(k, &d);
    if (st == QDRT_E_NO_DEVICE && k == QDRT_DEVICE_VULKAN) {
        vk_count_skip(1, qdrt_error());
        return NULL;
    }
    cr_assert_eq(st, QDRT_OK, "qdrt_device_open: %s", qdrt_error());
    return d;
}


/* One example at size n through the API (exec_qdrt.c, what the CUDA launcher of `make gpu-check` runs too). */
static void api_example(qdrt_device *dev, const char *path, const Example *ex, int n, const char *label) {
    qdrt_module *m;
    cr_assert_eq(qdrt_module_load(dev, path, NULL, &m), QDRT_OK, "%s: %s", label, qdrt_error());
    char why[512];
    int rc = exec_qdrt_example(m, ex, n, why, sizeof why);
    cr_assert_geq(rc, 0, "%s n=%d: %s", label, n, why);
    cr_expect_eq(rc, 1, "%s n=%d: %s", label, n, why);
    qdrt_module_free(m);
}

static const int sizes[] = {128, 1000, 4096};

static void api_everywhere(qdrt_device_kind kind, const char *family, const char *ext) {
    qdrt_device *dev = open_dev(kind);
    if (!dev) return;
    char *dir = make_temp_dir();
    for (int e = 0; e < exec_nexamples; e++) {
        const Example *ex = &exec_examples[e];
        char *path = compile(dir, ex->name, family, ext), *label = xasprintf("%s on %s", ex->name, qdrt_device_name(dev));
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            if (!ex->full_grid_only || sizes[s] % 128 == 0) api_example(dev, path, ex, sizes[s], label);
        free(path), free(label);
    }
    qdrt_device_close(dev);
    remove_tree(dir);
    free(dir);
}

Test(qdrt, examples_api_cpu) { api_everywhere(QDRT_DEVICE_CPU, "x86_64", "o"); }
Test(qdrt, examples_api_vulkan) { api_everywhere(QDRT_DEVICE_VULKAN, "vulkan1.2", "spv"); }

/* ---- qdrun ---- */

static void write_npy(const char *path, const char *descr, size_t n, const void *data, size_t bytes) {
    char h[128];
    int len = snprintf(h, sizeof h, "{'descr': '%s', 'fortran_order': False, 'shape': (%zu,), }", descr, n);
    while ((10 + len + 1) % 64) h[len++] = ' ';
    h[len++] = '\n';
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)len, 0};
    fwrite(pre, 1, 10, f), fwrite(h, 1, (size_t)len, f), fwrite(data, 1, bytes, f);
    fclose(f);
}

/* The data of a .npy file qdrun wrote, after checking its header is exactly what NumPy reads. */
static void read_npy(const char *path, const char *descr, size_t n, void *data, size_t bytes) {
    size_t len;
    char *t = read_text(path, &len), want[128];
    cr_assert(t, "%s not written", path);
    snprintf(want, sizeof want, "{'descr': '%s', 'fortran_order': False, 'shape': (%zu,), }", descr, n);
    cr_assert(len >= 10 && !memcmp(t, "\x93NUMPY\x01\x00", 8), "%s: no .npy 1.0 magic", path);
    size_t hl = (unsigned char)t[8] | (size_t)(unsigned char)t[9] << 8;
    cr_assert_eq((10 + hl) % 64, 0, "%s: header not padded to 64", path);
    cr_assert(!strncmp(t + 10, want, strlen(want)), "%s: header %.*s", path, (int)hl, t + 10);
    cr_assert_eq(len, 10 + hl + bytes, "%s: %zu bytes", path, len);
    memcpy(data, t + 10 + hl, bytes);
    free(t);
}

static RunResult qdrun(const char *const *args) {
    const char *argv[24] = {qdrun_bin()};
    int n = 1;
    while (*args && n < 23) argv[n++] = *args++;
    argv[n] = NULL;
    return vk_spawn(argv); /* the lavapipe environment, harmless for the CPU */
}

/* One example at size n through qdrun: every array @FILE.npy (read and written back). */
static void qdrun_example(const char *dir, const char *path, const char *device, const Example *ex, int n) {
    qdrt_device *cpu;
    cr_assert_eq(qdrt_device_open(QDRT_DEVICE_CPU, &cpu), QDRT_OK);
    ExArgs a = {0};
    ex->setup(&a, n);
    /* parameter names and dtypes from the metadata, read through a CPU device's view of it */
    char *meta_path = xasprintf("%.*s.json", (int)(strrchr(path, '.') - path), path), *meta = read_text(meta_path, NULL);
    const char *args[20] = {path, ex->kernel, device};
    int na = 3, b = 0;
    char *owned[16];
    int no = 0;
    char *files[8];
    const char *descrs[8];
    const char *p = strstr(meta, "\"params\": ["), *end = p ? strchr(p, ']') : NULL;
    cr_assert(end, "%s: no params", meta_path);
    while ((p = strstr(p, "{\"name\": \"")) && p < end && na < 18) {
        const char *name = p + 10, *q = strchr(name, '"'), *close = strchr(q, '}');
        const char *kind = strstr(q, "\"kind\": \""), *dt = strstr(q, "\"dtype\": \"");
        int nl = (int)(q - name);
        p = close;
        cr_assert(kind && dt && kind < close && dt < close, "%s: a parameter without kind or dtype", meta_path);
        if (strncmp(kind + 9, "ndarray", 7)) {
            args[na++] = owned[no++] = xasprintf("%.*s=%d", nl, name, a.scalar);
            continue;
        }
        static const char *const npy[][2] = {{"i32", "<i4"}, {"u32", "<u4"}, {"i64", "<i8"}, {"u64", "<u8"}, {"f32", "<f4"},
                                             {"f64", "<f8"}, {"i16", "<i2"}, {"u8", "|u1"}};
        ExBuf *eb = &a.bufs[b];
        descrs[b] = NULL;
        for (size_t i = 0; i < sizeof npy / sizeof npy[0]; i++)
            if (!strncmp(dt + 10, npy[i][0], strlen(npy[i][0])) && dt[10 + strlen(npy[i][0])] == '"') descrs[b] = npy[i][1];
        cr_assert(descrs[b], "%s: dtype %.6s", meta_path, dt + 10);
        files[b] = xasprintf("%s/%s-%.*s.npy", dir, ex->name, nl, name);
        write_npy(files[b], descrs[b], eb->n, eb->host, eb->elem * eb->n);
        args[na++] = owned[no++] = xasprintf("%.*s=@%s", nl, name, files[b]);
        b++;
    }
    args[na] = NULL;
    cr_assert_eq(b, a.nbufs, "%s: %d .npy files for %d arrays", ex->name, b, a.nbufs);
    RunResult r = qdrun(args);
    if (r.status == 77 && !strcmp(device, "--device=vulkan")) vk_count_skip(1, r.err);
    else {
        cr_assert_eq(r.status, 0, "qdrun %s %s n=%d: status %d: %s", ex->name, device, n, r.status, r.err);
        /* nothing on stderr but, under ASan, its notice that block lanes switch with swapcontext */
        const char *err = r.err;
        for (const char *nl; !strncmp(err, "==", 2) && (nl = strchr(err, '\n'));) { /* once per process that switches */
            const char *w = strstr(err, "WARNING: ASan doesn't fully support makecontext/swapcontext");
            if (!w || w > nl) break;
            err = nl + 1;
        }
        cr_assert_str_empty(err);
        for (int i = 0; i < b; i++) read_npy(files[i], descrs[i], a.bufs[i].n, a.bufs[i].host, a.bufs[i].elem * a.bufs[i].n);
        cr_expect(ex->check(&a, n), "qdrun %s %s n=%d: %s", ex->name, device, n, a.why);
    }
    run_free(&r);
    for (int i = 0; i < b; i++) free(files[i]);
    for (int i = 0; i < no; i++) free(owned[i]);
    free(meta_path), free(meta);
    exec_args_free(&a);
    qdrt_device_close(cpu);
}

static void qdrun_everywhere(const char *family, const char *ext, const char *device) {
    char *dir = make_temp_dir();
    for (int e = 0; e < exec_nexamples; e++) {
        char *path = compile(dir, exec_examples[e].name, family, ext);
        qdrun_example(dir, path, device, &exec_examples[e], 1024);
        free(path);
    }
    remove_tree(dir);
    free(dir);
}

Test(qdrt, examples_qdrun_cpu) { qdrun_everywhere("x86_64", "o", "--device=cpu"); }
Test(qdrt, examples_qdrun_vulkan) { qdrun_everywhere("vulkan1.2", "spv", "--device=vulkan"); }

/* ---- bad use ---- */

Test(qdrt, bad_arguments) {
    char *dir = make_temp_dir(), *path = compile(dir, "histogram", "x86_64", "o");
    qdrt_device *dev = open_dev(QDRT_DEVICE_CPU);
    qdrt_module *m;
    cr_assert_eq(qdrt_module_load(dev, path, NULL, &m), QDRT_OK, "%s", qdrt_error());
    int64_t n = 10, nb = 256, two[2] = {2, 5};
    qdrt_array *data, *bins, *f32, *mat;
    cr_assert_eq(qdrt_array_new(dev, QDRT_I32, 1, &n, &data), QDRT_OK);
    cr_assert_eq(qdrt_array_new(dev, QDRT_I32, 1, &nb, &bins), QDRT_OK);
    cr_assert_eq(qdrt_array_new(dev, QDRT_F32, 1, &nb, &f32), QDRT_OK);
    cr_assert_eq(qdrt_array_new(dev, QDRT_I32, 2, two, &mat), QDRT_OK);
    qdrt_value one[1] = {qdrt_arr(data)};
    cr_assert_eq(qdrt_launch_kernel(m, "histogram", one, 1, NULL, 0), QDRT_E_ARGUMENT);
    cr_assert_str_eq(qdrt_error(), "kernel histogram takes 2 arguments, 1 given");
    qdrt_value wrong_dtype[2] = {qdrt_arr(data), qdrt_arr(f32)};
    cr_assert_eq(qdrt_launch_kernel(m, "histogram", wrong_dtype, 2, NULL, 0), QDRT_E_ARGUMENT);
    cr_assert_str_eq(qdrt_error(), "kernel histogram: argument bins is an ndarray of f32; the kernel takes i32");
    qdrt_value wrong_ndim[2] = {qdrt_arr(mat), qdrt_arr(bins)};
    cr_assert_eq(qdrt_launch_kernel(m, "histogram", wrong_ndim, 2, NULL, 0), QDRT_E_ARGUMENT);
    cr_assert_str_eq(qdrt_error(), "kernel histogram: argument data has 2 dimensions; the kernel takes ndim=1");
    qdrt_value scalar[2] = {qdrt_i64(3), qdrt_arr(bins)};
    cr_assert_eq(qdrt_launch_kernel(m, "histogram", scalar, 2, NULL, 0), QDRT_E_ARGUMENT);
    cr_assert_str_eq(qdrt_error(), "kernel histogram: argument 1 (data) must be an ndarray");
    cr_assert_eq(qdrt_launch_kernel(m, "nope", scalar, 2, NULL, 0), QDRT_E_ARGUMENT);
    cr_assert_str_eq(qdrt_error(), "module histogram has no kernel nope");
    int32_t small[3];
    cr_assert_eq(qdrt_array_write(data, small, sizeof small), QDRT_E_ARGUMENT);
    cr_assert_str_eq(qdrt_error(), "array write: 12 bytes given, the array has 40");
    /* the good call still works after all that, and nothing it was given changed */
    qdrt_value good[2] = {qdrt_arr(data), qdrt_arr(bins)};
    cr_assert_eq(qdrt_launch_kernel(m, "histogram", good, 2, NULL, 0), QDRT_OK, "%s", qdrt_error());
    int32_t out[256];
    cr_assert_eq(qdrt_array_read(bins, out, sizeof out), QDRT_OK);
    cr_assert_eq(out[0], 10); /* ten zeros */
    qdrt_device_close(dev); /* frees the module and the arrays */
    remove_tree(dir);
    free(dir), free(path);
}

Test(qdrt, module_for_another_family) {
    char *dir = make_temp_dir(), *spv = compile(dir, "histogram", "vulkan1.2", "spv");
    qdrt_device *dev = open_dev(QDRT_DEVICE_CPU);
    qdrt_module *m;
    cr_assert_eq(qdrt_module_load(dev, spv, NULL, &m), QDRT_E_MODULE);
    char *want = xasprintf("%s (metadata %s/histogram-vulkan1.2.json): module histogram was compiled for vulkan1.2 (spirv, for Vulkan); "
                           "this device is %s", spv, dir, qdrt_device_name(dev));
    cr_assert_str_eq(qdrt_error(), want);
    cr_assert_null(m);
    free(want);
    const char *args[] = {spv, "histogram", "--device=cpu", "data=x.npy", NULL};
    RunResult r = qdrun(args);
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.err, "qdrun: error: ") == r.err && strstr(r.err, "was compiled for vulkan1.2 (spirv, for Vulkan); this device is cpu"),
              "%s", r.err);
    run_free(&r);
    qdrt_device_close(dev);
    remove_tree(dir);
    free(dir), free(spv);
}

Test(qdrt, missing_driver) {
    qdrt_device *d = (qdrt_device *)1;
    setenv("QDRT_VULKAN_LIBRARY", "/nonexistent/libvulkan.so.1", 1);
    cr_assert_eq(qdrt_device_open(QDRT_DEVICE_VULKAN, &d), QDRT_E_NO_DEVICE);
    cr_assert_null(d);
    cr_assert(!strncmp(qdrt_error(), "no Vulkan loader (/nonexistent/libvulkan.so.1): ", 48), "%s", qdrt_error());
    unsetenv("QDRT_VULKAN_LIBRARY");
    /* no NVIDIA or AMD driver here: a distinct status scripts can test (a GPU machine skips this) */
    const char *names[] = {"cuda", "hip"};
    for (int i = 0; i < 2; i++) {
        if (!qdrt_device_open(i ? QDRT_DEVICE_HIP : QDRT_DEVICE_CUDA, &d)) {
            qdrt_device_close(d);
            continue;
        }
        char *dev = xasprintf("--device=%s", names[i]);
        const char *args[] = {"m.ptx", "k", dev, NULL};
        RunResult r = qdrun(args);
        cr_assert_eq(r.status, 77, "%s: %d %s", names[i], r.status, r.err);
        cr_assert(strstr(r.err, i ? "qdrun: error: no HIP driver (libamdhip64.so)" : "qdrun: error: no CUDA driver (libcuda.so.1)"), "%s", r.err);
        run_free(&r);
        free(dev);
    }
}

Test(qdrt, qdrun_bad_use) {
    char *dir = make_temp_dir(), *o = compile(dir, "histogram", "x86_64", "o");
    char *data = xasprintf("%s/data.npy", dir), *bins = xasprintf("%s/bins.npy", dir), *big = xasprintf("%s/big.npy", dir);
    int32_t d[4] = {1, 2, 3, 300}, b[256] = {0};
    write_npy(data, "<i4", 4, d, sizeof d);
    write_npy(bins, "<i4", 256, b, sizeof b);
    write_npy(big, ">i4", 4, d, sizeof d);
    char *a_data = xasprintf("data=%s", data), *a_bins = xasprintf("bins=@%s", bins), *a_big = xasprintf("data=%s", big);
    struct { const char *args[6]; int status; const char *err; } cases[] = {
        {{o, NULL}, 2, "usage: qdrun MODULE KERNEL"},
        {{o, "histogram", "--frob", NULL}, 2, "qdrun: error: unknown option --frob\n"},
        {{o, "histogram", "--device=tpu", NULL}, 2, "qdrun: error: unknown device 'tpu' (vulkan, cuda, hip, cpu or best)\n"},
        {{o, "histogram", a_data, NULL}, 1, "qdrun: error: kernel histogram: no value for parameter bins (an ndarray: NAME=FILE.npy)\n"},
        {{o, "histogram", a_data, a_bins, "extra=3", NULL}, 1, "qdrun: error: kernel histogram has no parameter extra\n"},
        {{o, "histogram", "data=7", a_bins, NULL}, 1, "qdrun: error: kernel histogram: argument 1 (data) must be an ndarray\n"},
        {{o, "histogram", "data=x7", a_bins, NULL}, 1, "qdrun: error: data=x7: not a number, a .npy file or @FILE.npy\n"},
        {{o, "histogram", a_big, a_bins, NULL}, 1, NULL},
        {{o, "nope", NULL}, 1, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        RunResult r = qdrun(cases[i].args);
        cr_expect_eq(r.status, cases[i].status, "case %zu: status %d: %s", i, r.status, r.err);
        if (cases[i].err) cr_expect(!strncmp(r.err, cases[i].err, strlen(cases[i].err)), "case %zu: %s", i, r.err);
        run_free(&r);
    }
    RunResult r = qdrun((const char *[]){o, "histogram", a_big, a_bins, NULL});
    char *want = xasprintf("qdrun: error: %s: dtype '>i4' is not supported (big-endian: convert with "
                           "arr.astype(arr.dtype.newbyteorder('<')))\n", big);
    cr_expect_str_eq(r.err, want);
    run_free(&r), free(want);
    r = qdrun((const char *[]){o, "nope", NULL});
    want = xasprintf("qdrun: error: module %s has no kernel nope\n", o);
    cr_expect_str_eq(r.err, want);
    run_free(&r), free(want);
    /* bins was never written back by the failed runs; a good run writes it */
    int32_t back[256];
    read_npy(bins, "<i4", 256, back, sizeof back);
    cr_assert_eq(back[1], 0);
    r = qdrun((const char *[]){o, "histogram", a_data, a_bins, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert_str_empty(r.out);
    read_npy(bins, "<i4", 256, back, sizeof back);
    cr_assert(back[1] == 1 && back[2] == 1 && back[3] == 1 && back[300 & 255] == 1 && back[0] == 0);
    run_free(&r);
    free(a_data), free(a_bins), free(a_big), free(data), free(bins), free(big), free(o);
    remove_tree(dir);
    free(dir);
}

/* ---- typed launchers ---- */

/* examples/qdrt/histogram_any.c (20 lines of host code) runs histogram_run(dev, data, bins) from
 * the Vulkan header on lavapipe and on the CPU: both print exactly the expected bins. */
Test(qdrt, host_program_histogram_vulkan_and_cpu) {
    char *dir = make_temp_dir(), *spv = compile(dir, "histogram", "vulkan1.2", "spv"), *o = compile(dir, "histogram", "x86_64", "o");
    char *src = root_path("examples/histogram.qd"), *hdr = xasprintf("%s/histogram.h", dir), *exe = xasprintf("%s/histogram_any", dir);
    RunResult h = run_qdc("--target=vulkan1.2", "--emit=header", src, "-o", hdr, NULL);
    cr_assert_eq(h.status, 0, "%s", h.err);
    run_free(&h);
    char *host = root_path("examples/qdrt/histogram_any.c"), *rtinc = xasprintf("-I%s/runtime", qdc_root()), *inc = xasprintf("-I%s", dir);
    bool asan = getenv("QDC_ASAN") && !strcmp(getenv("QDC_ASAN"), "1");
    const char *cc[] = {"cc", "-std=c17", "-Wall", "-Wextra", "-Werror", "-O1", asan ? "-fsanitize=address,undefined" : "-DQDRT_PLAIN",
                        rtinc, inc, host, getenv("QDC_RT"), "-lpthread", "-lm", "-rdynamic", "-o", exe, NULL};
    RunResult b = run_argv(cc, NULL, NULL);
    cr_assert_eq(b.status, 0, "building histogram_any: %s", b.err);
    run_free(&b);
    char want[2048] = "";
    int bins[256] = {0};
    for (int i = 0; i < 1000; i++) bins[(i * 7) & 255]++;
    for (int i = 0; i < 256; i++) snprintf(want + strlen(want), sizeof want - strlen(want), "%d%c", bins[i], i % 16 == 15 ? '\n' : ' ');
    const char *runs[][3] = {{exe, "cpu", o}, {exe, "vulkan", spv}};
    for (int i = 0; i < 2; i++) {
        const char *argv[] = {runs[i][0], runs[i][1], runs[i][2], NULL};
        RunResult r = vk_spawn(argv);
        if (i == 1 && r.status == 1 && strstr(r.err, "histogram_any: no Vulkan")) vk_count_skip(1, r.err);
        else {
            cr_expect_eq(r.status, 0, "histogram_any %s: %s", runs[i][1], r.err);
            cr_expect_str_eq(r.out, want, "histogram_any %s", runs[i][1]);
        }
        run_free(&r);
    }
    /* a module not loaded: the typed launcher says which */
    qdrt_device *dev = open_dev(QDRT_DEVICE_CPU);
    cr_assert_eq(qdrt_launch_on(dev, "histogram", "histogram", NULL, 0, NULL, 0), QDRT_E_ARGUMENT);
    char *msg = xasprintf("no module histogram is loaded on %s (qdrt_module_load)", qdrt_device_name(dev));
    cr_assert_str_eq(qdrt_error(), msg);
    qdrt_device_close(dev);
    free(msg), free(host), free(rtinc), free(inc), free(src), free(hdr), free(exe), free(spv), free(o);
    remove_tree(dir);
    free(dir);
}

/* Kernels k and k_run: the typed launcher of k would be k_run's launcher (QD5006, nothing written). */
Test(qdrt, typed_launcher_name_clash) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/krun.qd", dir), *out = xasprintf("%s/krun.o", dir);
    write_text(src, "import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                    "    for i in range(a.shape[0]):\n        a[i] = 1\n\n@qd.kernel\ndef k_run(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):\n"
                    "    for i in range(a.shape[0]):\n        a[i] = 2\n");
    RunResult r = run_qdc("--color=never", src, "-o", out, NULL);
    cr_assert_eq(r.status, 1);
    char *want = xasprintf("%s:9:5: error[QD5006]: the launcher of kernel 'k_run' is named 'k_run', which is already the typed launcher "
                           "of kernel 'k'; rename one of them\n", src);
    cr_assert(!strncmp(r.err, want, strlen(want)), "%s", r.err);
    cr_assert(!file_exists(out));
    run_free(&r);
    remove_tree(dir);
    free(dir), free(src), free(out), free(want);
}

/* A module needing a device feature lavapipe does not have (an f16 atomic min on a buffer, with
 * --cap=+float16-atomic-min-max): refused at load, the feature named; qdrun exits 77. */
Test(qdrt, missing_feature_vulkan) {
    qdrt_device *dev = open_dev(QDRT_DEVICE_VULKAN);
    if (!dev) return;
    char *dir = make_temp_dir(), *src = xasprintf("%s/f16min.qd", dir), *spv = xasprintf("%s/f16min.spv", dir),
         *meta = xasprintf("%s/f16min.json", dir);
    write_text(src, "import quadrants as qd\n\n@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.f16, ndim=1), "
                    "v: qd.types.ndarray(dtype=qd.f16, ndim=1)):\n    for i in range(v.shape[0]):\n        qd.atomic_min(a[0], v[i])\n");
    RunResult r = run_qdc("--target=vulkan1.3", "--cap=+float16-atomic-min-max", src, "-o", spv, NULL),
              m = run_qdc("--target=vulkan1.3", "--cap=+float16-atomic-min-max", "--emit=metadata", src, "-o", meta, NULL);
    cr_assert(r.status == 0 && m.status == 0, "%s%s", r.err, m.err);
    run_free(&r), run_free(&m);
    qdrt_module *mod;
    cr_assert_eq(qdrt_module_load(dev, spv, NULL, &mod), QDRT_E_FEATURE, "%s", qdrt_error());
    char *want = xasprintf("%s (metadata %s): module f16min needs the Vulkan feature shaderBufferFloat16AtomicMinMax (SPIR-V capability "
                           "5616); %s does not have it", spv, meta, qdrt_device_name(dev));
    cr_assert_str_eq(qdrt_error(), want);
    const char *args[] = {spv, "k", NULL};
    r = qdrun(args);
    cr_assert_eq(r.status, 77, "%d %s", r.status, r.err);
    cr_assert(strstr(r.err, "needs the Vulkan feature shaderBufferFloat16AtomicMinMax"), "%s", r.err);
    run_free(&r);
    /* vkrun: the device made for the module (qdrt_vulkan_options.spirv) names it too, a skip */
    const char *vk = getenv("QDC_VKRUN");
    if (vk && file_exists(vk)) {
        r = vk_spawn((const char *[]){vk, spv, NULL});
        cr_expect_eq(r.status, 77, "%d %s%s", r.status, r.out, r.err);
        cr_expect(!strncmp(r.out, "vkrun: the module needs the Vulkan feature shaderBufferFloat16AtomicMinMax; ", 76) &&
                      strstr(r.out, " does not have it; skipping\n"),
                  "%s", r.out);
        run_free(&r);
    }
    qdrt_device_close(dev);
    remove_tree(dir);
    free(dir), free(src), free(spv), free(meta), free(want);
}

/* A kernel with a return value and a scalar: qdrun prints it, the API copies it into ret, on the
 * CPU and on lavapipe; a float for an i32 scalar and a ret of the wrong size are refused. */
Test(qdrt, return_value_and_scalar) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/ret.qd", dir), *npy = xasprintf("%s/a.npy", dir), *a_npy = xasprintf("a=%s", npy);
    write_text(src, "import quadrants as qd\n\n@qd.kernel\ndef total(a: qd.types.ndarray(dtype=qd.i32, ndim=1), scale: qd.i32) -> qd.i32:\n"
                    "    s = 0\n    for i in range(a.shape[0]):\n        s += a[i] * scale\n    return s\n");
    int32_t a[100];
    for (int i = 0; i < 100; i++) a[i] = i;
    write_npy(npy, "<i4", 100, a, sizeof a);
    const char *const (*fam)[3] = both;
    for (int f = 0; f < 2; f++) {
        char *mod = compile_file(dir, src, "ret", fam[f][0], fam[f][1]);
        RunResult r;
        qdrt_device *dev = open_dev(f ? QDRT_DEVICE_VULKAN : QDRT_DEVICE_CPU);
        if (dev) {
            qdrt_module *mm;
            qdrt_array *arr;
            int64_t n = 100;
            int32_t ret = 0;
            int16_t small = 0;
            cr_assert_eq(qdrt_module_load(dev, mod, NULL, &mm), QDRT_OK, "%s", qdrt_error());
            cr_assert_eq(qdrt_array_new(dev, QDRT_I32, 1, &n, &arr), QDRT_OK);
            cr_assert_eq(qdrt_array_write(arr, a, sizeof a), QDRT_OK);
            qdrt_value args[2] = {qdrt_arr(arr), qdrt_i64(3)};
            cr_assert_eq(qdrt_launch_kernel(mm, "total", args, 2, &ret, sizeof ret), QDRT_OK, "%s", qdrt_error());
            cr_expect_eq(ret, 14850, "%s: %d", fam[f][2], ret);
            cr_assert_eq(qdrt_launch_kernel(mm, "total", args, 2, &small, sizeof small), QDRT_E_ARGUMENT);
            cr_assert_str_eq(qdrt_error(), "kernel total returns 4 bytes; ret has 2");
            args[1] = qdrt_f64(2.5);
            cr_assert_eq(qdrt_launch_kernel(mm, "total", args, 2, NULL, 0), QDRT_E_ARGUMENT);
            cr_assert_str_eq(qdrt_error(), "kernel total: parameter scale is i32; a float value was given");
            qdrt_device_close(dev);
            char *dv = xasprintf("--device=%s", fam[f][2]);
            const char *qa[] = {mod, "total", dv, a_npy, "scale=3", NULL};
            r = qdrun(qa);
            cr_expect_eq(r.status, 0, "%s", r.err);
            cr_expect_str_eq(r.out, "total returned 14850\n");
            run_free(&r);
            free(dv);
        }
        free(mod);
    }
    remove_tree(dir);
    free(dir), free(src), free(npy), free(a_npy);
}

/* A module from memory (what an --emit=c-array array or CMake EMBED gives) with its metadata's
 * text runs like one from a file; malformed metadata is refused with where it broke. */
Test(qdrt, module_from_memory) {
    char *dir = make_temp_dir(), *o = compile(dir, "histogram", "x86_64", "o"), *meta = xasprintf("%s/histogram-x86_64.json", dir);
    size_t clen, mlen;
    char *code = read_text(o, &clen), *json = read_text(meta, &mlen);
    cr_assert(code && json);
    qdrt_device *dev = open_dev(QDRT_DEVICE_CPU);
    qdrt_module *m;
    cr_assert_eq(qdrt_module_load_memory(dev, code, clen, json, &m), QDRT_OK, "%s", qdrt_error());
    int64_t n = 3, nb = 256;
    qdrt_array *d, *b;
    int32_t data[3] = {5, 5, 261}, bins[256];
    cr_assert_eq(qdrt_array_new(dev, QDRT_I32, 1, &n, &d), QDRT_OK);
    cr_assert_eq(qdrt_array_new(dev, QDRT_I32, 1, &nb, &b), QDRT_OK);
    cr_assert_eq(qdrt_array_write(d, data, sizeof data), QDRT_OK);
    qdrt_value args[2] = {qdrt_arr(d), qdrt_arr(b)};
    cr_assert_eq(qdrt_launch_kernel(m, "histogram", args, 2, NULL, 0), QDRT_OK, "%s", qdrt_error());
    cr_assert_eq(qdrt_array_read(b, bins, sizeof bins), QDRT_OK);
    cr_assert(bins[5] == 3 && bins[4] == 0 && bins[6] == 0);
    json[20] = 0; /* cut the document short */
    cr_assert_eq(qdrt_module_load_memory(dev, code, clen, json, &m), QDRT_E_MODULE);
    cr_assert_str_eq(qdrt_error(), "metadata: not a JSON document (byte 20)");
    cr_assert_eq(qdrt_module_load_memory(dev, "junk", 4, "{\"qdc_abi\": 2}", &m), QDRT_E_MODULE);
    cr_assert_str_eq(qdrt_error(), "metadata: qdc_abi 2; this libqdrt reads version 1");
    qdrt_device_close(dev);
    remove_tree(dir);
    free(dir), free(o), free(meta), free(code), free(json);
}

/* ---- the atomics matrix through the API ---- */

static void write_bytes(const char *path, const void *p, size_t n);
static void read_bytes(const char *path, void *p, size_t n);

/* The fails of a cell's kernels by the sequential-history check; the first one's reason in why. */
static int matrix_fails(const XFile *f, const XData *d, char *why, size_t whylen) {
    int fails = 0;
    char one[512];
    for (int k = 0; k < f->nkernels; k++)
        if (!xcheck(f, d, k, one, sizeof one) && !fails++) snprintf(why, whylen, "%s", one);
    return fails;
}

static const char *const matrix_arrays[4] = {"v", "w", "tgt", "old"};

/* The cell's kernels again, each through its typed launcher <kernel>_run(dev, n, v, w, tgt, old)
 * from the header of family, in a host program built here: it reads the four arrays from files,
 * runs every kernel in order and writes them back. */
static void matrix_cell_typed(qdrt_device *dev, const XFile *f, const char *dir, const char *qd, const char *mod, const char *family,
                              const char *const *caps) {
    char *hdr = xasprintf("%s/x.h", dir), *t = xasprintf("--target=%s", family), *host = xasprintf("%s/xhost.c", dir),
         *exe = xasprintf("%s/xhost", dir), *rtinc = xasprintf("-I%s/runtime", qdc_root()), *inc = xasprintf("-I%s", dir);
    const char *ha[12] = {t, "--emit=header", qd, "-o", hdr};
    for (int i = 0; caps[i]; i++) ha[5 + i] = caps[i];
    RunResult h = run_qdc_argv(ha, NULL, NULL);
    cr_assert_eq(h.status, 0, "%s", h.err);
    run_free(&h);
    static const char *const en[XD_COUNT] = {"QDRT_I32", "QDRT_U32", "QDRT_I64", "QDRT_U64", "QDRT_F32", "QDRT_F64"};
    size_t cap = 16384, len = 0;
    char *s = xmalloc(cap);
    len += (size_t)snprintf(s + len, cap - len,
                            "#include \"qdrt_device.h\"\n#include \"x.h\"\n#include <stdio.h>\n#include <stdlib.h>\n\n"
                            "static void *buf[4];\nstatic size_t bytes[4];\nstatic qdrt_array *arr[4];\n"
                            "static const char *const names[4] = {\"v\", \"w\", \"tgt\", \"old\"};\n\n"
                            "static int file(const char *dir, int i, const char *ext, const char *mode) {\n"
                            "    char p[4096];\n    snprintf(p, sizeof p, \"%%s/%%s.%%s\", dir, names[i], ext);\n"
                            "    FILE *f = fopen(p, mode);\n    if (!f) return 1;\n"
                            "    if (*mode == 'r') {\n        fseek(f, 0, SEEK_END);\n        bytes[i] = (size_t)ftell(f);\n        rewind(f);\n"
                            "        buf[i] = malloc(bytes[i]);\n    }\n"
                            "    size_t got = *mode == 'r' ? fread(buf[i], 1, bytes[i], f) : fwrite(buf[i], 1, bytes[i], f);\n"
                            "    return fclose(f) | (got != bytes[i]);\n}\n\n"
                            "int main(int argc, char **argv) {\n    qdrt_device_kind kind;\n    qdrt_device *dev = NULL;\n    qdrt_module *mod;\n"
                            "    if (argc != 5 || qdrt_device_kind_parse(argv[1], &kind) || qdrt_device_open(kind, &dev) ||\n"
                            "        qdrt_module_load(dev, argv[2], NULL, &mod))\n"
                            "        return fprintf(stderr, \"xhost: %%s\\n\", qdrt_error()), 1;\n"
                            "    int32_t n = (int32_t)atoi(argv[4]);\n"
                            "    for (int i = 0; i < 4; i++) {\n"
                            "        if (file(argv[3], i, \"in\", \"rb\")) return fprintf(stderr, \"xhost: %%s.in unreadable\\n\", names[i]), 1;\n"
                            "        int64_t count = (int64_t)(bytes[i] / %d);\n"
                            "        if (qdrt_array_new(dev, %s, 1, &count, &arr[i]) || qdrt_array_write(arr[i], buf[i], bytes[i]))\n"
                            "            return fprintf(stderr, \"xhost: %%s: %%s\\n\", names[i], qdrt_error()), 1;\n    }\n",
                            xdtype_size(f->dt), en[f->dt]);
    for (int k = 0; k < f->nkernels; k++) {
        char *name = xkernel_name(f, k);
        len += (size_t)snprintf(s + len, cap - len,
                                "    if (%s_run(dev, n, arr[0], arr[1], arr[2], arr[3]))\n"
                                "        return fprintf(stderr, \"xhost: %%s\\n\", qdrt_error()), 1;\n",
                                name);
        free(name);
        cr_assert_lt(len, cap - 512);
    }
    snprintf(s + len, cap - len,
             "    for (int i = 0; i < 4; i++)\n"
             "        if (qdrt_array_read(arr[i], buf[i], bytes[i]) || file(argv[3], i, \"out\", \"wb\"))\n"
             "            return fprintf(stderr, \"xhost: %%s: %%s\\n\", names[i], qdrt_error()), 1;\n"
             "    qdrt_device_close(dev);\n    return 0;\n}\n");
    write_text(host, s);
    bool asan = getenv("QDC_ASAN") && !strcmp(getenv("QDC_ASAN"), "1");
    const char *cc[] = {"cc", "-std=c17", "-Wall", "-Wextra", "-Werror", "-O1", asan ? "-fsanitize=address,undefined" : "-DQDRT_PLAIN",
                        rtinc, inc, host, getenv("QDC_RT"), "-lpthread", "-lm", "-rdynamic", "-o", exe, NULL};
    RunResult b = run_argv(cc, NULL, NULL);
    cr_assert_eq(b.status, 0, "building the matrix host:\n%s", b.err);
    run_free(&b);
    int n = f->space == XS_SHARED ? 1024 : 1000;
    XData d;
    xdata_init(&d, f, n, 777u);
    void *host_arr[4] = {d.v, d.w, d.tgt, d.old};
    size_t nbytes[4] = {xdata_bytes(&d, 'v'), xdata_bytes(&d, 'v'), xdata_bytes(&d, 't'), xdata_bytes(&d, 'o')};
    for (int i = 0; i < 4; i++) {
        char *p = xasprintf("%s/%s.in", dir, matrix_arrays[i]);
        write_bytes(p, host_arr[i], nbytes[i]);
        free(p);
    }
    char ns[16];
    snprintf(ns, sizeof ns, "%d", n);
    const char *argv[] = {exe, qdrt_device_kind_of(dev) == QDRT_DEVICE_VULKAN ? "vulkan" : "cpu", mod, dir, ns, NULL};
    RunResult r = vk_spawn(argv);
    cr_assert_eq(r.status, 0, "xhost %s: %s", family, r.err);
    run_free(&r);
    for (int i = 0; i < 4; i++) {
        char *p = xasprintf("%s/%s.out", dir, matrix_arrays[i]);
        read_bytes(p, host_arr[i], nbytes[i]);
        free(p);
    }
    char why[512];
    int fails = matrix_fails(f, &d, why, sizeof why);
    cr_expect_eq(fails, 0, "%s %s %s through the typed launchers: %d kernels fail, the first: %s", family, xdtype_name[f->dt],
                 xspace_name[f->space], fails, why);
    xdata_free(&d);
    free(hdr), free(t), free(host), free(exe), free(rtinc), free(inc), free(s);
}

/* The cell's kernels once more, each by its own qdrun run (one process per kernel), the arrays
 * carried from one to the next in .npy files (NAME=@FILE.npy). */
static void matrix_cell_qdrun(qdrt_device *dev, const XFile *f, const char *dir, const char *mod) {
    static const char *const descr[XD_COUNT] = {"<i4", "<u4", "<i8", "<u8", "<f4", "<f8"};
    int n = f->space == XS_SHARED ? 1024 : 1000;
    XData d;
    xdata_init(&d, f, n, 777u);
    void *host_arr[4] = {d.v, d.w, d.tgt, d.old};
    size_t nbytes[4] = {xdata_bytes(&d, 'v'), xdata_bytes(&d, 'v'), xdata_bytes(&d, 't'), xdata_bytes(&d, 'o')};
    char *files[4], *args[4];
    for (int i = 0; i < 4; i++) {
        files[i] = xasprintf("%s/%s.npy", dir, matrix_arrays[i]);
        args[i] = xasprintf("%s=@%s", matrix_arrays[i], files[i]);
        write_npy(files[i], descr[f->dt], nbytes[i] / (size_t)d.esize, host_arr[i], nbytes[i]);
    }
    char *nv = xasprintf("n=%d", n);
    const char *device = qdrt_device_kind_of(dev) == QDRT_DEVICE_VULKAN ? "--device=vulkan" : "--device=cpu";
    for (int k = 0; k < f->nkernels; k++) {
        char *name = xkernel_name(f, k);
        const char *a[] = {mod, name, device, nv, args[0], args[1], args[2], args[3], NULL};
        RunResult r = qdrun(a);
        cr_assert_eq(r.status, 0, "qdrun %s %s: %s", name, device, r.err);
        run_free(&r);
        free(name);
    }
    for (int i = 0; i < 4; i++) read_npy(files[i], descr[f->dt], nbytes[i] / (size_t)d.esize, host_arr[i], nbytes[i]);
    char why[512];
    int fails = matrix_fails(f, &d, why, sizeof why);
    cr_expect_eq(fails, 0, "%s %s %s through qdrun: %d kernels fail, the first: %s", device, xdtype_name[f->dt], xspace_name[f->space],
                 fails, why);
    for (int i = 0; i < 4; i++) free(files[i]), free(args[i]);
    free(nv);
    xdata_free(&d);
}

/* Every kernel of one (dtype, space) cell of the atomics matrix (exec_spec.h) launched through
 * qdrt_launch_kernel, each judged by the exact sequential-history check; then through the
 * typed launchers of the cell's header and (i32 and f64 cells) through qdrun. */
static void matrix_cell(qdrt_device *dev, int dt, int space, const char *family, const char *ext, const char *const *caps) {
    XFile f;
    xfile_init(&f, dt, space);
    char *dir = make_temp_dir(), *qd = xasprintf("%s/x.qd", dir), *text = xfile_source(&f), *mod = xasprintf("%s/x.%s", dir, ext),
         *meta = xasprintf("%s/x.json", dir), *t = xasprintf("--target=%s", family);
    cr_assert(write_text(qd, text));
    const char *a1[12] = {t, qd, "-o", mod}, *a2[12] = {t, "--emit=metadata", qd, "-o", meta};
    for (int i = 0; caps[i]; i++) a1[4 + i] = a2[5 + i] = caps[i];
    RunResult r = run_qdc_argv(a1, NULL, NULL), m = run_qdc_argv(a2, NULL, NULL);
    cr_assert(r.status == 0 && m.status == 0, "%s%s", r.err, m.err);
    run_free(&r), run_free(&m);
    qdrt_module *mm;
    cr_assert_eq(qdrt_module_load(dev, mod, NULL, &mm), QDRT_OK, "%s", qdrt_error());
    char why[512];
    int fails = exec_qdrt_matrix(mm, &f, space == XS_SHARED ? 1024 : 1000, 777u, why, sizeof why);
    cr_assert_geq(fails, 0, "%s on %s %s %s: %s", family, qdrt_device_name(dev), xdtype_name[dt], xspace_name[space], why);
    cr_expect_eq(fails, 0, "%s on %s %s %s: %d kernels fail, the first: %s", family, qdrt_device_name(dev), xdtype_name[dt],
                 xspace_name[space], fails, why);
    qdrt_module_free(mm);
    matrix_cell_typed(dev, &f, dir, qd, mod, family, caps);
    if (dt == XD_I32 || dt == XD_F64) /* one process per kernel: the integer and the float cells of each space */
        matrix_cell_qdrun(dev, &f, dir, mod);
    remove_tree(dir);
    free(dir), free(qd), free(text), free(mod), free(meta), free(t);
}

static void matrix_everywhere(qdrt_device_kind kind, const char *family, const char *ext, const char *const *caps) {
    qdrt_device *dev = open_dev(kind);
    if (!dev) return;
    bool asan = getenv("QDC_ASAN") && !strcmp(getenv("QDC_ASAN"), "1");
    for (int dt = 0; dt < XD_COUNT; dt++) /* under sanitizers (slow compiles) i32 and f64 only: the plain suite runs every cell */
        for (int sp = 0; sp < XS_COUNT && (!asan || dt == XD_I32 || dt == XD_F64); sp++) matrix_cell(dev, dt, sp, family, ext, caps);
    qdrt_device_close(dev);
}

Test(qdrt, atomics_matrix_api_vulkan, .timeout = 600) {
    const char *caps[] = {"--cap=+int64-atomics", "--cap=+float-atomic-add", "--cap=+float-atomic-min-max", NULL};
    matrix_everywhere(QDRT_DEVICE_VULKAN, "vulkan1.3", "spv", caps);
}
Test(qdrt, atomics_matrix_api_cpu, .timeout = 600) {
    const char *caps[] = {NULL};
    matrix_everywhere(QDRT_DEVICE_CPU, "x86_64", "o", caps);
}

/* ---- out of memory ---- */

/* An array larger than the process may map is QDRT_E_MEMORY with its size, on the CPU and on
 * lavapipe (whose memory is the process's too), and the device keeps working. The address space
 * is limited with RLIMIT_AS in this test's own process; under ASan (whose shadow memory needs
 * terabytes of address space) the limit cannot be set, and the test says so. */
Test(qdrt, out_of_memory) {
    if (getenv("QDC_ASAN") && !strcmp(getenv("QDC_ASAN"), "1")) {
        cr_log_info("qdrt/out_of_memory: not run under ASan (RLIMIT_AS)");
        return;
    }
    const qdrt_device_kind kinds[] = {QDRT_DEVICE_CPU, QDRT_DEVICE_VULKAN};
    for (int k = 0; k < 2; k++) {
        qdrt_device *dev = open_dev(kinds[k]);
        if (!dev) continue;
        struct rlimit old, lim;
        cr_assert_eq(getrlimit(RLIMIT_AS, &old), 0);
        lim = old;
        lim.rlim_cur = (rlim_t)12 << 30; /* 12 GiB: the arrays below need 16 */
        cr_assert_eq(setrlimit(RLIMIT_AS, &lim), 0);
        int64_t shape[2] = {1 << 30, 4};
        qdrt_array *a = (qdrt_array *)1, *small;
        qdrt_status st = qdrt_array_new(dev, QDRT_I32, 2, shape, &a);
        setrlimit(RLIMIT_AS, &old);
        cr_expect_eq(st, QDRT_E_MEMORY, "%s: %s", qdrt_device_name(dev), qdrt_error());
        cr_expect_null(a);
        if (k == 0) cr_expect_str_eq(qdrt_error(), "out of memory for a 17179869184-byte array");
        else cr_expect(strstr(qdrt_error(), "Vulkan: vk") && strstr(qdrt_error(), "failed (VkResult -"), "%s", qdrt_error());
        int64_t one = 1;
        int32_t v = 5;
        cr_assert_eq(qdrt_array_new(dev, QDRT_I32, 1, &one, &small), QDRT_OK, "%s", qdrt_error());
        cr_assert_eq(qdrt_array_write(small, &v, 4), QDRT_OK);
        v = 0;
        cr_assert_eq(qdrt_array_read(small, &v, 4), QDRT_OK);
        cr_expect_eq(v, 5);
        qdrt_device_close(dev);
    }
}

/* ---- 16-bit float scalars ---- */

/* An f16 scalar argument (given as a double, rounded to nearest even into binary16; widened to
 * f32 in Vulkan's push constants) scales an f16 ndarray on the CPU and on lavapipe with exact
 * results, 0.1 (not exact in binary16) included; qdrun takes it from the command line. */
Test(qdrt, f16_scalar) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/h.qd", dir);
    write_text(src, "import quadrants as qd\n\n@qd.kernel\ndef scale(a: qd.types.ndarray(dtype=qd.f16, ndim=1), s: qd.f16):\n"
                    "    for i in range(a.shape[0]):\n        a[i] = a[i] * s\n");
    enum { N = 300 };
    _Float16 in[N], out[N];
    for (int i = 0; i < N; i++) in[i] = (_Float16)((i - 150) * 0.25f);
    const double scales[] = {2.5, 0.1, -65504.0 / 4096};
    const char *const (*fam)[3] = both;
    for (int f = 0; f < 2; f++) {
        char *mod = compile_file(dir, src, "h", fam[f][0], fam[f][1]);
        RunResult r;
        qdrt_device *dev = open_dev(f ? QDRT_DEVICE_VULKAN : QDRT_DEVICE_CPU);
        if (dev) {
            qdrt_module *mm;
            qdrt_array *arr;
            int64_t n = N;
            cr_assert_eq(qdrt_module_load(dev, mod, NULL, &mm), QDRT_OK, "%s", qdrt_error());
            cr_assert_eq(qdrt_array_new(dev, QDRT_F16, 1, &n, &arr), QDRT_OK);
            for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++) {
                cr_assert_eq(qdrt_array_write(arr, in, sizeof in), QDRT_OK);
                qdrt_value args[2] = {qdrt_arr(arr), qdrt_f64(scales[k])};
                cr_assert_eq(qdrt_launch_kernel(mm, "scale", args, 2, NULL, 0), QDRT_OK, "%s", qdrt_error());
                cr_assert_eq(qdrt_array_read(arr, out, sizeof out), QDRT_OK);
                _Float16 s = (_Float16)scales[k];
                for (int i = 0; i < N; i++) {
                    _Float16 want = (_Float16)((float)in[i] * (float)s);
                    cr_expect(!memcmp(&out[i], &want, 2), "%s: %g * %g = %g, want %g", fam[f][2], (double)in[i], scales[k], (double)out[i],
                              (double)want);
                }
            }
            qdrt_device_close(dev);
            char *dv = xasprintf("--device=%s", fam[f][2]), *npy = xasprintf("%s/a.npy", dir), *a_npy = xasprintf("a=@%s", npy);
            write_npy(npy, "<f2", N, in, sizeof in);
            r = qdrun((const char *[]){mod, "scale", dv, a_npy, "s=0.1", NULL});
            cr_expect_eq(r.status, 0, "%s", r.err);
            read_npy(npy, "<f2", N, out, sizeof out);
            for (int i = 0; i < N; i++) {
                _Float16 want = (_Float16)((float)in[i] * (float)(_Float16)0.1);
                cr_expect(!memcmp(&out[i], &want, 2), "qdrun %s: element %d", fam[f][2], i);
            }
            run_free(&r);
            free(dv), free(npy), free(a_npy);
        }
        free(mod);
    }
    remove_tree(dir);
    free(dir), free(src);
}

/* ---- struct return values ---- */

/* A kernel returning a nested dataclass fills the header's C struct k_ret (padding as the C
 * compiler lays it out: qdc-abi(7)) on the CPU and on lavapipe; qdrun prints it member by member. */
typedef struct k_ret {
    double x;
    struct {
        float a[3];
        int16_t b;
    } inner;
    int8_t c;
} k_ret;

Test(qdrt, struct_return) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/s.qd", dir), *npy = xasprintf("%s/a.npy", dir), *a_npy = xasprintf("a=%s", npy);
    write_text(src, "import quadrants as qd\n\n@qd.dataclass\nclass Inner:\n    a: qd.types.vector(3, qd.f32)\n    b: qd.i16\n\n"
                    "@qd.dataclass\nclass R:\n    x: qd.f64\n    inner: Inner\n    c: qd.i8\n\n"
                    "@qd.kernel\ndef k(a: qd.types.ndarray(dtype=qd.i32, ndim=1)) -> R:\n    s = 0\n    for i in range(a.shape[0]):\n"
                    "        s += a[i]\n    r = R(x=1.5, inner=Inner(a=qd.Vector([1.0, 2.0, 3.0]), b=-7), c=3)\n    r.x = s * 0.5\n    return r\n");
    int32_t a[100];
    for (int i = 0; i < 100; i++) a[i] = i;
    write_npy(npy, "<i4", 100, a, sizeof a);
    const char *const (*fam)[3] = both;
    for (int f = 0; f < 2; f++) {
        char *mod = compile_file(dir, src, "s", fam[f][0], fam[f][1]);
        RunResult r;
        qdrt_device *dev = open_dev(f ? QDRT_DEVICE_VULKAN : QDRT_DEVICE_CPU);
        if (dev) {
            qdrt_module *mm;
            qdrt_array *arr;
            int64_t n = 100;
            cr_assert_eq(qdrt_module_load(dev, mod, NULL, &mm), QDRT_OK, "%s", qdrt_error());
            cr_assert_eq(qdrt_kernel_ret_bytes(mm, "k", NULL), sizeof(k_ret));
            cr_assert_eq(qdrt_kernel_ret_members(mm, "k"), 4);
            const char *name;
            qdrt_dtype dt;
            int count;
            size_t off;
            cr_assert_eq(qdrt_kernel_ret_member(mm, "k", 2, &name, &dt, &count, &off), QDRT_OK);
            cr_expect(!strcmp(name, "inner.b") && dt == QDRT_I16 && count == 1 && off == offsetof(k_ret, inner.b), "%s %d %zu", name, count, off);
            cr_assert_eq(qdrt_array_new(dev, QDRT_I32, 1, &n, &arr), QDRT_OK);
            cr_assert_eq(qdrt_array_write(arr, a, sizeof a), QDRT_OK);
            k_ret ret;
            memset(&ret, 0x55, sizeof ret);
            qdrt_value args[1] = {qdrt_arr(arr)};
            cr_assert_eq(qdrt_launch_kernel(mm, "k", args, 1, &ret, sizeof ret), QDRT_OK, "%s", qdrt_error());
            cr_expect(ret.x == 2475.0 && ret.inner.a[0] == 1.0f && ret.inner.a[1] == 2.0f && ret.inner.a[2] == 3.0f && ret.inner.b == -7 &&
                          ret.c == 3,
                      "%s: %g %g %g %g %d %d", fam[f][2], ret.x, ret.inner.a[0], ret.inner.a[1], ret.inner.a[2], ret.inner.b, ret.c);
            cr_assert_eq(qdrt_launch_kernel(mm, "k", args, 1, &ret, sizeof ret - 1), QDRT_E_ARGUMENT);
            char *want = xasprintf("kernel k returns %zu bytes; ret has %zu", sizeof ret, sizeof ret - 1);
            cr_expect_str_eq(qdrt_error(), want);
            free(want);
            qdrt_device_close(dev);
            char *dv = xasprintf("--device=%s", fam[f][2]);
            r = qdrun((const char *[]){mod, "k", dv, a_npy, NULL});
            cr_expect_eq(r.status, 0, "%s", r.err);
            cr_expect_str_eq(r.out, "k returned x=2475 inner.a=1 2 3 inner.b=-7 c=3\n");
            run_free(&r);
            free(dv);
        }
        free(mod);
    }
    remove_tree(dir);
    free(dir), free(src), free(npy), free(a_npy);
}

/* ---- fields in SNode storages ---- */

/* Fields placed together and in blocked layouts (qdc-abi(7)'s example: w, x in 2x2 blocks of 2x2
 * cells, y) are written and read whole through qdrt_field_write/read on the CPU (element by
 * element through their levels) and used by kernels on the CPU and on lavapipe, where one
 * buffer per storage is bound to all its fields' bindings; the SPIR-V metadata has no levels,
 * so reading such a field there is refused, saying why. */
Test(qdrt, snode_fields) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/sn.qd", dir);
    write_text(src, "import quadrants as qd\n\nw = qd.field(qd.i32)\nx = qd.field(qd.i32)\ny = qd.field(qd.i32)\nc = qd.field(qd.f64)\n"
                    "e = qd.field(qd.i16)\nblk = qd.root.dense(qd.ij, 4)\nblk.place(w)\nblk.dense(qd.ij, 2).dense(qd.ij, 2).place(x)\n"
                    "blk.dense(qd.i, 4).place(y)\nqd.root.dense(qd.i, 6).place(c, e)\n\n"
                    "@qd.kernel\ndef k(out: qd.types.ndarray(dtype=qd.i32, ndim=2)):\n    for i, j in x:\n"
                    "        x[i, j] = x[i, j] * 2 + i * 100 + j\n        out[i, j] = x[i, j]\n    for i, j in y:\n        y[i, j] = y[i, j] + 1\n"
                    "    for i in c:\n        c[i] = c[i] + 0.5\n        e[i] = e[i] - 1\n");
    const char *const (*fam)[3] = both;
    for (int f = 0; f < 2; f++) {
        char *mod = compile_file(dir, src, "sn", fam[f][0], fam[f][1]);
        qdrt_device *dev = open_dev(f ? QDRT_DEVICE_VULKAN : QDRT_DEVICE_CPU);
        if (!dev) continue;
        qdrt_module *mm;
        cr_assert_eq(qdrt_module_load(dev, mod, NULL, &mm), QDRT_OK, "%s", qdrt_error());
        static int32_t x[16][16], y[16][4], out[16][16];
        double c[6];
        int16_t e[6];
        int64_t shape[2] = {16, 16};
        qdrt_array *o;
        cr_assert_eq(qdrt_array_new(dev, QDRT_I32, 2, shape, &o), QDRT_OK);
        qdrt_value args[1] = {qdrt_arr(o)};
        if (!f) {
            for (int i = 0; i < 16; i++)
                for (int j = 0; j < 16; j++) x[i][j] = i * 16 + j, y[i][j % 4] = -i;
            for (int i = 0; i < 6; i++) c[i] = i, e[i] = (int16_t)(i * 10);
            cr_assert_eq(qdrt_field_write(mm, "x", x, sizeof x), QDRT_OK, "%s", qdrt_error());
            cr_assert_eq(qdrt_field_write(mm, "y", y, sizeof y), QDRT_OK, "%s", qdrt_error());
            cr_assert_eq(qdrt_field_write(mm, "c", c, sizeof c), QDRT_OK, "%s", qdrt_error());
            cr_assert_eq(qdrt_field_write(mm, "e", e, sizeof e), QDRT_OK, "%s", qdrt_error());
        }
        cr_assert_eq(qdrt_launch_kernel(mm, "k", args, 1, NULL, 0), QDRT_OK, "%s", qdrt_error());
        cr_assert_eq(qdrt_array_read(o, out, sizeof out), QDRT_OK);
        for (int i = 0; i < 16; i++)
            for (int j = 0; j < 16; j++) {
                int32_t want = (f ? 0 : (i * 16 + j) * 2) + i * 100 + j;
                cr_expect_eq(out[i][j], want, "%s: out[%d][%d] = %d, want %d", fam[f][2], i, j, out[i][j], want);
            }
        if (!f) {
            cr_assert_eq(qdrt_field_read(mm, "x", x, sizeof x), QDRT_OK, "%s", qdrt_error());
            cr_assert_eq(qdrt_field_read(mm, "y", y, sizeof y), QDRT_OK, "%s", qdrt_error());
            cr_assert_eq(qdrt_field_read(mm, "c", c, sizeof c), QDRT_OK, "%s", qdrt_error());
            cr_assert_eq(qdrt_field_read(mm, "e", e, sizeof e), QDRT_OK, "%s", qdrt_error());
            for (int i = 0; i < 16; i++)
                for (int j = 0; j < 16; j++) {
                    cr_expect_eq(x[i][j], out[i][j], "x[%d][%d]", i, j);
                    if (j < 4) cr_expect_eq(y[i][j], 1 - i, "y[%d][%d] = %d", i, j, y[i][j]);
                }
            for (int i = 0; i < 6; i++) cr_expect(c[i] == i + 0.5 && e[i] == i * 10 - 1, "c[%d] = %g, e[%d] = %d", i, c[i], i, e[i]);
        } else {
            cr_assert_eq(qdrt_field_read(mm, "x", x, sizeof x), QDRT_E_UNSUPPORTED);
            cr_expect_str_eq(qdrt_error(), "field x is in SNode storage qd_snode_w, whose layout (levels) vulkan1.2's metadata does not give");
        }
        qdrt_device_close(dev);
        free(mod);
    }
    remove_tree(dir);
    free(dir), free(src);
}

/* ---- the CUDA and HIP devices without a GPU ---- */

/* libqdrt's CUDA and HIP devices run here against testdata/qdrt/fake_gpu.c, a stand-in for
 * libcuda.so.1 and libamdhip64.so that runs no kernel but logs what the device asks of the
 * driver: qdrun on an sm_70 and a gfx942 module loads the image, finds every task's entry
 * point, allocates and copies the arrays, and launches each task in order with qdc-abi(7)'s
 * flattened parameters (an ndarray's pointer then its extent, a scalar by value, in the PTX
 * entry's own .param sizes) on ceil(items / block_dim) blocks; the bins come back unchanged.
 * `make gpu-check` runs the same path on an NVIDIA GPU with results checked. */
Test(qdrt, cuda_hip_without_a_gpu) {
    char *dir = make_temp_dir(), *stub = root_path("testdata/qdrt/fake_gpu.c"), *cuda = xasprintf("%s/libcuda.so.1", dir),
         *hip = xasprintf("%s/libamdhip64.so", dir), *log = xasprintf("%s/log", dir);
    RunResult b = run_argv((const char *[]){"cc", "-std=c17", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE", "-shared", "-fPIC", "-o", cuda, stub, NULL},
                           NULL, NULL);
    cr_assert_eq(b.status, 0, "%s", b.err);
    run_free(&b);
    b = run_argv((const char *[]){"cp", cuda, hip, NULL}, NULL, NULL);
    cr_assert_eq(b.status, 0);
    run_free(&b);
    char *ptx = compile(dir, "histogram", "sm_70", "ptx"), *hsaco = compile(dir, "histogram", "gfx942", "hsaco"),
         *cptx = compile(dir, "compaction", "sm_70", "ptx");
    char *data = xasprintf("%s/data.npy", dir), *bins = xasprintf("%s/bins.npy", dir), *a_data = xasprintf("data=%s", data),
         *a_bins = xasprintf("bins=@%s", bins);
    int32_t d[1000], bn[256];
    for (int i = 0; i < 1000; i++) d[i] = i;
    for (int i = 0; i < 256; i++) bn[i] = 7;
    write_npy(data, "<i4", 1000, d, sizeof d);
    write_npy(bins, "<i4", 256, bn, sizeof bn);
    char *ld = xasprintf("LD_LIBRARY_PATH=%s", dir), *fl = xasprintf("FAKE_GPU_LOG=%s", log);
    static const char *const want[2] = {
        "load ptx\nalloc 4000\nalloc 1024\n"
        "launch histogram_t0 grid=8,1,1 block=128,1,1 shared=0 (buf0,1000,buf1,256)\n"
        "launch histogram_t1 grid=8,1,1 block=128,1,1 shared=0 (buf0,1000,buf1,256)\n",
        "load elf\nalloc 4000\nalloc 1024\n"
        "launch histogram_t0 grid=4,1,1 block=256,1,1 shared=0 ()\nlaunch histogram_t1 grid=4,1,1 block=256,1,1 shared=0 ()\n"};
    for (int g = 0; g < 2; g++) {
        remove(log);
        RunResult r = run_argv((const char *[]){"env", ld, fl, qdrun_bin(), g ? hsaco : ptx, "histogram", g ? "--device=hip" : "--device=cuda",
                                                a_data, a_bins, NULL}, NULL, NULL);
        cr_expect_eq(r.status, 0, "%s", r.err);
        char *got = read_text(log, NULL);
        cr_expect_str_eq(got ? got : "", want[g]);
        free(got);
        run_free(&r);
        int32_t back[256];
        read_npy(bins, "<i4", 256, back, sizeof back);
        cr_expect(!memcmp(back, bn, sizeof bn), "the bins changed");
    }
    /* a field (the module's global, found by its symbol) and a scalar by value where the PTX entry
     * declares it (compaction's count and threshold) */
    char *cn = xasprintf("%s/n.npy", dir), *a_src = xasprintf("src=%s", data), *a_val = xasprintf("dst_val=@%s", data),
         *a_idx = xasprintf("dst_idx=@%s", data), *a_n = xasprintf("n_out=@%s", cn);
    write_npy(cn, "<i4", 1, d, 4);
    remove(log);
    RunResult r = run_argv((const char *[]){"env", ld, fl, qdrun_bin(), cptx, "compact", a_src, a_val, a_idx, a_n, "threshold=-5", NULL},
                           NULL, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    char *got = read_text(log, NULL);
    cr_expect_str_eq(got ? got : "", "load ptx\nglobal qd_field_count 4\nalloc 4000\nalloc 4000\nalloc 4000\nalloc 4\n"
                                     "launch compact_t0 grid=8,1,1 block=128,1,1 shared=0 (buf1,1000,buf2,1000,buf3,1000,buf4,1,-5)\n"
                                     "launch compact_t1 grid=8,1,1 block=128,1,1 shared=0 (buf1,1000,buf2,1000,buf3,1000,buf4,1,-5)\n"
                                     "launch compact_t2 grid=8,1,1 block=128,1,1 shared=0 (buf1,1000,buf2,1000,buf3,1000,buf4,1,-5)\n");
    free(got);
    run_free(&r);
    free(cn), free(a_src), free(a_val), free(a_idx), free(a_n);
    remove_tree(dir);
    free(dir), free(stub), free(cuda), free(hip), free(log), free(ptx), free(hsaco), free(cptx), free(data), free(bins), free(a_data),
        free(a_bins), free(ld), free(fl);
}

/* ---- typed launchers: vectors, matrices, f16/bf16 scalars, struct returns ---- */

/* A host program calls mix_run(dev, a, v, m, h, &ret) from the Vulkan header: a vector as
 * const float v[3], a 2x2 matrix as const int32_t m[2][2], an f16 scalar as a float (0.1, rounded
 * to nearest even), a dataclass returned into the header's mix_ret; on the CPU also
 * bscale_run(dev, b, g) with a bf16 scalar given as float 0.1. The CPU and lavapipe print exactly
 * what the kernels compute (all sums exact in f32). */
static const char mix_src[] =
    "import dataclasses\nimport quadrants as qd\n\n@qd.dataclass\nclass R:\n    total: qd.f32\n    pair: qd.types.vector(2, qd.i32)\n    h: qd.f16\n\n"
    "@qd.kernel\ndef mix(a: qd.types.ndarray(dtype=qd.f32, ndim=1), v: qd.types.vector(3, qd.f32), m: qd.types.matrix(2, 2, qd.i32),\n"
    "        h: qd.f16) -> R:\n    s = 0.0\n    for i in range(a.shape[0]):\n        a[i] = a[i] * v[i % 3] + m[i % 2, 1] + h\n"
    "        s += a[i]\n    return R(total=s, pair=qd.Vector([m[0, 0], m[1, 0]]), h=h * 2)\n\n"
    "@qd.dataclass\nclass P:\n    pos: qd.types.vector(3, qd.f32)\n    w: qd.f32\n\n"
    "@dataclasses.dataclass\nclass S:\n    a: qd.types.ndarray(dtype=qd.f32, ndim=1)\n    q: qd.types.matrix(2, 3, qd.i32)\n\n"
    "@qd.kernel\ndef place(out: qd.types.ndarray(dtype=qd.f32, ndim=1), p: P, s: S, u: qd.types.vector(1, qd.i32)):\n"
    "    for i in range(out.shape[0]):\n        out[i] = p.pos[i % 3] * p.w + s.q[i % 2, i % 3] + u[0]\n        s.a[i] = p.w\n";
static const char bscale_src[] = "import quadrants as qd\n\n@qd.kernel\ndef bscale(b: qd.types.ndarray(dtype=qd.bf16, ndim=1), g: qd.bf16):\n"
                                 "    for i in range(b.shape[0]):\n        b[i] = b[i] * g\n";
static const char mix_host[] =
    "#include \"qdrt_device.h\"\n#include \"mix.h\"\n#include \"bscale.h\"\n#include <stdio.h>\n#include <string.h>\n\n"
    "int main(int argc, char **argv) {\n"
    "    float a[10];\n    int64_t n = 10, nb = 4;\n    for (int i = 0; i < 10; i++) a[i] = (float)i;\n"
    "    const float v[3] = {0.5f, 2.0f, -1.0f};\n    const int32_t m[2][2] = {{1, 2}, {3, 4}};\n"
    "    uint16_t b[4] = {0x3f80, 0x4000, 0x4080, 0xc100}; /* bf16 1, 2, 4, -8 */\n"
    "    const float pos[3] = {1, 2, 3};\n    const int32_t q[2][3] = {{1, 2, 3}, {4, 5, 6}}, u[1] = {10};\n    float out[6], sa[6];\n"
    "    int64_t n6 = 6;\n"
    "    qdrt_device_kind kind;\n    qdrt_device *dev = NULL;\n    qdrt_module *mod;\n    qdrt_array *d, *bb, *o6, *a6;\n    mix_ret r;\n"
    "    memset(&r, 0x55, sizeof r);\n"
    "    if (argc < 3 || qdrt_device_kind_parse(argv[1], &kind) || qdrt_device_open(kind, &dev) ||\n"
    "        qdrt_module_load(dev, argv[2], NULL, &mod) || qdrt_array_new(dev, QDRT_F32, 1, &n, &d) ||\n"
    "        qdrt_array_write(d, a, sizeof a) || mix_run(dev, d, v, m, 0.1f, &r) || qdrt_array_read(d, a, sizeof a) ||\n"
    "        qdrt_array_new(dev, QDRT_F32, 1, &n6, &o6) || qdrt_array_new(dev, QDRT_F32, 1, &n6, &a6) ||\n"
    "        place_run(dev, o6, pos, 0.5f, a6, q, u) || qdrt_array_read(o6, out, sizeof out) || qdrt_array_read(a6, sa, sizeof sa) ||\n"
    "        (argc > 3 && (qdrt_module_load(dev, argv[3], NULL, &mod) || qdrt_array_new(dev, QDRT_BF16, 1, &nb, &bb) ||\n"
    "                      qdrt_array_write(bb, b, sizeof b) || bscale_run(dev, bb, 0.1f) || qdrt_array_read(bb, b, sizeof b))))\n"
    "        return fprintf(stderr, \"mixhost: %s\\n\", qdrt_error()), 1;\n"
    "    for (int i = 0; i < 10; i++) printf(\"%.9g \", a[i]);\n"
    "    printf(\"\\ntotal=%.9g pair=%d,%d h=%04x\\n\", r.total, r.pair[0], r.pair[1], r.h);\n"
    "    for (int i = 0; i < 6; i++) printf(\"%g%c\", out[i], i == 5 ? '\\n' : ' ');\n"
    "    printf(\"s.a=%g..%g\\n\", sa[0], sa[5]);\n"
    "    if (argc > 3) printf(\"b=%04x %04x %04x %04x\\n\", b[0], b[1], b[2], b[3]);\n"
    "    qdrt_device_close(dev);\n    return 0;\n}\n";

Test(qdrt, typed_launcher_vectors_f16_struct_return) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/mix.qd", dir), *bsrc = xasprintf("%s/bscale.qd", dir), *host = xasprintf("%s/mixhost.c", dir);
    write_text(src, mix_src), write_text(bsrc, bscale_src), write_text(host, mix_host);
    char *spv = compile_file(dir, src, "mix", "vulkan1.2", "spv"), *o = compile_file(dir, src, "mix", "x86_64", "o");
    char *bo = compile_file(dir, bsrc, "bscale", "x86_64", "o");
    char *hdr = xasprintf("%s/mix.h", dir), *bhdr = xasprintf("%s/bscale.h", dir), *exe = xasprintf("%s/mixhost", dir);
    RunResult h = run_qdc("--target=vulkan1.2", "--emit=header", src, "-o", hdr, NULL);
    RunResult hb = run_qdc("--target=x86_64", "--emit=header", bsrc, "-o", bhdr, NULL);
    cr_assert_eq(h.status, 0, "%s", h.err);
    cr_assert_eq(hb.status, 0, "%s", hb.err);
    run_free(&h), run_free(&hb);
    size_t len;
    char *text = read_text(hdr, &len), *btext = read_text(bhdr, &len);
    cr_expect(strstr(text, "static inline qdrt_status mix_run(qdrt_device *dev, qdrt_array *a, const float v[3], const int32_t m[2][2], "
                           "float h, mix_ret *ret) {\n"), "%s", text);
    cr_expect(strstr(text, "static inline qdrt_status place_run(qdrt_device *dev, qdrt_array *out, const float p_pos[3], float p_w, "
                           "qdrt_array *s__a, const int32_t s__q[2][3], const int32_t u[1]) {\n"), "%s", text);
    cr_expect(strstr(btext, "static inline qdrt_status bscale_run(qdrt_device *dev, qdrt_array *b, float g) {\n"), "%s", btext);
    free(text), free(btext);
    char *rtinc = xasprintf("-I%s/runtime", qdc_root()), *inc = xasprintf("-I%s", dir);
    bool asan = getenv("QDC_ASAN") && !strcmp(getenv("QDC_ASAN"), "1");
    const char *cc[] = {"cc", "-std=c17", "-Wall", "-Wextra", "-Werror", "-O1", asan ? "-fsanitize=address,undefined" : "-DQDRT_PLAIN",
                        rtinc, inc, host, getenv("QDC_RT"), "-lpthread", "-lm", "-rdynamic", "-o", exe, NULL};
    RunResult b = run_argv(cc, NULL, NULL);
    cr_assert_eq(b.status, 0, "building mixhost: %s", b.err);
    run_free(&b);
    /* the expected output: a[i] = i * v[i % 3] + m[i % 2][1] + f16(0.1), each exact in f32 */
    const float v[3] = {0.5f, 2.0f, -1.0f}, h16 = (float)(_Float16)0.1;
    const int mm[2][2] = {{1, 2}, {3, 4}};
    char want[512] = "";
    float total = 0;
    for (int i = 0; i < 10; i++) {
        float x = (float)i * v[i % 3] + (float)mm[i % 2][1] + h16;
        total += x;
        snprintf(want + strlen(want), sizeof want - strlen(want), "%.9g ", x);
    }
    _Float16 h2 = (_Float16)(h16 * 2);
    uint16_t h2bits;
    memcpy(&h2bits, &h2, 2);
    snprintf(want + strlen(want), sizeof want - strlen(want), "\ntotal=%.9g pair=1,3 h=%04x\n", total, h2bits);
    /* place: out[i] = pos[i % 3] * 0.5 + q[i % 2][i % 3] + u[0] */
    snprintf(want + strlen(want), sizeof want - strlen(want), "11.5 16 14.5 14.5 13 17.5\ns.a=0.5..0.5\n");
    char *want_cpu = xasprintf("%sb=3dcd 3e4d 3ecd bf4d\n", want); /* bf16(0.1) = 0x3dcd times 1, 2, 4, -8 */
    const char *runs[][5] = {{exe, "cpu", o, bo, NULL}, {exe, "vulkan", spv, NULL, NULL}};
    for (int i = 0; i < 2; i++) {
        RunResult r = vk_spawn(runs[i]);
        if (i == 1 && r.status == 1 && strstr(r.err, "mixhost: no Vulkan")) vk_count_skip(1, r.err);
        else {
            cr_expect_eq(r.status, 0, "mixhost %s: %s", runs[i][1], r.err);
            cr_expect_str_eq(r.out, i ? want : want_cpu, "mixhost %s", runs[i][1]);
        }
        run_free(&r);
    }
    remove_tree(dir);
    free(dir), free(src), free(bsrc), free(host), free(spv), free(o), free(bo), free(hdr), free(bhdr), free(exe), free(rtinc), free(inc),
        free(want_cpu);
}

/* qdc writes a vector parameter's components as scalar parameters v_0, v_1, ...: a scalar
 * parameter with an element_shape is malformed metadata, refused when the module loads. */
Test(qdrt, scalar_with_element_shape_is_malformed) {
    qdrt_device *dev = open_dev(QDRT_DEVICE_CPU);
    qdrt_module *m;
    const char *meta = "{\"qdc_abi\": 1, \"module\": \"v\", \"target\": \"x86_64\", \"backend\": \"x86_64\", \"fields\": [], \"kernels\": [\n"
                       "  {\"name\": \"k\", \"params\": [{\"name\": \"v\", \"kind\": \"scalar\", \"dtype\": \"f32\", \"element_shape\": [3]}],\n"
                       "   \"tasks\": [{\"name\": \"k_t0\", \"kind\": \"serial\"}]}]}";
    cr_assert_eq(qdrt_module_load_memory(dev, "", 0, meta, &m), QDRT_E_MODULE);
    cr_assert_str_eq(qdrt_error(), "metadata: kernel k: scalar parameter v has an element_shape (a vector's components are scalars v_0, ...)");
    cr_assert_null(m);
    qdrt_device_close(dev);
}

/* Through qdrun a vector or matrix parameter is its components, v_0, v_1, ... (row-major), as the
 * metadata lists them: the CPU and lavapipe return the same exact value. */
Test(qdrt, qdrun_vector_components) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/vq.qd", dir);
    write_text(src, "import quadrants as qd\n\n@qd.kernel\ndef dot(v: qd.types.vector(3, qd.f32), m: qd.types.matrix(2, 2, qd.i32)) -> qd.f32:\n"
                    "    return v[0] * 1.0 + v[1] * 10.0 + v[2] * 100.0 + m[0, 1] * 1000.0 + m[1, 0] * 10000.0\n");
    for (int f = 0; f < 2; f++) {
        char *mod = compile_file(dir, src, "vq", both[f][0], both[f][1]), *dv = xasprintf("--device=%s", both[f][2]);
        RunResult r = qdrun((const char *[]){mod, "dot", dv, "v_0=1.0", "v_1=2.0", "v_2=3.0", "m_0=0", "m_1=4", "m_2=5", "m_3=0", NULL});
        if (f && r.status == 77) vk_count_skip(1, r.err);
        else {
            cr_expect_eq(r.status, 0, "qdrun %s: %s", both[f][2], r.err);
            cr_expect_str_eq(r.out, "dot returned 54321\n", "qdrun %s", both[f][2]);
        }
        run_free(&r);
        free(mod), free(dv);
    }
    remove_tree(dir);
    free(dir), free(src);
}

/* A vector whose name another parameter has (p: P with a member pos, beside p_pos) is given
 * component by component in the typed launcher, so the header still compiles. */
Test(qdrt, typed_launcher_vector_name_taken) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/clash.qd", dir), *hdr = xasprintf("%s/clash.h", dir), *c = xasprintf("%s/clash.c", dir);
    char *obj = xasprintf("%s/clash.o", dir), *rtinc = xasprintf("-I%s/runtime", qdc_root()), *inc = xasprintf("-I%s", dir);
    write_text(src, "import quadrants as qd\n\n@qd.dataclass\nclass P:\n    pos: qd.types.vector(2, qd.f32)\n\n"
                    "@qd.kernel\ndef k(p: P, p_pos: qd.f32, out: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n"
                    "    out[0] = p.pos[0] + p.pos[1] + p_pos\n");
    write_text(c, "#include \"qdrt_device.h\"\n#include \"clash.h\"\nint main(void) { return 0; }\n");
    RunResult h = run_qdc("--target=x86_64", "--emit=header", src, "-o", hdr, NULL);
    cr_assert_eq(h.status, 0, "%s", h.err);
    run_free(&h);
    size_t len;
    char *text = read_text(hdr, &len);
    cr_expect(strstr(text, "static inline qdrt_status k_run(qdrt_device *dev, float p_pos_0, float p_pos_1, float p_pos, qdrt_array *out) {\n"),
              "%s", text);
    const char *cc[] = {"cc", "-std=c17", "-Wall", "-Wextra", "-Werror", rtinc, inc, "-c", c, "-o", obj, NULL};
    RunResult b = run_argv(cc, NULL, NULL);
    cr_expect_eq(b.status, 0, "%s", b.err);
    run_free(&b);
    remove_tree(dir);
    free(text), free(dir), free(src), free(hdr), free(c), free(obj), free(rtinc), free(inc);
}

/* ---- every example through its typed launcher ---- */

/* The C host of example ex: loads argv[2] on device argv[1], makes one 1-d array per ndarray
 * parameter from DIR/b<k>.in (argv[3]), runs <kernel>_run(dev, ...) with argv[4] as the scalar,
 * and writes each array back to DIR/b<k>.out. Its parameter list is read from the module's
 * metadata (m), so the call is what a user would write against the header. */
static char *typed_host_source(qdrt_module *m, const Example *ex, const char *header) {
    size_t cap = 8192, len = 0;
    char *s = xmalloc(cap), call[1024] = "";
    len += (size_t)snprintf(s + len, cap - len,
                            "#include \"qdrt_device.h\"\n#include \"%s\"\n#include <stdio.h>\n#include <stdlib.h>\n\n"
                            "static size_t bytes[8];\n"
                            "static qdrt_array *in(qdrt_device *dev, const char *dir, int k, qdrt_dtype dt, size_t elem) {\n"
                            "    char p[4096];\n    snprintf(p, sizeof p, \"%%s/b%%d.in\", dir, k);\n"
                            "    FILE *f = fopen(p, \"rb\");\n    if (!f) return NULL;\n"
                            "    fseek(f, 0, SEEK_END);\n    bytes[k] = (size_t)ftell(f);\n    rewind(f);\n"
                            "    void *buf = malloc(bytes[k]);\n    int64_t n = (int64_t)(bytes[k] / elem);\n    qdrt_array *a = NULL;\n"
                            "    if (fread(buf, 1, bytes[k], f) != bytes[k] || qdrt_array_new(dev, dt, 1, &n, &a) || qdrt_array_write(a, buf, bytes[k]))\n"
                            "        a = NULL;\n    fclose(f);\n    free(buf);\n    return a;\n}\n\n"
                            "static int out(const qdrt_array *a, const char *dir, int k) {\n"
                            "    char p[4096];\n    snprintf(p, sizeof p, \"%%s/b%%d.out\", dir, k);\n"
                            "    void *buf = malloc(bytes[k]);\n    FILE *f = NULL;\n"
                            "    int bad = qdrt_array_read(a, buf, bytes[k]) || !(f = fopen(p, \"wb\")) || fwrite(buf, 1, bytes[k], f) != bytes[k];\n"
                            "    if (f) fclose(f);\n    free(buf);\n    return bad;\n}\n\n"
                            "int main(int argc, char **argv) {\n"
                            "    qdrt_device_kind kind;\n    qdrt_device *dev = NULL;\n    qdrt_module *mod;\n"
                            "    if (argc != 5 || qdrt_device_kind_parse(argv[1], &kind) || qdrt_device_open(kind, &dev) ||\n"
                            "        qdrt_module_load(dev, argv[2], NULL, &mod))\n"
                            "        return fprintf(stderr, \"typed_host: no device or module: %%s\\n\", qdrt_error()), 1;\n",
                            header);
    int np = qdrt_kernel_params(m, ex->kernel), arrays = 0;
    cr_assert(np > 0 && np <= 8, "%s: %d parameters", ex->kernel, np);
    snprintf(call, sizeof call, "%s_run(dev", ex->kernel);
    for (int i = 0; i < np; i++) {
        const char *name;
        int is_array, ndim;
        qdrt_dtype dt;
        cr_assert_eq(qdrt_kernel_param(m, ex->kernel, i, &name, &is_array, &dt, &ndim), QDRT_OK, "%s", qdrt_error());
        char en[32];
        snprintf(en, sizeof en, "QDRT_%s", qdrt_dtype_name(dt));
        for (char *c = en; *c; c++) *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
        if (is_array) {
            len += (size_t)snprintf(s + len, cap - len, "    qdrt_array *a%d = in(dev, argv[3], %d, %s, %zu);\n    if (!a%d) return 1;\n", arrays,
                                    arrays, en, qdrt_dtype_size(dt), arrays);
            snprintf(call + strlen(call), sizeof call - strlen(call), ", a%d", arrays++);
        } else {
            const char *ct = dt == QDRT_I32 ? "int32_t" : dt == QDRT_I64 ? "int64_t" : dt == QDRT_U32 ? "uint32_t" : NULL;
            cr_assert(ct, "%s: scalar parameter %s of type %s", ex->kernel, name, qdrt_dtype_name(dt));
            snprintf(call + strlen(call), sizeof call - strlen(call), ", (%s)atoll(argv[4])", ct);
        }
    }
    len += (size_t)snprintf(s + len, cap - len, "    if (%s))\n        return fprintf(stderr, \"typed_host: %%s\\n\", qdrt_error()), 1;\n", call);
    for (int k = 0; k < arrays; k++) len += (size_t)snprintf(s + len, cap - len, "    if (out(a%d, argv[3], %d)) return 1;\n", k, k);
    snprintf(s + len, cap - len, "    qdrt_device_close(dev);\n    return 0;\n}\n");
    return s;
}

static void write_bytes(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    cr_assert(f && fwrite(p, 1, n, f) == n && !fclose(f), "writing %s", path);
}

static void read_bytes(const char *path, void *p, size_t n) {
    FILE *f = fopen(path, "rb");
    cr_assert(f, "%s was not written", path);
    size_t got = fread(p, 1, n, f);
    fclose(f);
    cr_assert_eq(got, n, "%s: %zu bytes, not %zu", path, got, n);
}

/* Every example, compiled for the device's family with its header, built into a host program that
 * calls only the example's typed launcher, and run at each size with the execution tests'
 * inputs; the results are checked exactly as the API and qdrun runs are. */
static void typed_everywhere(qdrt_device_kind kind, const char *family, const char *ext, const char *device) {
    qdrt_device *dev = open_dev(kind);
    if (!dev) return;
    char *dir = make_temp_dir(), *rtinc = xasprintf("-I%s/runtime", qdc_root()), *inc = xasprintf("-I%s", dir);
    bool asan = getenv("QDC_ASAN") && !strcmp(getenv("QDC_ASAN"), "1");
    for (int e = 0; e < exec_nexamples; e++) {
        const Example *ex = &exec_examples[e];
        char *path = compile(dir, ex->name, family, ext), *rel = xasprintf("examples/%s.qd", ex->name), *src = root_path(rel);
        char *hname = xasprintf("%s-%s.h", ex->name, family), *hdr = xasprintf("%s/%s", dir, hname), *t = xasprintf("--target=%s", family);
        RunResult h = run_qdc(t, "--emit=header", src, "-o", hdr, NULL);
        cr_assert_eq(h.status, 0, "%s: %s", ex->name, h.err);
        run_free(&h);
        qdrt_module *m;
        cr_assert_eq(qdrt_module_load(dev, path, NULL, &m), QDRT_OK, "%s: %s", ex->name, qdrt_error());
        char *host = xasprintf("%s/%s-%s-host.c", dir, ex->name, family), *exe = xasprintf("%s/%s-%s-host", dir, ex->name, family);
        char *text = typed_host_source(m, ex, hname);
        write_text(host, text);
        qdrt_module_free(m);
        const char *cc[] = {"cc", "-std=c17", "-Wall", "-Wextra", "-Werror", "-O1", asan ? "-fsanitize=address,undefined" : "-DQDRT_PLAIN",
                            rtinc, inc, host, getenv("QDC_RT"), "-lpthread", "-lm", "-rdynamic", "-o", exe, NULL};
        RunResult b = run_argv(cc, NULL, NULL);
        cr_assert_eq(b.status, 0, "building the typed host of %s:\n%s\n%s", ex->name, b.err, text);
        run_free(&b);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            if (ex->full_grid_only && sizes[s] % 128) continue;
            ExArgs a = {0};
            ex->setup(&a, sizes[s]);
            char *run = xasprintf("%s/run-%s-%d", dir, ex->name, sizes[s]), scalar[32];
            cr_assert(mkdir(run, 0700) == 0);
            for (int k = 0; k < a.nbufs; k++) {
                char *p = xasprintf("%s/b%d.in", run, k);
                write_bytes(p, a.bufs[k].host, a.bufs[k].elem * a.bufs[k].n);
                free(p);
            }
            snprintf(scalar, sizeof scalar, "%d", (int)a.scalar);
            const char *argv[] = {exe, device, path, run, scalar, NULL};
            RunResult r = vk_spawn(argv);
            cr_assert_eq(r.status, 0, "%s n=%d on %s: %s", ex->name, sizes[s], device, r.err);
            run_free(&r);
            for (int k = 0; k < a.nbufs; k++) {
                char *p = xasprintf("%s/b%d.out", run, k);
                read_bytes(p, a.bufs[k].host, a.bufs[k].elem * a.bufs[k].n);
                free(p);
            }
            cr_expect(ex->check(&a, sizes[s]), "%s n=%d on %s through %s_run: %s", ex->name, sizes[s], device, ex->kernel, a.why);
            exec_args_free(&a);
            free(run);
        }
        free(path), free(rel), free(src), free(hname), free(hdr), free(t), free(host), free(exe), free(text);
    }
    qdrt_device_close(dev);
    remove_tree(dir);
    free(dir), free(rtinc), free(inc);
}

Test(qdrt, examples_typed_launchers_cpu, .timeout = 300) { typed_everywhere(QDRT_DEVICE_CPU, "x86_64", "o", "cpu"); }
Test(qdrt, examples_typed_launchers_vulkan, .timeout = 300) { typed_everywhere(QDRT_DEVICE_VULKAN, "vulkan1.2", "spv", "vulkan"); }

/* A vector argument of 100 components is 100 scalar parameters (more than the 64 the runtime once
 * refused) and, with the scale and the extent, a 408-byte argument block: over vulkan1.2's 128
 * push-constant bytes (limits.max_push_constant_bytes), so qdc puts it in a read-only storage
 * buffer at set 0, the binding after the ndarrays' (metadata "buffer", qdc-spirv(7)), and libqdrt
 * fills and binds it. Both devices give the exact values, every component in its place, through
 * the API and through qdrun (which also refused more than 64 parameters). */
Test(qdrt, big_vector_argument_in_a_buffer) {
    char *dir = make_temp_dir(), *src = xasprintf("%s/bv.qd", dir);
    write_text(src, "import quadrants as qd\n\n@qd.kernel\n"
                    "def k(v: qd.types.vector(100, qd.f32), s: qd.f32, out: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n"
                    "    for j in qd.static(range(100)):\n        out[j] = v[j] * s\n"
                    "    for i in range(100, out.shape[0]):\n        out[i] = s * i\n");
    enum { N = 300 };
    for (int f = 0; f < 2; f++) {
        char *mod = compile_file(dir, src, "bv", both[f][0], both[f][1]);
        char *meta = xasprintf("%s/bv-%s.json", dir, both[f][0]), *json = read_text(meta, NULL);
        cr_assert(json);
        const char *buffer = "\"push_constants\": {\"size\": 408, \"buffer\": {\"set\": 0, \"binding\": 1}, \"members\": [";
        if (f) cr_expect(strstr(json, buffer), "%s", json);
        else cr_expect_null(strstr(json, "\"buffer\""));
        qdrt_device *dev = open_dev(f ? QDRT_DEVICE_VULKAN : QDRT_DEVICE_CPU);
        if (dev) {
            qdrt_module *mm;
            qdrt_array *arr;
            int64_t len = N;
            float out[N];
            qdrt_value args[102];
            for (int j = 0; j < 100; j++) args[j] = qdrt_f64(j * 0.25 - 7);
            args[100] = qdrt_f64(3.0);
            cr_assert_eq(qdrt_module_load(dev, mod, NULL, &mm), QDRT_OK, "%s", qdrt_error());
            cr_assert_eq(qdrt_array_new(dev, QDRT_F32, 1, &len, &arr), QDRT_OK);
            args[101] = qdrt_arr(arr);
            cr_assert_eq(qdrt_launch_kernel(mm, "k", args, 102, NULL, 0), QDRT_OK, "%s: %s", both[f][2], qdrt_error());
            cr_assert_eq(qdrt_array_read(arr, out, sizeof out), QDRT_OK);
            for (int i = 0; i < N; i++) {
                float want = i < 100 ? (float)(i * 0.25 - 7) * 3.0f : 3.0f * (float)i;
                cr_expect_eq(out[i], want, "%s: out[%d] = %g, want %g", both[f][2], i, (double)out[i], (double)want);
            }
            cr_assert_eq(qdrt_launch_kernel(mm, "k", args, 101, NULL, 0), QDRT_E_ARGUMENT);
            cr_expect_str_eq(qdrt_error(), "kernel k takes 102 arguments, 101 given");
            qdrt_device_close(dev);
            /* qdrun takes the 102 arguments too: v_0=... v_99=..., s=3, out=@FILE.npy */
            const char *argv[108] = {qdrun_bin()}; /* 106 words and the NULL */
            char *owned[102], *npy = xasprintf("%s/out.npy", dir), *dv = xasprintf("--device=%s", both[f][2]);
            float zero[N] = {0};
            write_npy(npy, "<f4", N, zero, sizeof zero);
            int n = 1;
            argv[n++] = mod, argv[n++] = "k", argv[n++] = dv;
            for (int j = 0; j < 100; j++) argv[n++] = owned[j] = xasprintf("v_%d=%g", j, j * 0.25 - 7);
            argv[n++] = owned[100] = xstrdup("s=3"), argv[n++] = owned[101] = xasprintf("out=@%s", npy);
            RunResult r = vk_spawn(argv);
            cr_expect_eq(r.status, 0, "qdrun %s: %s", both[f][2], r.err);
            read_npy(npy, "<f4", N, out, sizeof out);
            for (int i = 0; i < N; i++) {
                float want = i < 100 ? (float)(i * 0.25 - 7) * 3.0f : 3.0f * (float)i;
                cr_expect_eq(out[i], want, "qdrun %s: out[%d] = %g, want %g", both[f][2], i, (double)out[i], (double)want);
            }
            run_free(&r);
            for (int j = 0; j < 102; j++) free(owned[j]);
            free(npy), free(dv);
        }
        free(mod), free(meta), free(json);
    }
    remove_tree(dir);
    free(dir), free(src);
}
