# clock.py — qd.clock_counter() and qd.randn() (issue 14). The counter is the family's cycle counter
# (capability-db clock section: x86 rdtsc, PTX %clock64, AMDGPU s_memtime / SHADER_CYCLES); the
# host checks that it advances across a busy loop. qd.randn is Quadrants' Box-Muller transform of
# two qd.random draws; the host checks the sample's moments. Host: clock.c.
# Vulkan and Metal read 0 with warning QD4020 unless --cap=+shader-clock (tests/unit/test_clock.c).
# backends: ptx amdgpu x86_64
import quadrants as qd

qd.init(arch=qd.cpu, random_seed=11, default_fp=qd.f64)

N = 20000
ticks = qd.field(qd.i64, shape=2)
spin = qd.field(qd.f32, shape=())
gauss = qd.field(qd.f64, shape=N)
gauss32 = qd.field(qd.f32, shape=N)


@qd.kernel
def time_loop(n: qd.i32):
    for _ in range(1):  # one iteration; the timed loop inside it is serial
        ticks[0] = qd.clock_counter()
        acc = 0.0
        for _k in range(n):  # a new name: Quadrants refuses an outer loop variable as a loop variable
            acc = acc * 0.5 + 1.0
        spin[None] = acc
        ticks[1] = qd.clock_counter()


@qd.kernel
def sample():
    for i in range(N):
        gauss[i] = qd.randn()  # float is qd.f64 here: qd.init(default_fp=qd.f64)
        gauss32[i] = qd.randn(qd.f32)
