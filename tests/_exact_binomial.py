"""The binomial lower tail in exact rational arithmetic, for the test-set bound's tests."""

import math
from fractions import Fraction


def exact_lower_tail(k, n, r):
    """P(Bin(n, r) <= k), exactly (the float ``r`` read exactly)."""
    r = Fraction(r)
    return sum(math.comb(n, j) * r**j * (1 - r) ** (n - j) for j in range(k + 1))
