/* Kernels from .qd source on the CPU: each example (and test-only kernel) is compiled by
 * $QDC_BIN to an x86-64 object and a header, linked with its host program and libqdrt, and
 * run on 1, 2, 4 and 8 threads. The host checks exact results (>= 10^6 contended atomics for
 * the stress kernels) and prints a line that must not depend on the thread count. */
#include "test_x86.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* qdc still stops at a stub (frontend or lowering not there yet). */
static bool pending(const RunResult *r) { return r->status == 3 && strstr(r->err, "not implemented"); }

static void run_kernel_opt(const char *qd_rel, const char *host_rel, const char *name, const char *n, const char *opt) {
    if (!x86_have_runtime()) return;
    char *dir = make_temp_dir(), *qd = root_path(qd_rel), *host = root_path(host_rel), *obj = NULL, *hdr = NULL;
    cr_assert(asprintf(&obj, "%s/%s.o", dir, name) > 0 && asprintf(&hdr, "%s/%s.h", dir, name) > 0);
    RunResult r = run_qdc("--target=x86_64", opt, qd, "-o", obj, NULL);
    if (pending(&r)) {
        fprintf(stderr, "test_x86_kernels: %s: qdc pipeline not implemented yet; skipping\n", name);
    } else {
        cr_assert_eq(r.status, 0, "qdc %s -o %s.o: %s", qd_rel, name, r.err);
        RunResult h = run_qdc("--target=x86_64", "--emit=header", qd, "-o", hdr, NULL);
        cr_assert_eq(h.status, 0, "qdc --emit=header %s: %s", qd_rel, h.err);
        run_free(&h);
        char *objname = strrchr(obj, '/') + 1;
        const char *objs[] = {objname, NULL};
        cr_assert(x86_build_host_file(dir, host, objs), "host program for %s does not build", name);
        const char *threads[] = {"1", "2", "4", "8"};
        char *first = NULL;
        for (int i = 0; i < 4; i++) {
            RunResult x = x86_run_host(dir, threads[i], n, NULL);
            cr_expect_eq(x.status, 0, "%s on %s threads: exit %d\n%s%s", name, threads[i], x.status, x.out, x.err);
            if (!first) first = strdup(x.out);
            else cr_expect_str_eq(x.out, first, "%s: output differs on %s threads", name, threads[i]);
            run_free(&x);
        }
        free(first);
    }
    run_free(&r);
    remove_tree(dir);
    free(dir), free(qd), free(host), free(obj), free(hdr);
}

static void run_kernel(const char *qd_rel, const char *host_rel, const char *name, const char *n) {
    run_kernel_opt(qd_rel, host_rel, name, n, "-O2");
}

#define EXAMPLE(name, n)                                                                         \
    Test(x86_kernels, name) { run_kernel("examples/" #name ".qd", "examples/host/" #name ".c", #name, n); }

EXAMPLE(histogram, "1048576")
EXAMPLE(float_sum, "1048576")
EXAMPLE(cas_max, "1048576")
EXAMPLE(compaction, "1048576")
EXAMPLE(exchange_handoff, "1048576")
EXAMPLE(minmax, "524288")
EXAMPLE(bitflags, "1048576")
EXAMPLE(spin_chain, "16384")
/* Under ASan lanes switch with swapcontext, which unpoisons the lane stack each time: 2^16
 * lanes (about 2*10^5 switches per run) keep the sanitizer suite fast. */
Test(x86_kernels, shared_histogram) {
    bool asan = getenv("QDC_ASAN") && !strcmp(getenv("QDC_ASAN"), "1");
    run_kernel("examples/shared_histogram.qd", "examples/host/shared_histogram.c", "shared_histogram",
               asan ? "65613" : "1048653");
}
EXAMPLE(last_block, "65536")

Test(x86_kernels, accumulate) {
    run_kernel("tests/kernels/accumulate.qd", "tests/kernels/accumulate.c", "accumulate", "1048576");
}

Test(x86_kernels, semantics) {
    run_kernel("tests/kernels/semantics.qd", "tests/kernels/semantics.c", "semantics", "4096");
}

/* Every float math builtin and qd.math constant equals libm bit for bit (x86 calls libm). */
Test(x86_kernels, mathfns) {
    run_kernel("tests/kernels/mathfns.qd", "tests/kernels/mathfns.c", "mathfns", "4096");
}

/* qd.loop_config(serialize=True) / parallelize=1: one thread, in order, break allowed (issue 13
 * item 4: before, serialize was accepted and ignored and the prefix sum raced on 2+ threads). */
Test(x86_kernels, serialize) {
    run_kernel("tests/kernels/serialize.qd", "tests/kernels/serialize.c", "serialize", "1048576");
}

/* Kernel-scope locals reduced in parallel loops (was QD2025) and kernel return values. */
Test(x86_kernels, reduce) {
    run_kernel("tests/kernels/reduce.qd", "tests/kernels/reduce.c", "reduce", "1048576");
}

/* qd.simt.subgroup.* / qd.simt.warp.* (issue 16): every collective over blocks of 8, 32, 64 and
 * 96 lanes and a partial last block, equal to the host's model of libqdrt's 32-lane subgroups. */
Test(x86_kernels, simt) {
    run_kernel("tests/kernels/simt.qd", "tests/kernels/simt.c", "simt", "4099");
}

/* quadrants.lang.simt.reductions' _inclusive_scan_tiled / _exclusive_scan_tiled / _reduce_tiled
 * with a non-commutative @qd.func operator, and its other names (issue 16) */
Test(x86_kernels, simt_reductions) {
    run_kernel("tests/kernels/simt_reductions.qd", "tests/kernels/simt_reductions.c", "simt_reductions", "4096");
}

/* kernels that return a struct or a tuple (issue 15), read through the header's <kernel>_ret */
Test(x86_kernels, struct_return) {
    run_kernel("tests/kernels/struct_return.qd", "tests/kernels/struct_return.c", "struct_return", "4096");
}

/* qd.simt.block.SharedArray of vectors and matrices (issue 15): element and component stores,
 * loads and atomics in 32-lane blocks */
Test(x86_kernels, shared_vec) {
    run_kernel("tests/kernels/shared_vec.qd", "tests/kernels/shared_vec.c", "shared_vec", "4096");
}

/* qd.simt.block.reduce/reduce_all/inclusive_scan/exclusive_scan with a user @qd.func operator
 * (block_dim 8, 96, 256) and block.radix_rank_match_atomic_or (block_dim 256 and 64), exact. */
Test(x86_kernels, simt_block) {
    run_kernel("tests/kernels/simt_block.qd", "tests/kernels/simt_block.c", "simt_block", "4608");
}

/* Atomic reductions rewritten per worker (issue 17) and, the same kernels, with one atomic per
 * execution (--atomic-rewrite=none): both equal the C reference on 1, 2, 4 and 8 threads. */
Test(x86_kernels, rewrite_reduce) {
    run_kernel("tests/kernels/rewrite.qd", "tests/kernels/rewrite.c", "rewrite", "1048576");
}
Test(x86_kernels, rewrite_none) {
    run_kernel_opt("tests/kernels/rewrite.qd", "tests/kernels/rewrite.c", "rewrite", "1048576", "--atomic-rewrite=none");
}
/* The rewrite on chunks of one iteration (n below the thread count times 16) and n = 1. */
Test(x86_kernels, rewrite_small) {
    run_kernel("tests/kernels/rewrite.qd", "tests/kernels/rewrite.c", "rewrite", "37");
    run_kernel("tests/kernels/reduce.qd", "tests/kernels/reduce.c", "reduce", "1");
}

/* print(...) writes exactly Quadrants' format through libc printf, in program order. */
Test(x86_kernels, print) {
    if (!x86_have_runtime()) return;
    char *dir = make_temp_dir(), *qd = root_path("tests/kernels/print.qd"), *host = root_path("tests/kernels/print.c");
    char *obj = NULL, *hdr = NULL;
    cr_assert(asprintf(&obj, "%s/print.o", dir) > 0 && asprintf(&hdr, "%s/print.h", dir) > 0);
    RunResult r = run_qdc("--target=x86_64", qd, "-o", obj, NULL), h = run_qdc("--target=x86_64", "--emit=header", qd, "-o", hdr, NULL);
    cr_assert(r.status == 0 && h.status == 0, "%s%s", r.err, h.err);
    const char *objs[] = {"print.o", NULL};
    cr_assert(x86_build_host_file(dir, host, objs));
    static const char want[] = "n = -7 big: -5000000000 h 0.250000000000 100%!\n"
                               "i,0,0.000000,200,0\ni,1,0.500000,200,1\ni,2,1.000000,200,1\nhost done\n";
    const char *threads[] = {"1", "4", "8"};
    for (int i = 0; i < 3; i++) {
        RunResult x = x86_run_host(dir, threads[i], NULL, NULL);
        cr_expect_eq(x.status, 0, "%s", x.err);
        cr_expect_str_eq(x.out, want, "on %s threads", threads[i]);
        run_free(&x);
    }
    run_free(&r), run_free(&h);
    remove_tree(dir);
    free(dir), free(qd), free(host), free(obj), free(hdr);
}

/* Unoptimized code must compute the same (IR building errors hide behind the optimizer). */
Test(x86_kernels, semantics_O0) {
    run_kernel_opt("tests/kernels/semantics.qd", "tests/kernels/semantics.c", "semantics", "4096", "-O0");
}
/* Vectors and matrices: per-component fan-out of vector atomics under contention (sums, max,
 * and the old values of each component), vector ndarray/parameters, matrix arithmetic. */
Test(x86_kernels, vectors) { run_kernel("tests/kernels/vectors.qd", "tests/kernels/vectors.c", "vectors", "1048576"); }
