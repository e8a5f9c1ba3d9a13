/* Quadrants' autodiff rejections where the script asks for the gradient (issue #31 item 6):
 * K.grad() or K() in a qd.ad.Tape of a kernel that breaks a rule Quadrants enforces when it
 * compiles the gradient is error QD2154 at the kernel's statement, in Quadrants' words, with a
 * note at the host call; a companion nobody asks for (or asked for inside pytest.raises, where
 * the script expects Quadrants' exception) keeps warning QD2112. @qd.ad.grad_for of a kernel or
 * of a plain function is QD2155, and a needs_grad / needs_dual field placed without its gradient
 * field QD2156 (Quadrants' materialize check). */
#include "../../support/util.h"
#include "harness.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The diagnostics in stderr (lines with "error[" or "warning["). */
static int diag_lines(const char *err) {
    int n = 0;
    for (const char *p = err; (p = strstr(p, ": ")); p += 2) n += !strncmp(p + 2, "error[", 6) || !strncmp(p + 2, "warning[", 8);
    return n;
}

#define HEAD "import quadrants as qd\n\nx = qd.field(qd.f32, shape=8, needs_grad=True)\nloss = qd.field(qd.f32, shape=(), needs_grad=True)\n\n"

Test(autodiff_rules, random_under_a_tape_is_quadrants_randstmt_error) {
    expect_py_refused("ad.py", HEAD "@qd.kernel\ndef work():\n    loss[None] = x[0] * qd.random()\n\n\nwith qd.ad.Tape(loss):\n    work()\n",
                      "ad.py:8:25: error[QD2154]: RandStmt not supported in AutoDiff for now.\n"
                      " 8 |     loss[None] = x[0] * qd.random()\n"
                      "   |                         ^~~~~~~~~~~\n"
                      "ad.py:12:5: note: the gradient of kernel 'work' is asked for here: Quadrants compiles it, and raises, at this call\n"
                      " 12 |     work()\n"
                      "    |     ^~~~~~\n");
    expect_py_refused("ad.py", HEAD "@qd.kernel\ndef work():\n    for i in x:\n        loss[None] += x[i] * qd.random()\n\n\nwork()\nwork.grad()\n",
                      "ad.py:9:30: error[QD2154]: RandStmt not supported in AutoDiff for now.\n"
                      " 9 |         loss[None] += x[i] * qd.random()\n"
                      "   |                              ^~~~~~~~~~~\n"
                      "ad.py:13:1: note: the gradient of kernel 'work' is asked for here: Quadrants compiles it, and raises, at this call\n"
                      " 13 | work.grad()\n"
                      "    | ^~~~~~~~~~~\n");
}

/* Nobody asks (the kernel only touches needs_grad fields), or the script expects the raise:
 * the warning, the primal compiles, no companion. */
Test(autodiff_rules, random_without_a_request_or_inside_raises_is_the_warning) {
    static const char *const srcs[] = {
        HEAD "@qd.kernel\ndef work():\n    for i in x:\n        loss[None] += x[i] * qd.random()\n\n\nwork()\n",
        "import pytest\n" HEAD "@qd.kernel\ndef work():\n    for i in x:\n        loss[None] += x[i] * qd.random()\n\n\n"
        "with pytest.raises(RuntimeError):\n    work.grad()\n",
    };
    static const char *const warn[] = {
        "ad.py:9:30: warning[QD2112]: kernel 'work' gets no gradient kernel 'work_grad': RandStmt not supported in AutoDiff for now. [-Wno-grad]\n",
        "ad.py:10:30: warning[QD2112]: kernel 'work' gets no gradient kernel 'work_grad': RandStmt not supported in AutoDiff for now. [-Wno-grad]\n",
    };
    for (int k = 0; k < 2; k++) {
        char *dir;
        RunResult r = qdc_in_temp("ad.py", srcs[k], "--emit=header", "--target=x86_64", &dir);
        cr_expect_eq(r.status, 0, "%s", r.err);
        cr_expect(strstr(r.err, warn[k]), "want\n%s\ngot\n%s", warn[k], r.err); /* after the temporary directory */
        cr_expect_eq(diag_lines(r.err), 1, "%s", r.err);
        char *hp = xasprintf("%s/out", dir), *h = read_text(hp, NULL);
        cr_assert(h, "no header");
        cr_expect(strstr(h, " work(") && !strstr(h, "work_grad"), "%s", h);
        free(h), free(hp), run_free(&r);
        remove_tree(dir);
        free(dir);
    }
}

Test(autodiff_rules, reading_a_grad_tensor_is_an_error_at_grad) {
    expect_py_refused("ad.py",
                      "import quadrants as qd\n\n\n@qd.kernel\ndef peek(x: qd.types.ndarray(), b: qd.types.ndarray()):\n    for i in x:\n"
                      "        b[None] += x.grad[i]\n\n\na = qd.ndarray(qd.f32, shape=4, needs_grad=True)\n"
                      "s = qd.ndarray(qd.f32, shape=(), needs_grad=True)\npeek(a, s)\npeek.grad(a, s)\n",
                      "ad.py:7:20: error[QD2154]: Cannot automatically differentiate through a grad tensor, if you really want to do that, "
                      "pass the grad tensor into the kernel directly ('x_grad' is the adjoint of 'x')\n"
                      " 7 |         b[None] += x.grad[i]\n"
                      "   |                    ^~~~~~~~~\n"
                      "ad.py:13:1: note: the gradient of kernel 'peek__f32_1d__f32_0d' is asked for here: Quadrants compiles it, and raises, "
                      "at this call\n"
                      " 13 | peek.grad(a, s)\n"
                      "    | ^~~~~~~~~~~~~~~\n");
}

/* qd.ad.Tape(validation=True): an element read and then overwritten in one kernel (serial, and
 * per iteration of a parallel loop) breaks Quadrants' global data access rule. */
Test(autodiff_rules, global_data_access_rule_under_validation) {
    expect_py_refused("ad.py", HEAD "b = qd.field(qd.f32, shape=(), needs_grad=True)\n\n\n@qd.kernel\ndef broke():\n    loss[None] = x[1] * b[None]\n"
                      "    b[None] += 100\n\n\nwith qd.ad.Tape(loss=loss, validation=True):\n    broke()\n",
                      "ad.py:12:13: error[QD2154]: (kernel=broke) Breaks the global data access rule. Snode b is overwritten unexpectedly.\n"
                      " 12 |     b[None] += 100\n"
                      "    |             ^~\n"
                      "ad.py:16:5: note: the gradient of kernel 'broke' is asked for here: Quadrants compiles it, and raises, at this call\n"
                      " 16 |     broke()\n"
                      "    |     ^~~~~~~\n");
    expect_py_refused("ad.py", HEAD "@qd.kernel\ndef scale():\n    for i in x:\n        loss[None] += x[i]\n        x[i] = x[i] * 2.0\n\n\n"
                      "with qd.ad.Tape(loss=loss, validation=True):\n    scale()\n",
                      "ad.py:10:16: error[QD2154]: (kernel=scale) Breaks the global data access rule. Snode x is overwritten unexpectedly.\n"
                      " 10 |         x[i] = x[i] * 2.0\n"
                      "    |                ^~~~~~~~~~\n"
                      "ad.py:14:5: note: the gradient of kernel 'scale' is asked for here: Quadrants compiles it, and raises, at this call\n"
                      " 14 |     scale()\n"
                      "    |     ^~~~~~~\n");
}

/* Without validation Quadrants checks nothing (the gradient is its usual one), and kernels that
 * keep the rule (another element overwritten) pass the check: companions, no diagnostic. */
Test(autodiff_rules, global_data_access_rule_only_where_broken_and_validated) {
    static const char *const srcs[] = {
        HEAD "b = qd.field(qd.f32, shape=(), needs_grad=True)\n\n\n@qd.kernel\ndef broke():\n    loss[None] = x[1] * b[None]\n    b[None] += 100\n\n\n"
        "with qd.ad.Tape(loss=loss):\n    broke()\n",
        HEAD "@qd.kernel\ndef fine():\n    for i in x:\n        loss[None] += x[i] * x[i]\n\n\n@qd.kernel\ndef other():\n    x[1] = x[0] * 2.0\n\n\n"
        "with qd.ad.Tape(loss=loss, validation=True):\n    fine()\n    other()\n",
    };
    static const char *const grads[2][2] = {{"broke_grad(", NULL}, {"fine_grad(", "other_grad("}};
    for (int k = 0; k < 2; k++) {
        char *dir;
        RunResult r = qdc_in_temp("ad.py", srcs[k], "--emit=header", "--target=x86_64", &dir);
        cr_expect_eq(r.status, 0, "%s", r.err);
        cr_expect_str_eq(r.err, "");
        char *hp = xasprintf("%s/out", dir), *h = read_text(hp, NULL);
        cr_assert(h, "no header");
        for (int g = 0; g < 2; g++) cr_expect(!grads[k][g] || strstr(h, grads[k][g]), "no %s in\n%s", grads[k][g], h);
        free(h), free(hp), run_free(&r);
        remove_tree(dir);
        free(dir);
    }
}

Test(autodiff_rules, grad_for_needs_a_grad_replaced_python_function) {
    expect_py_refused("ad.py", HEAD "@qd.kernel\ndef f(m: qd.f32):\n    for i in x:\n        loss[None] += x[i] * m\n\n\n"
                      "@qd.ad.grad_for(f)\ndef back(m):\n    f.grad(m)\n",
                      "ad.py:12:17: error[QD2155]: Primal function must be a **python** function instead of a quadrants kernel. Please wrap "
                      "the quadrants kernel in a @qd.ad.grad_replaced decorated python function instead.\n"
                      " 12 | @qd.ad.grad_for(f)\n"
                      "    |                 ^\n");
    expect_py_refused("ad.py", HEAD "@qd.kernel\ndef f(m: qd.f32):\n    for i in x:\n        loss[None] += x[i] * m\n\n\n"
                      "def fwd(m):\n    return m\n\n\n@qd.ad.grad_for(fwd)\ndef back(m):\n    return m\n",
                      "ad.py:16:17: error[QD2155]: Primal function `fwd` must be decorated by qd.ad.grad_replaced\n"
                      " 16 | @qd.ad.grad_for(fwd)\n"
                      "    |                 ^~~\n");
    expect_py_compiles("ad.py", HEAD "@qd.kernel\ndef f(m: qd.f32):\n    for i in x:\n        loss[None] += x[i] * m\n\n\n"
                       "@qd.ad.grad_replaced\ndef fwd(m):\n    f(m)\n\n\n@qd.ad.grad_for(fwd)\ndef back(m):\n    f.grad(m)\n");
}

Test(autodiff_rules, gradient_fields_must_be_placed) {
    expect_py_refused("ad.py",
                      "import quadrants as qd\n\na = qd.field(qd.f32, needs_grad=True)\nv = qd.Vector.field(3, qd.f32, needs_dual=True)\n"
                      "qd.root.dense(qd.i, 4).place(a, v)\n\n\n@qd.kernel\ndef foo():\n    a[0] = 1.0\n",
                      "ad.py:3:1: error[QD2156]: These field(s) requrie `needs_grad=True`, however their grad field(s) are not placed: 'a'. "
                      "Please consider place the grad field(s), e.g. qd.root.dense(qd.i, 1).place(x.grad), or specify a shape for the "
                      "field(s), e.g. x = qd.field(float, shape=(2, 3), needs_grad=True)\n"
                      " 3 | a = qd.field(qd.f32, needs_grad=True)\n"
                      "   | ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
                      "ad.py:4:1: error[QD2156]: These field(s) requrie `needs_dual=True`, however their dual field(s) are not placed: 'v'. "
                      "Please consider place the dual field(s), e.g. qd.root.dense(qd.i, 1).place(x.dual), or specify a shape for the "
                      "field(s), e.g. x = qd.field(float, shape=(2, 3), needs_dual=True)\n"
                      " 4 | v = qd.Vector.field(3, qd.f32, needs_dual=True)\n"
                      "   | ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
    /* placed by qd.root.lazy_grad(), by place(a, a.grad), or with the primal by shape= */
    expect_py_compiles("ad.py", "import quadrants as qd\n\na = qd.field(qd.f32, needs_grad=True)\nqd.root.dense(qd.i, 4).place(a)\nqd.root.lazy_grad()\n\n\n"
                                "@qd.kernel\ndef foo():\n    a[0] = a[1] * 2.0\n");
    expect_py_compiles("ad.py", "import quadrants as qd\n\na = qd.field(qd.f32, needs_grad=True)\nqd.root.dense(qd.i, 4).place(a, a.grad)\n\n\n"
                                "@qd.kernel\ndef foo():\n    a[0] = a[1] * 2.0\n");
    expect_py_compiles("ad.py", "import quadrants as qd\n\na = qd.field(qd.f32, shape=4, needs_grad=True)\n\n\n@qd.kernel\ndef foo():\n    a[0] = a[1] * 2.0\n");
}

/* qd_stream= on a gradient launch or inside a Tape: Quadrants' RuntimeError at the launch. */
Test(autodiff_rules, streams_are_refused_for_autodiff_launches) {
    expect_py_refused("ad.py", HEAD "@qd.kernel\ndef f():\n    loss[None] = x[0] ** 2\n\n\ns = qd.create_stream()\nf.grad(qd_stream=s)\n",
                      "ad.py:12:8: error[QD2069]: qd_stream is not compatible with autodiff kernels. Streams cannot be used with reverse-mode "
                      "or forward-mode differentiation.\n"
                      " 12 | f.grad(qd_stream=s)\n"
                      "    |        ^~~~~~~~~\n");
    expect_py_refused("ad.py", HEAD "@qd.kernel\ndef f():\n    loss[None] = x[0] ** 2\n\n\ns = qd.create_stream()\nwith qd.ad.Tape(loss):\n    f(qd_stream=s)\n",
                      "ad.py:13:7: error[QD2069]: qd_stream is not compatible with autograd Tape. Launch the kernel outside the Tape context, "
                      "or omit qd_stream.\n"
                      " 13 |     f(qd_stream=s)\n"
                      "    |       ^~~~~~~~~\n");
    /* outside a Tape, a stream is fine */
    expect_py_compiles("ad.py", HEAD "@qd.kernel\ndef f():\n    loss[None] = x[0] ** 2\n\n\ns = qd.create_stream()\nf(qd_stream=s)\nf.grad()\n");
}

/* qd.init(ad_stack_experimental_enabled=False) (Quadrants' default; qdc's ad stack is on unless
 * the script turns it off): a non-static `for ... in range()` inside another run-time loop, directly
 * or in a qd.func called there, is Quadrants' build_For error when the gradient is compiled. */
#define OFF "import quadrants as qd\n\nqd.init(arch=qd.cpu, ad_stack_experimental_enabled=%s)\n" \
            "x = qd.field(qd.f32, shape=4, needs_grad=True)\ny = qd.field(qd.f32, shape=(), needs_grad=True)\n\n\n"
Test(autodiff_rules, ad_stack_off_refuses_nested_range_in_backwards_mode) {
    char *direct = xasprintf(OFF "@qd.kernel\ndef work(n: qd.i32):\n    for i in x:\n        v = x[i]\n        for j in range(n):\n"
                                 "            v = v * 0.95 + 0.01\n        y[None] += v\n\n\nwork(3)\nwork.grad(3)\n", "False");
    expect_py_refused("ad.py", direct,
                      "ad.py:12:9: error[QD2154]: Cannot use non static range in Backwards mode\n"
                      " 12 |         for j in range(n):\n"
                      "    |         ^~~\n"
                      "ad.py:18:1: note: the gradient of kernel 'work' is asked for here: Quadrants compiles it, and raises, at this call\n"
                      " 18 | work.grad(3)\n"
                      "    | ^~~~~~~~~~~~\n");
    char *func = xasprintf(OFF "@qd.func\ndef inner(v_in: qd.f32) -> qd.f32:\n    v = v_in\n    for _ in range(2):\n"
                               "        v = v * 0.95 + 0.01\n    return v\n\n\n@qd.kernel\ndef work():\n    for i in x:\n"
                               "        y[None] += inner(x[i])\n\n\nwork()\nwork.grad()\n", "False");
    expect_py_refused("ad.py", func,
                      "ad.py:11:5: error[QD2154]: Cannot use non static range in Backwards mode\n"
                      " 11 |     for _ in range(2):\n"
                      "    |     ^~~\n"
                      "ad.py:23:1: note: the gradient of kernel 'work' is asked for here: Quadrants compiles it, and raises, at this call\n"
                      " 23 | work.grad()\n"
                      "    | ^~~~~~~~~~~\n");
    free(direct), free(func);
}

/* Differentiated: the flag on or left out, a range loop at the top of the kernel or under a while only,
 * inner qd.ndrange and qd.static loops (Quadrants checks `range` only, and only in loops). */
Test(autodiff_rules, ad_stack_on_or_loops_quadrants_allows_get_companions) {
    static const char *const bodies[] = {
        "    for i in x:\n        v = x[i]\n        for j in range(n):\n            v = v * 0.95 + 0.01\n        y[None] += v\n",
        "    for j in range(n):\n        y[None] += x[j] * x[j]\n",
        "    for i in x:\n        v = x[i]\n        for j in qd.ndrange(n):\n            v = v * 0.95 + 0.01\n        y[None] += v\n",
        "    for i in x:\n        v = x[i]\n        for j in qd.static(range(3)):\n            v = v * 0.95 + 0.01\n        y[None] += v\n",
    };
    static const char *const flags[] = {"True", "False", "False", "False"};
    for (int k = 0; k < 5; k++) {
        char *src = k == 4 ? xasprintf("import quadrants as qd\n\nx = qd.field(qd.f32, shape=4, needs_grad=True)\n"
                                       "y = qd.field(qd.f32, shape=(), needs_grad=True)\n\n\n@qd.kernel\ndef work(n: qd.i32):\n%s\n\nwork(3)\nwork.grad(3)\n",
                                       bodies[0])
                           : xasprintf(OFF "@qd.kernel\ndef work(n: qd.i32):\n%s\n\nwork(3)\nwork.grad(3)\n", flags[k], bodies[k]);
        char *dir;
        RunResult r = qdc_in_temp("ad.py", src, "--emit=header", "--target=x86_64", &dir);
        cr_expect_eq(r.status, 0, "case %d: %s", k, r.err);
        cr_expect_eq(diag_lines(r.err), 0, "case %d: %s", k, r.err);
        char *hp = xasprintf("%s/out", dir), *h = read_text(hp, NULL);
        cr_expect(h && strstr(h, " work_grad("), "case %d: %s", k, h ? h : "no header");
        free(h), free(hp), free(src), run_free(&r);
        remove_tree(dir);
        free(dir);
    }
}

/* --ad-stack=off: Quadrants' default (its ad stack is opt-in) from the command line; the script's
 * qd.init(ad_stack_experimental_enabled=...) wins over it. */
Test(autodiff_rules, ad_stack_off_flag_refuses_unless_the_script_enables_it) {
    static const char body[] = "x = qd.field(qd.f32, shape=4, needs_grad=True)\ny = qd.field(qd.f32, shape=(), needs_grad=True)\n\n\n"
                               "@qd.kernel\ndef work(n: qd.i32):\n    for i in x:\n        v = x[i]\n        for j in range(n):\n"
                               "            v = v * 0.95 + 0.01\n        y[None] += v\n\n\nwork(3)\nwork.grad(3)\n";
    char *plain = xasprintf("import quadrants as qd\n\n%s", body), *on = xasprintf("import quadrants as qd\n\nqd.init(ad_stack_experimental_enabled=True)\n%s", body);
    char *dir;
    RunResult r = qdc_in_temp("ad.py", plain, "--ad-stack=off", "--check", &dir);
    cr_expect_eq(r.status, 1, "%s", r.err);
    char *want = xasprintf("%s/ad.py:11:9: error[QD2154]: Cannot use non static range in Backwards mode\n"
                           " 11 |         for j in range(n):\n"
                           "    |         ^~~\n"
                           "%s/ad.py:17:1: note: the gradient of kernel 'work' is asked for here: Quadrants compiles it, and raises, at this call\n"
                           " 17 | work.grad(3)\n"
                           "    | ^~~~~~~~~~~~\n", dir, dir);
    cr_expect_str_eq(r.err, want);
    free(want), run_free(&r), remove_tree(dir), free(dir);
    static const char *const cases[][2] = {{"plain", "--ad-stack=on"}, {"on", "--ad-stack=off"}};
    for (int k = 0; k < 2; k++) {
        r = qdc_in_temp("ad.py", k ? on : plain, cases[k][1], "--check", &dir);
        cr_expect_eq(r.status, 0, "%s %s: %s", cases[k][0], cases[k][1], r.err);
        cr_expect_str_empty(r.err, "%s %s: %s", cases[k][0], cases[k][1], r.err);
        run_free(&r), remove_tree(dir), free(dir);
    }
    free(plain), free(on);
}

/* Quadrants' checks of a Tape's loss as the block is entered (Tape.__enter__): QD2157 at the
 * loss, in its words, for a field, a Quadrants ndarray and a torch tensor; none inside
 * pytest.raises, where the script expects the RuntimeError. */
Test(autodiff_rules, tape_loss_is_checked_as_the_tape_is_entered) {
#define K "@qd.kernel\ndef k(a: qd.types.ndarray(), p: qd.types.ndarray()):\n    for i in a:\n        p[0] += a[i] * 2.0\n\n\n"
    expect_py_refused("ad.py", HEAD "@qd.kernel\ndef f():\n    for i in x:\n        loss[None] += x[i]\n\n\nwith qd.ad.Tape(loss=x):\n    f()\n",
                      "ad.py:12:22: error[QD2157]: The loss of `Tape` must be a 0-D field, i.e. scalar\n"
                      " 12 | with qd.ad.Tape(loss=x):\n"
                      "    |                      ^\n");
    expect_py_refused("ad.py", HEAD "l2 = qd.field(qd.f32, shape=())\n\n\n@qd.kernel\ndef f():\n    for i in x:\n        l2[None] += x[i]\n\n\n"
                                    "with qd.ad.Tape(l2, clear_gradients=True):\n    f()\n",
                      "ad.py:15:17: error[QD2157]: Gradients of loss are not allocated, please use qd.field(..., needs_grad=True) for all "
                      "fields that are required by autodiff.\n"
                      " 15 | with qd.ad.Tape(l2, clear_gradients=True):\n"
                      "    |                 ^~\n");
    expect_py_refused("ad.py", "import quadrants as qd\nimport torch\n\n" K "a = torch.ones(4, requires_grad=True)\n"
                      "p = torch.ones(2, requires_grad=True)\nwith qd.ad.Tape(loss=p):\n    k(a, p)\n"
                      "m = torch.ones(1, requires_grad=False)\nwith qd.ad.Tape(loss=m):\n    k(a, m)\n",
                      "ad.py:12:22: error[QD2157]: The loss of `Tape` must be a tensor only contains one element\n"
                      " 12 | with qd.ad.Tape(loss=p):\n"
                      "    |                      ^\n"
                      "ad.py:15:22: error[QD2157]: Gradients of loss are not allocated, please set requires_grad=True for all tensors "
                      "that are required by autodiff.\n"
                      " 15 | with qd.ad.Tape(loss=m):\n"
                      "    |                      ^\n");
    expect_py_refused("ad.py", "import quadrants as qd\n\n" K "b = qd.ndarray(qd.f32, shape=(4), needs_grad=True)\n"
                      "q = qd.ndarray(qd.f32, shape=3, needs_grad=True)\nwith qd.ad.Tape(loss=q):\n    k(b, q)\n"
                      "n = qd.ndarray(qd.f32, shape=(1,))\nwith qd.ad.Tape(loss=n):\n    k(b, n)\n",
                      "ad.py:11:22: error[QD2157]: The loss of `Tape` must be an ndarray with only one element\n"
                      " 11 | with qd.ad.Tape(loss=q):\n"
                      "    |                      ^\n"
                      "ad.py:14:22: error[QD2157]: Gradients of loss are not allocated, please set needs_grad=True for all ndarrays "
                      "that are required by autodiff.\n"
                      " 14 | with qd.ad.Tape(loss=n):\n"
                      "    |                      ^\n");
    /* the RuntimeError the script expects; losses Quadrants accepts */
    expect_py_compiles("ad.py", "import pytest\nimport quadrants as qd\n\n" K "b = qd.ndarray(qd.f32, shape=(4), needs_grad=True)\n"
                       "q = qd.ndarray(qd.f32, shape=(2,), needs_grad=True)\nwith pytest.raises(RuntimeError, match=r\"only one element\"):\n"
                       "    with qd.ad.Tape(loss=q):\n        k(b, q)\n");
    expect_py_compiles("ad.py", "import quadrants as qd\n\n" K "b = qd.ndarray(qd.f32, shape=(4), needs_grad=True)\n"
                       "q = qd.ndarray(qd.f32, shape=(1,), needs_grad=True)\nwith qd.ad.Tape(loss=q):\n    k(b, q)\n");
    expect_py_compiles("ad.py", HEAD "@qd.kernel\ndef f():\n    for i in x:\n        loss[None] += x[i]\n\n\nwith qd.ad.Tape(loss=loss):\n    f()\n");
    expect_py_compiles("ad.py", "import quadrants as qd\n\nx = qd.field(qd.f32, shape=8)\nl = qd.field(qd.f32, shape=())\nqd.root.lazy_grad()\n\n\n"
                       "@qd.kernel\ndef f():\n    for i in x:\n        l[None] += x[i]\n\n\nwith qd.ad.Tape(loss=l):\n    f()\n");
#undef K
}

/* A kernel the script calls only inside blocks it expects to raise (Quadrants' test_gdar_mpm: its
 * validation raises before the last kernel of the Tape is compiled): its errors are Quadrants'
 * expected exception, not reported, and it has no entry; called outside too, they are errors. */
Test(autodiff_rules, kernel_called_only_where_a_raise_is_expected_is_not_reported) {
#define BAD "import pytest\nimport quadrants as qd\n\nx = qd.field(qd.f32, shape=4, needs_grad=True)\nloss = qd.field(qd.f32, shape=(), needs_grad=True)\n\n\n" \
            "@qd.kernel\ndef bad():\n    v = qd.Vector([x[0], x[1]])\n    loss[None] = v(0)\n\n\n" \
            "@qd.kernel\ndef good():\n    for i in x:\n        loss[None] += x[i]\n\n\n" \
            "with pytest.raises(qd.QuadrantsAssertionError):\n    with qd.ad.Tape(loss=loss, validation=True):\n        good()\n        bad()\n"
    char *dir;
    RunResult r = qdc_in_temp("ad.py", BAD, "--emit=header", NULL, &dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    char *hp = xasprintf("%s/out", dir), *h = read_text(hp, NULL);
    cr_expect(h && strstr(h, "good_grad") && !strstr(h, "bad"), "%s", h ? h : "");
    free(hp), free(h);
    run_free(&r);
    remove_tree(dir);
    free(dir);
    expect_py_refused("ad.py", BAD "bad()\n",
                      "ad.py:11:18: error[QD2019]: a vector is not callable\n"
                      " 11 |     loss[None] = v(0)\n"
                      "    |                  ^\n");
#undef BAD
}
