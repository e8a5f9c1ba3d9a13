/* qdc-math-accuracy: the accuracy of qdc's portable math expansions (targets/llvm/mathlib.c, what
 * PTX and AMDGPU kernels run) measured on the CPU. The expansions are taken from qdc's own LLVM IR
 * for a GPU target (extracted, given external names qdc_<fn>, compiled for x86 by run.sh) and
 * compared with long-double libm over 2^20 samples per function; the host's libm (what x86
 * kernels call) is measured on the same samples. Prints the largest error in ulps of the result
 * type. usage: qdc-math-accuracy [F32_BOUND F64_BOUND F64_POW_BOUND [SAMPLES]]; exit 1 when an error
 * exceeds its bound (the manual's table: 0.5, 4, 64 ulp). run.sh builds and runs it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int N = 1 << 20;
#define NF 11
double qdc_sin(double), qdc_cos(double), qdc_tan(double), qdc_asin(double), qdc_acos(double), qdc_atan(double);
double qdc_atan2(double, double), qdc_exp(double), qdc_log(double), qdc_tanh(double), qdc_pow(double, double);
static const char *const names[NF] = {"sin", "cos", "tan", "asin", "acos", "atan", "atan2", "exp", "log", "tanh", "pow"};

/* function f on the sample (a: wide range, b: [-1, 1], c: exp/tanh range) in each implementation */
static long double ref(int f, long double a, long double b, long double c, int is32) {
    long double p = is32 ? (long double)(float)(b * 3.0f) : (long double)(double)(b * 3.0); /* the exponent as computed */
    long double r[NF] = {sinl(a), cosl(a), tanl(a), asinl(b), acosl(b), atanl(a), atan2l(a, b), expl(c), logl(fabsl(a)), tanhl(c), powl(fabsl(a), p)};
    return r[f];
}
static double qdc(int f, double a, double b, double c, int is32) {
    double p = is32 ? (double)(float)(b * 3.0f) : b * 3.0;
    double r[NF] = {qdc_sin(a), qdc_cos(a), qdc_tan(a), qdc_asin(b), qdc_acos(b), qdc_atan(a), qdc_atan2(a, b), qdc_exp(c), qdc_log(fabs(a)), qdc_tanh(c), qdc_pow(fabs(a), p)};
    return is32 ? (double)(float)r[f] : r[f];
}
static double libm(int f, double a, double b, double c, int is32) {
    if (!is32) {
        double r[NF] = {sin(a), cos(a), tan(a), asin(b), acos(b), atan(a), atan2(a, b), exp(c), log(fabs(a)), tanh(c), pow(fabs(a), b * 3)};
        return r[f];
    }
    float x = (float)a, y = (float)b, z = (float)c;
    float r[NF] = {sinf(x), cosf(x), tanf(x), asinf(y), acosf(y), atanf(x), atan2f(x, y), expf(z), logf(fabsf(x)), tanhf(z), powf(fabsf(x), y * 3.0f)};
    return r[f];
}

static double ulps(long double r, double got, int is32) {
    if (isnan((double)r)) return isnan(got) ? 0 : INFINITY;
    double rt = is32 ? (double)(float)r : (double)r;
    if (isinf(rt)) return got == rt ? 0 : INFINITY;
    long double mag = fabsl(r);
    long double u = is32 ? (long double)(nextafterf((float)mag, INFINITY) - (float)mag) : (long double)(nextafter((double)mag, INFINITY) - (double)mag);
    if (u == 0) u = is32 ? 1.4e-45L : 4.9e-324L;
    return (double)(fabsl((long double)got - r) / u);
}

static double rnd(void) { return (double)rand() / RAND_MAX; }

static int run(int is32, double bound, double pow_bound) {
    double *x = malloc(sizeof(double) * N), *w = malloc(sizeof(double) * N), *v = malloc(sizeof(double) * N);
    srand(12345);
    for (int i = 0; i < N; i++) {
        x[i] = i % 2 ? (rnd() * 20 - 10) : (rnd() < 0.5 ? -1 : 1) * pow(10, rnd() * 11 - 6); /* |x| 1e-6 .. 1e5 */
        w[i] = rnd() * 2 - 1;
        v[i] = (rnd() * 2 - 1) * (is32 ? 88 : 708);
        if (is32) x[i] = (float)x[i], w[i] = (float)w[i], v[i] = (float)v[i];
    }
    int bad = 0;
    printf("%s  function  qdc expansion max ulp (at a, b, c)                       host libm max ulp\n", is32 ? "f32" : "f64");
    for (int f = 0; f < NF; f++) {
        double worst = 0, worst_libm = 0;
        int at = 0;
        for (int i = 0; i < N; i++) {
            long double r = ref(f, x[i], w[i], v[i], is32);
            double e = ulps(r, qdc(f, x[i], w[i], v[i], is32), is32), el = ulps(r, libm(f, x[i], w[i], v[i], is32), is32);
            if (e > worst) worst = e, at = i;
            if (el > worst_libm) worst_libm = el;
        }
        printf("     %-8s %10.3f (%.9g, %.9g, %.9g)   %10.3f\n", names[f], worst, x[at], w[at], v[at], worst_libm);
        bad |= !(worst <= (f == NF - 1 ? pow_bound : bound));
    }
    free(x), free(w), free(v);
    return bad;
}

int main(int argc, char **argv) {
    double b32 = argc > 1 ? atof(argv[1]) : INFINITY, b64 = argc > 2 ? atof(argv[2]) : INFINITY;
    double bpow = argc > 3 ? atof(argv[3]) : INFINITY;
    if (argc > 4 && atoi(argv[4]) > 0) N = atoi(argv[4]);
    int bad = run(1, b32, b32);
    bad |= run(0, b64, bpow);
    return bad;
}
