"""Argument checks that need no torch: integers, a confidence level and telling a tensor apart.

The test-set bound (:mod:`skpacbayes.bounds._test_set`) runs without torch, so that a hold-out
certificate never imports it; :func:`skpacbayes.bounds._validation.dual`, the calling convention
of the torch bounds, checks its integer arguments with the same function.
"""

from __future__ import annotations

import math
import sys

import numpy as np

__all__ = ["check_int", "check_delta", "is_tensor"]


def is_tensor(value) -> bool:
    """Whether ``value`` is a torch tensor, without importing torch (a tensor implies it is)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def _plain(value):
    """A number as the user typed it: ``1.5``, not ``np.float64(1.5)``."""
    return value.item() if isinstance(value, np.generic) else value


def check_int(name: str, value, minimum: int) -> int:
    """``value`` as a Python ``int`` of at least ``minimum``, else a ``ValueError`` naming it.

    An integral float (``3.0``), a NumPy integer or a one-element tensor is accepted; a
    boolean is not.
    """
    if is_tensor(value):
        if value.numel() != 1:
            raise ValueError(f"{name} must be a single integer")
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        if isinstance(value, float | np.floating) and math.isfinite(value) and value == int(value):
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer >= {minimum}, got {_plain(value)!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {_plain(value)!r}")
    return int(value)


def check_delta(name: str, value) -> float:
    """A single confidence level in (0, 1] as a Python float, else a ``ValueError`` naming it."""
    if is_tensor(value):
        if value.numel() != 1:
            raise ValueError(f"{name} must be a single number in (0, 1]")
        value = value.item()
    try:
        delta = float(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a number in (0, 1], got {_plain(value)!r}") from exc
    if not 0.0 < delta <= 1.0:  # NaN fails too
        raise ValueError(f"{name} must be in (0, 1], got {delta!r}")
    return delta
