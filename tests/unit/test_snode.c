/* SNode handles, qd.FieldsBuilder and field layouts (issue 14 item 1, issue 15 items 2 and 7):
 * the refusals, each with its exact diagnostics, exit 1 and no output. The layouts themselves
 * run in testdata/lang/snode_handles.py (its host checks every byte on 1 to 8 threads), and the
 * header and metadata are pinned below. */
#include "harness.h"
#include "support/util.h"
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* The error and note lines of compiling `src` (k.py in a temp dir, %s in `want` is its path)
 * must be exactly `want`; exit 1, no output. */
static void expect_errors(const char *src, const char *want_fmt) {
    char *dir = make_temp_dir(), *in = xasprintf("%s/k.py", dir), *out = xasprintf("%s/k.o", dir);
    cr_assert(write_text(in, src));
    RunResult r = run_qdc("--color=never", "--error-limit=0", in, "-o", out, NULL);
    cr_expect_eq(r.status, 1, "exit %d\n%s", r.status, r.err);
    char *got = calloc(strlen(r.err) + 1, 1);
    for (char *line = strtok(r.err, "\n"); line; line = strtok(NULL, "\n"))
        if (strstr(line, ": error[") || strstr(line, ": note: ")) strcat(got, line), strcat(got, "\n");
    size_t n = 0;
    for (const char *p = want_fmt; (p = strstr(p, "%s")); p += 2) n++;
    char *want = malloc(strlen(want_fmt) + n * strlen(in) + 1), *w = want;
    for (const char *p = want_fmt; *p;) {
        if (p[0] == '%' && p[1] == 's') w = stpcpy(w, in), p += 2;
        else *w++ = *p++;
    }
    *w = 0;
    cr_expect_str_eq(got, want);
    cr_expect(!file_exists(out), "an output was written after an error");
    run_free(&r);
    remove_tree(dir);
    free(dir), free(in), free(out), free(got), free(want);
}

/* A rejected node (hash; pointer and bitmasked compile: test_sparse.c) bound to a name in a host
 * function: its QD2063 at the call, and nothing about the fields placed under it or the kernel
 * that uses them. */
Test(snode, sparse_handle_in_host_function) {
    expect_errors("import quadrants as qd\n\ndef test_p():\n    w = qd.field(qd.i32)\n    blk = qd.root.hash(qd.ij, 4)\n"
                  "    blk.place(w)\n\n    @qd.kernel\n    def k():\n        for i, j in w:\n            w[i, j] = 1\n",
                  "%s:5:11: error[QD2063]: 'hash' SNodes are not supported: qdc compiles dense, pointer, bitmasked and dynamic layouts\n");
    expect_errors("import quadrants as qd\n\ndef test_p():\n    v = qd.Vector.field(3, qd.i32)\n    S0 = qd.root\n"
                  "    S1 = S0.hash(qd.i, 4)\n    S2 = S1.dense(qd.i, 2)\n    S2.place(v.get_scalar_field(0))\n"
                  "    S2.dense(qd.i, 2).place(v.get_scalar_field(1), v.get_scalar_field(2))\n\n"
                  "    @qd.kernel\n    def k():\n        v[0][0] = 1\n",
                  "%s:6:10: error[QD2063]: 'hash' SNodes are not supported: qdc compiles dense, pointer, bitmasked and dynamic layouts\n");
}

/* A placement that needs a value only the running script knows: QD2004 at each field, naming it. */
Test(snode, placement_with_run_time_values) {
    expect_errors("import quadrants as qd\n\ndef helper(n):\n    x = qd.field(qd.f32)\n    blk = qd.root.dense(qd.i, n)\n"
                  "    blk.place(x)\n    y = qd.field(qd.f32)\n    qd.root.dense(qd.i, n).place(y)\n\n"
                  "    @qd.kernel\n    def k():\n        x[0] = y[0]\n\ndef test_h(m):\n    helper(m)\n",
                  "%s:4:5: error[QD2004]: field 'x' is placed by host code that qdc cannot evaluate ('blk' is a value computed "
                  "from 'n' (a parameter of the host function 'helper' whose argument qdc cannot evaluate)), so its shape is known "
                  "only when the script runs\n"
                  "%s:7:5: error[QD2004]: field 'y' is placed by host code that qdc cannot evaluate (a value computed from 'n' "
                  "(a parameter of the host function 'helper' whose argument qdc cannot evaluate)), so its shape is known only "
                  "when the script runs\n");
}

Test(snode, fields_builder_after_finalize) {
    expect_errors("import quadrants as qd\n\nx = qd.field(qd.f32)\nfb = qd.FieldsBuilder()\nfb.dense(qd.i, 4).place(x)\n"
                  "tree = fb.finalize()\nfb.dense(qd.i, 4)\n\n@qd.kernel\ndef k():\n    x[0] = 1\n",
                  "%s:7:1: error[QD2063]: this qd.FieldsBuilder was finalized already; Quadrants raises "
                  "QuadrantsRuntimeError(\"FieldsBuilder finalized\") at its 'dense'\n"
                  "%s:6:8: note: finalized here\n");
    expect_errors("import quadrants as qd\n\n@qd.kernel\ndef k():\n    fb = qd.FieldsBuilder()\n",
                  "%s:5:10: error[QD2063]: qd.FieldsBuilder() is host code: build SNode trees at module level or in a host "
                  "function, not in a kernel\n");
}

/* Quadrants' own refusals of shape=, offset=, order= and layout= (test_offset.py, test_order.py, test_field.py). */
Test(snode, field_declaration_errors) {
    expect_errors("import quadrants as qd\n\na = qd.field(qd.f32, shape=None, offset=(3, 4))\n"
                  "b = qd.Vector.field(3, qd.f32, shape=None, offset=(3,))\nc = qd.field(qd.f32, shape=0)\n"
                  "d = qd.Matrix.field(3, 3, qd.i32, shape=(32, 16, 8), offset=(32, 16))\n"
                  "e = qd.field(qd.f32, shape=None, order=\"i\")\nf = qd.Vector.field(2, qd.f32, shape=4, layout=qd.Layout.XYZ)\n"
                  "v = qd.Vector.field(2, qd.f32)\ng = v.get_scalar_field(2)\nh = qd.Vector.field(3, qd.f32, shape=3, order=\"ij\")\n"
                  "qd.root.dense(qd.i, 4).place(v)\n\n@qd.kernel\ndef k():\n    pass\n",
                  "%s:3:41: error[QD2004]: shape cannot be None when offset is set (a field placed later takes its offset from place())\n"
                  "%s:4:51: error[QD2004]: shape cannot be None when offset is set (a field placed later takes its offset from place())\n"
                  "%s:5:28: error[QD2004]: every dimension of a field must be positive, got 0\n"
                  "%s:6:61: error[QD2004]: offset= has 2 values but the shape has 3 dimensions (the dimensionality of shape and "
                  "offset must be the same)\n"
                  "%s:7:40: error[QD2004]: shape cannot be None when order is set\n"
                  "%s:8:48: error[QD2043]: layout= takes qd.Layout.AOS or qd.Layout.SOA\n"
                  "%s:10:24: error[QD2042]: component 2 is out of range for a 2-vector\n"
                  "%s:11:47: error[QD2004]: order=\"ij\" names 2 axes but the shape has 1 (the dimensionality of shape and order "
                  "must be the same)\n");
}

/* The header and metadata of testdata/lang/snode_handles.py for x86_64, byte for byte: the
 * storages, each field's symbol, levels and accessor (regenerate with
 * qdc --target=x86_64 --emit=header|metadata testdata/lang/snode_handles.py after a deliberate
 * layout change, and say why in the commit). */
static void expect_golden(const char *emit, const char *golden) {
    char *dir = make_temp_dir(), *out = xasprintf("%s/out", dir), *src = root_path("testdata/lang/snode_handles.py"),
         *gpath = root_path(golden), *flag = xasprintf("--emit=%s", emit);
    RunResult r = run_qdc("--target=x86_64", flag, "-o", out, src, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *got = read_text(out, NULL), *want = read_text(gpath, NULL);
    cr_assert(got && want, "%s or %s unreadable", out, gpath);
    cr_expect_str_eq(got, want, "%s differs from %s", emit, golden);
    run_free(&r);
    remove_tree(dir);
    free(dir), free(out), free(src), free(gpath), free(flag), free(got), free(want);
}

Test(snode, header_and_metadata_golden) {
    expect_golden("header", "testdata/snode/snode_handles.h");
    expect_golden("metadata", "testdata/snode/snode_handles.json");
}

Test(snode, struct_field_errors) {
    expect_errors("import quadrants as qd\n\nP = qd.types.struct(a=qd.i32, b=qd.f32)\n"
                  "x = P.field(shape=(4,), layout=qd.Layout.ROWS)\ny = P.field(shape=(4, 2), offset=(1,))\n"
                  "z = P.field(offset=(1,))\n\n@qd.kernel\ndef k():\n    pass\n",
                  "%s:4:32: error[QD2043]: layout= takes qd.Layout.AOS or qd.Layout.SOA\n"
                  "%s:5:34: error[QD2004]: offset= has 1 value but the shape has 2 dimensions (the dimensionality of shape "
                  "and offset must be the same)\n"
                  "%s:6:20: error[QD2004]: shape cannot be None when offset is set\n");
}
