/* Constructs of Quadrants' test kernels that qdc refused or mis-typed (issue 30, round 4), each
 * run on x86 on several threads with exact results: qd.math's vector aliases under qd.init's
 * default_fp / default_ip; qd.algorithms' composable functions and sizing helpers. */
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
    cr_assert(n <= 512);
    snprintf(host, sizeof host,
             "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
             "int main(int argc, char **argv) {\n    (void)argc;\n    static int64_t o[%d];\n"
             "    k_args a = {o, {%d}};\n    if (k(&a, atoi(argv[1])) != 0) return 2;\n"
             "    for (int i = 0; i < %d; i++) printf(\"%%lld\\n\", (long long)o[i]);\n    return 0;\n}\n",
             n, n, n);
    const char *threads[] = {"1", "3", "8"};
    char *dir = make_temp_dir();
    for (int t = 0; t < 3; t++) {
        static int64_t got[512];
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

/* qd.algorithms at the top level of a kernel (test_algorithms.py's *_composition tests), each on
 * a count read from a field: reduce_add/min/max (min over 0 elements: the identity INT32_MAX),
 * exclusive_scan_add, select, sort of f32 keys with u32 values (stable: equal keys keep their
 * order) and reduce_by_key_add over the sorted keys; scratch sized by the *_scratch_slots helpers
 * and the depth by _reduce_depth_for_n, imported as the tests import them. */
enum { AN = 40 };
Test(qtfeat, algorithms_compose_in_a_kernel, .timeout = 120) {
    if (!x86_have_runtime()) return;
    static const char src[] =
        "import quadrants as qd\n"
        "from quadrants.algorithms._reduce import _reduce_depth_for_n\n\n"
        "N = 40\n"
        "D = _reduce_depth_for_n(N)\n"
        "arr = qd.field(qd.i32, shape=N)\n"
        "out = qd.field(qd.i32, shape=N)\n"
        "r_add = qd.field(qd.i32, shape=1)\n"
        "r_min = qd.field(qd.i32, shape=1)\n"
        "r_max = qd.field(qd.i32, shape=1)\n"
        "r_none = qd.field(qd.i32, shape=1)\n"
        "flags = qd.field(qd.i32, shape=N)\n"
        "sel = qd.field(qd.i32, shape=N)\n"
        "nsel = qd.field(qd.i32, shape=1)\n"
        "keys = qd.field(qd.f32, shape=N)\n"
        "tk = qd.field(qd.f32, shape=N)\n"
        "vals = qd.field(qd.u32, shape=N)\n"
        "tv = qd.field(qd.u32, shape=N)\n"
        "rk = qd.field(qd.f32, shape=N)\n"
        "rv = qd.field(qd.u32, shape=N)\n"
        "nruns = qd.field(qd.i32, shape=1)\n"
        "count = qd.field(qd.i32, shape=2)\n"
        "n0 = qd.field(qd.i32, shape=())\n"
        "scratch = qd.field(qd.u32, shape=qd.algorithms.sort_scratch_slots(N) + qd.algorithms.reduce_scratch_slots(N, D)\n"
        "                   + qd.algorithms.exclusive_scan_scratch_slots(N) + qd.algorithms.select_scratch_slots(N)\n"
        "                   + qd.algorithms.reduce_by_key_scratch_slots(N))\n\n\n"
        "@qd.kernel\n"
        "def k(o: qd.types.ndarray(qd.i64, ndim=1)):\n"
        "    for i in range(N):\n"
        "        arr[i] = (i * 37) % 101 - 50\n"
        "        keys[i] = qd.f32((i * 53) % 17) - 8.5\n"
        "        vals[i] = qd.u32(i)\n"
        "        flags[i] = qd.i32(i % 3 == 0)\n"
        "    count[0] = N\n"
        "    n0[()] = N\n"
        "    qd.algorithms.reduce_add(arr, r_add, scratch, count[0], qd.i32, D)\n"
        "    qd.algorithms.reduce_min(arr, r_min, scratch, count[0], qd.i32, D)\n"
        "    qd.algorithms.reduce_max(arr, r_max, scratch, count[0], qd.i32, D)\n"
        "    qd.algorithms.reduce_min(arr, r_none, scratch, count[1], qd.i32, D)\n"
        "    qd.algorithms.exclusive_scan_add(arr, out, scratch, count[0], qd.i32, D)\n"
        "    qd.algorithms.select(arr, flags, sel, nsel, scratch, count[0], D)\n"
        "    qd.algorithms.sort(keys, tk, vals, tv, scratch, n0, qd.f32, True, 32, D)\n"
        "    qd.algorithms.reduce_by_key_add(keys, vals, rk, rv, nruns, scratch, count[0], qd.u32, D)\n"
        "    for i in range(N):\n"
        "        o[4 + i] = out[i]\n"
        "        o[5 + N + i] = sel[i]\n"
        "        o[5 + 2 * N + i] = qd.i64(keys[i] * 2)\n"
        "        o[5 + 3 * N + i] = vals[i]\n"
        "        o[6 + 4 * N + i] = rv[i]\n"
        "        o[6 + 5 * N + i] = qd.i64(rk[i] * 2)\n"
        "    o[0] = r_add[0]\n"
        "    o[1] = r_min[0]\n"
        "    o[2] = r_max[0]\n"
        "    o[3] = r_none[0]\n"
        "    o[4 + N] = nsel[0]\n"
        "    o[5 + 4 * N] = nruns[0]\n";
    enum { NOUT = 6 + 6 * AN };
    static int64_t want[NOUT];
    int64_t a[AN], key2[AN], sum = 0, mn = INT64_MAX, mx = INT64_MIN;
    int idx[AN], ns = 0;
    for (int i = 0; i < AN; i++) a[i] = (i * 37) % 101 - 50, key2[i] = 2 * ((i * 53) % 17) - 17, idx[i] = i;
    for (int i = 0; i < AN; i++) {
        want[4 + i] = sum;
        sum += a[i], mn = a[i] < mn ? a[i] : mn, mx = a[i] > mx ? a[i] : mx;
        if (i % 3 == 0) want[5 + AN + ns++] = a[i];
    }
    want[0] = sum, want[1] = mn, want[2] = mx, want[3] = INT32_MAX, want[4 + AN] = ns;
    for (int i = 1; i < AN; i++) /* a stable insertion sort of the indexes by key */
        for (int j = i; j > 0 && key2[idx[j - 1]] > key2[idx[j]]; j--) {
            int t = idx[j];
            idx[j] = idx[j - 1], idx[j - 1] = t;
        }
    int runs = 0;
    for (int i = 0; i < AN; i++) {
        want[5 + 2 * AN + i] = key2[idx[i]], want[5 + 3 * AN + i] = idx[i];
        if (i == 0 || key2[idx[i]] != key2[idx[i - 1]]) want[6 + 5 * AN + runs] = key2[idx[i]], runs++;
        want[6 + 4 * AN + runs - 1] += idx[i];
    }
    want[5 + 4 * AN] = runs;
    run_k(src, want, NOUT);
}

/* `if d is None: d = 1` in a host helper given d = 2: a number is not None, so the branch is not
 * taken and d keeps its value (qdc took `d is None` for an identity test it could not decide,
 * and every name the branch sets became a run-time value: reduce_scratch_slots(N, D) failed). */
Test(qtfeat, is_none_on_a_number_in_a_helper, .timeout = 120) {
    if (!x86_have_runtime()) return;
    static const char src[] = "import quadrants as qd\n\n\n"
                              "def f(n, d=None):\n    if d is None:\n        d = 1\n    c = 0\n    for _ in range(d):\n        c = c + n\n    return c\n\n\n"
                              "A = f(3, 2)\nB = f(3)\nC = f(3, 0)\n\n\n"
                              "@qd.kernel\ndef k(o: qd.types.ndarray(qd.i64, ndim=1)):\n"
                              "    for i in range(1):\n        o[i] = A\n        o[i + 1] = B\n        o[i + 2] = C\n";
    static const int64_t want[3] = {6, 3, 0};
    run_k(src, want, 3);
}

/* quadrants.lang.util.to_numpy_type in host code (test_algorithms.py's `val_np =
 * to_numpy_type(val_dtype)` at module level, then numpy arrays of that dtype): the numpy dtype of
 * qd.f64, so the generic kernel is instantiated for an f64 array as k__f64_1d (the host reads
 * doubles: i / 3 to 17 digits). */
Test(qtfeat, to_numpy_type_in_host_code, .timeout = 120) {
    if (!x86_have_runtime()) return;
    static const char src[] = "import numpy as np\n\nimport quadrants as qd\nfrom quadrants.lang.util import to_numpy_type\n\n"
                              "np_t = to_numpy_type(qd.f64)\n\n\n"
                              "@qd.kernel\ndef k(x: qd.types.ndarray()):\n    for i in x:\n        x[i] = qd.f64(i) / qd.f64(3.0)\n\n\n"
                              "k(np.zeros(4, dtype=np_t))\n";
    static const char host[] = "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
                               "int main(int argc, char **argv) {\n    (void)argc;\n    static double x[4];\n"
                               "    k__f64_1d_args a = {x, {4}};\n    if (k__f64_1d(&a, atoi(argv[1])) != 0) return 2;\n"
                               "    for (int i = 0; i < 4; i++) printf(\"%lld\\n\", (long long)(x[i] * 1e17));\n    return 0;\n}\n";
    const char *threads[] = {"1", "3"};
    char *dir = make_temp_dir();
    for (int t = 0; t < 2; t++) {
        int64_t got[4];
        x86_run_ints(dir, "k.py", src, host, threads[t], got, 4);
        const int64_t want[4] = {0, 33333333333333332LL, 66666666666666664LL, 100000000000000000LL};
        for (int i = 0; i < 4; i++) cr_expect_eq(got[i], want[i], "%s threads, x[%d]: got %lld, want %lld", threads[t], i, (long long)got[i], (long long)want[i]);
    }
    remove_tree(dir);
    free(dir);
}
