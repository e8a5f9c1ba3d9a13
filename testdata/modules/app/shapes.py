import quadrants as qd
import helpers

SIDES = 4


@qd.func
def perimeter(s):
    return s * SIDES + helpers.BONUS
