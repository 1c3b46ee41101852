"""Seeger/Maurer PAC-Bayes statements, the two-halves cross bound and the Occam bound.

See :ref:`theory-pac-bayes` and :ref:`theory-split`. The generic statement is
:func:`pac_bayes_upper`
(and its lower twin): one Seeger bound for one sample, or ``h`` per-half Seeger bounds at
``delta / h`` each, mixed linearly with the half weights.
"""

from __future__ import annotations

import math

import torch

from ._kl import _kl_inv
from ._validation import dual

__all__ = [
    "seeger_epsilon",
    "pac_bayes_upper",
    "pac_bayes_lower",
    "cross_bound",
    "occam_bound",
]

_LN2 = math.log(2.0)


def _seeger_eps(kl, m, delta):
    """(KL + ln(2 sqrt(m) / delta)) / m on tensors."""
    return (kl + (_LN2 + 0.5 * torch.log(m) - torch.log(delta))) / m


def _pac_bayes(stat, kl, m, delta, weights, upper: bool):
    """The generic statement (Theorem 1 or the cross bound) on tensors (shape checks only)."""
    if stat.ndim == 0 and kl.ndim == 0 and m.ndim == 0:
        if weights is not None and not (weights.numel() == 1 and bool(weights.reshape(()) == 1)):
            raise ValueError("weights must be None (or [1]) for a single sample")
        return _kl_inv(stat, _seeger_eps(kl, m, delta), upper)
    try:
        stat, kl, m = torch.broadcast_tensors(stat, kl, m)
    except RuntimeError as exc:
        raise ValueError(
            f"stat, kl and m must have the same length (one entry per half), got shapes "
            f"{tuple(stat.shape)}, {tuple(kl.shape)}, {tuple(m.shape)}"
        ) from exc
    if stat.ndim != 1 or stat.shape[0] < 1:
        raise ValueError("stat, kl and m must be scalars or 1-D sequences (one entry per half)")
    h = stat.shape[0]
    if weights is None:
        weights = torch.full_like(stat, 1.0 / h)
    elif weights.shape != stat.shape:
        raise ValueError(f"weights must have one entry per half ({h}), got {tuple(weights.shape)}")
    eps = _seeger_eps(kl, m, delta / h)
    return (weights * _kl_inv(stat, eps, upper)).sum()


_TAIL = {"kl": "nonneg", "m": "m", "delta": "delta", "weights": "weights"}


@dual(stat="stat", **_TAIL)
def pac_bayes_upper(stat, kl, m, delta, weights=None):
    """Seeger PAC-Bayes upper bound, for one sample or for ``h`` halves (statement X).

    Parameters
    ----------
    stat : float, sequence or torch.Tensor
        Empirical mean in [0, 1] of a [0, 1]-loss; a length-``h`` sequence for ``h`` halves
        (split voters: entry ``i`` evaluated on the ``m_i`` points of half ``i``).
    kl : float, sequence or torch.Tensor
        ``KL(Q||P)`` (times the number ``t`` of draws the loss uses), one per half.
    m : float, sequence or torch.Tensor
        Number of examples ``stat`` is averaged over, one per half.
    delta : float
        Confidence parameter in (0, 1].
    weights : sequence or torch.Tensor, optional
        Mixture weights of the halves (``>= 0``, sum 1); default uniform ``1/h``.

    Returns
    -------
    float or torch.Tensor
        One sample: ``kl_inv_upper(stat, seeger_epsilon(kl, m, delta))``. ``h`` halves:
        ``sum_i weights_i kl_inv_upper(stat_i, seeger_epsilon(kl_i, m_i, delta / h))``.

    Notes
    -----
    :ref:`theory-pac-bayes` and :ref:`theory-split`. With probability at least ``1 - delta``
    over the sample, the bound holds for all posteriors simultaneously (and, for halves, for all
    weights simultaneously, so the weights may depend on the data). For ``h = 2`` this is the
    cross bound of :ref:`theory-split`.

    Examples
    --------
    >>> from skpacbayes.bounds import pac_bayes_upper
    >>> round(pac_bayes_upper(0.1, 5.0, 1000, 0.05), 12)
    0.153109628195
    >>> round(pac_bayes_upper([0.12, 0.15], [3.0, 4.0], [1000, 1000], 0.05), 12)
    0.191708398098
    """
    return _pac_bayes(stat, kl, m, delta, weights, True)


@dual(stat="stat", **_TAIL)
def pac_bayes_lower(stat, kl, m, delta, weights=None):
    """Seeger PAC-Bayes lower bound, for one sample or for ``h`` halves.

    Parameters
    ----------
    stat, kl, m, delta, weights
        As in :func:`pac_bayes_upper`.

    Returns
    -------
    float or torch.Tensor
        ``kl_inv_lower`` instead of ``kl_inv_upper`` in :func:`pac_bayes_upper`.

    Notes
    -----
    :ref:`theory-pac-bayes` and :ref:`theory-split` (the lower statements ``L_i``). With
    probability at least ``1 - delta`` the true mean is at least the returned value, for all
    posteriors simultaneously.

    Examples
    --------
    >>> from skpacbayes.bounds import pac_bayes_lower
    >>> round(pac_bayes_lower(0.3, 2.0, 1000, 0.05), 6)
    0.240715
    """
    return _pac_bayes(stat, kl, m, delta, weights, False)


@dual(kl="nonneg", m="m", delta="delta")
def seeger_epsilon(kl, m, delta):
    """Budget of the Seeger bound with Maurer's constant: ``(KL + ln(2 sqrt(m) / delta)) / m``.

    Parameters
    ----------
    kl : float, array-like or torch.Tensor
        ``KL(Q||P) >= 0``.
    m : float, array-like or torch.Tensor
        Sample size ``>= 1``.
    delta : float, array-like or torch.Tensor
        Confidence parameter in (0, 1].

    Returns
    -------
    float, ndarray or torch.Tensor
        The right-hand side ``eps`` of ``kl(G_S || G_D) <= eps``.

    Notes
    -----
    :ref:`theory-pac-bayes` (Theorem 1): valid for every ``m >= 1`` (Maurer's
    ``xi(m) <= 2 sqrt(m)``) and a prior fixed before the sample is drawn.

    Examples
    --------
    >>> from skpacbayes.bounds import seeger_epsilon
    >>> round(seeger_epsilon(5.0, 1000, 0.05), 12)
    0.012142757094
    """
    return _seeger_eps(kl, m, delta)


@dual(q1="stat", q2="stat", kl1="nonneg", kl2="nonneg", m1="m", m2="m", alpha="stat", delta="delta")
def cross_bound(q1, q2, kl1, kl2, m1, m2, alpha, delta, mode="safe"):
    """Two-halves cross bound on the Gibbs risk of ``alpha Q1 + (1 - alpha) Q2``.

    Parameters
    ----------
    q1, q2 : float or torch.Tensor
        Empirical Gibbs risk of ``Q1`` on the ``m1`` points it may be evaluated on (the half
        its voters were NOT grown on), and of ``Q2`` on its ``m2`` points.
    kl1, kl2 : float or torch.Tensor
        ``KL(Q1||P1)`` and ``KL(Q2||P2)``.
    m1, m2 : int or float
        Sizes of the evaluation sets of ``q1`` and ``q2`` (``|H_2|`` and ``|H_1|`` in
        :ref:`theory-split`).
    alpha : float or torch.Tensor
        Mixture weight of ``Q1`` in [0, 1].
    delta : float
        Confidence parameter in (0, 1].
    mode : {"safe", "paper"}, default="safe"
        ``"safe"``: two Seeger bounds at ``delta / 2``, mixed linearly (valid for all
        ``alpha`` simultaneously). ``"paper"``: the formula of the reference code of
        Zantedeschi et al. (2021), only for ``m1 == m2`` and ``alpha == 1/2``.

    Returns
    -------
    float or torch.Tensor
        Upper bound on ``alpha G_D(Q1) + (1 - alpha) G_D(Q2)``.

    Notes
    -----
    :ref:`theory-split`. "safe": ``alpha kl_inv_upper(q1, (KL1 + ln(4 sqrt(m1)/delta))/m1) +
    (1 - alpha) kl_inv_upper(q2, (KL2 + ln(4 sqrt(m2)/delta))/m2)``, i.e.
    :func:`pac_bayes_upper` with weights ``(alpha, 1 - alpha)``. "paper" (reproduction only,
    its proof could not be verified): ``kl_inv_upper((q1 + q2)/2, (KL1 + KL2 + ln(2m/delta))/m)``
    with ``m = m1 + m2``.

    Examples
    --------
    >>> from skpacbayes.bounds import cross_bound
    >>> round(cross_bound(0.12, 0.15, 3.0, 4.0, 1400, 600, 0.3, 0.05), 12)
    0.209454259539
    >>> round(cross_bound(0.12, 0.15, 3.0, 4.0, 1000, 1000, 0.5, 0.05, mode="paper"), 12)
    0.185533086691
    """
    if mode == "safe":
        weights = torch.stack([alpha, 1 - alpha])
        return _pac_bayes(
            torch.stack([q1, q2]),
            torch.stack([kl1, kl2]),
            torch.stack([m1, m2]),
            delta,
            weights,
            True,
        )
    if mode == "paper":
        if not bool(m1 == m2) or not bool(alpha == 0.5):
            raise ValueError(
                'mode="paper" (the reference code\'s formula) is only valid for m1 == m2 and '
                f"alpha == 1/2, got m1={float(m1)}, m2={float(m2)}, alpha={float(alpha)}; "
                'use mode="safe"'
            )
        m = m1 + m2
        eps = (kl1 + kl2 + torch.log(2 * m / delta)) / m
        return _kl_inv((q1 + q2) / 2, eps, True)
    raise ValueError(f'mode must be "safe" or "paper", got {mode!r}')


@dual(train_error="stat", n_voters="int>=1", m="m", delta="delta", weights="weights")
def occam_bound(train_error, n_voters, m, delta, weights=None):
    """Occam bound for the best single voter picked from ``n_voters`` fixed voters.

    Parameters
    ----------
    train_error : float, sequence or torch.Tensor
        Empirical error of the chosen voter (one per half for split voters).
    n_voters : int
        Number of voters the choice was made from (for split voters: of the whole bank).
    m : float or sequence
        Number of examples the error is measured on (one per half).
    delta : float
        Confidence parameter in (0, 1].
    weights : sequence, optional
        Half weights, forwarded to :func:`pac_bayes_upper`.

    Returns
    -------
    float or torch.Tensor
        ``pac_bayes_upper(train_error, ln(n_voters), m, delta, weights)``.

    Notes
    -----
    A point mass on one voter under the uniform prior has ``KL = ln(n)``; the Seeger bound
    (:ref:`theory-pac-bayes`) then holds simultaneously for all voters. For halves, ``ln(n)``
    with ``n`` the size of the whole bank upper-bounds ``ln(n_i)``, so the per-half statements stay
    valid.

    Examples
    --------
    >>> from skpacbayes.bounds import occam_bound
    >>> round(occam_bound(0.1, 20, 1000, 0.05), 6)
    0.14804
    """
    kl = torch.full_like(train_error, math.log(n_voters))
    return _pac_bayes(train_error, kl, m, delta, weights, True)
