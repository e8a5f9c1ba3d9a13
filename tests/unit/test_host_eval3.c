/* Host code qdc follows to the kernels it compiles (issue 30, third round): a field made by a
 * host expression — a lambda that returns qd.field(...) or qd.Vector.field(...), a list
 * comprehension of fields — is a field as in Python (Quadrants allows one anywhere before the
 * fields are materialized), named after the assignment that makes it; a field a host list holds
 * (grid[1]) and a constant qd.Vector are values a qd.template() parameter takes; a data-oriented
 * instance's plain method runs at each call obj.m(args) (its kernel calls instantiate); a pytest
 * fixture that asks for a test parameter the script binds after it is evaluated with it. */
#include "harness.h"
#include "support/util.h"
#include "test_x86.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char host3[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    fill_args f = {0};\n"
    "    layer__0_args l0 = {0};\n"
    "    layer__1_args l1 = {0};\n"
    "    weigh__w__grid__def2_args w = {0};\n"
    "    if (fill(&f, nt) || layer__0(&l0, nt) || layer__1(&l1, nt) || weigh__w__grid__def2(&w, nt)) return 2;\n"
    "    for (int i = 0; i < 8; i++) printf(\"%d,%d,%d \", *qd_field_s_at(i), *qd_field_v_0_at(i), *qd_field_v_1_at(i));\n"
    "    printf(\"\\n\");\n"
    "    for (int i = 0; i < 8; i++) printf(\"%d \", qd_field_grid[i]);\n"
    "    printf(\"\\n\");\n"
    "    for (int i = 0; i < 8; i++) printf(\"%d \", qd_field_grid__def2[i]);\n"
    "    printf(\"\\n\");\n"
    "    obj__combine__obj__c__inner_args c = {0};\n"
    "    bump__t_args b = {0};\n"
    "    twice__t_args t = {0};\n"
    "    for (int n = 0; n < 2; n++)\n"
    "        if (obj__combine__obj__c__inner(&c, nt)) return 2;\n"
    "    if (bump__t(&b, nt) || twice__t(&t, nt)) return 2;\n"
    "    hook__solver__val_args h = {0};\n"
    "    st__fill_z_args z = {0};\n"
    "    tree__grow_args g = {.m = 3};\n"
    "    if (hook__solver__val(&h, nt) || st__fill_z(&z, nt) || tree__grow(&g, nt)) return 2;\n"
    "    for (int i = 0; i < 4; i++)\n"
    "        printf(\"%d,%d,%d,%d,%d \", qd_field_obj__inner__a[i], qd_field_obj__c[i], qd_field_t[i], qd_field_solver__val[i], qd_field_z[i]);\n"
    "    printf(\"\\n%d\\n\", qd_field_tree__leaf__x[0]);\n"
    "    return 0;\n}\n";

/* testdata/host-eval/host_eval3.py on 1, 2 and 4 threads: s = scalar() and v = vec() (lambdas)
 * placed together: s[i] = 3i, v[i] = (i, -i); grid = [qd.field(...) for _ in range(2)], each
 * placed by a host loop: layer(l) writes grid[l][i] = s[i] + v[i][1] + 100 l = 2i + 100 l;
 * weigh(w, grid[1]) adds w[0] w[1] + w[2] i = 10 + 7i with w = qd.Vector([2, 5, 7]); obj.run(2)
 * launches combine twice through step (the host runs it twice): inner.a[i] = 2(i + 1), c[i] =
 * 10 inner.a[i]; bump(t) and twice(t) (parameters annotated by fixtures of use_template = True:
 * qd.template()) make t[i] = 2(i + 1); solver.run_hook() calls the kernel the instance keeps
 * (self.hook = hook) on its field: val[i] = 7i; st.fill_z() (a @staticmethod kernel) z[i] = 3 - i;
 * tree.grow(3) adds 3 six times to the field of the Leaf that tree.init() made: 18. */
Test(host_eval3, fields_made_by_lambdas_and_comprehensions_run_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads("testdata/host-eval/host_eval3.py", host3,
                          "0,0,0 3,1,-1 6,2,-2 9,3,-3 12,4,-4 15,5,-5 18,6,-6 21,7,-7 \n"
                          "0 2 4 6 8 10 12 14 \n"
                          "110 119 128 137 146 155 164 173 \n"
                          "2,20,2,0,3 4,40,4,7,2 6,60,6,14,1 8,80,8,21,0 \n"
                          "18\n");
}

/* The kernels the host calls instantiate, exactly (--stats): one per template value. */
Test(host_eval3, entries_are_the_calls_python_makes) {
    char *path = root_path("testdata/host-eval/host_eval3.py");
    RunResult r = run_qdc("--target=x86_64", "--check", "--stats", path, NULL);
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_expect_str_eq(r.out, "host_eval3: 10 kernels (fill, layer__0, layer__1, weigh__w__grid__def2, obj__combine__obj__c__inner, bump__t, "
                            "twice__t, hook__solver__val, st__fill_z, tree__grow), 10 tasks, 4 atomics, 0 volatile loads, 0 fences\n");
    run_free(&r);
    free(path);
}

/* Inside a kernel a field is still not made: Quadrants declares fields in Python scope only. */
Test(host_eval3, field_in_a_kernel_is_refused) {
    expect_py_refused("k.py",
                      "import quadrants as qd\n"
                      "@qd.kernel\n"
                      "def k():\n"
                      "    a = qd.field(qd.f32, shape=4)\n"
                      "k()\n",
                      "k.py:4:9: error[QD2004]: qd.field can only be declared at module level\n"
                      " 4 |     a = qd.field(qd.f32, shape=4)\n"
                      "   |         ^~~~~~~~~~~~~~~~~~~~~~~~~\n");
}

/* qd.lang.impl.get_runtime().prog.config() is the compile's configuration, as current_cfg():
 * its arch picks the field's dtype per target (x86_64: x64, i64; vulkan1.3: vulkan, i32). */
Test(host_eval3, runtime_prog_config_is_the_compile_config) {
    static const char src[] = "import quadrants as qd\n"
                              "arch = qd.lang.impl.get_runtime().prog.config().arch\n"
                              "dtype = qd.i64 if arch in (qd.x64, qd.arm64) else qd.i32\n"
                              "a = qd.field(dtype=dtype, shape=4)\n\n"
                              "@qd.kernel\ndef k():\n    for i in a:\n        a[i] = i\n\nk()\n";
    static const struct { const char *target, *want; } cases[] = {
        {"--target=x86_64", "{\"name\": \"a\", \"symbol\": \"qd_field_a\", \"dtype\": \"i64\", \"shape\": [4]}"},
        {"--target=vulkan1.3", "{\"name\": \"a\", \"dtype\": \"i32\", \"shape\": [4], \"set\": 1, \"binding\": 0}"},
    };
    for (size_t c = 0; c < ARRAY_LEN(cases); c++) {
        char *dir = NULL;
        RunResult r = qdc_in_temp("a.py", src, cases[c].target, "--emit=metadata", &dir);
        char *out = xasprintf("%s/out", dir), *meta = read_text(out, NULL);
        cr_expect_eq(r.status, 0, "%s: exit %d: %s", cases[c].target, r.status, r.err);
        cr_expect(meta && strstr(meta, cases[c].want), "%s: no %s in:\n%s", cases[c].target, cases[c].want, meta ? meta : "(none)");
        free(out), free(meta);
        run_free(&r);
        remove_tree(dir);
        free(dir);
    }
}

/* obj.x = qd.ndarray(...) of a data-oriented instance after its creation: the kernel takes its
 * ndarray as an argument, so the new array is no compile-time value it needs (a field or an
 * instance set so is: tree.init() above). */
Test(host_eval3, data_oriented_ndarray_reassigned_compiles) {
    char *dir = NULL;
    RunResult r = qdc_in_temp("re.py",
                              "import quadrants as qd\n\n@qd.data_oriented\nclass S:\n    def __init__(self):\n"
                              "        self.x = qd.ndarray(qd.f32, shape=(4,))\n\n@qd.kernel\ndef run(s: qd.template()):\n"
                              "    for i in s.x:\n        s.x[i] = 1.0\n\nst = S()\nrun(st)\nst.x = qd.ndarray(qd.f32, shape=(8,))\nrun(st)\n",
                              "--check", "--stats", &dir);
    cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_expect_str_eq(r.out, "re: 1 kernel (run__st), 1 task, 0 atomics, 0 volatile loads, 0 fences\n");
    run_free(&r);
    remove_tree(dir);
    free(dir);
}
