# A dataclass annotated through names a pytest parameter binds (Quadrants test_py_dataclass.py:
# qd_anno = qd.types.ndarray, then a: qd_anno[qd.i32, 1]): the ndarray annotation it names.
from dataclasses import dataclass

import pytest

import quadrants as qd

KINDS = [pytest.param(qd.ndarray, qd.types.ndarray, id="ndarray")]
qd_make, qd_anno = list(KINDS)[0]


@dataclass
class S:
    a: qd_anno[qd.i32, 1]
    b: qd_anno[qd.f32, 2]


@qd.kernel
def k(s: S):
    for i in range(4):
        s.a[i] += i * 3
    s.b[1, 0] = 2.5


k(S(a=qd_make(qd.i32, shape=(4,)), b=qd_make(qd.f32, shape=(2, 2))))
