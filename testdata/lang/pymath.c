/* Host for testdata/lang/pymath.py: every value recomputed in double, compared within f32 rounding. */
#include "pymath.h"
#include "common.h"
#include <math.h>

static int bad;

static void near(double got, double want, const char *what) {
    if (fabs(got - want) > 2e-6 * (1 + fabs(want))) printf("%s: got %.9g, want %.9g\n", what, got, want), bad++;
}

/* Quadrants' rot_yaw_pitch_roll: about Y (yaw), then X (pitch), then Z (roll). */
static void ypr(double h, double p, double b, double m[16]) {
    double ch = cos(h), sh = sin(h), cp = cos(p), sp = sin(p), cb = cos(b), sb = sin(b);
    double r[16] = {ch * cb + sh * sp * sb, sb * cp, -sh * cb + ch * sp * sb, 0, -ch * sb + sh * sp * cb, cb * cp,
                    sb * sh + ch * sp * cb, 0, sh * cp, -sp, ch * cp, 0, 0, 0, 0, 1};
    for (int k = 0; k < 16; k++) m[k] = r[k];
}

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv);
    double a = 0.3, b = -1.1, c = 2.0;
    qd_field_angles[0] = (float)a, qd_field_angles[1] = (float)b, qd_field_angles[2] = (float)c;
    a = qd_field_angles[0], b = qd_field_angles[1], c = qd_field_angles[2];
    fill_args args = {0};
    if (!host_launch_ok(fill(&args, nt))) return 2;
    const double pi = 3.14159265358979323846;
    double want[9] = {sqrt(2.0) * pi, 2 * pi + exp(1.0), 1, atan2(1, 2) + 5, 3 + 3, pi - 180 / pi, 2, 1.5 - 3, 9};
    for (int i = 0; i < 9; i++) near(qd_field_consts[i], want[i], "consts");
    double m[5][16] = {{1, 0, 0, a, 0, 1, 0, b, 0, 0, 1, c, 0, 0, 0, 1}, {a, 0, 0, 0, 0, b, 0, 0, 0, 0, c, 0, 0, 0, 0, 1}};
    ypr(a, b, c, m[2]);
    ypr(c, a, b, m[3]);
    double ax[3] = {1 / 3.0, 2 / 3.0, 2 / 3.0}, co = cos(a), si = sin(a); /* Rodrigues, Quadrants' orientation */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double v = (1 - co) * ax[i] * ax[j];
            if (i == j) v += co;
            else v += (j == (i + 1) % 3 ? 1 : -1) * si * ax[3 - i - j];
            m[4][i * 4 + j] = v;
        }
    for (int k = 0; k < 3; k++) m[4][k * 4 + 3] = m[4][12 + k] = 0;
    m[4][15] = 1;
    for (int t = 0; t < 5; t++)
        for (int k = 0; k < 16; k++) near(qd_field_mats[t][k / 4][k % 4], m[t][k], "mats");
    double r2[4] = {cos(pi / 6), -sin(pi / 6), sin(pi / 6), cos(pi / 6)};
    for (int k = 0; k < 4; k++) near(qd_field_rot2[k / 2][k % 2], r2[k], "rotation2d");
    printf("pymath: %d wrong\n", bad);
    return bad != 0;
}
