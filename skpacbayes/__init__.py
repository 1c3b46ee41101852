"""Certified PAC-Bayes bounds for weighted majority votes.

After ``fit``, every classifier of this package exposes ``bound_``: with
probability at least ``1 - delta`` over the training sample, it upper-bounds
the true error rate of the deterministic majority vote that ``predict`` uses.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
