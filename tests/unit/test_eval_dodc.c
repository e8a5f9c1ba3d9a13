/* Data-oriented instances inside dataclasses, and dataclasses inside data-oriented instances
 * (frontend/py/sema_pydc.c, sema_class.c; issue 30's corpus): Quadrants walks both when the
 * outer value is a qd.template() argument, and refuses a data-oriented member of a parameter
 * annotated with the dataclass. testdata/eval-dodc/dodc.py runs on x86 with 1, 2 and 4 threads;
 * each value is the one Quadrants computes. Before, the first and third kernels were QD2005 at
 * the member's annotation, the second QD2062 at `self.arrs.y`, the fourth QD2008 at the
 * comprehension's qd.ndarray (and QD2019 at `big._qd_dc_unwrapped`). */
#include "harness.h"
#include "test_x86.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char dodc_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    static int32_t x[64], y[64], a[64], b[64], c[64];\n"
    "    run__Outer_outer__inner_args r = {.outer__inner__x = x, .outer__inner__x_shape = {64}};\n"
    "    holder__fill_args h = {.holder__arrs__y = y, .holder__arrs__y_shape = {64}};\n"
    "    put__Outer_named_args p = {0};\n"
    "    use_two_args u = {.s__a = a, .s__a_shape = {64}, .s__b = b, .s__b_shape = {64}, .s__c = c, .s__c_shape = {64}};\n"
    "    if (run__Outer_outer__inner(&r, nt) || holder__fill(&h, nt) || put__Outer_named(&p, nt) || use_two(&u, nt)) return 2;\n"
    "    long sx = 0, sf = 0, sy = 0, sg = 0, sa = 0, sb = 0, sc = 0;\n"
    "    for (int i = 0; i < 64; i++) sx += x[i], sf += qd_field_outer__inner__f[i], sy += y[i], sg += qd_field_named__g[i];\n"
    "    for (int i = 0; i < 64; i++) sa += a[i], sb += b[i], sc += c[i];\n"
    "    printf(\"%d %d %ld %d %d %ld %d %ld %d %d %ld\\n\", x[0], x[63], sx, qd_field_outer__inner__f[0], qd_field_outer__inner__f[63], sf,\n"
    "           y[63], sy, qd_field_named__g[0], qd_field_named__g[63], sg);\n"
    "    printf(\"%d %ld %ld %d %ld\\n\", a[63], sa, sb, c[63], sc);\n"
    "    return 0;\n}\n";

/* x[i] = 3i + 1 (sum 6112), f[i] = i + 100 (sum 8416), y[i] = 2i + 5 (sum 4352), g[i] = 64 - i (sum 2080);
 * a dataclass built from a list comprehension of qd.ndarrays (Big(*arrays)), read back through
 * Quadrants' _qd_dc_unwrapped cache in host code: a[i] = i (sum 2016), b untouched, c[i] = 7 - i
 * (sum -1568). */
Test(eval_dodc, nested_instances_run_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads("testdata/eval-dodc/dodc.py", dodc_host, "1 190 6112 100 163 8416 131 4352 64 1 2080\n63 2016 0 -56 -1568\n");
}

/* Two instances of one dataclass holding different data-oriented instances are two
 * instantiations (Quadrants keys a template argument by its instances), each writing its own
 * field. */
Test(eval_dodc, one_instantiation_per_instance) {
    char *dir = NULL;
    RunResult r = qdc_in_temp("g.py",
                              "import dataclasses\nimport quadrants as qd\n@qd.data_oriented\nclass In:\n    def __init__(self):\n"
                              "        self.g = qd.field(qd.i32, shape=(8,))\n@dataclasses.dataclass(frozen=True)\nclass Out:\n    inner: In\n"
                              "a = Out(inner=In())\nb = Out(inner=In())\n@qd.kernel\ndef put(p: qd.template()):\n    for i in range(8):\n"
                              "        p.inner.g[i] = i\nput(a)\nput(b)\n",
                              "--emit=header", NULL, &dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    char *out = malloc(strlen(dir) + 8);
    sprintf(out, "%s/out", dir);
    size_t n;
    char *h = read_text(out, &n);
    cr_assert(h, "no header written");
    cr_expect(strstr(h, "extern int32_t qd_field_a__inner__g[8];"), "%s", h);
    cr_expect(strstr(h, "extern int32_t qd_field_b__inner__g[8];"), "%s", h);
    cr_expect(strstr(h, "typedef struct put__Out_a__inner_args {"), "%s", h);
    cr_expect(strstr(h, "typedef struct put__Out_b__inner_args {"), "%s", h);
    free(h), free(out), run_free(&r);
    remove_tree(dir);
    free(dir);
}

/* A data-oriented member of a parameter annotated with the dataclass: Quadrants' QuadrantsSyntaxError
 * at the parameter, its message, a note at the member. */
Test(eval_dodc, typed_dataclass_parameter_is_refused) {
    expect_py_refused("g.py",
                      "import dataclasses\nimport quadrants as qd\n@qd.data_oriented\nclass In:\n    def __init__(self, x):\n"
                      "        self.x = x\n@dataclasses.dataclass\nclass Out:\n    inner: In\nx = qd.ndarray(qd.i32, shape=(4,))\n"
                      "o = Out(inner=In(x=x))\n@qd.kernel\ndef run(s: Out):\n    for i in range(4):\n        s.inner.x[i] = i\nrun(o)\n",
                      "g.py:13:9: error[QD2005]: Kernel arg 's': field 'inner' has @qd.data_oriented type 'In', which cannot be "
                      "flattened into a typed-dataclass kernel arg. Use ``s: qd.template()`` for the outer kernel arg annotation "
                      "instead; data_oriented contents (including nested ndarrays) are walked at kernel-compile time via the "
                      "template path.\n"
                      " 13 | def run(s: Out):\n    |         ^\n"
                      "g.py:9:12: note: member 'inner' of dataclass 'Out' is declared here\n 9 |     inner: In\n   |            ^~\n");
}
