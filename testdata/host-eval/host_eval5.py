# Host code qdc follows to the kernels it compiles (issue 30, fifth round): a host function with
# keyword-only parameters (a bare '*') called with keywords and with **kwargs, a host call whose
# argument is a helper's result (run(qd.i32, twice(4))), a helper that grows a list of its own,
# and a qd.func called as module.func(...) whose loop is the kernel's parallel loop.
import quadrants as qd

import host_eval5_lib as lib

qd.init(arch=qd.cpu)

out = qd.field(qd.i32, shape=8)


def squares(n):
    xs = []
    for i in range(n):
        xs.append(i * i)
    xs.extend([100])
    return xs


SQ = squares(4)  # [0, 1, 4, 9, 100]
TOTAL = SQ[3] + SQ[4] + len(SQ)  # 114


def twice(n):
    return 2 * n


def run(dt, n, *, base=1, host_init=None):
    @qd.kernel
    def fill():
        for i in range(n):
            out[i] = base + i + TOTAL
        lib.spread(out, 1000)

    if host_init is None:
        fill()


kwargs = {"base": 3}
run(qd.i32, twice(4), **kwargs)
run(qd.i32, 2, base=10)
