/* launch.c DEVICE MODULE N — the launch overhead of libqdrt (bench/qdrt/launch.sh): opens DEVICE,
 * loads MODULE (trivial.qd: fill, one element), launches it once to warm up, then N times, and
 * prints "US_PER_LAUNCH OPEN_MS FIRST_US": the mean wall time of one qdrt_launch_kernel (argument
 * checks, descriptor set, command buffer, submission and wait), the device open + module load, and
 * the first launch (the driver may finish compiling the pipeline then). */
#define _POSIX_C_SOURCE 200809L
#include "qdrt_device.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    qdrt_device_kind kind;
    qdrt_device *dev;
    qdrt_module *mod;
    qdrt_array *a;
    int64_t one = 1;
    int32_t v = 0;
    int n = argc == 4 ? atoi(argv[3]) : 0;
    double t0 = now();
    if (n < 1 || qdrt_device_kind_parse(argv[1], &kind) || qdrt_device_open(kind, &dev) || qdrt_module_load(dev, argv[2], NULL, &mod) ||
        qdrt_array_new(dev, QDRT_I32, 1, &one, &a))
        return fprintf(stderr, "launch: %s\n", n < 1 ? "usage: launch DEVICE MODULE N" : qdrt_error()), 1;
    double t1 = now();
    qdrt_value arg = qdrt_arr(a);
    if (qdrt_launch_kernel(mod, "fill", &arg, 1, NULL, 0)) return fprintf(stderr, "launch: %s\n", qdrt_error()), 1;
    double t2 = now();
    for (int i = 0; i < n; i++)
        if (qdrt_launch_kernel(mod, "fill", &arg, 1, NULL, 0)) return fprintf(stderr, "launch: %s\n", qdrt_error()), 1;
    double t3 = now();
    if (qdrt_array_read(a, &v, sizeof v) || v != 1) return fprintf(stderr, "launch: fill wrote %d, not 1\n", v), 1;
    printf("%.1f %.1f %.1f\n", (t3 - t2) / n * 1e6, (t1 - t0) * 1e3, (t2 - t1) * 1e6);
    qdrt_device_close(dev);
    return 0;
}
