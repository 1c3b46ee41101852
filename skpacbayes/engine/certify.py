"""The certify step: every certificate of the package is made here, in float64.

:func:`certify` takes one statement and hands back its complete certification: a trained
posterior (:class:`PosteriorStatement`, both paths: the counts and the rows) is recomputed
from scratch, held-out statements (:class:`HeldOutStatement`, the hold-out protocols) are
certified by the test-set bound of their error counts; both build the one
:class:`~skpacbayes.engine.certificate.Certificate` record, which nothing edits afterwards.
"""

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from skpacbayes._docstrings import fill_doc
from skpacbayes.engine.certificate import HALVES, Certificate, effective_voters, raised_kl
from skpacbayes.engine.spec import FitResult

__all__ = [
    "CertifyInputs",
    "Certified",
    "DecisionStatement",
    "HeldOutStatement",
    "PosteriorStatement",
    "better",
    "certify",
    "result",
]


@dataclass
class CertifyInputs:
    """What a bound's :meth:`~skpacbayes.objectives.Bound.certify` reads (float64).

    Attributes
    ----------
    family : type
        The posterior family (its class in :mod:`skpacbayes.posteriors`).
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
    rows : list of (ndarray, ndarray) or None
        The votes and the labels (class indices) of each half, on the row path in memory,
        else None.
    """

    family: type
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
    rows: Any = None


@dataclass(frozen=True)
@fill_doc(halves=HALVES)
class PosteriorStatement:
    """A trained posterior to certify (the count and row paths).

    Attributes
    ----------
    spec : FitSpec
        The bound, the family and the confidence parameter.
    {halves}
    scheme : EvaluationScheme
        Which voter may be evaluated on which row.
    m : list of int
        Sample size of each half's statement.
    evidence : object
        What the certificate reads of the rows: ``group_statistics(g, nat)``, the safe-side
        float64 statistics of half ``g`` (from the counts or the stochastic losses);
        ``deployed_errors(natural, mixture, weights, deployed, rows)``, the errors of the
        deployed classifier on the training rows of the boolean mask ``rows`` and their
        number; ``rows``, the votes and labels of each half (or None).
    details : dict
        Recorded in the certificate, over the bound's own details.
    """

    spec: Any
    posteriors: list
    natural: list
    mixture: Any
    scheme: Any
    m: list
    evidence: Any
    details: dict = field(default_factory=dict)


@dataclass(frozen=True)
class HeldOutStatement:
    """Held-out statements of classifiers fixed before their held-out rows were read.

    Attributes
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
    confusions : sequence of ndarray or None, default=None
        For each statement, the confusion matrix of its vote on its held-out rows (shape
        ``(K, K + 1)``, :func:`~skpacbayes.engine.risks.confusion_counts`).
    risks : tuple of str, default=()
        Risks certified at the deployed statement beside its error rate (names of
        :data:`~skpacbayes.engine.risks.RISKS`), from its confusion matrix. ``delta`` is
        then split evenly over the ``1 + M`` statements of every held-out statement, ``M``
        the number of distinct risk statements besides the error rate
        (:meth:`~skpacbayes.objectives.TestSet.share`).
    group_confusions : ndarray or None, default=None
        The deployed statement's confusion matrix on the held-out rows of each of ``G``
        groups (shape ``(G, K, K + 1)``): ``delta / 2`` then goes to the statements above
        and ``delta / 2`` to the ``S G (1 + M)`` statements of the groups (the error and the
        risks of each group at every held-out statement), Proposition 5e.
    anytime : bool, default=False
        A stream (one statement: the rows read so far): the time-uniform bounds
        (:meth:`~skpacbayes.objectives.TestSet.anytime_statement`), which hold at every
        number of rows at once, so that the smallest value reported so far holds too.
    previous : Certificate or None, default=None
        With ``anytime``, the stream's certificate before this batch: the bounds reported
        are the smaller of its and the current ones (``details["bound_now"]``: the current).
    details : dict
        Recorded in the certificate, beside the statements' own.
    """

    bound: Any
    statement: int
    errors: tuple
    sizes: tuple
    delta: float
    n_voters: int
    vote_weights: Any
    confusions: Any = None
    risks: tuple = ()
    group_confusions: Any = None
    anytime: bool = False
    previous: Any = None
    details: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Certified:
    """What the certify step hands back: the certificate and the classifier it certifies.

    Attributes
    ----------
    certificate : Certificate
        Complete: nothing is added to it afterwards.
    natural : list of ndarray or None
        The certified natural parameters (None for held-out statements).
    vote_weights : ndarray
        The deployed vote's weights over all voters.
    deployed : str
        ``"weighted_vote"``, ``"mixture_bayes"`` or, for held-out statements,
        ``"plain_vote"`` (``"decision"`` for a decision statement).
    """

    certificate: Certificate
    natural: Any
    vote_weights: Any
    deployed: str


def certify(statement):
    """The one certify step: a statement in, its complete certification out.

    Parameters
    ----------
    statement : PosteriorStatement, HeldOutStatement or DecisionStatement
        A trained posterior (recomputed from scratch in float64), held-out statements
        (the test-set bound of their error counts), or the statements of a decision rule.

    Returns
    -------
    certified : Certified
    """
    if isinstance(statement, HeldOutStatement):
        return _certify_held_out(statement)
    if isinstance(statement, DecisionStatement):
        return _certify_decision(statement)
    return _certify_posterior(statement)


def _certify_posterior(statement):
    """Recompute the bound from scratch in float64 for the final posterior."""
    import torch

    from skpacbayes.engine.deployed import deployed_classifier

    spec, scheme, evidence = statement.spec, statement.scheme, statement.evidence
    posteriors, mixture = statement.posteriors, statement.mixture
    groups = scheme.groups
    h = len(groups)
    natural = [np.asarray(nat, dtype=np.float64) for nat in statement.natural]
    nats = [torch.from_numpy(nat) for nat in natural]
    vote_weights, deployed = deployed_classifier(spec.family, posteriors, natural, mixture, groups)
    rows = np.zeros(scheme.n_rows, dtype=bool)
    if scheme.out_of_bag:
        rows[:] = True
    else:
        for g in groups:
            rows[g.samples] = True
    wrong, used = evidence.deployed_errors(natural, mixture, vote_weights, deployed, rows)
    train_error = wrong / used

    kl = raised_kl(
        np.array([float(post.kl(nat)) for post, nat in zip(posteriors, nats, strict=True)])
    )
    stats = [evidence.group_statistics(g, natural[g]) for g in range(h)]
    statistics = {key: np.array([float(s[key]) for s in stats]) for key in stats[0]}
    weights = np.asarray(mixture, dtype=np.float64)
    inputs = CertifyInputs(
        family=spec.family,
        delta=float(spec.delta),
        posteriors=posteriors,
        natural=natural,
        weights=weights,
        groups=groups,
        statistics=statistics,
        kl=kl,
        m=list(statement.m),
        vote_weights=vote_weights,
        deployed=deployed,
        train_error=train_error,
        rows=evidence.rows,
    )
    certified = spec.bound.certify(inputs)
    # the bound's details (those of its certificate where it certifies its own way), the
    # statement's over them
    details = spec.bound.details() if certified.details is None else certified.details
    details = {**details, **statement.details}
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
    return Certified(certificate, natural, vote_weights, deployed)


def _certify_held_out(statement):
    """The certificate of a classifier fixed before its held-out rows were read: with
    ``posterior="point mass (the prior)"`` and ``kl`` zero (a test-set statement is the
    PAC-Bayes statement of a point-mass prior equal to the posterior), the errors as the
    statistics, one mixture weight per statement (1 for the deployed one) and the bounds of
    every statement in ``details["bounds"]``; with ``risks``, the deployed statement's risk
    bounds (:func:`_risk_details`)."""
    from skpacbayes.engine.risks import beside_error

    bound, index = statement.bound, statement.statement
    errors, sizes, delta = list(statement.errors), list(statement.sizes), statement.delta
    anytime, previous = statement.anytime, statement.previous
    risks = []
    if statement.risks:
        risks = beside_error(statement.risks, len(statement.confusions[index]))
    groups = statement.group_confusions
    overall = delta if groups is None else delta / 2  # (delta / 2 to the groups)
    share = bound.share(overall, len(sizes), len(risks))
    state = bound.anytime_statement if anytime else bound.statement
    values = [state(k, n, share) for k, n in zip(errors, sizes, strict=True)]
    details = {"statement": index, "bounds": tuple(values)}
    if anytime:
        details.update(anytime=True, bound_now=values[index])
        if previous is not None:
            values[index] = min(values[index], previous.value)
            details["bounds"] = tuple(values)
    if risks:
        details.update(_risk_details(statement, risks, share, values[index]))
    if groups is not None:
        details.update(_group_details(statement, groups, risks, overall, len(sizes)))
    details.update(statement.details)
    certificate = Certificate(
        bound=bound.name,
        posterior="point mass (the prior)",
        value=float(values[index]),
        delta=float(delta),
        m=tuple(sizes),
        kl=tuple(0.0 for _ in sizes),
        mixture_weights=tuple(float(i == index) for i in range(len(sizes))),
        statistics={"errors": tuple(errors)},
        gibbs_bound=None,
        b_tilde=None,
        c_tilde=None,
        train_error=errors[index] / sizes[index],
        n_voters=int(statement.n_voters),
        details=details,
        n_effective_voters=effective_voters(statement.vote_weights),
    )
    return Certified(certificate, None, statement.vote_weights, "plain_vote")


def _risk_details(statement, risks, share, value):
    """The deployed statement's risk statements: each one's bound (the exact binomial
    inversion of its counts at ``share``, time-uniform on a stream, never above the one
    reported before), ``risk_bounds`` by name (``"error"``: ``value``; one value per class
    otherwise, 1.0 for a class the risks do not name) and, with ``"miss_rate"``, the class
    bounds and counts (``class_bounds``, ``class_errors``, ``class_sizes``)."""
    from skpacbayes.engine.risks import class_counts

    confusion = np.asarray(statement.confusions[statement.statement])
    n_classes = confusion.shape[0]
    counts = [s.counts(confusion) for s in risks]
    bounds = statement.bound.rate_statements(
        [k for k, _ in counts], [n for _, n in counts], share, statement.anytime
    )
    if statement.anytime and statement.previous is not None:
        before = statement.previous.details
        # (a stream of 0.1.0 certified the miss rates only, as "class_bounds")
        bounds = np.minimum(bounds, before.get("risk_statement_bounds", before.get("class_bounds")))
    risk_bounds = {"error": float(value)}
    for s, b in zip(risks, bounds, strict=True):
        for name, c in s.names:
            risk_bounds.setdefault(name, [1.0] * n_classes)[c] = float(b)
    details = {
        "n_risk_statements": len(risks),
        "risk_statement_bounds": tuple(float(b) for b in bounds),
        "risk_bounds": {k: v if k == "error" else tuple(v) for k, v in risk_bounds.items()},
        "confusion": tuple(tuple(int(x) for x in row) for row in confusion),
    }
    if "miss_rate" in risk_bounds:
        class_errors, class_sizes = class_counts(confusion)
        details.update(
            n_classes=n_classes,
            class_bounds=risk_bounds["miss_rate"],
            class_errors=tuple(int(k) for k in class_errors),
            class_sizes=tuple(int(n) for n in class_sizes),
        )
    return details


def _group_details(statement, groups, risks, overall, n_statements):
    """The error and the risks of each group at the deployed statement, each at ``(delta -
    overall) / (S G (1 + M))`` (Proposition 5e): ``group_bounds`` by name (``"error"``:
    one value per group; a risk: one row per group, one value per class), the groups' row
    counts and shares."""
    from skpacbayes.engine.certificate import equal_share
    from skpacbayes.engine.risks import error_counts

    groups = np.asarray(groups)
    n_groups, n_classes = groups.shape[0], groups.shape[1]
    share = equal_share(statement.delta - overall, n_statements * n_groups * (1 + len(risks)))
    errors, sizes = zip(*(error_counts(c) for c in groups), strict=True)
    bound = statement.bound
    out = {"error": tuple(float(b) for b in bound.rate_statements(errors, sizes, share))}
    for s in risks:
        counts = [s.counts(c) for c in groups]
        values = bound.rate_statements([k for k, _ in counts], [n for _, n in counts], share)
        for name, c in s.names:
            table = out.setdefault(name, [[1.0] * n_classes for _ in range(n_groups)])
            for g in range(n_groups):
                table[g][c] = float(values[g])
    return {
        "n_groups": n_groups,
        "group_share": share,
        "group_sizes": tuple(sizes),
        "group_errors": tuple(errors),
        "group_bounds": {k: v if k == "error" else tuple(map(tuple, v)) for k, v in out.items()},
    }


def better(certified, candidate):
    """The certification of lower bound: the PAC-Bayes statement holds for every posterior at
    once, so choosing between two after looking at both bounds costs nothing in delta."""
    return candidate if candidate.certificate.value < certified.certificate.value else certified


def result(certified, mixture, history, n_iter, solver, groups):
    """The :class:`~skpacbayes.engine.spec.FitResult` of a certification (``groups``: the
    halves, :class:`~skpacbayes.engine.statistics.EvaluationGroup`)."""
    certificate = certified.certificate
    return FitResult(
        natural=certified.natural,
        mixture_weights=np.asarray(certificate.mixture_weights, dtype=np.float64),
        vote_weights=certified.vote_weights,
        deployed=certified.deployed,
        history=history,
        n_iter=n_iter,
        certificate=certificate,
        solver=solver,
        groups=[(g.voters, g.samples) for g in groups],
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


@dataclass(frozen=True)
class DecisionStatement:
    """The statements of a decision rule of a fixed model chosen on held-out rows: a threshold
    certified by a test over a grid, and the risks of the vocabulary at it
    (:mod:`skpacbayes.engine.protocols.decisions`, :ref:`theory-decisions`).

    Attributes
    ----------
    decision : str
        ``"threshold"`` or ``"selective"``.
    delta : float
        The confidence parameter of all the statements together.
    statements : tuple of dict
        One per statement, with the keys ``names`` (the ``(risk, class index)`` pairs it
        certifies, class None for the error rate and the coverage), ``side`` (``"upper"``:
        the exact binomial upper bound; ``"lower"``: the Clopper-Pearson lower end of the
        rate of the counted rows), ``errors`` and ``rows`` (its counts at the deployed
        threshold), ``certified_errors`` (the count the bound is computed at, where it is not
        ``errors``: the test's critical count, Proposition D2), ``level`` (its share of
        ``delta``), ``cap`` (an upper bound it is clipped to: the test's target) and ``kind``
        (``"test"``, ``"exact"``, or ``"grid"``: a share split over the grid's thresholds).
    value : int
        Index of the statement reported as the certificate's value (``bound_``).
    coverage : int or None
        Index of the coverage statement (a lower bound), if any.
    n_classes : int
        Number of classes.
    n_rows : int
        Rows the statements read.
    details : dict
        Recorded in the certificate (the threshold, the test's level, ...).
    """

    decision: str
    delta: float
    statements: tuple
    value: int
    coverage: Any
    n_classes: int
    n_rows: int
    details: dict = field(default_factory=dict)


def _certify_decision(statement):
    """The certificate of a decision rule: every statement's bound from its counts and share
    (exact binomial upper bounds, Clopper-Pearson lower ends), the risks arranged by name in
    ``details["risk_bounds"]`` (a float for ``"error"``, one value per class otherwise) and
    the value statement's bound as the value; ``posterior="point mass (the prior)"`` and
    ``kl`` zero, as for every test-set statement."""
    from skpacbayes.bounds import binomial_inv_lower
    from skpacbayes.engine.risks import certified_upper

    n_classes = statement.n_classes
    records, risk_bounds = [], {}
    for s in statement.statements:
        count = s["errors"] if s["certified_errors"] is None else s["certified_errors"]
        if s["side"] == "upper":
            bound = min(float(s["cap"]), certified_upper(count, s["rows"], s["level"]))
        else:
            bound = binomial_inv_lower(count, s["rows"], s["level"])
        records.append({**s, "bound": bound})
        for name, c in s["names"]:
            if c is None:
                risk_bounds[name] = bound
            else:
                risk_bounds.setdefault(name, [1.0] * n_classes)[c] = bound
    risk_bounds = {k: v if isinstance(v, float) else tuple(v) for k, v in risk_bounds.items()}
    value = records[statement.value]
    n_grid = statement.details["n_thresholds"]
    used = sum(s["level"] * (n_grid if s["kind"] == "grid" else 1) for s in records)
    if not any(s["kind"] == "test" for s in records):  # the test's level, when not a record
        used += statement.details["test_level"]
    details = {
        "decision": statement.decision,
        "risk_bounds": risk_bounds,
        "statements": tuple(records),
        "delta_used": used + statement.details.get("skip_level", 0.0),
        **statement.details,
    }
    if statement.coverage is not None:
        details["coverage_lower"] = records[statement.coverage]["bound"]
    certificate = Certificate(
        bound="HoldOut",
        posterior="point mass (the prior)",
        value=float(value["bound"]),
        delta=float(statement.delta),
        m=(int(statement.n_rows),),
        kl=(0.0,),
        mixture_weights=(1.0,),
        statistics={"errors": (int(value["errors"]),)},
        gibbs_bound=None,
        b_tilde=None,
        c_tilde=None,
        train_error=value["errors"] / value["rows"] if value["rows"] else 0.0,
        n_voters=1,
        details=details,
        n_effective_voters=1,
    )
    return Certified(certificate, None, np.ones(1), "decision")
