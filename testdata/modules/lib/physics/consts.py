from .units import KM

G = 10 * KM
