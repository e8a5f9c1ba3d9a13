# Genesis' genesis/constants.py in small: the backends, an IntEnum whose members genesis/__init__
# copies into the package's globals.
from enum import IntEnum


class backend(IntEnum):
    cpu = 0
    gpu = 1
    cuda = 2
    metal = 4
