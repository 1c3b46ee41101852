"""The first-order (factor 2) bound classifier."""

from skpacbayes.objectives import FirstOrder

from ._base import MajorityVoteClassifier
from ._docstrings import fill_doc, fit_example

__all__ = ["FirstOrderBoundClassifier"]


@fill_doc(
    example=fit_example(
        "FirstOrderBoundClassifier", check="0 <= clf.score(X, y) <= 1 and 0 < clf.bound_ <= 1"
    )
)
class FirstOrderBoundClassifier(MajorityVoteClassifier):
    """Majority vote certified by the first-order ("factor 2") bound.

    ``bound_ = 2 kl^-1(mean r, (KL + ln(2 sqrt(m) / delta)) / m)`` (:ref:`theory-classical`);
    on split voters the two halves' Seeger bounds at ``delta / 2`` each
    (:ref:`theory-split`).

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_features_in_ : int
        Number of features seen during fit.
    voters_ : voter bank
        The fitted voters.
    weights_ : ndarray of shape (n_voters,)
        Weights of the deployed majority vote.
    posterior_params_ : list of ndarray
        Natural parameters of the posterior (one array per half).
    mixture_weights_ : ndarray
        Weight of each half (``[1.0]`` without split voters).
    bound_ : float
        Certified upper bound on the true risk of ``predict`` (prob >= 1 - delta).
    certificate_ : Certificate
        The ingredients of ``bound_``.
    history_ : list of float
        Full-sample training objective at the start and after each iteration of the
        winning L-BFGS start, or each epoch of Adam (before its L-BFGS polish); empty for
        the exact searches.
    n_iter_ : int
        L-BFGS iterations of the winning start, Adam epochs, or, for the exact searches,
        the number of evaluation groups searched.
    solver_ : str
        The optimiser that ran: ``"exact"``, ``"lbfgs"``, ``"adam"``, or ``"none"``
        (``solver="none"``: the starting point, untrained).

    Notes
    -----
    Valid because the deployed vote errs only where the stochastic loss is at
    least 1/2 (property (f1) of :ref:`theory-classical`), so its risk is at most
    twice the Gibbs risk.

    With ``voters=OutOfBagVoters(...)`` (Categorical posterior only) the vote
    of ALL the members, each grown on much of the sample, is certified by the
    out-of-bag first-order bound: each member's error is estimated on the rows
    it was not fitted on, and ``m`` is the smallest out-of-bag set
    (:ref:`theory-out-of-bag`).

    **Often a single voter.** With the Categorical posterior (the default), the bound's
    minimiser on stump and tree banks is usually one voter: on breast cancer (stratified
    80/20 split, seed 0, the default ``StumpBank``) the deployed vote has 1 effective voter
    of 600 (``certificate_.n_effective_voters``), the best stump with a looser bound than
    :class:`OccamBoundClassifier`'s (31.5 % against 16.0 %). For a genuine vote, use
    :class:`~skpacbayes.CertifiedVoteClassifier` (a forest certified on held-out rows), or
    the Dirichlet or Gaussian posterior here (592 and 532 effective voters of 600).

    {example}
    """

    _bound_class = FirstOrder
