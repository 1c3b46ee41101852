"""Bounds on the risk of the deterministic majority vote (:ref:`theory-classical`,
:ref:`theory-triple`, :ref:`theory-single-hypothesis` and :ref:`theory-split`).

All of them forward ``(kl, m, delta, weights)`` to one generic statement
(:func:`~skpacbayes.bounds.pac_bayes_upper`: Theorem 1, or the cross bound of
:ref:`theory-split`), so they work for one sample (scalars) and for
split voters (one entry per half). All values are clipped to [0, 1].
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ._kl import _kl_inv
from ._pacbayes import _pac_bayes, _seeger_eps
from ._validation import check_stat_tensor, dual

__all__ = [
    "first_order_bound",
    "second_order_bound",
    "binomial_bound",
    "cbound_bound",
    "vc_bound",
    "triple_bound",
    "partition_bound",
    "single_hypothesis_triple_bound",
    "margin_bound",
    "margin_tails",
]

_KL_M_DELTA = {"kl": "nonneg", "m": "m", "delta": "delta"}
_TAIL = {**_KL_M_DELTA, "weights": "weights"}


def _clip01(x):
    return x.clamp(0, 1)


@dual(gibbs="stat", **_TAIL)
def first_order_bound(gibbs, kl, m, delta, weights=None):
    """First-order ("factor 2") bound on the deterministic risk.

    Parameters
    ----------
    gibbs : float, sequence or torch.Tensor
        Empirical Gibbs risk ``mean r`` (one entry per half for split voters).
    kl, m, delta, weights
        As in :func:`pac_bayes_upper`.

    Returns
    -------
    float or torch.Tensor
        ``min(1, 2 X(gibbs, KL))``.

    Notes
    -----
    :ref:`theory-classical` and :ref:`theory-split`. Needs (f1): the deployed vote errs only
    where ``r >= 1/2``, so
    ``L_D(h) <= 2 G_D(Q)``. Holds with probability ``>= 1 - delta``.

    Examples
    --------
    >>> from skpacbayes.bounds import first_order_bound
    >>> round(first_order_bound(0.1682, 0.11704908020409909, 1000, 0.05), 10)
    0.4327229016
    """
    return _clip01(2 * _pac_bayes(gibbs, kl, m, delta, weights, True))


@dual(tandem="stat", **_TAIL)
def second_order_bound(tandem, kl, m, delta, weights=None):
    """Second-order (tandem) bound on the deterministic risk.

    Parameters
    ----------
    tandem : float, sequence or torch.Tensor
        Empirical tandem risk ``mean r^2`` (per half: ``mean r_i^2`` on half ``i``).
    kl : float, sequence or torch.Tensor
        ``KL(Q||P)`` (the statement uses ``2 KL``).
    m, delta, weights
        As in :func:`pac_bayes_upper`.

    Returns
    -------
    float or torch.Tensor
        ``min(1, 4 X(tandem, 2 KL))``.

    Notes
    -----
    :ref:`theory-classical` and :ref:`theory-split`: by (f1), ``1{h errs} <= 4 r^2``; the
    tandem loss is a loss of two independent draws, hence ``2 KL``. Holds with probability
    ``>= 1 - delta``.

    Examples
    --------
    >>> from skpacbayes.bounds import second_order_bound
    >>> round(second_order_bound(0.093063, 0.11704908020409909, 1000, 0.05), 10)
    0.5292576572
    """
    return _clip01(4 * _pac_bayes(tandem, 2 * kl, m, delta, weights, True))


@dual(binomial_risk="stat", n_draws="int>=1", **_TAIL)
def binomial_bound(binomial_risk, kl, m, delta, n_draws, weights=None):
    """Binomial bound with ``N`` draws on the deterministic risk.

    Parameters
    ----------
    binomial_risk : float, sequence or torch.Tensor
        Empirical mean of :func:`binomial_tail` ``(r, N)`` (one entry per half).
    kl : float, sequence or torch.Tensor
        ``KL(Q||P)`` (the statement uses ``N KL``).
    m, delta
        As in :func:`pac_bayes_upper`.
    n_draws : int
        ``N``, fixed before seeing the sample.
    weights : sequence, optional
        Half weights. For two halves and ``N >= 3`` they must be exactly ``(1/2, 1/2)``.

    Returns
    -------
    float or torch.Tensor
        ``min(1, 2 X(binomial_risk, N KL))``.

    Notes
    -----
    :ref:`theory-classical` (corrected form: ``P(Bin(N, r) >= ceil(N/2))``, ``2 R_N`` bounds
    the risk because ``P(Bin(N, 1/2) >= ceil(N/2)) >= 1/2``) and :ref:`theory-split`: for
    split voters the factor 2 is only valid with ``alpha = 1/2`` when ``N >= 3`` (any weights for
    ``N`` in {1, 2}); more than two halves are refused for ``N >= 3``.

    Examples
    --------
    >>> from skpacbayes.bounds import binomial_bound
    >>> round(binomial_bound(0.14754944, 0.11704908020409909, 1000, 0.05, 3), 10)
    0.3887607027
    """
    h = max(t.numel() for t in (binomial_risk, kl, m))
    if h > 1 and n_draws >= 3:
        if h != 2:
            raise ValueError("binomial_bound with N >= 3 supports one sample or two halves only")
        if weights is not None and not bool((weights.detach() == 0.5).all()):
            raise ValueError(
                "for two halves and n_draws >= 3 the weights must be exactly (1/2, 1/2), "
                "fixed in advance (theory page, 'Split voters')"
            )
    return _clip01(2 * _pac_bayes(binomial_risk, n_draws * kl, m, delta, weights, True))


@dual(gibbs="stat", disagreement="stat", **_TAIL)
def cbound_bound(gibbs, disagreement, kl, m, delta, weights=None):
    """C-bound PB1 (Chebyshev-Cantelli) on the deterministic risk.

    Parameters
    ----------
    gibbs : float, sequence or torch.Tensor
        Empirical Gibbs risk ``mean r`` (one entry per half).
    disagreement : float, sequence or torch.Tensor
        Empirical ``mean 2 r (1 - r)`` (one entry per half).
    kl, m, delta, weights
        As in :func:`pac_bayes_upper`.

    Returns
    -------
    float or torch.Tensor
        1 if ``G_up >= 1/2``, else ``min(1, 1 - (1 - 2 G_up)^2 / (1 - 2 d_low))`` with
        ``G_up = X(gibbs, KL, delta/2)`` and ``d_low = X_lower(disagreement, 2 KL, delta/2)``.

    Notes
    -----
    :ref:`theory-classical` and :ref:`theory-split`. One sample: two statements at
    ``delta / 2``, i.e. ``ln(4 sqrt(m) / delta)``; two halves: four statements at ``delta / 4``.
    The value is increasing in ``G`` and decreasing in ``d``. As a safe-side guard, ``d_low``
    is capped at ``2 G_up (1 - G_up)``: on the good event the true disagreement is below it
    (Jensen), so the cap only lowers a lower bound, and it keeps the value in [0, 1].

    Examples
    --------
    >>> from skpacbayes.bounds import cbound_bound
    >>> round(cbound_bound(0.1682, 0.150274, 0.11704908020409909, 1000, 0.05), 10)
    0.5956804575
    """
    g_up = _pac_bayes(gibbs, kl, m, delta / 2, weights, True)
    d_low = _pac_bayes(disagreement, 2 * kl, m, delta / 2, weights, False)
    d_low = torch.minimum(d_low, 2 * g_up * (1 - g_up))
    ok = g_up < 0.5
    denom = torch.where(ok, 1 - 2 * d_low, torch.ones_like(d_low))
    value = 1 - (1 - 2 * g_up) ** 2 / denom
    return _clip01(torch.where(ok, value, torch.ones_like(value)))


@dual(det_risk="stat", n_voters="int>=1", m="m", delta="delta")
def vc_bound(det_risk, n_voters, m, delta):
    """VC-dimension bound for a weighted vote of ``n`` fixed binary voters (no PAC-Bayes).

    Parameters
    ----------
    det_risk : float or torch.Tensor
        Empirical risk of the deterministic vote.
    n_voters : int
        ``v = n``, the VC dimension of weighted votes of ``n`` voters.
    m : int or float
        Sample size.
    delta : float
        Confidence parameter in (0, 1].

    Returns
    -------
    float or torch.Tensor
        ``min(1, det_risk + sqrt((v (ln(2m/v) + 1) + ln(4/delta)) / m))``; 1 if ``v >= m``.

    Notes
    -----
    :ref:`theory-classical`. For multi-class votes ``v = n`` is the paper's choice, not a
    justified dimension (:ref:`theory-departures`).

    Examples
    --------
    >>> from skpacbayes.bounds import vc_bound
    >>> round(vc_bound(0.105, 5, 1000, 0.05), 10)
    0.3033414968
    """
    v = float(n_voters)
    complexity = (v * (torch.log(2 * m / v) + 1) + torch.log(4 / delta)) / m
    value = det_risk + torch.sqrt(complexity.clamp_min(0))
    return _clip01(torch.where(m <= v, torch.ones_like(value), value))


def _triple(l_up, b_tilde, c_tilde):
    ok = c_tilde > b_tilde
    denom = torch.where(ok, c_tilde - b_tilde, torch.ones_like(c_tilde))
    value = _clip01((l_up - b_tilde) / denom)
    return torch.where(ok, value, torch.ones_like(value))


@dual(l_up="stat", b_tilde="stat", c_tilde="stat")
def triple_bound(l_up, b_tilde, c_tilde):
    """Triple bound ``(Lup - b~) / (c~ - b~)`` on the deterministic risk.

    Parameters
    ----------
    l_up : float or torch.Tensor
        Valid upper bound on the Gibbs risk ``G_D(Q)``.
    b_tilde, c_tilde : float or torch.Tensor
        Certified, distribution-free lower bounds on ``b = E[r | h correct]`` and
        ``c = E[r | h errs]``.

    Returns
    -------
    float or torch.Tensor
        1 if not ``c~ > b~``, else ``min(1, max(0, (Lup - b~) / (c~ - b~)))``.

    Notes
    -----
    :ref:`theory-triple` (Theorem 2, corrected statement): a single probabilistic statement
    (the one behind ``Lup``); no union bound for ``b~`` and ``c~``, which must never be
    over-estimated.

    Examples
    --------
    >>> from skpacbayes.bounds import triple_bound
    >>> round(triple_bound(0.2, 0.0, 0.5), 12)
    0.4
    >>> triple_bound(0.2, 0.5, 0.5)
    1.0
    """
    return _triple(l_up, b_tilde, c_tilde)


@dual(gibbs="stat", b_tilde="stat", c_tilde="stat", **_TAIL)
def partition_bound(gibbs, kl, m, delta, b_tilde, c_tilde, weights=None):
    """Partition bound: the triple bound with ``Lup = X(gibbs, KL)``.

    Parameters
    ----------
    gibbs : float, sequence or torch.Tensor
        Empirical Gibbs risk (one entry per half for split voters).
    kl, m, delta
        As in :func:`pac_bayes_upper`.
    b_tilde, c_tilde : float or torch.Tensor
        Certified lower bounds of :ref:`theory-partition` (or of the two-set scan of
        :ref:`theory-split`).
    weights : sequence, optional
        Half weights, as in :func:`pac_bayes_upper`.

    Returns
    -------
    float or torch.Tensor
        ``triple_bound(pac_bayes_upper(gibbs, kl, m, delta, weights), b~, c~)``.

    Notes
    -----
    :ref:`theory-partition` (one sample) and :ref:`theory-split` (halves). Holds with
    probability ``>= 1 - delta`` for all posteriors simultaneously, provided ``b~``, ``c~`` are
    deterministic certified lower bounds for the deployed classifier.

    Examples
    --------
    >>> from skpacbayes.bounds import partition_bound
    >>> round(partition_bound(0.1682, 0.11704908020409909, 1000, 0.05, 0.0, 0.53), 10)
    0.4082291525
    """
    return _triple(_pac_bayes(gibbs, kl, m, delta, weights, True), b_tilde, c_tilde)


@dual(
    gibbs="stat",
    b_hat="any",
    c_hat="any",
    kl="nonneg",
    m="m",
    m0="count0",
    m1="count0",
    deltas="deltas",
)
def single_hypothesis_triple_bound(gibbs, b_hat, c_hat, kl, m, m0, m1, deltas):
    """Triple bound for a hypothesis ``h`` fixed before the sample (conditional PAC-Bayes).

    Parameters
    ----------
    gibbs : float or torch.Tensor
        Empirical Gibbs risk on all ``m`` examples.
    b_hat, c_hat : float or torch.Tensor
        Mean of ``r`` over the ``m0`` examples ``h`` classifies correctly, and over the ``m1``
        examples it misclassifies (ignored, may be NaN, when the count is 0).
    kl : float or torch.Tensor
        ``KL(Q||P)``.
    m : int
        Sample size (``m0 + m1``).
    m0, m1 : int
        Number of examples with ``ldet_h = 0`` and ``ldet_h = 1``.
    deltas : sequence of 3 floats
        ``(delta1, delta2, delta3)`` in (0, 1], total confidence ``1 - sum(deltas)``.

    Returns
    -------
    float or torch.Tensor
        ``triple_bound(Lup, b~, c~)`` with ``Lup = kl_inv_upper(G, (KL + ln(2 sqrt(m)/d1))/m)``,
        ``b~ = kl_inv_lower(b_hat, (KL + ln(2 sqrt(m)/d2))/m0)`` (0 if ``m0 = 0``) and
        ``c~ = kl_inv_lower(c_hat, (KL + ln(2 sqrt(m)/d3))/m1)`` (0 if ``m1 = 0``).

    Notes
    -----
    :ref:`theory-single-hypothesis` (three statements, union bound). Only valid for ``h``
    independent of the sample (never for ``h = h_Q`` with ``Q`` trained on it).

    Examples
    --------
    >>> from skpacbayes.bounds import single_hypothesis_triple_bound
    >>> d = 0.05 / 3
    >>> v = single_hypothesis_triple_bound(0.2, 0.1, 0.6, 2.0, 1000, 800, 200, (d, d, d))
    >>> round(v, 10)
    0.5300221967
    """
    if deltas.numel() != 3:
        raise ValueError(f"deltas must hold 3 values (delta1, delta2, delta3), got {deltas}")
    if not bool(m0 + m1 == m):
        raise ValueError(f"m0 + m1 must equal m, got {float(m0)} + {float(m1)} != {float(m)}")
    has0, has1 = m0 > 0, m1 > 0
    b_hat = torch.where(has0, b_hat, torch.zeros_like(b_hat))
    c_hat = torch.where(has1, c_hat, torch.zeros_like(c_hat))
    check_stat_tensor("b_hat", b_hat)
    check_stat_tensor("c_hat", c_hat)
    log_term = kl + math.log(2.0) + 0.5 * torch.log(m)
    l_up = _kl_inv(gibbs, (log_term - torch.log(deltas[0])) / m, True)
    # m0 = 0 (m1 = 0) gives an infinite budget, hence the trivial lower bound 0.
    b_tilde = _kl_inv(b_hat, (log_term - torch.log(deltas[1])) / m0, False)
    c_tilde = _kl_inv(c_hat, (log_term - torch.log(deltas[2])) / m1, False)
    return _triple(l_up, b_tilde, c_tilde)


# Safe-side allowance on scipy's regularised incomplete beta function: its measured relative
# error against 40-digit mpmath is below 1e-10 on K in [1, 1e7] (tests/test_margin.py); the
# allowance is 100 times that, plus an absolute 1e-14 that also covers the float64 rounding of
# the deployed weights (the margin M of the deployed vote and of the posterior mean differ by
# ~1e-16, which moves a tail by far less than 1e-14 for K <= 1e8).
_TAIL_REL = 1e-8
_TAIL_ABS = 1e-14


def _margin_tails(gamma, concentration):
    """Safe-side ``(t0, t1)`` of the margin bound, float64 NumPy (no gradient)."""
    from scipy.special import betainc, betaincc

    gamma, k = np.broadcast_arrays(
        np.asarray(gamma, dtype=np.float64), np.asarray(concentration, dtype=np.float64)
    )
    x = np.minimum(0.5 + gamma / 4, 1.0)  # B <= x  <=>  M' = 2 B - 1 <= s = gamma / 2
    with np.errstate(all="ignore"):
        t0 = betaincc(k / 2, k / 2, x)  # P(M' > s | M = 0), B ~ Beta(K/2, K/2)
        inside = gamma < 1
        g = np.where(inside, gamma, 0.0)
        # P(M' <= s | M = gamma), B ~ Beta(K (1 + gamma) / 2, K (1 - gamma) / 2); for
        # gamma >= 1 every margin is <= gamma and t1 = 0 is valid
        t1 = np.where(inside, betainc(k * (1 + g) / 2, k * (1 - g) / 2, x), 0.0)
    # the closed form, kept >= the absolute allowance so that its float64 underflow to 0 never
    # goes below a tiny positive tail
    closed = np.maximum(np.exp(-(k + 1) * gamma**2 / 8), _TAIL_ABS)
    out = []
    for t in (t0, t1):
        t = np.where(np.isfinite(t), t * (1 + _TAIL_REL) + _TAIL_ABS, 1.0)
        out.append(np.clip(np.minimum(t, closed), 0.0, 1.0))
    return out[0], out[1]


@dual(gamma="nonneg_finite", concentration="positive")
def margin_tails(gamma, concentration):
    """Tails ``(t0, t1)`` of the margin bound at the split point ``s = gamma / 2``.

    Parameters
    ----------
    gamma : float or torch.Tensor
        Margin ``>= 0`` (fixed before the sample).
    concentration : float or torch.Tensor
        ``K = sum(alpha) > 0`` of the Dirichlet posterior.

    Returns
    -------
    t0, t1 : float or torch.Tensor
        Upper bounds on ``P(M' > gamma / 2 | M = 0)`` and ``P(M' <= gamma / 2 | M = gamma)``,
        where ``M' = 2 B - 1`` with ``B ~ Beta(K (1 + M) / 2, K (1 - M) / 2)`` is the margin
        of a vote drawn from ``Dir(K theta)`` when the mean vote ``theta`` has margin ``M``.

    Notes
    -----
    See :ref:`theory-margin`. Each tail is the exact beta tail (``scipy.special.betainc``
    in float64) raised by a relative ``1e-8`` and an absolute ``1e-14``, capped by the
    closed form ``exp(-(K + 1) gamma^2 / 8)`` (sub-Gaussianity of the beta distribution),
    which is itself a valid bound on both tails. No gradient flows through the tails.

    Examples
    --------
    >>> from skpacbayes.bounds import margin_tails
    >>> t0, t1 = margin_tails(0.2, 100.0)
    >>> round(t0, 4), round(t1, 4)
    (0.1587, 0.1538)
    >>> import math
    >>> t0 <= math.exp(-101 * 0.2**2 / 8) and t1 <= math.exp(-101 * 0.2**2 / 8)
    True
    """
    t0, t1 = _margin_tails(gamma.detach().cpu().numpy(), concentration.detach().cpu().numpy())
    like = gamma + concentration  # broadcast shape, dtype and device of the inputs
    return (
        torch.as_tensor(t0, dtype=like.dtype, device=like.device).reshape(like.shape),
        torch.as_tensor(t1, dtype=like.dtype, device=like.device).reshape(like.shape),
    )


@dual(margin_error="stat", gamma="nonneg_finite", concentration="positive", **_KL_M_DELTA)
def margin_bound(margin_error, gamma, concentration, kl, m, delta):
    """Dirichlet margin bound (after Biggs, Zantedeschi & Guedj, 2022) for one margin ``gamma``.

    Parameters
    ----------
    margin_error : float or torch.Tensor
        Empirical rate of examples whose deterministic (mean-vote) margin is at most
        ``gamma``.
    gamma : float or torch.Tensor
        Margin ``>= 0``, fixed before the sample (the split point is ``s = gamma / 2``).
    concentration : float or torch.Tensor
        ``K = sum(alpha) > 0`` of the Dirichlet posterior.
    kl : float or torch.Tensor
        ``KL(Q||P)`` of the Dirichlet posterior.
    m : int or float
        Sample size.
    delta : float
        Confidence parameter in (0, 1] for this ``gamma``.

    Returns
    -------
    float or torch.Tensor
        ``min(1, kl_inv_upper(min(1, margin_error + t1), seeger_epsilon(kl, m, delta)) + t0)``
        with ``(t0, t1) = margin_tails(gamma, K)``.

    Notes
    -----
    See :ref:`theory-margin` for the statement and its proof: the PAC-Bayes bound of the
    loss ``1[M' <= gamma / 2]`` of a vote drawn from the posterior, sandwiched between the
    deployed vote's error and its margin error by the two beta tails. Biggs, Zantedeschi and
    Guedj, "On Margins and Generalisation for Voting Classifiers", NeurIPS 2022. The caller
    must split ``delta`` over the grid of ``gamma`` values it optimises over. No gradient
    flows through the tails.

    Examples
    --------
    >>> from skpacbayes.bounds import margin_bound
    >>> round(margin_bound(0.1, 0.2, 200.0, 3.0, 1000, 0.05), 6)
    0.312368
    """
    t0, t1 = margin_tails(gamma, concentration)
    stat = (margin_error + t1).clamp_max(1)
    return _clip01(_kl_inv(stat, _seeger_eps(kl, m, delta), True) + t0)
