/* Language features of Quadrants' tests that qdc lacked (issue 30, third round):
 * qd.get_addr and qd.stop_grad (frontend/sema_fieldops.c, IR_ADDR, IrRef.stop_grad):
 * testdata/lang-features3/fieldops.py run on x86 with 1, 2 and 4 threads, each value the one
 * Quadrants gives; the refusals, exact and located. */
#include "../../support/util.h"
#include "harness.h"
#include "test_x86.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char fieldops_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    for (int i = 0; i < 8; i++) qd_field_x[i] = (float)i;\n"
    "    if (stopped(&(stopped_args){0}, nt)) return 2;\n"
    "    qd_field_loss_grad = 1;\n"
    "    if (stopped_grad(&(stopped_grad_args){0}, nt)) return 2;\n"
    "    printf(\"loss %g grad\", (double)qd_field_loss);\n"
    "    for (int i = 0; i < 8; i++) printf(\" %g\", (double)qd_field_x_grad[i]);\n"
    "    uint64_t out[5][7];\n"
    "    memset(out, 0xff, sizeof out);\n"
    "    if (offsets(&(offsets_args){.out = &out[0][0], .out_shape = {5, 7}}, nt)) return 2;\n"
    "    int bad = 0;\n"
    "    for (int i = 0; i < 5; i++)\n"
    "        for (int j = 0; j < 7; j++) {\n"
    "            uint64_t a = 0, o = 0;\n"
    "            if (where(&(where_args){i, j}, nt, &a) || goffset(&(goffset_args){i, j}, nt, &o)) return 2;\n"
    "            bad += a != (uint64_t)(uintptr_t)qd_field_f_at(i, j) || out[i][j] != (uint64_t)(j * 5 + i) * 4;\n"
    "            bad += o != (uint64_t)(i * 7 + j) * 8;\n"
    "        }\n"
    "    printf(\"\\noffsets %llu %llu bad %d\\n\", (unsigned long long)out[1][0], (unsigned long long)out[0][1], bad);\n"
    "    return 0;\n}\n";

/* stopped(): loss = sum x[i]^2 (140; x stopped in that loop's block, the load before the call too)
 * + sum 3 x[i] (84) for x[i] = i; x.grad = 3 everywhere (2 x[i] + 3 without qd.stop_grad, Quadrants'
 * test_stop_grad2). offsets(): f (order="ji") element i, j lies (j * 5 + i) * 4 bytes after f[0, 0],
 * at the address the header's qd_field_f_at gives; g (row-major i64) at (i * 7 + j) * 8. Before,
 * both were QD2008 ("'qd.get_addr' / 'qd.stop_grad' is not supported in v1 kernels"). */
Test(lang_features3, get_addr_and_stop_grad_run_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads("testdata/lang-features3/fieldops.py", fieldops_host,
                          "loss 224 grad 3 3 3 3 3 3 3 3\noffsets 4 20 bad 0\n");
}
