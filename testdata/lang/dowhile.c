/* Host for testdata/lang/dowhile.py: graph kernels whose qd.graph.do_while loops libqdrt repeats
 * (qdrt_launch_loops); every count exact, the do-while's first pass unconditional. */
#include "dowhile.h"
#include "common.h"

#define N 40

static int check(const char *what, const int32_t *x, int n, int32_t want0, int32_t want) {
    int bad = 0;
    for (int i = 0; i < n; i++) bad += x[i] != (i ? want : want0);
    if (bad) printf("%s: x[0] = %d (want %d), x[1] = %d (want %d)\n", what, x[0], want0, n > 1 ? x[1] : 0, want);
    return bad;
}

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    int32_t *x = host_alloc(N, 4), *y = host_alloc(N, 4), c = 5, c2 = 3, a = 2, b = 0, cc = 0, runs = 0;
    float *f = host_alloc(N, 4);

    countdown_args cd = {.x = x, .x_shape = {N}, .counter = &c};
    if (!host_launch_ok(countdown(&cd, nt))) return 2;
    bad += check("countdown 5", x, N, 5, 5) + (c != 0);
    c = 1;
    if (!host_launch_ok(countdown(&cd, nt))) return 2;
    bad += check("countdown 1", x, N, 6, 6) + (c != 0);

    int32_t going = 1;
    until_args ua = {.x = f, .x_shape = {N}, .limit = 3.0f, .going = &going};
    if (!host_launch_ok(until(&ua, nt))) return 2;
    for (int i = 0; i < N; i++) bad += f[i] != 3.0f;
    bad += going != 0;
    going = 0; /* a do-while: the body runs once before the flag is read */
    ua.limit = 100.0f;
    if (!host_launch_ok(until(&ua, nt))) return 2;
    for (int i = 0; i < N; i++) bad += f[i] != 3.5f;
    bad += going != 0;

    memset(x, 0, N * 4);
    int32_t outer = 4, inner = 0;
    nested_args na = {.x = x, .x_shape = {N}, .outer = &outer, .inner = &inner};
    if (!host_launch_ok(nested(&na, nt))) return 2;
    bad += check("nested", x, N, (1000 + 4 * 100 + 4 * 3) * 2, (1000 + 4 * 100 + 4 * 3) * 2) + (outer != 0) + (inner != 0);

    memset(x, 0, N * 4);
    deep_args da = {.x = x, .x_shape = {N}, .a = &a, .b = &b, .c = &cc};
    if (!host_launch_ok(deep(&da, nt))) return 2;
    bad += check("deep", x, N, 2 * 3 * 2, 2 * 3 * 2) + (a != 0) + (b != 0) + (cc != 0);

    memset(x, 0, N * 4);
    outer = 3;
    tail_args ta = {.x = x, .x_shape = {N}, .outer = &outer, .inner = &inner};
    if (!host_launch_ok(tail(&ta, nt))) return 2;
    bad += check("tail", x, N, 3 * 2, 3 * 2) + (outer != 0) + (inner != 0);

    memset(x, 0, N * 4);
    int32_t c1 = 5;
    siblings_args sa = {.x = x, .x_shape = {N}, .y = y, .y_shape = {N}, .c1 = &c1, .c2 = &c2};
    if (!host_launch_ok(siblings(&sa, nt))) return 2;
    bad += check("siblings x", x, N, 5, 5) + check("siblings y", y, N, 6, 6) + (c1 != 0) + (c2 != 0);

    c = 4;
    funcs_args fa = {.x = x, .x_shape = {N}, .runs = &runs, .c = &c};
    if (!host_launch_ok(funcs(&fa, nt))) return 2;
    bad += check("funcs", x, N, 10 + 4 * (1000 + 3 + 1), 10 + 4 * (3 + 1)) + (runs != 1) + (c != 0);

    memset(x, 0, N * 4);
    c = 4;
    factored_args fc = {.x = x, .x_shape = {N}, .c = &c};
    if (!host_launch_ok(factored(&fc, nt))) return 2;
    bad += check("factored", x, N, 12, 12) + (c != 0);

    memset(x, 0, N * 4);
    int32_t n = 10;
    outer = 2;
    bounded_args ba = {.x = x, .x_shape = {N}, .n = &n, .outer = &outer};
    if (!host_launch_ok(bounded(&ba, nt))) return 2;
    for (int i = 0; i < N; i++) bad += x[i] != (i < 5 ? 202 : i < 10 ? 2 : 0);
    bad += outer != 0;

    c = 3;
    draws_args dr = {.r = f, .r_shape = {N}, .c = &c};
    if (!host_launch_ok(draws(&dr, nt))) return 2;
    bad += f[1] == f[2] || f[2] == f[3] || f[1] == f[3] || c != 0; /* a new stream each pass */
    for (int i = 1; i <= 3; i++) bad += !(f[i] >= 0.0f && f[i] < 1.0f);

    int32_t so = 3, si = 0, *sx = host_alloc(8, 4);
    sim__step_args sm = {.sim__outer = &so, .sim__inner = &si, .sim__x = sx, .sim__x_shape = {8}};
    if (!host_launch_ok(sim__step(&sm, nt))) return 2;
    bad += check("sim", sx, 8, 6, 6) + (so != 0) + (si != 0);

    printf("dowhile: %d wrong\n", bad);
    free(x), free(y), free(f), free(sx);
    return bad != 0;
}
