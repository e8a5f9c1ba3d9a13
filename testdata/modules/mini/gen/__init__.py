# A Genesis-shaped package (Genesis' genesis/__init__.py): the values gs.init() sets when the
# program starts are None here; -D gen.use_ndarray=True -D gen.qd_float=qd.f32 ... give them.
import quadrants as qd

use_ndarray = None
qd_float = None
qd_int = None
