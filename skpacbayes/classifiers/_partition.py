"""The partition (stochastic-to-deterministic) bound classifier."""

from typing import ClassVar

from skpacbayes.objectives import Partition

from ._base import MajorityVoteClassifier
from ._constraints import keyword_init
from ._docstrings import fill_doc, fit_example

__all__ = ["PartitionBoundClassifier"]


@fill_doc(example=fit_example("PartitionBoundClassifier"))
class PartitionBoundClassifier(MajorityVoteClassifier):
    """Majority vote certified by the partition (stochastic-to-deterministic) bound.

    ``bound_ = (Lup - b~) / (c~ - b~)`` (:ref:`theory-triple`,
    :ref:`theory-partition`), where ``Lup`` is the Seeger bound on the Gibbs
    risk (the cross bound on split voters) and ``b~ <= b``, ``c~ <= c`` are certified lower
    bounds on the mean stochastic
    loss of correctly / wrongly classified examples, obtained from a certified
    solution of the number partitioning problem (:mod:`skpacbayes.partition`).

    After training the Seeger bound, the tightening heuristics of :ref:`theory-tightening`
    (``tighten=True``) move the weights to enlarge the partition gap; every
    move is scored with a certified bound, and the reported bound is
    recomputed from scratch at full resolution.

    Parameters
    ----------
    {parameters_before}
    tighten : bool, default=True
        Run the post-training heuristics.
    {parameters_after}

    Attributes
    ----------
    {bound_attribute}
    certificate_ : Certificate
        Its ingredients (with ``b_tilde``, ``c_tilde``). Other attributes as
        :class:`FirstOrderBoundClassifier`.

    Notes
    -----
    **Often a single voter.** With the Categorical posterior (the default) on stump and
    tree banks, the optimum of the partition bound is usually one voter: on breast cancer
    (stratified 80/20 split, seed 0, the default ``StumpBank``) the deployed vote has 1
    effective voter of 600 (``certificate_.n_effective_voters``), the voter and the bound
    (16.0 %) of :class:`OccamBoundClassifier`. For a genuine vote, use
    :class:`~skpacbayes.CertifiedVoteClassifier` (a forest certified on held-out rows), or
    the Dirichlet or Gaussian posterior here (592 and 532 effective voters of 600).

    {example}
    """

    _parameter_constraints: ClassVar[dict] = {
        **MajorityVoteClassifier._parameter_constraints,
        "tighten": ["boolean"],
    }
    _bound_class = Partition

    __init__ = keyword_init(MajorityVoteClassifier, after="delta", tighten=True)
