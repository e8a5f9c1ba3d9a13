/* Host for testdata/modules/drivers/step.py (qdc -I ../mini -D gen.use_ndarray=True
 * -D gen.qd_float=qd.f32 -D gen.qd_int=qd.i32): the entries the driver instantiates, run with
 * real arrays. A struct of arrays is passed member by member (state__bodies__pos ...); every
 * value is exact (dt = 0.5, dyadic values). */
#include "step.h"
#include "common.h"

enum { N = 4, M = 3 };
#define ARGS(dt) {pos, {N, M}, vel, {N, M}, energy, {1}, dt}
#define EARGS {pos, {N, M}, vel, {N, M}, energy, {1}}

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    float *pos = host_alloc(N * M, 4), *vel = host_alloc(N * M, 4), *energy = host_alloc(1, 4);
    for (int k = 0; k < N * M; k++) pos[k] = (float)(k / M), vel[k] = (float)(k % M + 1);
    /* config: forward, 2 substeps, damping 0.5: pos += vel dt; vel *= 0.5; twice */
    kernel_step__StructState_f32_2d_f32_2d_f32_1d__config_args a = ARGS(0.5f);
    if (!host_launch_ok(kernel_step__StructState_f32_2d_f32_2d_f32_1d__config(&a, nt))) return 2;
    for (int k = 0; k < N * M; k++) {
        float v0 = (float)(k % M + 1), want_p = (float)(k / M) + v0 * 0.5f + v0 * 0.25f, want_v = v0 * 0.25f;
        if (pos[k] != want_p || vel[k] != want_v) bad++, printf("config: pos[%d] = %g (want %g), vel %g (want %g)\n", k, (double)pos[k], (double)want_p, (double)vel[k], (double)want_v);
    }
    /* back: backward (BW = qd.static(config.backward) picks the other branch), damping 1 */
    kernel_step__StructState_f32_2d_f32_2d_f32_1d__back_args b = ARGS(0.5f);
    if (!host_launch_ok(kernel_step__StructState_f32_2d_f32_2d_f32_1d__back(&b, nt))) return 2;
    for (int k = 0; k < N * M; k++) {
        float v0 = (float)(k % M + 1), want_p = (float)(k / M) + v0 * 0.75f - v0 * 0.125f;
        if (pos[k] != want_p) bad++, printf("back: pos[%d] = %g, want %g\n", k, (double)pos[k], (double)want_p);
    }
    /* qd_ops[0] is atomic_add, qd_ops[1] atomic_max, over vel^2 = (v0/4)^2 */
    kernel_energy__StructState_f32_2d_f32_2d_f32_1d__0_args e0 = EARGS;
    if (!host_launch_ok(kernel_energy__StructState_f32_2d_f32_2d_f32_1d__0(&e0, nt))) return 2;
    float sum = N * (1.0f + 4.0f + 9.0f) / 16.0f;
    if (energy[0] != sum) bad++, printf("energy (add) = %g, want %g\n", (double)energy[0], (double)sum);
    kernel_energy__StructState_f32_2d_f32_2d_f32_1d__1_args e1 = EARGS;
    if (!host_launch_ok(kernel_energy__StructState_f32_2d_f32_2d_f32_1d__1(&e1, nt))) return 2;
    if (energy[0] != 9.0f / 16.0f) bad++, printf("energy (max) = %g, want %g\n", (double)energy[0], 9.0 / 16.0);
    kernel_clear_all__StructState_f32_2d_f32_2d_f32_1d_args c = EARGS;
    if (!host_launch_ok(kernel_clear_all__StructState_f32_2d_f32_2d_f32_1d(&c, nt))) return 2;
    for (int k = 0; k < N * M; k++) bad += vel[k] != 0.0f;
    printf("driver: %d wrong\n", bad);
    free(pos), free(vel), free(energy);
    return bad != 0;
}
