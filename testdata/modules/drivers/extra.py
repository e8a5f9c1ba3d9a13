# The instantiation driver of gen.solvers.extra (qdc(1), INSTANTIATION DRIVERS):
#   qdc drivers/extra.py -I mini -D gen.use_ndarray=True -D gen.qd_float=qd.f32 -D gen.qd_int=qd.i32 \
#       -D "gen.qd_vec3=qd.types.vector(3, qd.f32)"
import quadrants as qd

import gen as gs
import gen.solvers.extra as extra


def placeholders():
    extra.kernel_extra(qd.ndarray(gs.qd_float, (4,)), qd.ndarray(gs.qd_int, (1,)), True)
    extra.kernel_extra(qd.ndarray(gs.qd_float, (4,)), qd.ndarray(gs.qd_int, (1,)), False)
