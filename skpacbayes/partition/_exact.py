"""Exact arithmetic of the partition solvers: dyadic integers and directed rounding.

Every float is a dyadic rational, so a vector of non-negative floats is written exactly as
Python integers times one power-of-two unit (:func:`_exact_ints`); results computed on those
integers go back to float rounded DOWN (lower bounds) or UP (upper bounds). Also the input
checks shared by the public functions and the allowance for the float evaluation of the
deployed vote.
"""

import math
from fractions import Fraction

import numpy as np

_U = Fraction(1, 2**53)  # unit roundoff of float64
_MIN_BITS, _MAX_BITS = 4, 30


def _round_down(q):
    """Largest float ``<= q`` (``q`` a Fraction or int)."""
    q = Fraction(q)
    try:
        f = q.numerator / q.denominator  # correctly rounded in CPython
    except OverflowError:
        return -math.inf if q < 0 else float(np.finfo(np.float64).max)
    if math.isinf(f):
        return -math.inf if f < 0 else float(np.finfo(np.float64).max)
    if Fraction(f) > q:
        f = math.nextafter(f, -math.inf)
    return f


def _round_up(q):
    """Smallest float ``>= q`` (``q`` a Fraction or int)."""
    q = Fraction(q)
    try:
        f = q.numerator / q.denominator
    except OverflowError:
        return math.inf if q > 0 else -float(np.finfo(np.float64).max)
    if math.isinf(f):
        return math.inf if f > 0 else -float(np.finfo(np.float64).max)
    if Fraction(f) < q:
        f = math.nextafter(f, math.inf)
    return f


def _nearest(q):
    """``q`` rounded to nearest, ``+-inf`` on overflow."""
    try:
        return float(q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def _as_vector(a, name, *, signed=False):
    """Validate a 1-D real vector and return it as float64 (exact for float16/32/64)."""
    arr = np.asarray(a)
    if arr.dtype.kind == "c":  # numpy would drop the imaginary part with a mere warning
        raise ValueError(f"{name} must be a 1-D array of real numbers, got complex values")
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        try:
            arr = np.asarray(a, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must be a 1-D array of real numbers") from exc
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if not signed and np.any(arr < 0):
        raise ValueError(f"{name} must be non-negative")
    return arr


def _check_bits(bits):
    if isinstance(bits, bool) or not isinstance(bits, (int, np.integer)):
        raise ValueError(f"bits must be an integer in [{_MIN_BITS}, {_MAX_BITS}], got {bits!r}")
    bits = int(bits)
    if not _MIN_BITS <= bits <= _MAX_BITS:
        raise ValueError(f"bits must be an integer in [{_MIN_BITS}, {_MAX_BITS}], got {bits}")
    return bits


def _exact_ints(x):
    """Exact integers ``w`` and exponent ``e`` with ``x[i] == w[i] * 2**-e`` (x > 0)."""
    nums, exps = [], []
    for v in x.tolist():
        n, d = v.as_integer_ratio()
        nums.append(n)
        exps.append(d.bit_length() - 1)
    e = max(exps)
    return [n << (e - k) for n, k in zip(nums, exps, strict=True)], e


def _vote_slack(n_nonzero):
    """eta = 4 (n' + 2) u: allowance for the float evaluation of the deployed vote."""
    return 4 * (n_nonzero + 2) * _U
