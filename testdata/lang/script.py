"""script.py — a whole Quadrants script: imports of other modules, qd.init, constants computed
from constants, tuple constants, a dict and a comprehension, helper functions, a class, the
main guard, f-strings, try/except. qdc compiles the kernels and funcs and evaluates only the
module-level values they use. Host: script.c."""
import argparse
import numpy as np
import quadrants as qd
from dataclasses import dataclass

qd.init(arch=qd.gpu, debug=False, default_fp=qd.f32)

NBINS = 16
N = NBINS * 64
SHAPE = (NBINS,)
SCALE: float = 2.5
lo, hi = 0, NBINS - 1
rng = np.random.default_rng(0)
table = {"a": 1, "b": [x * 2 for x in range(3)]}
bins = qd.field(qd.i32, shape=SHAPE)
total = qd.field(qd.f32, shape=())
host_data = qd.ndarray(qd.i32, shape=(N,))


def helper(x, *rest, **kw):
    return lambda y: x + y


@dataclass
class Config:
    n: int = N


class Runner:
    def __init__(self):
        self.n = N

    def run(self):
        histogram(host_data)


@qd.func
def clampi(v, a, b):
    return qd.max(a, qd.min(v, b))


@qd.kernel
def histogram(data: qd.types.ndarray(dtype=qd.i32, ndim=1)):
    for i in bins:
        bins[i] = 0
    for i in range(data.shape[0]):
        bins[clampi(data[i], lo, hi)] += 1


@qd.kernel
def scale(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    total[None] = 0.0
    for i in x:
        x[i] *= SCALE
        total[None] += x[i]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=N)
    args = parser.parse_args()
    data = rng.integers(-5, NBINS + 5, args.n).astype(np.int32)
    histogram(data)
    print(f"bins: {bins.to_numpy()[:4]!r}, {len(table)=}")
    try:
        scale(np.ones(8, dtype=np.float32))
    except Exception as e:
        raise SystemExit(1) from e
    finally:
        pass


if __name__ == "__main__":
    main()
