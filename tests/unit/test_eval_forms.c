/* Python forms the compile-time evaluator runs since issue 29's gap list and issue 30's corpus
 * (frontend/py/sema_class.c, sema_lang.c, sema_expr.c's float/int of a string, sema.c's
 * snapshot of a module-level kernel's globals): testdata/eval-forms/forms.py run on x86 with 1,
 * 2 and 4 threads, each value the one Python computes; and the refusals, exact and located. */
#include "harness.h"
#include "test_x86.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The script fails with exactly the diagnostics want (the whole of stderr), exit 1, no output. */
static void expect_exactly(const char *text, const char *want) { expect_py_refused("g.py", text, want); }

static const char forms_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    forms_args a = {0};\n"
    "    if (forms(&a, nt)) return 2;\n"
    "    for (int k = 0; k < 18; k++) printf(\"%d \", qd_field_x[k]);\n"
    "    printf(\"%g %g\\n\", (double)qd_field_y[0], (double)qd_field_y[1]);\n"
    "    return 0;\n}\n";

/* Instances made inside expressions (an argument, a comprehension), super().__init__ and
 * BASE.__init__(self, ...), self.total += n in __init__, b.depth = ... and b.depth += 1 after
 * creation, a class attribute made by int("3"), float("inf") and float(" -1_000.5e-1 "), a dict
 * comprehension (in host code and in a kernel), pytest.param rows unpacked from list(CASES)[0], a builtin (float) as a value,
 * numpy scalars (np.int64(2)) as the bounds of a qd.ndrange, a row of a module list unpacked
 * item by item when the row holds a value only the script has (np.sin), and a field rebound by `x = x.to_numpy()` after the kernel's first call. Before, each was a
 * QD2062 or QD2019 (the comprehension QD1012, the rebound field QD2062 at its use). */
Test(eval_forms, forms_run_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads("testdata/eval-forms/forms.py", forms_host,
                          "12 13 12 3 26 10 7 24 6 25 3 3 3 3 5 20 7 16 inf -100.05\n");
}

/* What Python would raise stays an error at the string; an attribute the script sets after
 * creation to a value only it knows is located at the assignment; a data-oriented class's
 * instance inside an expression stays the script's value. */
Test(eval_forms, refusals_are_located) {
    expect_exactly("import quadrants as qd\n\nV = float(\"1e5x\")\n",
                   "g.py:3:11: error[QD2019]: could not convert string to float: '1e5x'\n"
                   " 3 | V = float(\"1e5x\")\n   |           ^~~~~~\n");
    expect_exactly("import quadrants as qd\n\nV = int(\" 1.5\")\n",
                   "g.py:3:9: error[QD2019]: invalid literal for int() with base 10: ' 1.5'\n"
                   " 3 | V = int(\" 1.5\")\n   |         ^~~~~~\n");
    /* a list the script changes in place before the row is read: its rows as written are not its rows */
    expect_exactly("import quadrants as qd\nimport numpy as np\n\nROWS = [(7, np.sin)]\nROWS.insert(0, (1, np.cos))\n"
                   "N, F = list(ROWS)[0]\nx = qd.field(qd.i32, shape=2)\n\n@qd.kernel\ndef k():\n    x[0] = N\n\nk()\n",
                   "g.py:11:12: error[QD2062]: 'N' is a value computed from 'ROWS' (a value computed from 'np' (a module the script "
                   "imports)), known only when the script runs; kernels can use module constants, fields, qd.func and their own "
                   "arguments\n"
                   " 11 |     x[0] = N\n    |            ^\n"
                   "g.py:6:1: note: 'N' is set here\n 6 | N, F = list(ROWS)[0]\n   | ^\n");
    expect_exactly("import quadrants as qd\nimport sys\n\nclass P:\n    def __init__(self):\n        self.n = 1\n\n"
                   "p = P()\np.n = len(sys.argv)\nx = qd.field(qd.i32, shape=2)\n\n@qd.kernel\ndef k():\n    x[0] = p.n\n\nk()\n",
                   "g.py:14:12: error[QD2062]: 'p.n' is set by host code after the instance's creation (a value computed from "
                   "'sys' (a module the script imports)), known only when the script runs; kernels can use fields and "
                   "compile-time values\n"
                   " 14 |     x[0] = p.n\n    |            ^~~\n"
                   "g.py:9:1: note: 'n' is set here\n 9 | p.n = len(sys.argv)\n   | ^~~\n");
    expect_exactly("import quadrants as qd\n\n@qd.data_oriented\nclass D:\n    def __init__(self):\n        self.n = 1\n\n"
                   "    @qd.kernel\n    def run(self):\n        pass\n\ndef use(d):\n    return d.n\n\nM = use(D())\n"
                   "x = qd.field(qd.i32, shape=2)\n\n@qd.kernel\ndef k():\n    x[0] = M\n\nk()\n",
                   "g.py:4:7: warning[QD2104]: @qd.data_oriented class 'D' has kernels, but no instance of it is created where "
                   "qdc can see it (NAME = D(...) at module level or in a host function); they are not compiled "
                   "[-Wdata-oriented-unused]\n"
                   " 4 | class D:\n   |       ^\n"
                   "g.py:20:12: error[QD2062]: 'M' is a module-level value computed by the script, known only when the script "
                   "runs; kernels can use module constants, fields, qd.func and their own arguments\n"
                   " 20 |     x[0] = M\n    |            ^\n"
                   "g.py:15:1: note: 'M' is set here\n 15 | M = use(D())\n    | ^\n");
}
