"""Fit-time engine for out-of-bag voter banks: the first-order and tandem bounds.

Voter ``i`` of an :class:`~skpacbayes.voters.OutOfBagVoters` bank may only be evaluated on
its out-of-bag rows ``O_i``, a pair ``(i, i')`` on ``O_i & O_i'`` (the theory page,
:ref:`theory-out-of-bag`). The bounds need only these integer counts:

* ``m_i = |O_i|`` and the errors ``e_i`` of voter ``i`` on ``O_i`` (first order: the Gibbs
  risk estimate ``sum_i Q_i e_i / m_i`` with ``r = min_i m_i``);
* ``m_ii' = |O_i & O_i'|`` and the joint errors ``t_ii'`` of the pair on it (tandem:
  ``sum_ii' Q_i Q_i' t_ii' / m_ii'`` with ``r2 = min_ii' m_ii'``).

They are computed once, exactly (0/1 matrix products in float32 are exact integer sums below
2**24 rows per block), so the training is full batch on the per-voter error vector or the
``n x n`` tandem matrix, with the estimator's own bound function (float32 torch) as the
objective; the certificate applies the same function in float64 to the final weights.
"""

import math

import numpy as np
import torch

from skpacbayes._certificate import _KL_SLACK, _STAT_SLACK, Certificate
from skpacbayes._fitting import (
    MIN_STEPS_PER_EPOCH,
    POLISH_MAX_ITER,
    FitResult,
    make_posterior,
)
from skpacbayes._training import polish, resolve_device, train
from skpacbayes._vote import _strict_argmax_is, weighted_vote_scores

__all__ = ["OUT_OF_BAG_BOUNDS", "check_out_of_bag", "fit_out_of_bag", "out_of_bag_counts"]

#: bound name -> the statistic it certifies on an out-of-bag bank
OUT_OF_BAG_BOUNDS = {"FO": "gibbs", "SO": "tandem"}
#: the estimators that certify them (named, not imported: the engine does not know them)
OUT_OF_BAG_ESTIMATORS = ("FirstOrderBoundClassifier", "SecondOrderBoundClassifier")
_BLOCK_BYTES = 64 * 2**20  # temporaries per block of rows in out_of_bag_counts
_EXACT_ROWS = 2**24  # float32 sums of 0/1 products are exact integers below this


def check_out_of_bag(estimator):
    """Raise a ``ValueError`` unless ``estimator`` certifies out-of-bag voters.

    Parameters
    ----------
    estimator : MajorityVoteClassifier
        The estimator being fitted.
    """
    name = estimator._bound_name
    if name in OUT_OF_BAG_BOUNDS and estimator.posterior == "categorical":
        return
    valid = ", ".join(f"{cls}(posterior='categorical')" for cls in OUT_OF_BAG_ESTIMATORS)
    raise ValueError(
        f"{type(estimator).__name__}(posterior={estimator.posterior!r}) cannot certify "
        "out-of-bag voters (OutOfBagVoters): each voter may only be evaluated on its own "
        "out-of-bag rows, which the first-order and tandem bounds of a Categorical posterior "
        f"use and no other bound or posterior here does. Valid: {valid}."
    )


def out_of_bag_counts(votes, y_idx, mask, tandem):
    """Exact out-of-bag counts of every voter (and pair of voters).

    Parameters
    ----------
    votes : ndarray of shape (m, n)
        Class indices voted by the ``n`` voters on the ``m`` training rows.
    y_idx : ndarray of shape (m,)
        True class indices.
    mask : ndarray of bool, shape (m, n)
        ``mask[j, i]``: row ``j`` is out of bag for voter ``i``.
    tandem : bool
        Also count the pairs.

    Returns
    -------
    counts : dict of ndarray (int64)
        ``"sizes"`` ``m_i`` and ``"errors"`` ``e_i`` (shape ``(n,)``); with ``tandem``,
        ``"pair_sizes"`` ``m_ii'`` and ``"pair_errors"`` ``t_ii'`` (shape ``(n, n)``).
    """
    m, n = votes.shape
    step = max(1, min(m, _EXACT_ROWS - 1, _BLOCK_BYTES // max(1, 12 * n)))
    sizes = np.zeros(n, dtype=np.int64)
    errors = np.zeros(n, dtype=np.int64)
    pair_sizes = np.zeros((n, n), dtype=np.int64) if tandem else None
    pair_errors = np.zeros((n, n), dtype=np.int64) if tandem else None
    for start in range(0, m, step):
        rows = slice(start, start + step)
        oob = mask[rows]
        wrong = oob & (votes[rows] != y_idx[rows, None])
        sizes += oob.sum(axis=0)
        errors += wrong.sum(axis=0)
        if tandem:
            o = oob.astype(np.float32)
            w = wrong.astype(np.float32)
            pair_sizes += np.rint(o.T @ o).astype(np.int64)
            pair_errors += np.rint(w.T @ w).astype(np.int64)
    counts = {"sizes": sizes, "errors": errors}
    if tandem:
        counts["pair_sizes"] = pair_sizes
        counts["pair_errors"] = pair_errors
    return counts


def _empirical(counts, stat):
    """Per-voter error rates (n,) or tandem matrix (n, n) in float64, and the sample size."""
    if stat == "gibbs":
        return counts["errors"] / counts["sizes"], int(counts["sizes"].min())
    return counts["pair_errors"] / counts["pair_sizes"], int(counts["pair_sizes"].min())


def _statistic(p, emp, stat):
    """``sum_i p_i L_i`` or ``sum_ii' p_i p_i' T_ii'`` (torch, differentiable)."""
    if stat == "gibbs":
        return p @ emp
    return p @ (emp @ p)


def fit_out_of_bag(estimator, bank, votes, y_idx, seed):
    """Train the Categorical posterior on the out-of-bag statistics and certify it.

    Parameters
    ----------
    estimator : FirstOrderBoundClassifier or SecondOrderBoundClassifier
        The estimator being fitted (categorical posterior).
    bank : OutOfBagVoters
        The fitted bank.
    votes : ndarray of shape (m, n)
        The bank's votes on the training rows.
    y_idx : ndarray of shape (m,)
        True class indices.
    seed : int
        Seed of the local torch generator.

    Returns
    -------
    FitResult
    """
    check_out_of_bag(estimator)
    stat = OUT_OF_BAG_BOUNDS[estimator._bound_name]
    mask = bank.evaluation_mask()
    counts = out_of_bag_counts(votes, y_idx, mask, tandem=stat == "tandem")
    emp, size = _empirical(counts, stat)
    if size < 1:
        raise ValueError(
            "Some pair of voters shares no out-of-bag row: the tandem bound has no sample. "
            "Draw fewer rows per voter (max_samples) or use the first-order bound."
        )
    n, n_classes = votes.shape[1], estimator.n_classes_
    natural, history, n_iter = _train(
        estimator, emp, stat, size, n, n_classes, votes.shape[0], seed
    )
    del mask, counts  # the certificate recounts from the votes and the draws
    certificate, weights = _certify(estimator, bank, votes, y_idx, stat, natural, n_classes)
    return FitResult(
        natural=[natural],
        mixture_weights=np.array([1.0]),
        vote_weights=weights,
        deployed="weighted_vote",
        history=history,
        n_iter=n_iter,
        certificate=certificate,
    )


def _train(estimator, emp, stat, size, n, n_classes, n_samples, seed):
    """Full-batch Adam on the bound (float32).

    An epoch is ``ceil(m / batch_size)`` full-batch steps, as many as a mini-batch epoch
    over the ``m`` rows takes: ``max_epochs``, ``learning_rate`` and the schedule keep
    their meaning (the statistics are exact sums over the rows, so every step sees them
    all).
    """
    device = resolve_device(estimator.device)
    generator = torch.Generator(device="cpu").manual_seed(seed)
    post = make_posterior("categorical", n, n_classes)
    emp32 = torch.from_numpy(emp).to(device=device, dtype=torch.float32)
    raw = post.init_raw(generator=generator, dtype=torch.float32, device=device)
    ones = torch.ones(1, dtype=torch.float32, device=device)
    sizes = torch.tensor([size], dtype=torch.float32).to(device)  # once, not per step
    delta = float(estimator.delta)

    def objective():
        p = post.natural(raw)
        value = _statistic(p, emp32, stat).clamp(0.0, 1.0).reshape(1)
        kl = post.kl(p).reshape(1)
        return estimator._training_objective({stat: value}, kl, sizes, ones, delta)

    def full_objective():
        with torch.no_grad():
            return float(objective())

    steps = max(MIN_STEPS_PER_EPOCH, math.ceil(n_samples / int(estimator.batch_size)))
    result = train(
        [raw],
        lambda index: objective(),
        full_objective,
        steps,
        max_epochs=estimator.max_epochs,
        batch_size=1,
        learning_rate=estimator.learning_rate,
        early_stopping_patience=estimator.early_stopping_patience,
        generator=generator,
        verbose=estimator.verbose,
    )
    best = result.params[0]
    with torch.no_grad():
        raw.copy_(best)
    max_iter = POLISH_MAX_ITER if estimator.max_epochs > 0 else 0  # 0: the starting point
    before, after = polish([raw], objective, max_iter=max_iter)
    if after < before:
        best = raw.detach()
    with torch.no_grad():
        natural = post.natural(best.detach().to("cpu", torch.float64))
    return natural.numpy().copy(), result.history, result.n_iter


def certified_statistic(weights, emp, stat):
    """The empirical statistic of normalised ``weights`` in float64, raised to the safe side.

    ``math.fsum`` over the products (each rounded once or twice) plus the library's
    statistic allowance ``1e-12``, clipped to [0, 1].
    """
    if stat == "gibbs":
        value = math.fsum((weights * emp).tolist())
    else:
        value = math.fsum((np.outer(weights, weights) * emp).ravel().tolist())
    return min(1.0, max(0.0, value) + _STAT_SLACK)


def _certify(estimator, bank, votes, y_idx, stat, natural, n_classes):
    """Float64 certificate of the deployed vote (weights ``p / sum p``), counted from scratch.

    The out-of-bag mask is drawn again from the bank's seeds and the counts are taken again
    from the votes, so nothing computed for the training enters the certificate.
    """
    n = votes.shape[1]
    counts = out_of_bag_counts(votes, y_idx, bank.evaluation_mask(), tandem=stat == "tandem")
    post = make_posterior("categorical", n, n_classes)
    nat = torch.from_numpy(np.asarray(natural, dtype=np.float64))
    weights = post.vote_weights(nat).numpy().copy()
    kl = float(post.kl(nat)) * (1 + _KL_SLACK) + _KL_SLACK
    emp, size = _empirical(counts, stat)
    value_stat = certified_statistic(weights, emp, stat)
    delta = float(estimator.delta)
    stats = {stat: np.array([value_stat])}
    value = float(estimator._bound_value(stats, np.array([kl]), [size], np.array([1.0]), delta))
    if not (0.0 <= value <= 1.0) or math.isnan(value):
        raise RuntimeError(f"Internal error: certified bound {value!r} outside [0, 1].")
    gibbs_bound = None
    if stat == "gibbs":
        from skpacbayes.bounds import pac_bayes_upper

        gibbs_bound = float(pac_bayes_upper(value_stat, kl, size, delta))
    scores = weighted_vote_scores(votes, weights, n_classes)
    train_error = float(np.mean(~_strict_argmax_is(scores, y_idx)))
    sizes = counts["sizes"]
    details = {
        "scheme": "out_of_bag",
        "sampling": "bootstrap" if bank.bootstrap_ else "subsample without replacement",
        "n_drawn": int(bank.n_drawn_),
        "n_fit_samples": int(bank.n_fit_samples_),
        "r": int(sizes.min()),
        "mean_oob_size": float(sizes.mean()),
    }
    if stat == "tandem":
        pair = counts["pair_sizes"]
        details["r2"] = int(pair.min())
        off_diagonal = pair[~np.eye(n, dtype=bool)]
        details["mean_pair_oob_size"] = float(off_diagonal.mean() if n > 1 else pair.mean())
    certificate = Certificate(
        bound=estimator._bound_name,
        posterior="categorical",
        value=value,
        delta=delta,
        m=(size,),
        kl=(kl,),
        mixture_weights=(1.0,),
        statistics={stat: (value_stat,)},
        gibbs_bound=gibbs_bound,
        b_tilde=None,
        c_tilde=None,
        train_error=train_error,
        n_voters=int(n),
        details=details,
    )
    return certificate, weights
