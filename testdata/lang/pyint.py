# pyint.py — Python ints in host code are exact (issue 34 items 2 and 3): a product of names
# (100000 * 100000, which a 32-bit fold made 1410065408), squaring in a host loop (3 ** 32, which
# went negative), floor division, modulo and shifts of such values, an IntFlag whose auto()
# members pass 2**62 (2**62 and 2**63 stay distinct: 2**63 is a u64), and a host loop of 100
# iterations, which --eval-limit=loop=100 lets qdc evaluate (the default is 64). Past 64 bits
# (frontend/py/pyint.c): 3**64, 1 << 100 and 2**200 are exact in host code and qd.static, and
# whatever fits 64 bits after them reaches the kernel; IntFlag members 2**64 and up are Python's
# values (F.M66 >> 10). Host: pyint.c.
# backends: x86_64
# qdc: --eval-limit=loop=100
from enum import IntFlag, auto

import quadrants as qd

out = qd.field(qd.i64, shape=16)
flags = qd.field(qd.u64, shape=4)


class F(IntFlag):
    M0 = auto()
    M1 = auto()
    M2 = auto()
    M3 = auto()
    M4 = auto()
    M5 = auto()
    M6 = auto()
    M7 = auto()
    M8 = auto()
    M9 = auto()
    M10 = auto()
    M11 = auto()
    M12 = auto()
    M13 = auto()
    M14 = auto()
    M15 = auto()
    M16 = auto()
    M17 = auto()
    M18 = auto()
    M19 = auto()
    M20 = auto()
    M21 = auto()
    M22 = auto()
    M23 = auto()
    M24 = auto()
    M25 = auto()
    M26 = auto()
    M27 = auto()
    M28 = auto()
    M29 = auto()
    M30 = auto()
    M31 = auto()
    M32 = auto()
    M33 = auto()
    M34 = auto()
    M35 = auto()
    M36 = auto()
    M37 = auto()
    M38 = auto()
    M39 = auto()
    M40 = auto()
    M41 = auto()
    M42 = auto()
    M43 = auto()
    M44 = auto()
    M45 = auto()
    M46 = auto()
    M47 = auto()
    M48 = auto()
    M49 = auto()
    M50 = auto()
    M51 = auto()
    M52 = auto()
    M53 = auto()
    M54 = auto()
    M55 = auto()
    M56 = auto()
    M57 = auto()
    M58 = auto()
    M59 = auto()
    M60 = auto()
    M61 = auto()
    M62 = auto()
    M63 = auto()
    M64 = auto()
    M65 = auto()
    M66 = auto()


p = 100000
q = p * p
n = 3
for _ in range(5):
    n = n * n
total = 0
for i in range(100):
    total += i * q
d = -q // 7
m = -q % 7
s = (q << 20) >> 3
big = 1 << 100
n64 = n * n
less = 0
if big < n64:
    less = 1


@qd.kernel
def k():
    out[0] = q
    out[1] = n
    out[2] = total
    out[3] = d
    out[4] = m
    out[5] = s
    out[6] = q * 3 - p
    flags[0] = F.M62
    flags[1] = F.M63
    flags[2] = F.M0 | F.M1
    flags[3] = F.M66 >> 10
    out[7] = big >> 95
    out[8] = n64 % 1000000007
    out[9] = big // 3**40
    out[10] = -((-big) >> 90)
    out[11] = (big | 5) & 0xFFFF
    s12 = qd.static((big * big) >> 150); out[12] = s12  # Quadrants: no qd.static value for an element
    out[13] = less
    out[14] = -n64 // big
