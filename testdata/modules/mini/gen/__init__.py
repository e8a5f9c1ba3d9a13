# A Genesis-shaped package (Genesis' genesis/__init__.py): the values gs.init() sets when the
# program starts are None here; -D gen.use_ndarray=True -D gen.qd_float=qd.f32 ... give them.
import quadrants as qd

use_ndarray = None
qd_float = None
qd_int = None
qd_vec3 = None

# Shortcuts as Genesis' package makes them at import: a star-import, and the members of an enum
# copied into the package's globals (gen.cpu, gen.metal ...).
from .constants import backend as _gs_backend
from .utils.geom import *

for name, member in _gs_backend.__members__.items():
    globals()[name] = member
