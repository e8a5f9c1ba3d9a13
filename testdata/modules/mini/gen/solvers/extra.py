# More of Genesis' solver patterns: a parameter named errno (a C macro), a qd.func whose top-level
# loops reach the kernel through another qd.func (forward dynamics), qd.loop_config inside it, a
# module-level placeholder array passed down on the branch that never uses it (Genesis'
# array_class.PLACEHOLDER for out_bw), package globals made by globals()[name] = member, and
# gs.qd_vec3, a type gs.init() sets.
import quadrants as qd

import gen as gs

PLACEHOLDER = qd.ndarray(gs.qd_float, (1,))


@qd.func
def func_scale(i, out: qd.types.ndarray(), out_bw: qd.types.ndarray(), backward: qd.template()):
    if qd.static(backward):
        out_bw[i] = out_bw[i] * 2.0
    else:
        out[i] = out[i] * 2.0


@qd.func
def func_pass_on(i, out: qd.types.ndarray(), out_bw: qd.types.ndarray(), backward: qd.template()):
    func_scale(i, out, out_bw, backward)


@qd.func
def func_fill(out: qd.types.ndarray(), errno: qd.types.ndarray(), serial: qd.template()):
    qd.loop_config(serialize=serial)
    for i in range(out.shape[0]):
        out[i] = 1.0 + i
        qd.atomic_or(errno[0], 2)
    for i in range(out.shape[0]):
        func_pass_on(i, out, PLACEHOLDER, False)


@qd.func
def func_outer(out: qd.types.ndarray(), errno: qd.types.ndarray(), serial: qd.template()):
    func_fill(out, errno, serial)


@qd.kernel
def kernel_extra(out: qd.types.ndarray(), errno: qd.types.ndarray(), serial: qd.template()):
    func_outer(out, errno, serial)
    for _ in range(1):
        v = gs.qd_vec3(out[0], out[1], 0.5)
        out[0] = v[0] + v[1] + v[2] + qd.static(gs.metal + gs.cuda * 8)
