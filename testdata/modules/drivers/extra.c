/* Host for testdata/modules/drivers/extra.py (qdc -I ../mini -D gen.use_ndarray=True
 * -D gen.qd_float=qd.f32 -D gen.qd_int=qd.i32 -D "gen.qd_vec3=qd.types.vector(3, qd.f32)"):
 * both entries (the first loop serialized or parallel) give the same exact values. The
 * parameter errno is spelled errno_ in the header (qdc-abi(7), NAMES). */
#include "extra.h"
#include "common.h"

enum { N = 4 };

static int check(const char *what, const float *out, const int32_t *err) {
    /* out[i] = 1 + i, doubled; out[0] = qd_vec3(out[0], out[1], 0.5) summed + metal + cuda * 8 */
    const float want[N] = {2.0f + 4.0f + 0.5f + 4.0f + 16.0f, 4.0f, 6.0f, 8.0f};
    int bad = 0;
    for (int k = 0; k < N; k++)
        if (out[k] != want[k]) bad++, printf("%s: out[%d] = %g, want %g\n", what, k, (double)out[k], (double)want[k]);
    if (err[0] != 3) bad++, printf("%s: errno = %d, want 3\n", what, (int)err[0]);
    return bad;
}

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    float *out = host_alloc(N, 4);
    int32_t *err = host_alloc(1, 4);
    err[0] = 1;
    kernel_extra__f32_1d__i32_1d__True_args a = {out, {N}, err, {1}};
    if (!host_launch_ok(kernel_extra__f32_1d__i32_1d__True(&a, nt))) return 2;
    bad += check("serial", out, err);
    err[0] = 1;
    kernel_extra__f32_1d__i32_1d__False_args b = {out, {N}, err, {1}};
    if (!host_launch_ok(kernel_extra__f32_1d__i32_1d__False(&b, nt))) return 2;
    bad += check("parallel", out, err);
    printf("extra: %d wrong\n", bad);
    free(out), free(err);
    return bad != 0;
}
