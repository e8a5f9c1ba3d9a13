/* qdc-cuda-launch: runs qdc's PTX on an NVIDIA GPU through libqdrt's CUDA device (qdrt(3):
 * libcuda.so.1 opened at run time, no toolkit) and checks the results exactly, with the inputs
 * and checks the Vulkan and x86 execution tests use (tests/unit/exec_spec.c, launched through
 * tests/unit/exec_qdrt.c like the suite's libqdrt runs), so the GPU check proves what users call.
 *   qdc-cuda-launch EXAMPLE FILE.ptx [N [few]]   one example (examples/EXAMPLE.qd) at size N
 *                                                (few: at most 3 blocks per task, so the
 *                                                grid-stride loops turn)
 *   qdc-cuda-launch --matrix DTYPE SPACE FILE.ptx N   every kernel of the atomics matrix file
 *                                                (--emit-matrix writes them), history-checked
 *   qdc-cuda-launch --emit-matrix DIR            write the matrix files x_<dtype>_<space>.qd
 *   qdc-cuda-launch --info                       print "NAME|sm_XY" of GPU 0
 * FILE.ptx's metadata (qdc --emit=metadata) is FILE.json beside it.
 *   exit:  0 results match, 1 mismatch, 2 usage, 3 CUDA or libqdrt error, 77 no driver or GPU (skip)
 * Build: make -C tools/cuda-launcher RT=build/libqdrt.a, or `make gpu-check`. */
#include "../../tests/unit/exec_qdrt.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_MISMATCH 1
#define EXIT_USAGE 2
#define EXIT_CUDA 3
#define EXIT_SKIP 77

static qdrt_device *start_gpu(void) {
    qdrt_device *dev;
    qdrt_status st = qdrt_device_open(QDRT_DEVICE_CUDA, &dev);
    if (st == QDRT_E_NO_DEVICE) {
        printf("qdc-cuda-launch: SKIP: no CUDA driver or GPU (%s)\n", qdrt_error());
        exit(EXIT_SKIP);
    }
    if (st) fprintf(stderr, "qdc-cuda-launch: %s\n", qdrt_error()), exit(EXIT_CUDA);
    return dev;
}

static qdrt_module *load(qdrt_device *dev, const char *ptx) {
    qdrt_module *m;
    if (qdrt_module_load(dev, ptx, NULL, &m)) fprintf(stderr, "qdc-cuda-launch: %s\n", qdrt_error()), exit(EXIT_CUDA);
    return m;
}

static int run_example(qdrt_device *dev, const char *ptx, const Example *ex, int n, int few) {
    qdrt_module *m = load(dev, ptx);
    few = few && !ex->full_grid_only;
    qdrt_device_cap_groups(dev, few ? 3 : 0);
    char why[512];
    int rc = exec_qdrt_example(m, ex, n, why, sizeof why);
    if (rc < 0) fprintf(stderr, "qdc-cuda-launch: %s n=%d: %s\n", ex->name, n, why), exit(EXIT_CUDA);
    printf("qdc-cuda-launch: %s n=%d %s: %s%s%s\n", ex->name, n, few ? "3 blocks" : "full grid", rc ? "PASS" : "FAIL (", rc ? "" : why,
           rc ? "" : ")");
    qdrt_module_free(m);
    return rc;
}

static int run_matrix(qdrt_device *dev, const char *ptx, int dt, int space, int n) {
    qdrt_module *m = load(dev, ptx);
    XFile f;
    xfile_init(&f, dt, space);
    int bad = 0;
    for (int few = 0; few < (space == XS_SHARED ? 1 : 2); few++) {
        char why[512];
        qdrt_device_cap_groups(dev, few ? 3 : 0);
        int fails = exec_qdrt_matrix(m, &f, n, 777u + (unsigned)few, why, sizeof why);
        if (fails < 0) fprintf(stderr, "qdc-cuda-launch: matrix %s %s: %s\n", xdtype_name[dt], xspace_name[space], why), exit(EXIT_CUDA);
        if (fails) printf("qdc-cuda-launch: FAIL %s\n", why);
        printf("qdc-cuda-launch: matrix %s %s n=%d %s: %d kernels, %d %s\n", xdtype_name[dt], xspace_name[space], n,
               few ? "3 blocks" : "full grid", f.nkernels, fails, fails ? "FAIL" : "failures, PASS");
        bad += fails;
    }
    qdrt_module_free(m);
    return bad == 0;
}

static int index_of(const char *const *names, int n, const char *s) {
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], s)) return i;
    return -1;
}

static int readable(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "--emit-matrix")) {
        for (int dt = 0; dt < XD_COUNT; dt++)
            for (int sp = 0; sp < XS_COUNT; sp++) {
                XFile f;
                xfile_init(&f, dt, sp);
                char path[4096], *src = xfile_source(&f);
                snprintf(path, sizeof path, "%s/x_%s_%s.qd", argv[2], xdtype_name[dt], xspace_name[sp]);
                FILE *o = fopen(path, "w");
                if (!o || fputs(src, o) < 0 || fclose(o)) return fprintf(stderr, "qdc-cuda-launch: cannot write %s\n", path), EXIT_USAGE;
                free(src);
            }
        return 0;
    }
    if (argc == 2 && !strcmp(argv[1], "--info")) {
        qdrt_device *dev = start_gpu();
        const char *name = qdrt_device_name(dev);
        printf("%s|%s\n", strncmp(name, "cuda: ", 6) ? name : name + 6, qdrt_device_target(dev));
        qdrt_device_close(dev);
        return 0;
    }
    if (argc == 6 && !strcmp(argv[1], "--matrix")) {
        int dt = index_of(xdtype_name, XD_COUNT, argv[2]), sp = index_of(xspace_name, XS_COUNT, argv[3]), n = atoi(argv[5]);
        if (dt < 0 || sp < 0 || !readable(argv[4]) || n < 1 || (sp == XS_SHARED && n % XSHARED_BLOCK)) {
            fprintf(stderr, "qdc-cuda-launch: --matrix DTYPE SPACE FILE.ptx N (shared: N a multiple of %d)\n", XSHARED_BLOCK);
            return EXIT_USAGE;
        }
        qdrt_device *dev = start_gpu();
        int ok = run_matrix(dev, argv[4], dt, sp, n);
        qdrt_device_close(dev);
        return ok ? 0 : EXIT_MISMATCH;
    }
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: qdc-cuda-launch EXAMPLE FILE.ptx [N [few]] | --matrix DTYPE SPACE FILE.ptx N |"
                        " --emit-matrix DIR | --info\n");
        return EXIT_USAGE;
    }
    const Example *ex = exec_example(argv[1]);
    int n = argc >= 4 ? atoi(argv[3]) : 1000, few = argc == 5 && !strcmp(argv[4], "few");
    if (!ex || !readable(argv[2]) || n < 1) {
        fprintf(stderr, "qdc-cuda-launch: %s\n", !ex ? "unknown example" : n < 1 ? "bad N" : "cannot read the PTX file");
        return EXIT_USAGE;
    }
    qdrt_device *dev = start_gpu();
    int ok = run_example(dev, argv[2], ex, n, few);
    qdrt_device_close(dev);
    return ok ? 0 : EXIT_MISMATCH;
}
