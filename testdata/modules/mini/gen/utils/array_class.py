# Genesis' genesis/utils/array_class.py in small: structs of arrays whose decorator and
# metaclass are chosen when the program starts (dataclasses for ndarrays, data-oriented
# classes for fields), an __init__ made by a metaclass, and class aliases for annotations.
import dataclasses
from functools import partial
from typing import TYPE_CHECKING

import quadrants as qd

import gen as gs

if TYPE_CHECKING:
    V_ANNOTATION = qd.types.ndarray()
    DATA_ORIENTED = dataclasses.dataclass
else:
    V_ANNOTATION = qd.types.ndarray() if gs.use_ndarray else qd.template()
    DATA_ORIENTED = partial(dataclasses.dataclass, frozen=True) if gs.use_ndarray else qd.data_oriented


class AutoInitMeta(type):
    def __new__(cls, name, bases, namespace):
        names = tuple(namespace["__annotations__"].keys())

        def __init__(self, *args, **kwargs):
            for key, value in zip(names, args):
                setattr(self, key, value)
            for key, value in kwargs.items():
                setattr(self, key, value)

        namespace["__init__"] = __init__
        return super().__new__(cls, name, bases, namespace)


BASE_METACLASS = type if gs.use_ndarray else AutoInitMeta


@DATA_ORIENTED
class StructBodies(metaclass=BASE_METACLASS):
    pos: V_ANNOTATION
    vel: V_ANNOTATION


@DATA_ORIENTED
class StructState(metaclass=BASE_METACLASS):
    bodies: StructBodies
    energy: V_ANNOTATION


@qd.data_oriented
class StructSimConfig(metaclass=AutoInitMeta):
    backward: bool
    substeps: int
    damping: float = 0.5


BodiesState = StructState if gs.use_ndarray else qd.template()
