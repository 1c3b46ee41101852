"""The certificate: what a reported bound is made of, and the safe-side allowances.

Every estimator reports ``bound_`` with a :class:`Certificate` (``certificate_``). The two
allowances below raise every empirical statistic and every KL value before they enter a
bound (theory page, :ref:`theory-numerics`).
"""

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

__all__ = [
    "Certificate",
    "effective_voters",
    "equal_share",
    "raised_kl",
    "raised_statistic",
    "shares_within",
]

#: the trained halves of a posterior, as the certify step and the deployed vote read them
HALVES = """\
posteriors : list of Posterior
    One per half.
natural : list of ndarray
    The natural parameters of each half.
mixture : ndarray
    The mixture weights of the halves."""

# Safe-side allowance for the float64 rounding of a mean of at most ~1e8
# terms in [0, 1] and of a KL value (relative ~1e-15 each): statistics that
# enter an upper bound are raised by it, those that enter a lower bound lowered.
_STAT_SLACK = 1e-12
# Upward allowance on a KL value (relative and absolute) before it enters a bound.
_KL_SLACK = 1e-12


def raised_kl(kl):
    """A KL value raised by the allowance before it enters a bound: ``kl (1 + 1e-12) + 1e-12``.

    Parameters
    ----------
    kl : float or ndarray
        KL values computed in float64.

    Returns
    -------
    float or ndarray
        The values every certificate uses.

    Examples
    --------
    >>> from skpacbayes.engine.certificate import raised_kl
    >>> raised_kl(0.0), raised_kl(2.0) > 2.0
    (1e-12, True)
    """
    return kl * (1 + _KL_SLACK) + _KL_SLACK


def raised_statistic(value):
    """An empirical statistic that enters an upper bound, raised by the allowance ``1e-12``
    (at most 1).

    Parameters
    ----------
    value : float or ndarray
        Statistics in [0, 1] computed in float64.

    Returns
    -------
    float or ndarray
        ``min(value + 1e-12, 1)``.

    Examples
    --------
    >>> from skpacbayes.engine.certificate import raised_statistic
    >>> float(raised_statistic(0.25)) > 0.25, float(raised_statistic(1.0))
    (True, 1.0)
    """
    return np.minimum(value + _STAT_SLACK, 1.0)


@dataclass(frozen=True)
class Certificate:
    """What a reported bound is made of.

    Attributes
    ----------
    bound : str
        Short name of the bound: the ``name`` of its class in :mod:`skpacbayes.objectives`
        (:func:`~skpacbayes.objectives.bound_class` gives the class back).
    posterior : str
        Posterior family (``"point mass (the prior)"`` for the test-set bound of the
        hold-out estimators: a posterior equal to a point-mass prior, ``KL = 0``).
    value : float
        The certified bound (equal to the estimator's ``bound_``).
    delta : float
        Confidence parameter: the statement holds with probability >= 1 - delta.
    m : tuple of int
        Number of rows each statement uses (one entry per half for split voters, per
        held-out statement for the hold-out estimators).
    kl : tuple of float
        KL(Q || P) per statement (upper-rounded; 0 for a test-set statement).
    mixture_weights : tuple of float
        Weight of each statement in the deployed classifier (``(1.0,)`` without split
        voters; for the hold-out estimators 1 for the deployed statement, 0 for the others).
    statistics : dict
        Empirical statistics entering the bound, one entry per statement (after the
        safe-side allowances; the error counts for a test-set bound).
    gibbs_bound : float or None
        Certified upper bound on the Gibbs risk, where the bound uses one.
    b_tilde, c_tilde : float or None
        Certified partition lower bounds (partition bound only).
    train_error : float
        Training error of the deployed classifier on the examples the bound
        uses. A tied vote counts as an error here (the deterministic loss of
        :ref:`theory-classical` is "at least half the weight is wrong"), while ``predict``
        breaks ties towards the first class: ties can only make this figure
        pessimistic.
    n_voters : int
        Number of voters of the bank (the prior's support).
    details : dict
        Bound-specific extras (e.g. the number of draws of the binomial bound,
        the chosen margin).
    n_effective_voters : int or None
        How many voters the deployed classifier really uses: 1 when one voter's
        positive weight exceeds the absolute weights of all the others together (the
        vote is then that voter's prediction on every input); otherwise the smallest
        number ``k`` such that the ``k`` largest absolute weights of the deployed vote
        (``weights_``) hold at least 99 % of the total absolute weight (``0`` if
        every weight is zero). On split voters the deployed vote's weights already
        include the mixture weight of each half. For the Bayes classifier of a
        Gaussian mixture on split voters (``deployed_ == "mixture_bayes"``, not a
        linear vote) the count is taken on the posterior means, each half's scaled
        by its mixture weight (the share rule only). A single best voter
        (:class:`OccamBoundClassifier`) gives 1; ``None`` where the estimator does not
        report it.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from skpacbayes import OccamBoundClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> cert = OccamBoundClassifier(random_state=0).fit(X, y).certificate_
    >>> cert.bound, cert.posterior, cert.delta, cert.m  # 56 of the 569 rows built the stumps
    ('Occam', 'categorical', 0.05, (513,))
    >>> cert.train_error <= cert.value <= 1
    True
    """

    bound: str
    posterior: str
    value: float
    delta: float
    m: tuple
    kl: tuple
    mixture_weights: tuple
    statistics: dict
    gibbs_bound: float | None
    b_tilde: float | None
    c_tilde: float | None
    train_error: float
    n_voters: int
    details: dict = field(default_factory=dict)
    n_effective_voters: int | None = None


def effective_voters(weights, share=0.99, vote=True):
    """How many voters a weighted vote really uses.

    One if a single voter has a positive weight larger than the absolute weights of all
    the others together (the vote then predicts that voter's class on every input, however
    the others vote); otherwise the smallest number of voters whose absolute weights hold
    ``share`` of the total.

    Parameters
    ----------
    weights : array-like of shape (n_voters,)
        Weights of a vote (any sign).
    share : float, default=0.99
        Fraction of the total absolute weight to reach.
    vote : bool, default=True
        Whether ``weights`` are those of a weighted vote (the rule for a dominant voter
        applies). ``False``: only the share of the weight counts.

    Returns
    -------
    int
        ``0`` if every weight is zero.

    Examples
    --------
    >>> from skpacbayes.classifiers import effective_voters
    >>> effective_voters([0.5, -0.3, 0.195, 0.005])
    3
    >>> effective_voters([0.6, 0.1, 0.1, 0.1, 0.1])
    1
    """
    signed = np.asarray(weights, dtype=np.float64)
    w = np.sort(np.abs(signed))[::-1]
    total = w.sum()
    if not total > 0:
        return 0
    top = signed[np.argmax(np.abs(signed))]
    if vote and top > total - top:
        # the top voter's class gets at least top - (the others' weight agreeing with it
        # negatively) and every other class at most the others' positive weight
        return 1
    # a relative allowance for the rounding of the cumulative sums (ties at exactly 99 %)
    reached = np.cumsum(w) >= share * total * (1 - 1e-12)
    return int(np.argmax(reached)) + 1


def shares_within(delta, shares):
    """Shares of ``delta`` whose exact sum does not exceed it (for the union bound).

    Each share is rounded down one ulp at a time until the exact sum of the floats is at
    most ``delta``; shares that already satisfy it are returned unchanged.

    Parameters
    ----------
    delta : float
        Total confidence budget.
    shares : sequence of float
        Each candidate's share (e.g. ``delta / K``), before rounding.

    Returns
    -------
    shares : list of float

    Examples
    --------
    >>> from fractions import Fraction
    >>> from skpacbayes.engine.certificate import shares_within
    >>> shares = shares_within(0.05, [0.05 / 7] * 7)
    >>> shares[0] < 0.05 / 7, sum(map(Fraction, shares)) <= Fraction(0.05)
    (True, True)
    """
    shares = [float(s) for s in shares]
    while sum(map(Fraction, shares)) > Fraction(delta):
        shares = [math.nextafter(s, 0.0) for s in shares]
    return shares


def equal_share(delta, k):
    """``delta / k``, rounded down where ``k`` of them would sum to more than ``delta``.

    Parameters
    ----------
    delta : float
        Total confidence budget.
    k : int >= 1
        Number of statements.

    Returns
    -------
    share : float
    """
    return shares_within(delta, [delta / k] * k)[0]
