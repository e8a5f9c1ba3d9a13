# qd.stop_grad in forward mode (tests/unit/test_lang_features3.c).
import quadrants as qd

x = qd.field(qd.f32, shape=4, needs_dual=True)
loss = qd.field(qd.f32, shape=(), needs_dual=True)


@qd.kernel
def k():
    for i in range(4):
        loss[None] += x[i] * x[i]
        qd.stop_grad(x)
    for i in range(4):
        loss[None] += 3.0 * x[i]
