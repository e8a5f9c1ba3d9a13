# qd.simt tiles run on x86 (tests/unit/test_simt_tile.c): a tile type from a pytest fixture whose
# value is a types.SimpleNamespace holding functools.partial(_make_tile, 16), a 32x32 one from
# _make_tile directly; load/store (clamped to the array, partial rows and columns), cholesky_,
# solve_triangular_ (_trsm), eye() and _ger_sub, zeros and _store3d of a batch.
import functools
import types

import pytest

import quadrants as qd
from quadrants.lang.simt._tile import _make_tile

SPECS = [pytest.param(types.SimpleNamespace(make=functools.partial(_make_tile, 16), size=16), id="tile16")]


@pytest.fixture(params=SPECS)
def spec(request):
    return request.param


@pytest.fixture
def tdim(spec):
    return spec.size


Tile = spec.make(qd.f32)
Tile32 = _make_tile(32, dtype=qd.f32)


@qd.kernel
def chol(a: qd.types.NDArray[qd.f32, 2], b: qd.types.NDArray[qd.f32, 2], l: qd.types.NDArray[qd.f32, 2], x: qd.types.NDArray[qd.f32, 2]):
    qd.loop_config(block_dim=tdim)
    n = Tile.SIZE
    for _ in range(n):
        t = Tile()
        t._load(a, 0, n, 0, n)
        t.cholesky_(qd.f32(1e-6))
        t._store(l, 0, n, 0, n)
        s = Tile.zeros()
        s._load(b, 0, n, 0, n)
        t.solve_triangular_(s)
        s._store(x, 0, n, 0, n)


@qd.kernel
def ger(out: qd.types.NDArray[qd.f32, 2]):
    qd.loop_config(block_dim=16)
    for _ in range(16):
        t = Tile.eye()
        lane = qd.simt.subgroup.invocation_id()
        t._ger_sub(qd.f32(lane + 1), qd.f32(lane * 2))
        t._store(out, 0, 16, 0, 16)


@qd.kernel
def part(src: qd.types.NDArray[qd.f32, 2], dst: qd.types.NDArray[qd.f32, 2]):
    qd.loop_config(block_dim=16)
    for _ in range(16):
        t = Tile()
        t._load(src, 3, 100, 2, 100)
        t._store(dst, 1, 9, 4, 14)


@qd.kernel
def batch(dst: qd.types.NDArray[qd.f32, 3]):
    qd.loop_config(block_dim=32)
    for _ in range(32):
        t = Tile32.eye()
        t._store3d(dst, 1, 0, 32, 0, 32)


@qd.kernel
def sliced(m: qd.types.NDArray[qd.f32, 2], v: qd.types.NDArray[qd.f32, 3], out: qd.types.NDArray[qd.f32, 2]):
    qd.loop_config(block_dim=16)
    for _ in range(16):
        t = Tile()
        t[:] = m[0:16, 0:16]
        col = v[1, 4:12, 2]
        t -= qd.outer(col, col)
        lane = qd.i32(qd.simt.subgroup.invocation_id())
        op = qd.outer(qd.f32(lane), m[0:16, 3])
        t -= op
        out[0:16, 0:16] = t


@qd.kernel
def shared(m: qd.types.NDArray[qd.f32, 2], out: qd.types.NDArray[qd.f32, 2]):
    qd.loop_config(block_dim=16)
    for i in range(16):
        buf = qd.simt.block.SharedArray((16, 16), qd.f32)
        for j in range(16):
            buf[i, j] = m[i, j] * 2.0
        qd.simt.block.sync()
        t = Tile()
        t[:] = buf[2:16, 0:8]
        out[0:16, 0:16] = t
