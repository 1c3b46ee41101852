"""PAC-Bayes and deterministic-risk bounds for weighted majority votes.

Every function is written once in torch and follows one calling convention: arguments may be
Python numbers, NumPy arrays or torch tensors; if a statistic argument is a tensor the result
is a tensor of the same dtype and device (differentiable, for training objectives), otherwise
the computation runs in float64 on CPU and returns a Python float (or a NumPy array for
elementwise functions on arrays), for certificates. Invalid arguments raise ``ValueError``;
checks on tensors that require grad are skipped (training hot path).

The statements, their proofs and every correction to the reference paper are on the theory
page (:ref:`theory`).
"""

from ._binomial import binomial_inv_upper, binomial_tail
from ._cbound_second_moments import cbound_pb2
from ._deterministic import (
    binomial_bound,
    cbound_bound,
    first_order_bound,
    margin_bound,
    margin_tails,
    partition_bound,
    second_order_bound,
    single_hypothesis_triple_bound,
    triple_bound,
    vc_bound,
)
from ._kl import kl, kl_inv_lower, kl_inv_upper
from ._pacbayes import (
    cross_bound,
    occam_bound,
    pac_bayes_lower,
    pac_bayes_upper,
    seeger_epsilon,
)
from ._sequence import binomial_anytime_lower, binomial_anytime_upper
from ._testing import (
    binomial_critical_count,
    binomial_inv_lower,
    binomial_p_value,
    fixed_sequence,
)

__all__ = [
    "kl",
    "kl_inv_upper",
    "kl_inv_lower",
    "seeger_epsilon",
    "pac_bayes_upper",
    "pac_bayes_lower",
    "cross_bound",
    "occam_bound",
    "binomial_tail",
    "binomial_inv_upper",
    "binomial_anytime_upper",
    "binomial_anytime_lower",
    "binomial_inv_lower",
    "binomial_p_value",
    "binomial_critical_count",
    "fixed_sequence",
    "first_order_bound",
    "second_order_bound",
    "binomial_bound",
    "cbound_bound",
    "cbound_pb2",
    "vc_bound",
    "triple_bound",
    "partition_bound",
    "single_hypothesis_triple_bound",
    "margin_bound",
    "margin_tails",
]
