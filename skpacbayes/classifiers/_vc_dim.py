"""The VC-dimension bound classifier (binary)."""

from typing import ClassVar

from skpacbayes.objectives import VCDim

from ._base import MajorityVoteClassifier
from ._constraints import Integers, keyword_init
from ._docstrings import fill_doc, fit_example

__all__ = ["VCDimBoundClassifier"]


@fill_doc(example=fit_example("VCDimBoundClassifier"))
class VCDimBoundClassifier(MajorityVoteClassifier):
    """Binary majority vote certified by the VC-dimension bound (no PAC-Bayes).

    ``bound_ = train error + sqrt((v (ln(2 m / v) + 1) + ln(4 / delta)) / m)``
    with ``v = n_voters``, the VC dimension of weighted votes of ``n`` fixed
    binary voters (:ref:`theory-pac-bayes`). The weights are learned by minimising
    the cross-entropy of the weighted vote (with L-BFGS, from the starts of the
    per-row training, the point of the descents with the fewest training errors is
    kept); the posterior family only sets the parametrisation of the weights. A
    cross-validation then decides between that vote and the single voter with the
    fewest training errors (``cv``). The voters must be data-independent or grown on one half only
    (``SplitForest(split="single")``); the bound then uses the other half. Two
    classes only: more than two raise a ``ValueError``.

    Parameters
    ----------
    {parameters}
    cv : int >= 2 or None, default=5
        Folds of the stratified cross-validation (on the rows the bound uses,
        shuffled from ``random_state``) that chooses the deployed weights: each
        fold trains the vote on the other folds and takes the voter with the
        fewest errors there. The trained vote is kept only when its held-out
        errors, summed over the folds, are fewer than the single voters' by more
        than one standard error of the paired difference (the one-standard-error
        rule); otherwise the voter with the fewest training errors is deployed. On
        small samples a vote of many voters can fit the noise where one voter does
        not. The bound holds for every weight vector at once, so the
        choice keeps the certificate (:ref:`theory-pac-bayes`); it costs ``cv``
        more trainings, each a single descent from the start whose descent was
        kept on all the rows. Fewer folds are used when a class has fewer rows, none
        below two. ``None`` always deploys the trained vote (the reference
        paper's protocol). ``certificate_.details`` reports the folds, both error
        counts and the choice.

    Attributes
    ----------
    {attributes}

    Notes
    -----
    Binary only. For more than two classes the reference paper keeps ``v = n``,
    which is not a proven capacity of multi-class votes (the relevant notion is the
    Natarajan dimension), so no multi-class value is reported.

    {example}
    """

    _parameter_constraints: ClassVar[dict] = {
        **MajorityVoteClassifier._parameter_constraints,
        "cv": [None, Integers(2, None, closed="left")],
    }
    _bound_class = VCDim

    __init__ = keyword_init(MajorityVoteClassifier, cv=5)
