# Genesis' genesis/utils/geom.py in small: a qd.func named like a vector type. The package
# star-imports it, and gs.init() then rebinds the name to qd.types.vector(3, qd_float): a -D of
# gen.qd_vec3 stands for that start-up value and wins over the star-import.
import quadrants as qd


@qd.func
def qd_vec3(val):
    return qd.Vector([val, val, val])
