"""The certify step: every certificate of the package is made here, in float64.

:func:`certify` recomputes a trained posterior's bound from scratch (both paths: the counts
and the rows), :func:`certify_test_set` records the held-out statements of the hold-out
estimators; both build the one :class:`~skpacbayes.engine.certificate.Certificate` record.
"""

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from skpacbayes.engine.certificate import _KL_SLACK, Certificate, effective_voters
from skpacbayes.engine.spec import FitResult

__all__ = ["CertifyInputs", "better", "certify", "certify_test_set", "result"]


@dataclass
class CertifyInputs:
    """What a bound's :meth:`~skpacbayes.objectives.Bound.certify` reads (float64).

    Attributes
    ----------
    family : str
        The posterior family.
    delta : float
        The confidence parameter.
    posteriors : list of Posterior
        One per half.
    natural : list of ndarray
        The natural parameters of each half.
    weights : ndarray
        The mixture weights of the halves.
    groups : list of EvaluationGroup
        The halves.
    statistics : dict
        The statistics of the stochastic losses per half, after the safe-side allowances.
    kl : ndarray
        KL of each half, raised by the allowance.
    m : list of int
        Sample size of each half's statement.
    vote_weights : ndarray
        The deployed vote's weights over all voters.
    deployed : str
        ``"weighted_vote"`` or ``"mixture_bayes"``.
    train_error : float
        The deployed classifier's error rate on the rows of the statements.
    problem : object or None
        The float64 row problem (votes and labels per half) on the row path, else None.
    """

    family: str
    delta: float
    posteriors: list
    natural: list
    weights: np.ndarray
    groups: list
    statistics: dict
    kl: np.ndarray
    m: list
    vote_weights: np.ndarray
    deployed: str
    train_error: float
    problem: Any = None


def certify(
    spec, posteriors, natural, mixture, scheme, m, group_statistics, deployed_errors, details,
    problem=None,
):  # fmt: skip
    """Recompute the bound from scratch in float64 for the final posterior.

    ``group_statistics(g, nat)`` gives the safe-side float64 statistics of half ``g`` (from
    the counts or from the stochastic losses of the rows) and ``deployed_errors(natural,
    mixture, weights, deployed, rows)`` the errors of the deployed classifier on the
    training rows of the boolean mask ``rows`` and their number. Returns the certificate,
    the certified natural parameters, the deployed vote's weights and its kind.
    """
    import torch

    from skpacbayes.engine.deployed import deployed_classifier

    groups = scheme.groups
    h = len(groups)
    natural = [np.asarray(nat, dtype=np.float64) for nat in natural]
    nats = [torch.from_numpy(nat) for nat in natural]
    vote_weights, deployed = deployed_classifier(
        spec.posterior, posteriors, natural, mixture, groups
    )
    rows = np.zeros(scheme.n_rows, dtype=bool)
    if scheme.out_of_bag:
        rows[:] = True
    else:
        for g in groups:
            rows[g.samples] = True
    wrong, used = deployed_errors(natural, mixture, vote_weights, deployed, rows)
    train_error = wrong / used

    kl = np.array([float(post.kl(nat)) for post, nat in zip(posteriors, nats, strict=True)])
    kl = kl * (1 + _KL_SLACK) + _KL_SLACK
    stats = [group_statistics(g, natural[g]) for g in range(h)]
    statistics = {key: np.array([float(s[key]) for s in stats]) for key in stats[0]}
    weights = np.asarray(mixture, dtype=np.float64)
    inputs = CertifyInputs(
        family=spec.posterior,
        delta=float(spec.delta),
        posteriors=posteriors,
        natural=natural,
        weights=weights,
        groups=groups,
        statistics=statistics,
        kl=kl,
        m=list(m),
        vote_weights=vote_weights,
        deployed=deployed,
        train_error=train_error,
        problem=problem,
    )
    certified = spec.bound.certify(inputs)
    details = {**spec.bound.details(), **details}
    if certified.details is not None:
        details = certified.details
    if certified.natural is not None:  # the bound certifies another posterior than the trained
        natural, kl = certified.natural, certified.kl
    value = float(certified.value)
    if not (0.0 <= value <= 1.0) or math.isnan(value):
        raise RuntimeError(f"Internal error: certified bound {value!r} outside [0, 1].")
    certificate = Certificate(
        bound=spec.bound.name,
        posterior=spec.posterior,
        value=value,
        delta=inputs.delta,
        m=tuple(inputs.m),
        kl=tuple(float(k) for k in kl),
        mixture_weights=tuple(float(a) for a in weights),
        statistics={k: tuple(float(x) for x in v) for k, v in statistics.items()},
        gibbs_bound=certified.gibbs_bound,
        b_tilde=certified.b_tilde,
        c_tilde=certified.c_tilde,
        train_error=train_error,
        n_voters=int(scheme.n_voters),
        details=details,
        n_effective_voters=_effective_voters(vote_weights, deployed, mixture, groups),
    )
    return certificate, natural, vote_weights, deployed


def certify_test_set(
    bound,
    statement,
    errors,
    sizes,
    delta,
    n_voters,
    vote_weights,
    class_counts=None,
    anytime=False,
    previous=None,
):
    """The certificate of a classifier fixed before its held-out rows were read.

    Parameters
    ----------
    bound : TestSet
        The test-set bound (:class:`~skpacbayes.objectives.TestSet`).
    statement : int
        The statement deployed (the one of lowest bound).
    errors, sizes : sequence of int
        Errors and held-out rows of each statement (``delta`` is split evenly over them, the
        shares rounded down so that their sum never exceeds it).
    delta : float
        The confidence parameter.
    n_voters : int
        Number of voters of the deployed bank.
    vote_weights : ndarray
        The deployed vote's weights over the voters.
    class_counts : sequence of (ndarray, ndarray) or None, default=None
        Per-class statements: for each statement, the errors and the rows of each true
        class on its held-out rows. ``delta`` is then split evenly over the ``K + 1``
        statements (overall and per class) of every held-out statement
        (:meth:`~skpacbayes.objectives.TestSet.share`).
    anytime : bool, default=False
        A stream (one statement: the rows read so far): the time-uniform bounds
        (:meth:`~skpacbayes.objectives.TestSet.anytime_statement`), which hold at every
        number of rows at once, so that the smallest value reported so far holds too.
    previous : Certificate or None, default=None
        With ``anytime``, the stream's certificate before this batch: the bounds reported
        are the smaller of its and the current ones (``details["bound_now"]``: the current).

    Returns
    -------
    certificate : Certificate
        With ``posterior="point mass (the prior)"`` and ``kl`` zero (a test-set bound is the
        PAC-Bayes statement of a point-mass prior equal to the posterior), the errors as the
        statistics, one mixture weight per statement (1 for the deployed one) and the bounds
        of every statement in ``details["bounds"]``; with ``class_counts``, the deployed
        statement's class bounds, errors and rows in ``details["class_bounds"]``,
        ``["class_errors"]`` and ``["class_sizes"]``.
    """
    n_classes = None if class_counts is None else len(class_counts[statement][0])
    share = bound.share(delta, len(sizes), n_classes)
    state = bound.anytime_statement if anytime else bound.statement
    values = [state(k, n, share) for k, n in zip(errors, sizes, strict=True)]
    details = {"statement": statement, "bounds": tuple(values)}
    if anytime:
        details.update(anytime=True, bound_now=values[statement])
        if previous is not None:
            values[statement] = min(values[statement], previous.value)
            details["bounds"] = tuple(values)
    if class_counts is not None:
        class_errors, class_sizes = class_counts[statement]
        class_bounds = bound.class_statements(class_errors, class_sizes, share, anytime)
        if anytime and previous is not None:
            class_bounds = np.minimum(class_bounds, previous.details["class_bounds"])
        details.update(
            n_classes=n_classes,
            class_bounds=tuple(float(b) for b in class_bounds),
            class_errors=tuple(int(k) for k in class_errors),
            class_sizes=tuple(int(n) for n in class_sizes),
        )
    return Certificate(
        bound=bound.name,
        posterior="point mass (the prior)",
        value=float(values[statement]),
        delta=float(delta),
        m=tuple(sizes),
        kl=tuple(0.0 for _ in sizes),
        mixture_weights=tuple(float(i == statement) for i in range(len(sizes))),
        statistics={"errors": tuple(errors)},
        gibbs_bound=None,
        b_tilde=None,
        c_tilde=None,
        train_error=errors[statement] / sizes[statement],
        n_voters=int(n_voters),
        details=details,
        n_effective_voters=effective_voters(vote_weights),
    )


def better(certified, candidate):
    """The certification of lower bound: the PAC-Bayes statement holds for every posterior at
    once, so choosing between two after looking at both bounds costs nothing in delta."""
    return candidate if candidate[0].value < certified[0].value else certified


def result(certified, mixture, history, n_iter, solver):
    """The :class:`~skpacbayes.engine.spec.FitResult` of a certification."""
    certificate, natural, vote_weights, deployed = certified
    return FitResult(
        natural=natural,
        mixture_weights=np.asarray(certificate.mixture_weights, dtype=np.float64),
        vote_weights=vote_weights,
        deployed=deployed,
        history=history,
        n_iter=n_iter,
        certificate=certificate,
        solver=solver,
    )


def _effective_voters(vote_weights, deployed, mixture, groups):
    """``Certificate.n_effective_voters`` of the deployed classifier (see there)."""
    weights = np.asarray(vote_weights, dtype=np.float64)
    if deployed == "mixture_bayes":  # the posterior means, each half's by its weight
        weights = np.abs(weights)
        for g, a in zip(groups, mixture, strict=True):
            weights[g.voters] *= a
        return effective_voters(weights, vote=False)
    return effective_voters(weights)
