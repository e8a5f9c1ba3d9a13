/* qd.simt tiles (sema_tile.c, qdc-lang(7) "SIMT tiles"): testdata/simt-tile/tile.py run on x86 on
 * 1, 2 and 4 threads with results checked exactly against values the host computes in C (an
 * integer Cholesky factor and triangular solve, eye() - outer product, loads and stores clamped
 * to the array with partial rows and columns, a 32x32 tile stored into one batch of a 3-D array);
 * the tile type comes from a pytest fixture holding a types.SimpleNamespace with
 * functools.partial(_make_tile, 16). The Tile16x16 proxy on a CPU target (Quadrants' error),
 * solve_triangular_(lower=False), and one tile kernel compiled for every family. */
#include "harness.h"
#include "test_x86.h"
#include "vk_exec.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char tile_host[] =
    "#include \"d.h\"\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "static float M[16][16], V[2][16][4], O[16][16], A[16][16], B[16][16], L[16][16], X[16][16], Lk[16][16], Xk[16][16], G[16][16], S[20][20], D[12][16], E[2][32][32];\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]), bad = 0;\n"
    "    for (int i = 0; i < 16; i++)\n"
    "        for (int j = 0; j < 16; j++) {\n"
    "            L[i][j] = j < i ? (float)((i * 7 + j * 3) % 3 - 1) : j == i ? (float)(1 + i % 2) : 0.0f;\n"
    "            X[i][j] = (float)((i * 5 + j * 11) % 7 - 3);\n"
    "        }\n"
    "    for (int i = 0; i < 16; i++)\n"
    "        for (int j = 0; j < 16; j++) {\n"
    "            float a = 0, b = 0;\n"
    "            for (int k = 0; k < 16; k++) a += L[i][k] * L[j][k], b += X[i][k] * L[j][k];\n"
    "            A[i][j] = a, B[i][j] = b;\n"
    "        }\n"
    "    chol_args c = {.a = &A[0][0], .a_shape = {16, 16}, .b = &B[0][0], .b_shape = {16, 16}, .l = &Lk[0][0], .l_shape = {16, 16},\n"
    "                   .x = &Xk[0][0], .x_shape = {16, 16}};\n"
    "    if (chol(&c, nt)) return 2;\n"
    "    for (int i = 0; i < 16; i++)\n"
    "        for (int j = 0; j < 16; j++) bad += Lk[i][j] != (j <= i ? L[i][j] : A[i][j]), bad += Xk[i][j] != X[i][j];\n"
    "    printf(\"chol+trsm mismatches %d, L[15][14] %g, X[15][0] %g\\n\", bad, Lk[15][14], Xk[15][0]);\n"
    "    ger_args g = {.out = &G[0][0], .out_shape = {16, 16}};\n"
    "    if (ger(&g, nt)) return 2;\n"
    "    bad = 0;\n"
    "    for (int i = 0; i < 16; i++)\n"
    "        for (int j = 0; j < 16; j++) bad += G[i][j] != (float)(i == j) - (float)(i + 1) * (float)(2 * j);\n"
    "    printf(\"ger mismatches %d, G[3][5] %g\\n\", bad, G[3][5]);\n"
    "    for (int i = 0; i < 20; i++)\n"
    "        for (int j = 0; j < 20; j++) S[i][j] = (float)(100 * i + j);\n"
    "    for (int i = 0; i < 12; i++)\n"
    "        for (int j = 0; j < 16; j++) D[i][j] = -1;\n"
    "    part_args p = {.src = &S[0][0], .src_shape = {20, 20}, .dst = &D[0][0], .dst_shape = {12, 16}};\n"
    "    if (part(&p, nt)) return 2;\n"
    "    bad = 0; /* tile row r = S[3 + r][2 .. 17] (rows past 19 stay 0), stored at D[1 + r][4 + c] for r < 8, c < 10 */\n"
    "    for (int i = 0; i < 12; i++)\n"
    "        for (int j = 0; j < 16; j++) {\n"
    "            int r = i - 1, col = j - 4;\n"
    "            float want = r >= 0 && r < 8 && col >= 0 && col < 10 ? S[3 + r][2 + col] : -1.0f;\n"
    "            bad += D[i][j] != want;\n"
    "        }\n"
    "    printf(\"partial mismatches %d, D[1][4] %g, D[8][13] %g, D[9][4] %g\\n\", bad, D[1][4], D[8][13], D[9][4]);\n"
    "    for (int b = 0; b < 2; b++)\n"
    "        for (int i = 0; i < 32; i++)\n"
    "            for (int j = 0; j < 32; j++) E[b][i][j] = 7;\n"
    "    batch_args e = {.dst = &E[0][0][0], .dst_shape = {2, 32, 32}};\n"
    "    if (batch(&e, nt)) return 2;\n"
    "    bad = 0;\n"
    "    for (int b = 0; b < 2; b++)\n"
    "        for (int i = 0; i < 32; i++)\n"
    "            for (int j = 0; j < 32; j++) bad += E[b][i][j] != (b == 0 ? 7.0f : (float)(i == j));\n"
    "    printf(\"batch mismatches %d\\n\", bad);\n"
    "    for (int i = 0; i < 16; i++)\n"
    "        for (int j = 0; j < 16; j++) M[i][j] = (float)((i * 3 + j) % 5);\n"
    "    for (int b = 0; b < 2; b++)\n"
    "        for (int r = 0; r < 16; r++)\n"
    "            for (int c = 0; c < 4; c++) V[b][r][c] = (float)(b * 100 + r * 10 + c);\n"
    "    sliced_args sl = {.m = &M[0][0], .m_shape = {16, 16}, .v = &V[0][0][0], .v_shape = {2, 16, 4}, .out = &O[0][0], .out_shape = {16, 16}};\n"
    "    if (sliced(&sl, nt)) return 2;\n"
    "    bad = 0; /* M - col col^T - lane M[:, 3]^T, col[i] = V[1][4 + i][2] for i < 8, else 0 */\n"
    "    for (int i = 0; i < 16; i++)\n"
    "        for (int j = 0; j < 16; j++) {\n"
    "            float ci = i < 8 ? V[1][4 + i][2] : 0.0f, cj = j < 8 ? V[1][4 + j][2] : 0.0f;\n"
    "            bad += O[i][j] != M[i][j] - ci * cj - (float)i * M[j][3];\n"
    "        }\n"
    "    printf(\"sliced mismatches %d, O[2][5] %g\\n\", bad, O[2][5]);\n"
    "    shared_args sh = {.m = &M[0][0], .m_shape = {16, 16}, .out = &O[0][0], .out_shape = {16, 16}};\n"
    "    if (shared(&sh, nt)) return 2;\n"
    "    bad = 0; /* rows 2..15, columns 0..7 of 2 M; the rest 0 */\n"
    "    for (int i = 0; i < 16; i++)\n"
    "        for (int j = 0; j < 16; j++) bad += O[i][j] != (i < 14 && j < 8 ? 2.0f * M[2 + i][j] : 0.0f);\n"
    "    printf(\"shared mismatches %d, O[0][1] %g\\n\", bad, O[0][1]);\n"
    "    return 0;\n"
    "}\n"
;

Test(simt_tile, kernels_run_on_x86_exactly, .timeout = 180) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads("testdata/simt-tile/tile.py", tile_host,
                          "chol+trsm mismatches 0, L[15][14] -1, X[15][0] 2\n"
                          "ger mismatches 0, G[3][5] -40\n"
                          "partial mismatches 0, D[1][4] 302, D[8][13] 1011, D[9][4] -1\n"
                          "batch mismatches 0\n"
                          "sliced mismatches 0, O[2][5] -31109\n"
                          "shared mismatches 0, O[0][1] 4\n");
}

#define PROXY_KERNEL                                                                                  \
    "import quadrants as qd\n\n\n@qd.kernel\ndef k(dst: qd.types.NDArray[qd.f32, 2]):\n"              \
    "    qd.loop_config(block_dim=16)\n    for _ in range(16):\n"                                       \
    "        t = qd.simt.Tile16x16.eye(dtype=qd.f32)\n        t._store(dst, 0, 16, 0, 16)\n"

/* Quadrants' proxies refuse a CPU arch when the kernel compiles. */
Test(simt_tile, proxy_refused_on_cpu) {
    expect_py_refused("g.py", PROXY_KERNEL,
                      "g.py:8:13: error[QD2075]: Tile16x16 requires a GPU backend (cuda, metal, vulkan, amdgpu). Current arch is x64.\n"
                      " 8 |         t = qd.simt.Tile16x16.eye(dtype=qd.f32)\n"
                      "   |             ^~~~~~~~~~~~~~~~~~~~~\n");
}

/* The same kernel compiles for each GPU family (the proxy resolves f32 there). */
Test(simt_tile, proxy_kernel_compiles_for_every_gpu_family, .timeout = 120) {
    static const char *const fams[] = {"sm_90", "gfx942", "vulkan1.3", "apple9"};
    for (size_t k = 0; k < sizeof fams / sizeof fams[0]; k++) {
        char *dir = NULL;
        char target[64];
        snprintf(target, sizeof target, "--target=%s", fams[k]);
        RunResult r = qdc_in_temp("g.py", PROXY_KERNEL, target, NULL, &dir);
        cr_expect_eq(r.status, 0, "%s: status %d\n%s", fams[k], r.status, r.err);
        cr_expect_str_eq(r.err, "", "%s", fams[k]);
        run_free(&r);
        remove_tree(dir);
        free(dir);
    }
}

/* A tile loaded from and stored to a field narrower than the tile: the library's load and store
 * test each column against the field's shape at run time, so their constant indices past column
 * 9 are dead code and no QD2111 comes from qdc's own text (it used to print six per access). */
Test(simt_tile, narrow_field_no_library_warnings, .timeout = 120) {
    static const char src[] = "import quadrants as qd\n\nqd.init(arch=qd.gpu)\n"
                              "narrow = qd.field(dtype=qd.f32, shape=(16, 10))\n"
                              "out = qd.field(dtype=qd.f32, shape=(16, 16))\n\n\n@qd.kernel\ndef k():\n"
                              "    qd.loop_config(block_dim=16)\n    for _ in range(16):\n"
                              "        t = qd.simt.Tile16x16.zeros(dtype=qd.f32)\n"
                              "        t[:] = narrow[0:16, 0:10]\n        out[0:16, 0:10] = t\n\n\nk()\n";
    static const char *const fams[] = {"--target=sm_90", "--target=vulkan1.3"};
    for (size_t k = 0; k < sizeof fams / sizeof fams[0]; k++) {
        char *dir = NULL;
        RunResult r = qdc_in_temp("g.py", src, fams[k], NULL, &dir);
        cr_expect_eq(r.status, 0, "%s: status %d\n%s", fams[k], r.status, r.err);
        cr_expect_str_eq(r.err, "", "%s", fams[k]);
        run_free(&r);
        remove_tree(dir);
        free(dir);
    }
}

/* lower=False: Quadrants' message, at the argument. */
Test(simt_tile, solve_triangular_upper_refused) {
    expect_py_refused("g.py",
                      "import quadrants as qd\nfrom quadrants.lang.simt._tile import _make_tile\n\nT = _make_tile(16, qd.f32)\n\n\n"
                      "@qd.kernel\ndef k():\n    for _ in range(16):\n        a = T()\n        b = T()\n"
                      "        a.solve_triangular_(b, lower=False)\n",
                      "g.py:12:38: error[QD2075]: Tile16x16.solve_triangular_: only lower=True is supported\n"
                      " 12 |         a.solve_triangular_(b, lower=False)\n"
                      "    |                                      ^~~~~\n");
}

/* An 8x8 tile (the factory takes any size; lavapipe's subgroups have 8 lanes, fewer than a
 * Tile16x16 needs) on the Vulkan device: slice load, Cholesky, triangular solve, an outer
 * product with a column proxy, slice store; exact against the integer factors computed here. */
#define VK_TILE                                                                                            \
    "import quadrants as qd\nfrom quadrants.lang.simt._tile import _make_tile\n\nT8 = _make_tile(8, qd.f32)\n\n\n"  \
    "@qd.kernel\n"                                                                                         \
    "def vk(a: qd.types.NDArray[qd.f32, 2], b: qd.types.NDArray[qd.f32, 2], l: qd.types.NDArray[qd.f32, 2], " \
    "x: qd.types.NDArray[qd.f32, 2]):\n"                                                                   \
    "    qd.loop_config(block_dim=8)\n    for _ in range(8):\n        t = T8()\n        t[:] = a[0:8, 0:8]\n" \
    "        t.cholesky_(qd.f32(1e-6))\n        l[0:8, 0:8] = t\n        s = T8.zeros()\n"                  \
    "        s._load(b, 0, 8, 0, 8)\n        t.solve_triangular_(s)\n"                                     \
    "        lane = qd.simt.subgroup.invocation_id()\n        s -= qd.outer(qd.f32(lane), a[0:8, 0])\n"     \
    "        x[0:8, 0:8] = s\n"

Test(simt_tile, tile8_runs_on_vulkan_exactly, .timeout = 300) {
    char *dir = make_temp_dir(), *spv = NULL;
    char *meta = vk_compile(dir, "k", "vulkan1.3", VK_TILE, &spv);
    float L[8][8], X[8][8], A[8][8], B[8][8], Lk[8][8], Xk[8][8];
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            L[i][j] = j < i ? (float)((i * 7 + j * 3) % 3 - 1) : j == i ? (float)(1 + i % 2) : 0.0f;
            X[i][j] = (float)((i * 5 + j * 11) % 7 - 3);
            Lk[i][j] = Xk[i][j] = -7;
        }
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            float p = 0, q = 0;
            for (int k = 0; k < 8; k++) p += L[i][k] * L[j][k], q += X[i][k] * L[j][k];
            A[i][j] = p, B[i][j] = q;
        }
    VkArray arr[4] = {{A, sizeof A, 8}, {B, sizeof B, 8}, {Lk, sizeof Lk, 8}, {Xk, sizeof Xk, 8}};
    const char *kernels[] = {"vk"};
    char *err = NULL;
    int rc = vk_run(dir, spv, meta, kernels, 1, arr, 4, NULL, 8, VK_FULL, true, &err);
    cr_expect(rc >= 0, "vkrun: %s", err);
    if (rc > 0) {
        int bad = 0;
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 8; j++) {
                bad += Lk[i][j] != (j <= i ? L[i][j] : A[i][j]);
                bad += Xk[i][j] != X[i][j] - (float)i * A[j][0];
            }
        cr_expect_eq(bad, 0, "%d mismatches (L[7][6] %g, X[7][0] %g)", bad, Lk[7][6], Xk[7][0]);
    }
    free(err), free(meta), free(spv);
    remove_tree(dir);
    free(dir);
}

#define SLICE_KERNEL(BODY)                                                                                    \
    "import quadrants as qd\nfrom quadrants.lang.simt._tile import _make_tile\n\nT = _make_tile(16, qd.f32)\n\n\n" \
    "@qd.kernel\ndef k(s: qd.types.NDArray[qd.f32, 2], d: qd.types.NDArray[qd.f32, 2]):\n"                  \
    "    qd.loop_config(block_dim=16)\n    for _ in range(16):\n        t = T()\n" BODY

/* What Quadrants rejects in the slice syntax, with its messages. */
Test(simt_tile, slice_syntax_errors) {
    expect_py_refused("g.py", SLICE_KERNEL("        t[:] = s[:16, 0:16]\n"),
                      "g.py:12:18: error[QD2011]: Tile row slice: both start and stop indices are required\n"
                      " 12 |         t[:] = s[:16, 0:16]\n"
                      "    |                  ^~~\n");
    expect_py_refused("g.py", SLICE_KERNEL("        t[:] = s[0:16, 3:]\n"),
                      "g.py:12:24: error[QD2011]: Tile col slice: both start and stop indices are required\n"
                      " 12 |         t[:] = s[0:16, 3:]\n"
                      "    |                        ^~\n");
    expect_py_refused("g.py", SLICE_KERNEL("        t[:] = s[-1:16, 0:16]\n"),
                      "g.py:12:18: error[QD2171]: Negative indices are not supported in Quadrants kernels.\n"
                      " 12 |         t[:] = s[-1:16, 0:16]\n"
                      "    |                  ^~\n");
    expect_py_refused("g.py", SLICE_KERNEL("        t[:] = s[0, 1]\n"),
                      "g.py:12:16: error[QD2075]: Tile[:] can only be assigned from an array slice, got <class 'Expr'>\n"
                      " 12 |         t[:] = s[0, 1]\n"
                      "    |                ^~~~~~~\n");
    expect_py_refused("g.py", SLICE_KERNEL("        t = s[0:16, 0:16]\n        d[0:16, 0:16] = t\n"),
                      "g.py:13:25: error[QD2075]: an array slice (arr[r0:r1, c0:c1]) can only be assigned a tile, got <class '_TileSliceProxy'>\n"
                      " 13 |         d[0:16, 0:16] = t\n"
                      "    |                         ^\n");
    expect_py_refused("g.py", SLICE_KERNEL("        t += qd.outer(1.0, 2.0)\n"),
                      "g.py:12:11: error[QD2075]: Tile16x16: unsupported augmented assignment op 'Add' with outer product\n"
                      " 12 |         t += qd.outer(1.0, 2.0)\n"
                      "    |           ^~\n");
    expect_py_refused("g.py", SLICE_KERNEL("        t -= qd.f32(1.0)\n"),
                      "g.py:12:14: error[QD2075]: Tile16x16: unsupported augmented assignment with <class 'Expr'>\n"
                      " 12 |         t -= qd.f32(1.0)\n"
                      "    |              ^~~~~~~~~~~\n");
}

/* Another dataclass's method named solve_triangular_ is its own; updates of subscripted targets
 * and slices of a vector are not tile statements, in a module that has a tile type. */
Test(simt_tile, other_forms_unchanged_beside_tiles) {
    expect_py_compiles("g.py", "import quadrants as qd\nfrom quadrants.lang.simt._tile import _make_tile\n\nT = _make_tile(16, qd.f32)\n\n\n"
                               "@qd.dataclass\nclass P:\n    x: qd.f32\n\n    @qd.func\n    def solve_triangular_(self, b):\n"
                               "        self.x = b\n\n\n@qd.kernel\ndef k(a: qd.types.NDArray[qd.f32, 1]):\n    for i in range(4):\n"
                               "        p = P()\n        p.solve_triangular_(2.0)\n        a[i] += p.x\n"
                               "        v = qd.Vector([1.0, 2.0, 3.0])\n        a[i] += v[0:2].sum()\n");
}
