# random.py — qd.random (issue 14): Quadrants' per-thread generator. qdc seeds a PCG32 stream
# per loop iteration, so results do not depend on the thread count (they differ from
# Quadrants'). The host checks ranges and a crude uniformity bound. Host: random.c.
# f64 fields: not MSL (random-all.qd compiles qd.random for every family).
# backends: ptx amdgpu spirv x86_64
import quadrants as qd

qd.init(arch=qd.cpu, random_seed=7)

N = 8192
uf = qd.field(qd.f32, shape=N)
ud = qd.field(qd.f64, shape=N)
ui = qd.field(qd.i32, shape=N)
ul = qd.field(qd.u64, shape=N)
walk = qd.field(qd.i32, shape=16)


@qd.func
def coin() -> qd.i32:
    return qd.cast(qd.random() < 0.5, qd.i32)


@qd.kernel
def fill():
    for i in range(N):
        uf[i] = qd.random()
        ud[i] = qd.random(qd.f64)
        ui[i] = qd.random(qd.i32)
        ul[i] = qd.random(dtype=qd.u64)
    for w in range(16):
        heads = 0
        for _ in range(1000):  # the state advances inside a serial loop
            heads += coin()
        walk[w] = heads
