"""The Dirichlet margin bound classifier (binary)."""

from typing import ClassVar

from skpacbayes.objectives import Margin

from ._base import MajorityVoteClassifier
from ._constraints import Integers, keyword_init
from ._docstrings import fill_doc, fit_example

__all__ = ["MarginBoundClassifier"]


@fill_doc(example=fit_example("MarginBoundClassifier"))
class MarginBoundClassifier(MajorityVoteClassifier):
    """Binary Dirichlet majority vote certified by the margin bound.

    A deterministic margin bound after Biggs, Zantedeschi and Guedj (2022):
    for the deployed vote with normalised weights ``theta`` and the posterior
    ``Dir(K theta)``, ``bound_ = min over gamma in a fixed grid of
    kl^-1(margin error at gamma + t1, (KL + ln(2 sqrt(m) / delta_gamma)) / m) + t0``,
    where ``t0``, ``t1`` are the beta tails of
    :func:`~skpacbayes.bounds.margin_tails` at the split point ``gamma / 2``
    (at most ``exp(-(K+1) gamma^2 / 8)``), ``delta`` is split evenly over the
    grid and ``K`` is optimised freely (the statement holds for all posteriors
    simultaneously). Statement and proof: :ref:`theory-margin`.

    Parameters
    ----------
    voters, posterior, prior, delta
        See :class:`MajorityVoteClassifier` (only ``posterior="dirichlet"``).
    n_margins : int, default=20
        Size of the fixed grid of margins gamma (log-spaced in [1e-3, 1]).
    {parameters_after}

    Attributes
    ----------
    {bound_attribute}
    certificate_ : Certificate
        Its ingredients (``details`` holds gamma, K, the margin error of the deployed
        vote at gamma and the tails ``t0``, ``t1``). Other attributes as
        :class:`FirstOrderBoundClassifier`.

    Notes
    -----
    Training minimises the Seeger bound on the Gibbs risk of the Dirichlet posterior (the
    same PAC-Bayes statement for the loss ``1[M' <= 0]``); it only steers ``theta``. The
    certificate is then computed in float64 from the deployed weights.

    {example}
    """

    _parameter_constraints: ClassVar[dict] = {
        **MajorityVoteClassifier._parameter_constraints,
        "n_margins": [Integers(1, None, closed="left")],
    }
    _bound_class = Margin

    __init__ = keyword_init(
        MajorityVoteClassifier, after="delta", defaults={"posterior": "dirichlet"}, n_margins=20
    )
