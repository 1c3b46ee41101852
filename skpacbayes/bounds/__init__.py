"""PAC-Bayes and deterministic-risk bounds for weighted majority votes.

Every function is written once in torch and follows one calling convention: arguments may be
Python numbers, NumPy arrays or torch tensors; if a statistic argument is a tensor the result
is a tensor of the same dtype and device (differentiable, for training objectives), otherwise
the computation runs in float64 on CPU and returns a Python float (or a NumPy array for
elementwise functions on arrays), for certificates. Invalid arguments raise ``ValueError``;
checks on tensors that require grad are skipped (training hot path). The two test-set bounds
(:func:`binomial_inv_upper`, :func:`binomial_anytime_upper`) are NumPy and SciPy alone: the
modules of the torch functions are imported on first use (a hold-out certificate imports no
torch).

The statements, their proofs and every correction to the reference paper are on the theory
page (:ref:`theory`).
"""

import importlib

from ._sequence import binomial_anytime_lower, binomial_anytime_upper
from ._test_set import binomial_inv_upper
from ._testing import (
    binomial_critical_count,
    binomial_inv_lower,
    binomial_p_value,
    fixed_sequence,
)

# name -> module of the functions written in torch, imported on first access (PEP 562)
_TORCH_FUNCTIONS = {
    "kl": "_kl",
    "kl_inv_upper": "_kl",
    "kl_inv_lower": "_kl",
    "seeger_epsilon": "_pacbayes",
    "pac_bayes_upper": "_pacbayes",
    "pac_bayes_lower": "_pacbayes",
    "cross_bound": "_pacbayes",
    "occam_bound": "_pacbayes",
    "binomial_tail": "_binomial",
    "first_order_bound": "_deterministic",
    "second_order_bound": "_deterministic",
    "binomial_bound": "_deterministic",
    "cbound_bound": "_deterministic",
    "cbound_pb2": "_cbound_second_moments",
    "vc_bound": "_deterministic",
    "triple_bound": "_deterministic",
    "partition_bound": "_deterministic",
    "single_hypothesis_triple_bound": "_deterministic",
    "margin_bound": "_deterministic",
    "margin_tails": "_deterministic",
}

#: the functions of NumPy and SciPy alone (imported above), then those written in torch
__all__ = [
    "binomial_inv_upper",
    "binomial_anytime_upper",
    "binomial_anytime_lower",
    "binomial_inv_lower",
    "binomial_p_value",
    "binomial_critical_count",
    "fixed_sequence",
    *_TORCH_FUNCTIONS,
]


def __getattr__(name):
    if name in set(_TORCH_FUNCTIONS.values()) | {"_validation"}:  # bounds._kl, as an attribute
        return importlib.import_module(f"{__name__}.{name}")
    module = _TORCH_FUNCTIONS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later accesses skip this hook
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
