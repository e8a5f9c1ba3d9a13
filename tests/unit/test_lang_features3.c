/* Language features of Quadrants' tests that qdc lacked (issue 30, third round):
 * qd.get_addr and qd.stop_grad (frontend/sema_fieldops.c, IR_ADDR, IrRef.stop_grad), a slice
 * beside an argument index, dynamic components of vector fields and
 * v._get_dynamic_index_stride(), struct and matrix appends to dynamic lists,
 * qd.lang.util.to_numpy_type: the kernels of testdata/lang-features3/ run on x86 with 1, 2 and 4
 * threads (and the slice kernel on lavapipe), each value the one Quadrants gives; the
 * refusals, exact and located. */
#include "../../support/util.h"
#include "harness.h"
#include "test_x86.h"
#include "vk_exec.h"
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
    "    if (write_m(&(write_m_args){0}, nt)) return 2;\n"
    "    printf(\"m %d %d %d %d %d %d\\n\", *qd_field_m_0_at(0, 0), *qd_field_m_1_at(0, 0), *qd_field_m_3_at(0, 0), *qd_field_m_0_at(3, 5),\n"
    "           *qd_field_m_3_at(3, 5), *qd_field_m_2_at(1, 1));\n"
    "    return 0;\n}\n";

/* stopped(): loss = sum x[i]^2 (140; x stopped in that loop's block, the load before the call too)
 * + sum 3 x[i] (84) for x[i] = i; x.grad = 3 everywhere (2 x[i] + 3 without qd.stop_grad, Quadrants'
 * test_stop_grad2). offsets(): f (order="ji") element i, j lies (j * 5 + i) * 4 bytes after f[0, 0],
 * at the address the header's qd_field_f_at gives; g (row-major i64) at (i * 7 + j) * 8.
 * write_m(): a 2x2 matrix field with order="ji" and offset=(1, 2), which host code reads before
 * the layout is computed (QD2011 "'m_0' has 0 dimensions" before); m[1, 2] lies at storage
 * element (0, 0), m[4, 7] at (3, 5), and qd.get_addr of a matrix field is its first component's:
 * m[2, 3] is (1 * 4 + 1) * 4 * 4 bytes after m[1, 2] (m[2, 3][1, 0] = 1). Before,
 * both were QD2008 ("'qd.get_addr' / 'qd.stop_grad' is not supported in v1 kernels"). */
Test(lang_features3, get_addr_and_stop_grad_run_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads("testdata/lang-features3/fieldops.py", fieldops_host,
                          "loss 224 grad 3 3 3 3 3 3 3 3\noffsets 4 20 bad 0\nm 10 20 40 1 4 1\n");
}

/* What qd.get_addr and qd.stop_grad do not take, each located: an ndarray (Quadrants reads
 * x.snode / f._snode, which an ndarray does not have), a vector field for qd.stop_grad (Quadrants
 * would stop its first component's SNode only), a call outside a kernel. */
Test(lang_features3, field_op_refusals) {
    expect_py_refused("g.py", "import quadrants as qd\n\n@qd.kernel\ndef k(x: qd.types.ndarray(qd.f32, ndim=1)):\n"
                              "    for i in range(4):\n        qd.stop_grad(x)\n",
                      "g.py:6:22: error[QD2019]: 'qd.stop_grad' takes a field, got an ndarray\n"
                      " 6 |         qd.stop_grad(x)\n   |                      ^\n");
    expect_py_refused("g.py", "import quadrants as qd\n\n@qd.kernel\ndef k(x: qd.types.ndarray(qd.u64, ndim=1)):\n"
                              "    for i in range(4):\n        x[i] = qd.get_addr(x, [i])\n",
                      "g.py:6:28: error[QD2019]: 'qd.get_addr' takes a field, got an ndarray\n"
                      " 6 |         x[i] = qd.get_addr(x, [i])\n   |                            ^\n");
    expect_py_refused("g.py", "import quadrants as qd\n\nv = qd.Vector.field(2, qd.f32, shape=4, needs_grad=True)\n\n@qd.kernel\n"
                              "def k():\n    for i in range(4):\n        qd.stop_grad(v)\n",
                      "g.py:8:22: error[QD2019]: 'qd.stop_grad' takes a scalar field: Quadrants applies it to one SNode (a vector "
                      "or matrix field's first component only)\n"
                      " 8 |         qd.stop_grad(v)\n   |                      ^\n");
    expect_py_refused("g.py", "import quadrants as qd\n\nf = qd.field(qd.i32, shape=(2, 3))\n\n@qd.kernel\n"
                              "def k() -> qd.u64:\n    return qd.get_addr(f, [1])\n",
                      "g.py:7:27: error[QD2011]: 'f' has 2 dimensions but 1 index was given\n"
                      " 7 |     return qd.get_addr(f, [1])\n   |                           ^~~\n");
}

/* SPIR-V has no raw addresses: qd.get_addr is QD5101 on Vulkan (Quadrants has it on its LLVM
 * backends only), with no output written; the same kernel compiles for x86_64. */
Test(lang_features3, get_addr_refused_on_spirv) {
    static const char src[] = "import quadrants as qd\n\nf = qd.field(qd.i32, shape=4)\n\n@qd.kernel\n"
                              "def k(out: qd.types.ndarray(qd.u64, ndim=1)):\n    for i in range(4):\n        out[i] = qd.get_addr(f, i)\n";
    char *dir;
    RunResult r = qdc_in_temp("g.py", src, "--target=vulkan1.1", NULL, &dir);
    cr_expect_eq(r.status, 1, "%s", r.err);
    char *want = xasprintf("%s/g.py:8:18: error[QD5101]: qd.get_addr has no SPIR-V form: SPIR-V (Vulkan, Metal) has no raw memory "
                           "addresses (Quadrants provides it on its LLVM backends: CPU, CUDA, AMDGPU)\n"
                           " 8 |         out[i] = qd.get_addr(f, i)\n   |                  ^~~~~~~~~~~~~~~~~\n", dir);
    cr_expect_str_eq(r.err, want);
    char *out = xasprintf("%s/out", dir);
    cr_expect(!file_exists(out), "an output was written after an error");
    free(out), free(want);
    run_free(&r), remove_tree(dir), free(dir);
    expect_py_compiles("g.py", src);
}

static const char slices_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "static void show(const int32_t *v, int n) { for (int i = 0; i < n; i++) printf(\"%d%s\", v[i], i == n - 1 ? \"\\n\" : \" \"); }\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    int32_t r[12], out[3][3];\n"
    "    for (int k = 0; k < 2; k++) { if (row_of(&(row_of_args){k}, nt, r)) return 2; show(r, 3); }\n"
    "    for (int k = 0; k < 3; k += 2) { if (col_of(&(col_of_args){k}, nt, r)) return 2; show(r, 2); }\n"
    "    for (int k = 1; k < 3; k++) { if (put_row(&(put_row_args){k}, nt, r)) return 2; show(r, 12); }\n"
    "    if (grid(&(grid_args){.out = &out[0][0], .out_shape = {3, 3}, .k = 1}, nt)) return 2;\n"
    "    show(&out[0][0], 9);\n"
    "    return 0;\n}\n";

/* A slice beside an index that is a kernel argument (Quadrants' test_matrix_slice_with_variable
 * and test_matrix_slice_write_dynamic_index; QD2009 "an index beside a slice must be a
 * compile-time integer constant" before): rows and columns read at the argument's index, a row
 * written and one element updated there, and in a parallel loop row k of a local matrix set to
 * column i, on 1, 2 and 4 threads. */
Test(lang_features3, slice_beside_argument_index_runs_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads("testdata/lang-features3/slices.py", slices_host,
                          "1 2 3\n4 5 6\n1 4\n3 6\n"
                          "0 0 0 0 1 2 3 4 0 10 0 0\n0 0 0 0 0 0 0 0 1 2 13 4\n"
                          "17 48 79 27 58 89 37 68 99\n");
}

static const char stride_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    int32_t st[3];\n"
    "    if (strides(&(strides_args){0}, nt, st) || put(&(put_args){0}, nt) || run(&(run_args){0}, nt)) return 2;\n"
    "    int bad = 0;\n"
    "    for (int i = 0; i < 32; i++)\n"
    "        for (int j = 0; j < 3; j++) {\n"
    "            int32_t want = i * 10 + j + (j == i % 3 ? 1000 : 0);\n"
    "            int32_t *c = j == 0 ? qd_field_v_0_at(i) : j == 1 ? qd_field_v_1_at(i) : qd_field_v_2_at(i);\n"
    "            bad += *c != want || qd_field_out[i][j] != want;\n"
    "        }\n"
    "    printf(\"stride %d %d gap %d v[5] %d %d %d bad %d\\n\", st[0], st[1], st[2], *qd_field_v_0_at(5), *qd_field_v_1_at(5), *qd_field_v_2_at(5), bad);\n"
    "    return 0;\n}\n";

/* v._get_dynamic_index_stride() (Quadrants' layout query, a compile-time int; was QD2008 "vector
 * method '_get_dynamic_index_stride' is not supported"): 32 bytes between the components of v,
 * each under its own dense(8) node of one block (as far apart as qd.get_addr(z, 9) and
 * qd.get_addr(y, 9)), 4 for w's components side by side; and v[i][j] with j a loop variable or i % 3 written
 * and updated (was QD2010 "cannot assign to a value"), each component where the header's accessor
 * finds it, read back dynamically. */
Test(lang_features3, vector_field_dynamic_components_run_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads("testdata/lang-features3/stride.py", stride_host, "stride 32 4 gap 32 v[5] 50 51 1052 bad 0\n");
}

/* qd.lang.util.to_numpy_type(qd.f16) in host code is numpy's float16, the dtype of the array the
 * script passes (was QD2008 "'qd.lang.util.to_numpy_type' is not supported in v1 kernels"): the
 * generic kernel is instantiated for an f16 2-d ndarray. */
Test(lang_features3, to_numpy_type_gives_the_dtype) {
    static const char src[] = "import numpy as np\nimport quadrants as qd\n\nnp_dtype = qd.lang.util.to_numpy_type(qd.f16)\n"
                              "a = np.zeros((3, 4), dtype=np_dtype)\n\n@qd.kernel\ndef k(x: qd.types.ndarray()):\n"
                              "    for i, j in x:\n        x[i, j] = 1.5\n\nk(a)\n";
    char *dir;
    RunResult r = qdc_in_temp("g.py", src, "--target=x86_64", "--emit=ir", &dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    char *ir = xasprintf("%s/out", dir), *text = read_text(ir, NULL);
    cr_assert(text);
    cr_expect(strstr(text, "kernel k__f16_2d(x: ndarray(f16, 2))\n"), "%s", text);
    free(text), free(ir);
    run_free(&r), remove_tree(dir), free(dir);
}

static const char append_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    int32_t len[6];\n"
    "    if (fill(&(fill_args){0}, nt) || lengths(&(lengths_args){0}, nt, len)) return 2;\n"
    "    int bad = 0;\n"
    "    for (int i = 0; i < 6; i++)\n"
    "        for (int j = 0; j < 8 && j < i + 3; j++) {\n"
    "            bad += *qd_field_f_a_at(i, j) != (uint64_t)(i * j) * 10000000000ull;\n"
    "            bad += *qd_field_f_b_0_at(i, j) != i || *qd_field_f_b_1_at(i, j) != j || *qd_field_f_b_2_at(i, j) != i * j;\n"
    "            bad += *qd_field_f_b_3_at(i, j) != (uint8_t)(200 + j) || *qd_field_f_c_at(i, j) != (uint16_t)(i * j * 5000);\n"
    "            bad += *qd_field_g_0_at(i, j) != j || *qd_field_g_1_at(i, j) != i || *qd_field_g_2_at(i, j) != i + j || *qd_field_g_3_at(i, j) != i * j;\n"
    "        }\n"
    "    printf(\"lengths %d %d %d %d %d %d f[5, 7] %llu %u %u bad %d\\n\", len[0], len[1], len[2], len[3], len[4], len[5],\n"
    "           (unsigned long long)*qd_field_f_a_at(5, 7), *qd_field_f_b_3_at(5, 7), *qd_field_f_c_at(5, 7), bad);\n"
    "    return 0;\n}\n";

/* x[i].append(v) of a struct field (with a matrix member) and of a matrix field in a dynamic
 * SNode (Quadrants' test_append_struct / _matrix / _matrix_in_struct; was QD2045 "the struct
 * has no member 'append'" and QD2007 "'append' takes no arguments"): one length per list, each
 * component stored at the place the append took; rows 4 and 5 append past the 8 places and keep
 * 8 (f[5, 7]: a = 35e10, b[1, 1] = 207, c = 175000 mod 65536). */
Test(lang_features3, append_struct_and_matrix_run_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads("testdata/lang-features3/append.py", append_host,
                          "lengths 303 404 505 606 707 808 f[5, 7] 350000000000 207 43928 bad 0\n");
}

/* The slice kernel on lavapipe (vulkan1.1), k = 1 (every scalar parameter gets the run's one
 * value): the grid x86 prints, row k of each iteration's matrix set to its column i. */
Test(lang_features3, slice_beside_argument_index_on_lavapipe, .timeout = 120) {
    char *dir = make_temp_dir(), *spv = NULL, *err = NULL, *path = root_path("testdata/lang-features3/slices.py");
    char *src = read_text(path, NULL);
    cr_assert(src);
    char *meta = vk_compile(dir, "k", "vulkan1.1", src, &spv);
    const char *kernels[] = {"grid"};
    int32_t got[9];
    for (int i = 0; i < 9; i++) got[i] = -7;
    VkArray arr[1] = {{got, sizeof got, 3}};
    int32_t k = 1;
    int rc = vk_run(dir, spv, meta, kernels, 1, arr, 1, &k, 3, VK_FULL, true, &err);
    cr_expect_neq(rc, -1, "%s", err ? err : "");
    if (rc == 1) {
        const int32_t want[9] = {17, 48, 79, 27, 58, 89, 37, 68, 99};
        for (int i = 0; i < 9; i++) cr_expect_eq(got[i], want[i], "out[%d] = %d, want %d", i, got[i], want[i]);
    }
    free(err), free(meta), free(spv), free(src), free(path);
    remove_tree(dir);
    free(dir);
}

static const char stopfwd_host[] =
    "#include \"d.h\"\n#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int nt = atoi(argv[1]);\n"
    "    for (int i = 0; i < 4; i++) qd_field_x[i] = (float)(i + 1), qd_field_x_dual[i] = 1;\n"
    "    if (k_fwd(&(k_fwd_args){0}, nt)) return 2;\n"
    "    printf(\"loss %g dual %g\\n\", (double)qd_field_loss, (double)qd_field_loss_dual);\n"
    "    return 0;\n}\n";

/* qd.stop_grad in forward mode: with every x.dual 1, loss.dual is 3 * 4 = 12 from the second loop
 * only (44 with the first loop's 2 x[i] tangents); loss = 30 + 30. */
Test(lang_features3, stop_grad_forward_mode_on_x86, .timeout = 120) {
    if (!x86_have_runtime()) return;
    x86_expect_on_threads("testdata/lang-features3/stopfwd.py", stopfwd_host, "loss 60 dual 12\n");
}
