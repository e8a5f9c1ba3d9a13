"""dataoriented.py — @qd.data_oriented classes: fields and constants created in __init__ from
its arguments and defaults, kernel methods with and without extra parameters, a qd.func method
called through self, instances at module level and in a host function, an instance passed to
a qd.template() parameter. Each kernel method compiles per instance as INSTANCE__METHOD.
Host: dataoriented.c."""
import quadrants as qd


@qd.data_oriented
class Counter:
    def __init__(self, n, scale=2):
        self.n = n
        self.scale = scale
        self.x = qd.field(qd.i32, shape=n)
        self.total = qd.field(qd.i32, shape=())

    @qd.func
    def value(self, i):
        return i * self.scale

    @qd.kernel
    def step(self):
        for i in self.x:
            self.x[i] = self.value(i)
            qd.atomic_add(self.total[None], self.value(i))

    @qd.kernel
    def add(self, a: qd.types.ndarray(dtype=qd.i32, ndim=1), k: qd.i32):
        for i in range(self.n):
            self.x[i] += a[i] * k

    def summary(self):
        return self.x.to_numpy().sum()


small = Counter(16)
big = Counter(n=64, scale=-3)


def test_counter():
    c = Counter(8, 5)
    c.step()

    @qd.kernel
    def reset(o: qd.template()):
        for i in o.x:
            o.x[i] = 100 + i

    reset(c)


def test_arrays():
    @qd.data_oriented
    class State:
        def __init__(self, a, n):
            self.a = a
            self.n = n

        @qd.kernel
        def double(self):
            for i in range(self.n):
                self.a[i] = self.a[i] * 2

    arr = qd.ndarray(qd.i32, shape=(8,))
    st = State(arr, 8)
    st.double()

    @qd.kernel
    def inc(s: qd.template(), k: qd.i32):
        for i in range(s.n):
            s.a[i] += k

    inc(st, 1)
