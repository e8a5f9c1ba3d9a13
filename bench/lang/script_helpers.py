import math
import quadrants as qd

qd.init(arch=qd.cpu, default_ip=qd.i32)

def make_data(n):
    return [i * 2 for i in range(n)]

class Sim:
    def __init__(self, n):
        self.n = n

N = 256
counter = qd.field(qd.i32, shape=())

@qd.kernel
def tally(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):
    for i in a:
        if a[i] % 2 == 0:
            counter[None] += 1

def main():
    s = Sim(N)
    data = make_data(s.n)
    print(f"{len(data)} items, sqrt {math.sqrt(N):.1f}")

if __name__ == "__main__":
    main()
