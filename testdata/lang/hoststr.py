# hoststr.py — host Python strings that qdc evaluates at compile time (issue 14 item 6): a helper
# building a field's order= with "".join(chr(ord("i") + a) for a in layout), str methods (format,
# upper, lower, strip, replace, split, startswith, find, count), chr/ord, `in` on strings, and
# a vector field with order= passed to a qd.template() parameter. Host: hoststr.c.
# backends: x86_64
import pytest

import quadrants as qd

out = qd.field(qd.i32, shape=16)


def _order_string(layout):
    """An integer axis permutation as Quadrants' order string: (1, 0) -> "ji"."""
    return "".join(chr(ord("i") + a) for a in layout)


NAME = "{}_{}".format("grid", 3).upper()  # "GRID_3"
WORDS = " a,b , c ".split(",")  # (" a", "b ", " c ")
PARTS = "x y  z".split()  # ("x", "y", "z")


@pytest.mark.parametrize("layout", [(1, 0), (0, 1)])
def test_layout(layout):
    order = _order_string(layout)
    f = qd.field(qd.i32, shape=(2, 3), order=order)

    @qd.kernel
    def fill(g: qd.template()):
        for i, j in g:
            g[i, j] = i * 10 + j
        out[0 if qd.static(order == "ji") else 1] = g[1, 2]

    fill(f)


def test_vector_order():
    v = qd.Vector.field(2, dtype=qd.i32, shape=(2, 3), order=_order_string((1, 0)))

    @qd.kernel
    def fill(w: qd.template()):
        for i, j in qd.ndrange(2, 3):
            w[i, j] = [i, j]
        out[2] = w[1, 2][0] * 10 + w[1, 2][1]

    fill(v)


@qd.kernel
def strings():
    out[3] = len(NAME) * 10 + (1 if qd.static(NAME == "GRID_3") else 0)  # 61
    out[4] = 1 if qd.static(WORDS[1].rstrip() == "b" and WORDS[2].lstrip() == "c " and WORDS[0].strip() == "a") else 0
    out[5] = len(PARTS) + (10 if qd.static("y" in PARTS) else 0)  # 13
    out[6] = qd.static(NAME.find("_")) * 100 + qd.static("a-b-c".count("-"))  # 402
    out[7] = 1 if qd.static(NAME.lower().startswith("grid") and "RID" in NAME) else 0
    s8 = qd.static(ord(chr(65).replace("A", "z"))); out[8] = s8  # 122
    out[9] = 1 if qd.static("ab12"[2:].isdigit()) else 0
