# expect: value 45
import quadrants as qd

class Acc:
    def __init__(self, n):
        self.n = n

    @property
    def total(self):
        s = 0
        for i in range(self.n):
            s += i
        return s


class Acc2(Acc):
    pass


def make(n):
    a = Acc2(n)
    return a.total


x = make(10)
out = qd.field(qd.i64, shape=())


@qd.kernel
def k():
    out[None] = x
