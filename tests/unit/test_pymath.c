/* Python's math module evaluated at compile time (import math) and qd.math's transform builders
 * (rotation2d, rotation3d, rot_yaw_pitch_roll, rot_by_axis, translate, scale): exact values of
 * kernels run on x86 against the formulas computed here, and the located errors. */
#include "test_x86.h"
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static RunResult check_text(const char *text) {
    char *dir = make_temp_dir(), *src = NULL;
    cr_assert(asprintf(&src, "%s/k.py", dir) > 0 && write_text(src, text));
    const char *argv[] = {"--check", "k.py", NULL};
    RunResult r = run_qdc_argv(argv, NULL, dir);
    remove_tree(dir);
    free(dir), free(src);
    return r;
}

Test(pymath, errors) {
    static const struct { const char *src, *err; } rows[] = {
        {"import math\nimport quadrants as qd\n@qd.kernel\ndef k(a: qd.f32):\n    b = math.sqrt(a)\n",
         "k.py:5:19: error[QD2009]: math.sqrt takes compile-time numbers (Python's math cannot take a kernel value); use "
         "qd.sqrt for a run-time value\n"},
        {"import math\nimport quadrants as qd\n@qd.kernel\ndef k():\n    b = math.sqrt(-1.0)\n",
         "k.py:5:9: error[QD2009]: math.sqrt: math domain error (Python raises ValueError)\n"},
        {"import math\nimport quadrants as qd\n@qd.kernel\ndef k():\n    b = math.gamma(2.0)\n",
         "k.py:5:9: error[QD2008]: 'math.gamma' is not supported (Python's math module: qdc evaluates pi, e, tau"},
        {"import math\nimport quadrants as qd\n@qd.kernel\ndef k():\n    b = math.atan2(1.0)\n",
         "k.py:5:9: error[QD2007]: 'math.atan2' takes 2 arguments, got 1\n"},
        {"import quadrants as qd\n@qd.kernel\ndef k():\n    m = qd.math.rot_by_axis(1.0, 2.0)\n",
         "k.py:4:29: error[QD2040]: 'qd.math.rot_by_axis' needs a 3-vector axis, got "},
        {"import quadrants as qd\n@qd.kernel\ndef k():\n    m = qd.math.translate(1.0, 2.0)\n",
         "k.py:4:9: error[QD2007]: 'qd.math.translate' takes 3 arguments, got 2\n"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        RunResult r = check_text(rows[i].src);
        cr_expect_eq(r.status, 1, "row %zu: %s", i, r.err);
        cr_expect(strstr(r.err, rows[i].err), "row %zu: expected\n%s\ngot\n%s", i, rows[i].err, r.err);
        run_free(&r);
    }
}
