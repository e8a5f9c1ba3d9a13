# expect: error 13:20 QD2026 --eval-limit=steps=N
import quadrants as qd

def f0(n):
    return n


def f1(n):
    return f0(n) + f0(n)


def f2(n):
    return f1(n) + f1(n)


def f3(n):
    return f2(n) + f2(n)


def f4(n):
    return f3(n) + f3(n)


def f5(n):
    return f4(n) + f4(n)


def f6(n):
    return f5(n) + f5(n)


def f7(n):
    return f6(n) + f6(n)


def f8(n):
    return f7(n) + f7(n)


def f9(n):
    return f8(n) + f8(n)


def f10(n):
    return f9(n) + f9(n)


def f11(n):
    return f10(n) + f10(n)


def f12(n):
    return f11(n) + f11(n)


def f13(n):
    return f12(n) + f12(n)


def f14(n):
    return f13(n) + f13(n)


def f15(n):
    return f14(n) + f14(n)


def f16(n):
    return f15(n) + f15(n)


def f17(n):
    return f16(n) + f16(n)


def f18(n):
    return f17(n) + f17(n)


def f19(n):
    return f18(n) + f18(n)


def f20(n):
    return f19(n) + f19(n)


def f21(n):
    return f20(n) + f20(n)


def f22(n):
    return f21(n) + f21(n)


def f23(n):
    return f22(n) + f22(n)


def f24(n):
    return f23(n) + f23(n)


def f25(n):
    return f24(n) + f24(n)


def f26(n):
    return f25(n) + f25(n)


def f27(n):
    return f26(n) + f26(n)


def f28(n):
    return f27(n) + f27(n)


def f29(n):
    return f28(n) + f28(n)


def f30(n):
    return f29(n) + f29(n)


x = f30(1)
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
