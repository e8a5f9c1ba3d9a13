# An instantiation driver (qdc(1), "Instantiation drivers"): the Genesis-shaped kernels of
# gen.solvers.step called with placeholder arrays, as the program's set-up would call them.
#   qdc drivers/step.py -I mini -D gen.use_ndarray=True -D gen.qd_float=qd.f32 -D gen.qd_int=qd.i32
import quadrants as qd

import gen as gs
from gen.utils import array_class
import gen.solvers.step as step

config = array_class.StructSimConfig(False, 2)
back = array_class.StructSimConfig(backward=True, substeps=1, damping=1.0)


def placeholders():
    bodies = array_class.StructBodies(pos=qd.ndarray(gs.qd_float, (4, 3)), vel=qd.ndarray(gs.qd_float, (4, 3)))
    state = array_class.StructState(bodies=bodies, energy=qd.ndarray(gs.qd_float, (1,)))
    step.kernel_step(state, config, 0.5)
    step.kernel_step(state, back, 0.5)
    step.kernel_energy(state, 0)
    step.kernel_energy(state, 1)
    step.kernel_clear_all(state)
