# physics: a package; its top level runs once, before its submodules'.
import quadrants as qd
from . import consts

dtype = qd.f64  # the program sets it at start-up: -D physics.dtype=qd.f32 stands in
SCALE = 2
