/* Issue 29: when a kernel reads the script's globals. Quadrants compiles a kernel at its first
 * call (a generic kernel's instantiation at its own first call) and reads then the globals and
 * closure cells of the kernel and of every qd.func and lambda it calls (_get_global_vars in
 * Quadrants' _func_base.py); a name rebound later does not change a compiled kernel
 * (frontend/sema.c: SemaDef.live, sema_def_scope, CallInst.scope). Before, the qd.funcs read
 * the names as the script leaves them (SCALE = 5 below, base = 50), and every instantiation
 * read the first one's snapshot. testdata/eval-snapshot/snapshot.py runs on x86 with 1, 2 and 4
 * threads, each value the one Quadrants computes; a module-level kernel first called by a
 * test function (k_late) runs when pytest runs the test, after the module, and reads its last
 * values. */
#include "harness.h"
#include "test_x86.h"
#include <criterion/criterion.h>

static const char snapshot_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    k_mod_args a = {0};\n"
    "    g__1_args g1 = {0};\n"
    "    g__2_args g2 = {0};\n"
    "    test_closure__k_fn_args f = {0};\n"
    "    k_late_args l = {0};\n"
    "    if (k_mod(&a, nt) || g__1(&g1, nt) || g__2(&g2, nt) || test_closure__k_fn(&f, nt) || k_late(&l, nt)) return 2;\n"
    "    for (int k = 0; k < 16; k++) printf(\"%d \", qd_field_x[k]);\n"
    "    printf(\"\\n\");\n"
    "    return 0;\n}\n";

Test(eval_snapshot, funcs_read_the_first_call_globals, .timeout = 120) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads("testdata/eval-snapshot/snapshot.py", snapshot_host, "0 3 6 9 12 15 18 21 0 2 10 0 3 4 15 0 \n");
}
