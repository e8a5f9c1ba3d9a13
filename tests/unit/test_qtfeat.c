/* Constructs of Quadrants' test kernels that qdc refused or mis-typed (issue 30, round 4), each
 * run on x86 on several threads with exact results: qd.math's vector aliases under qd.init's
 * default_fp / default_ip. */
#include "../../support/util.h"
#include "harness.h"
#include "test_x86.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs text (a kernel k(o: ndarray(i64, 1)) of n outputs) on 1, 3 and 8 threads and compares
 * every output with want. */
static void run_k(const char *text, const int64_t *want, int n) {
    char host[1024];
    snprintf(host, sizeof host,
             "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
             "int main(int argc, char **argv) {\n    (void)argc;\n    static int64_t o[%d];\n"
             "    k_args a = {o, {%d}};\n    if (k(&a, atoi(argv[1])) != 0) return 2;\n"
             "    for (int i = 0; i < %d; i++) printf(\"%%lld\\n\", (long long)o[i]);\n    return 0;\n}\n",
             n, n, n);
    const char *threads[] = {"1", "3", "8"};
    char *dir = make_temp_dir();
    for (int t = 0; t < 3; t++) {
        int64_t got[64];
        memset(got, 0x55, sizeof got);
        x86_run_ints(dir, "k.py", text, host, threads[t], got, n);
        for (int i = 0; i < n; i++) cr_expect_eq(got[i], want[i], "%s threads, o[%d]: got %lld, want %lld", threads[t], i, (long long)got[i], (long long)want[i]);
    }
    remove_tree(dir);
    free(dir);
}

/* qd.math.vec3 / ivec2 / uvec2 are default_fp, default_ip and its unsigned type as qd.init sets
 * them (Quadrants builds them from a reference to the default config's field): with i64, an
 * uvec2 holds 2**63 - 1 - i whole and `ray.id.y == N` is true (test_math_module.py's
 * test_vector_types_f64, which qdc refused with QD2173 because it folded a u32 copy); with f64,
 * 0.1 * 1e17 is 1e16 exactly, not f32's 10000000149011612. */
Test(qtfeat, math_vector_aliases_follow_qd_init, .timeout = 120) {
    if (!x86_have_runtime()) return;
    static const char src[] = "import quadrants as qd\n\nqd.init(default_fp=qd.f64, default_ip=qd.i64)\n\n\n"
                              "@qd.dataclass\nclass Ray:\n    pos: qd.math.vec3\n    id: qd.math.uvec2\n    ij: qd.math.ivec2\n\n\n"
                              "@qd.kernel\ndef k(o: qd.types.ndarray(qd.i64, ndim=1)):\n"
                              "    for i in range(4):\n"
                              "        N = qd.u64(2**63 - 1) - qd.u64(i)\n"
                              "        ray = Ray(qd.math.vec3(0.1), id=qd.math.uvec2(N), ij=qd.math.ivec2(-(2**40) - i))\n"
                              "        o[i] = qd.i64(ray.id.x)\n"
                              "        o[4 + i] = qd.i64(ray.pos.x * 1e17)\n"
                              "        o[8 + i] = ray.ij.y\n"
                              "        o[12 + i] = qd.i64(ray.id.y == N)\n";
    int64_t want[16];
    for (int i = 0; i < 4; i++)
        want[i] = INT64_MAX - i, want[4 + i] = 10000000000000000LL, want[8 + i] = -(INT64_C(1) << 40) - i, want[12 + i] = 1;
    run_k(src, want, 16);
}
