/* Host for testdata/lang/glsl.py: qd.math's GLSL-style helpers against the formulas computed
 * here in float, `not` of a vector, and the loops over a qd.static choice of iterable. */
#include "glsl.h"
#include "common.h"
#include <math.h>

static int bad;

static void near(double got, double want, const char *what, int i) {
    if (!(fabs(got - want) <= 2e-6 * (1 + fabs(want)))) printf("%s[%d]: got %.9g, want %.9g\n", what, i, got, want), bad++;
}

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv);
    const float x = 0.8f;
    maths_args m = {.x = x};
    if (!host_launch_ok(maths(&m, nt))) return 2;
    const double pi = 3.14159265358979323846;
    double sm = (x / 2.0) * (x / 2.0) * (3 - 2 * (x / 2.0));
    double want[11] = {x * 180 / pi, pi, (x + 2.0f) - floorf(x + 2.0f), 1, sm, 0.5, 3, 0, 2, 1, 1};
    for (int i = 0; i < 11; i++) near(qd_field_sc[i], want[i], "sc", i);
    double v[3] = {2.25, -0.75, 3.5};
    double wv[7][3] = {{0.25, 0.25, 0.5}, {0.25, 1.25, 1.5}, {2.25, 0.75, 3.5}, {0, 0, 0}, {0, 0, 0}, {1, 1, 0},
                       {0, x * 180 / pi, 2 * x * 180 / pi}};
    /* refract(x, n, eta) with n = +y: k = 1 - eta^2 (1 - (x.n)^2); eta x - (eta x.n + sqrt k) n */
    double in[2][2] = {{0.6, -0.8}, {0.8, -0.6}}, eta[2] = {0.5, 2.0};
    for (int r = 0; r < 2; r++) {
        double d = in[r][1], k = 1 - eta[r] * eta[r] * (1 - d * d);
        if (k >= 0) wv[3 + r][0] = eta[r] * in[r][0], wv[3 + r][1] = eta[r] * in[r][1] - (eta[r] * d + sqrt(k));
    }
    (void)v;
    for (int i = 0; i < 7; i++)
        for (int c = 0; c < 3; c++) near(qd_field_vv[i][c], wv[i][c], "vv", i * 3 + c);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) near(qd_field_eye3[r][c], r == c ? 2 : 0, "eye3", r * 3 + c);
    int wn[6] = {0, 1, 0, 1, 0, 0};
    for (int i = 0; i < 6; i++)
        if (qd_field_nots[i / 3][i % 3] != wn[i]) printf("nots[%d] = %d, want %d\n", i, (int)qd_field_nots[i / 3][i % 3], wn[i]), bad++;
    loops_args l = {.n = 5};
    if (!host_launch_ok(loops(&l, nt))) return 2;
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 8; c++) {
            int w = r == 0 ? c < 5 : r == 1 ? c < 2 : r == 2 ? c < 5 : c < 6;
            if (qd_field_counts[r][c] != w) printf("counts[%d, %d] = %d, want %d\n", r, c, (int)qd_field_counts[r][c], w), bad++;
        }
    /* NAME := value: n = 3 gives a = 15, b = 3 + 15 + 15 + 30; counts[0, 7] gets 3 */
    walrus_args wa = {.n = 3};
    int32_t wr = 0;
    if (!host_launch_ok(walrus(&wa, nt, &wr))) return 2;
    if (wr != 63) printf("walrus: %d, want 63\n", (int)wr), bad++;
    if (qd_field_counts[0][7] != 3) printf("counts[0, 7] = %d, want 3\n", (int)qd_field_counts[0][7]), bad++;
    for (int c = 0; c < 2; c++) { /* d: my_int = 2, then d: qd.i32 = 7 under `if c > 0` */
        annotated_args aa = {.c = c};
        int32_t ar = 0;
        if (!host_launch_ok(annotated(&aa, nt, &ar))) return 2;
        if (ar != (c ? 7 : 2)) printf("annotated(%d): %d, want %d\n", c, (int)ar, c ? 7 : 2), bad++;
    }
    stencil_args sa = {0};
    if (!host_launch_ok(stencil(&sa, nt))) return 2;
    for (int i = 0; i < 8; i++) {
        int w = (i >> 2) + ((i >> 1) & 1) * 3 + (i & 1) * 10;
        if (qd_field_st[i] != w) printf("st[%d] = %d, want %d\n", i, (int)qd_field_st[i], w), bad++;
    }
    fills_args fa = {.v = 4};
    if (!host_launch_ok(fills(&fa, nt))) return 2;
    for (int i = 0; i < 15; i++)
        if (qd_field_fs[i / 5][i % 5] != 4) printf("fs[%d] = %d, want 4\n", i, (int)qd_field_fs[i / 5][i % 5]), bad++;
    for (int i = 0; i < 12; i++)
        if (qd_field_fv[i / 2][i % 2] != 2.0f) printf("fv[%d] = %g, want 2\n", i, (double)qd_field_fv[i / 2][i % 2]), bad++;
    for (int i = 0; i < 4; i++) {
        int wm[4] = {1, 4, 8, 3};
        for (int c = 0; c < 4; c++)
            if (qd_field_fm[i / 2][i % 2][c / 2][c % 2] != wm[c]) printf("fm[%d][%d] = %d, want %d\n", i, c, (int)qd_field_fm[i / 2][i % 2][c / 2][c % 2], wm[c]), bad++;
    }
    ctr__run_args ca = {.w = 20};
    if (!host_launch_ok(ctr__run(&ca, nt))) return 2;
    if (qd_field_ctr__out[0] != 3 || qd_field_ctr__out[1] != 100 || qd_field_ctr__out[2] != 43 + 5)
        printf("ctr.out = %d %d %d, want 3 100 48\n", (int)qd_field_ctr__out[0], (int)qd_field_ctr__out[1], (int)qd_field_ctr__out[2]), bad++;
    project_args pa = {.s = 1.0f}; /* make_spd: eigenvalues 2, -1 and 3, -1; the negative ones become 0 */
    if (!host_launch_ok(project(&pa, nt))) return 2;
    double ws[2][4] = {{2, 0, 0, 0}, {1.5, 1.5, 1.5, 1.5}};
    for (int i = 0; i < 2; i++)
        for (int c = 0; c < 4; c++) near(qd_field_spd[i][c / 2][c % 2], ws[i][c], "spd", i * 4 + c);
    lifted_args la = {0};
    if (!host_launch_ok(lifted(&la, nt))) return 2;
    for (int i = 0; i < 4; i++)
        if (qd_field_lf[i] != 2 * i + 1) printf("lf[%d] = %d, want %d\n", i, (int)qd_field_lf[i], 2 * i + 1), bad++;
    enums_args ea = {.kind = 7}; /* IntEnum / IntFlag members, auto() included */
    if (!host_launch_ok(enums(&ea, nt))) return 2;
    int we[6] = {1, 8, 17, 1, -3, 2};
    for (int i = 0; i < 6; i++)
        if (qd_field_ek[i] != we[i]) printf("ek[%d] = %d, want %d\n", i, (int)qd_field_ek[i], we[i]), bad++;
    rescale_args ra = {0};
    if (!host_launch_ok(rescale(&ra, nt))) return 2;
    for (int i = 0; i < 4; i++)
        if (qd_field_rb[i / 2][i % 2] != 9) printf("rb[%d] = %d, want 9\n", i, (int)qd_field_rb[i / 2][i % 2]), bad++;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            int w = i % 3 == 0 && j % 3 == 0 ? i * 10 + j + 1 : 0;
            if (qd_field_ra[i][j] != w) printf("ra[%d, %d] = %d, want %d\n", i, j, (int)qd_field_ra[i][j], w), bad++;
        }
    printf("glsl: %d wrong\n", bad);
    return bad != 0;
}
