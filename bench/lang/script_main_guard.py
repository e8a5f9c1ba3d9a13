import numpy as np
import quadrants as qd

qd.init(arch=qd.gpu)

n = 16
x = qd.field(qd.i32, shape=n)

@qd.kernel
def count():
    for i in range(n * 4):
        x[i % n] += 1

if __name__ == "__main__":
    count()
    print(x.to_numpy())
    assert np.all(x.to_numpy() == 4)
