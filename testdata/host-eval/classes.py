# Plain classes and dataclasses whose methods qdc runs at compile time (tests/unit/test_host_eval.c,
# host_eval/classes_run_on_x86): every value a kernel stores below is computed by Python code of
# the script, as Python computes it.
import dataclasses

import quadrants as qd

qd.init(arch=qd.cpu)


class Base:
    k = 2
    scale = k * 3  # a class body sees the names before

    def __init__(self, n, extra=1):
        self.n = n
        self.extra = extra
        if n > 3:
            self.big = 1
        else:
            self.big = 0
        self.lo, self.hi = n - 1, n + 1

    def size(self):
        return self.n * self.k

    def total(self):
        return self.size() + self.extra  # a method calling a method

    @property
    def area(self):
        return self.lo * self.hi

    @staticmethod
    def twice(x):
        return 2 * x

    @classmethod
    def plus_k(cls, v):
        return v + cls.k


class Derived(Base):
    k = 5

    def steps(self):
        s = 0
        for i in range(self.n):
            if i % 2 == 0:
                s += i
        return s


@dataclasses.dataclass
class Opts:
    a: int
    b: int = 3
    c: int = dataclasses.field(init=False)

    def __post_init__(self):
        self.c = self.a * self.b

    def total(self):
        return self.a + self.b + self.c

    @property
    def half(self):
        return self.c // 2


@dataclasses.dataclass
class Arr:
    out: qd.types.NDArray[qd.i32, 1]
    n: int

    def twice(self):
        return self.n * 2


class Table:
    def __init__(self, items):
        self.items = items

    def __getitem__(self, i):
        return self.items[i] * 10


tbl = Table([1, 2, 3])
fact = lambda n: 1 if n <= 1 else n * fact(n - 1)  # recursive lambdas called in a kernel
fib = lambda n: n if n < 2 else fib(n - 1) + fib(n - 2)


def build(m):
    obj = Derived(m, extra=7)
    return obj.total()


d = Derived(4)
small = Base(2)
o = Opts(4)
T = o.total()
B = build(6)
x = qd.field(qd.i32, shape=16)


@qd.kernel
def classes(c: qd.template()):
    for i in range(1):
        x[0] = d.size()  # 4 * 5
        x[1] = d.total()  # 20 + 1
        x[2] = d.area  # 3 * 5
        x[3] = Base.twice(7)
        x[4] = Derived.plus_k(1)  # cls is Derived
        x[5] = d.big * 10 + small.big
        x[6] = Base.scale
        x[7] = B  # 6 * 5 + 7
        x[8] = c.steps()  # 0 + 2
        s9 = qd.static(c.hi); x[9] = s9
        x[10] = T  # 4 + 3 + 12
        s11 = qd.static(o.half); x[11] = s11
        x[12] = small.total()  # 2 * 2 + 1
        x[13] = fact(6)
        x[14] = fib(15)
        x[15] = tbl[2]  # __getitem__


@qd.kernel
def with_dataclass(p: Arr):
    for i in range(p.n):
        p.out[i] = p.twice() + i


classes(d)
out = qd.ndarray(qd.i32, shape=4)
with_dataclass(Arr(out=out, n=4))
