# A module whose qd.func holds a top-level loop (host_eval5.py calls it as lib.spread(...)).
import quadrants as qd


@qd.func
def spread(dst: qd.template(), v: qd.i32):
    qd.loop_config(block_dim=32)
    for i in range(dst.shape[0]):
        dst[i] += v * i
