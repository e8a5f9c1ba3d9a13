# Genesis-shaped kernels (its solvers' patterns): every kernel is generic (structs of untyped
# ndarrays, a qd.template() config), a qd.func whose top-level loops become the kernel's
# parallel loops with func-local compile-time values, dispatch through a dict of atomics, the
# old gpu_graph= spelling, a perf_dispatch whose lambdas take *args, **kwargs, and host code
# that calls the kernels with objects made at scene set-up (never evaluated here).
import quadrants as qd

import gen as gs
from gen.utils import array_class

qd_ops = {0: qd.atomic_add, 1: qd.atomic_max}


@qd.func
def func_integrate(state: array_class.BodiesState, config: qd.template(), dt: gs.qd_float):
    BW = qd.static(config.backward)
    n, m = state.bodies.pos.shape
    qd.loop_config(serialize=False, block_dim=64)
    for i in range(n):
        for j in range(m):
            if qd.static(BW):
                state.bodies.pos[i, j] -= state.bodies.vel[i, j] * dt
            else:
                state.bodies.pos[i, j] += state.bodies.vel[i, j] * dt
    for i in range(n):
        for j in range(m):
            state.bodies.vel[i, j] *= config.damping


@qd.kernel
def kernel_step(state: array_class.BodiesState, config: qd.template(), dt: gs.qd_float):
    for _ in qd.static(range(config.substeps)):
        func_integrate(state, config, dt)


@qd.kernel(gpu_graph=True)
def kernel_energy(state: array_class.BodiesState, op: qd.template()):
    for _ in range(1):
        state.energy[0] = 0.0
    n, m = state.bodies.vel.shape
    for i in range(n):
        for j in range(m):
            qd_ops[op](state.energy[0], state.bodies.vel[i, j] * state.bodies.vel[i, j])


@qd.perf_dispatch(get_geometry_hash=lambda *args, **kwargs: (*args, tuple(kwargs)), warmup=1, active=1)
def kernel_clear(state: array_class.BodiesState) -> None: ...


@kernel_clear.register(is_compatible=lambda *args, **kwargs: len(args) + len(kwargs) == 1)
@qd.kernel
def kernel_clear_all(state: array_class.BodiesState):
    for i, j in state.bodies.vel:
        state.bodies.vel[i, j] = 0.0


def run(solver):
    kernel_step(solver.state, solver.config, solver.dt)
    kernel_energy(solver.state, 0)
