"""The held-out protocols: a plain vote fixed before its held-out rows are read, certified on
them by the exact test-set bound (:ref:`theory-holdout`).

Three ways to choose the rows, each a function handed the estimator's specification
(:class:`HeldOutSpec`) and its validated rows, each handing back a :class:`HeldOutResult`
whose certificate comes out of the certify step complete:

* :func:`certify_fractions`: for each validation fraction ``f`` (and one ``fold``), ``ceil(f
  m)`` rows drawn from the seed and the sample size alone are held out, the voters are grown
  on the others, and the statement of lowest bound is deployed (``delta`` split evenly);
* :func:`certify_halves`: a bank that brings its own evaluation rule (the halves of a split
  bank, every row for fixed voters), one statement per group of voters;
* :func:`certify_sample`: the voters grown on ``train_size`` rows drawn from the seed and the
  number of rows alone (in memory), certified on every other row (one pass, block by block
  on a dask array).

Conditionally on its training rows, the deployed vote is a fixed classifier and its errors on
the held-out rows are independent Bernoulli draws: the exact binomial tail inversion (the
test-set bound: the largest ``R`` with ``P(Bin(n, R) <= k) >= delta / K`` over ``K``
statements) certifies its risk, overall and, with ``risks``, the rates of the risk vocabulary
(:mod:`skpacbayes.engine.risks`) counted on the same rows' confusion matrix. It is never
looser than Chernoff's ``kl(k/n || R) <= ln(K / delta) / n``, the PAC-Bayes bound of a point
mass equal to the prior (KL = 0), and is the line any learned posterior has to beat.
"""

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.utils import _safe_indexing, check_random_state
from sklearn.utils.validation import _num_samples

from skpacbayes.engine.certify import HeldOutStatement, certify
from skpacbayes.engine.dask_passes import is_dask_input
from skpacbayes.engine.protocols.held_out_voters import (
    DEFAULT_N_ESTIMATORS,
    RecodedVoters,
    grown_voters,
)
from skpacbayes.engine.risks import error_counts
from skpacbayes.engine.sampling import draw_rows
from skpacbayes.engine.spec import progress

__all__ = [
    "DEFAULT_FRACTIONS",
    "HeldOutCount",
    "HeldOutResult",
    "HeldOutSpec",
    "certify_count",
    "certify_fractions",
    "certify_halves",
    "certify_sample",
    "count_fraction",
    "plain_vote_counts",
    "rows_seed",
    "training_rows",
    "validation_rows",
]

#: Default validation fractions: a held-out share that doubles, then grows 2.5-fold, from a
#: tenth (tens of thousands of rows: the vote barely weakens, the bound is already tight) to
#: a half (hundreds of rows: the bound needs every held-out row it can get).
DEFAULT_FRACTIONS = (0.1, 0.2, 0.5)


@dataclass(frozen=True)
class HeldOutSpec:
    """What a held-out protocol is handed besides the rows.

    Attributes
    ----------
    bound : TestSet
        The test-set bound (:class:`~skpacbayes.objectives.TestSet`).
    voters : voter bank, scikit-learn classifier or None
        The estimator's ``voters`` parameter (cloned, never modified).
    delta : float
        The confidence parameter of the whole fit.
    seed : int
        Seed of the rows' draws (:func:`rows_seed`) and of the voters left unseeded.
    risks : tuple of str, default=()
        Risks certified beside the error rate of ``predict`` (names of
        :data:`~skpacbayes.engine.risks.RISKS`; ``("miss_rate",)``: each true class's miss
        rate, :ref:`Proposition 5a <theory-per-class>`), at the deployed statement.
    groups : ndarray of int or None, default=None
        Each row's group index in ``[0, n_groups)`` (in memory): also certify the error and
        the risks of the deployed vote on each group's held-out rows
        (:ref:`Proposition 5e <theory-holdout-groups>`).
    n_groups : int, default=0
        Number of groups (those of every row given).
    n_jobs : int or None, default=None
        ``n_jobs`` of the voters left at None.
    label : str, default="HoldOutBoundClassifier"
        The name the progress lines are prefixed with.
    verbose : int, default=0
        A progress line per statement when > 0.
    """

    bound: Any
    voters: Any
    delta: float
    seed: int
    risks: tuple = ()
    groups: Any = None
    n_groups: int = 0
    n_jobs: Any = None
    label: str = "HoldOutBoundClassifier"
    verbose: int = 0

    def announce(self, what):
        """Print the protocol's start line (when ``verbose``): what runs before any result."""
        if self.verbose:
            progress(self.label, what)

    def report(self, what, k, n, bound, start):
        """Print one statement's progress line (when ``verbose``)."""
        if self.verbose:
            progress(
                self.label,
                f"{what}: {k} errors on {n} held-out rows, bound "
                f"{bound:.4f} ({time.perf_counter() - start:.1f} s)",
            )


@dataclass(frozen=True)
class HeldOutResult:
    """The deployed vote of a held-out protocol and its certificate.

    Attributes
    ----------
    voters : fitted voter bank
        The bank of the deployed vote.
    codes : ndarray of int
        ``codes[i]``: index, among the estimator's classes, of the bank's class ``i``.
    weights : ndarray of shape (n_voters,)
        1 on the deployed voters, 0 elsewhere.
    validation_indices : ndarray of int or None
        Rows the deployed vote is certified on (None for a stream).
    validation_fraction : float or None
        The deployed fraction (fraction protocol only).
    half : int or None
        The deployed group of voters (halves protocol only).
    certificate : Certificate
        Complete, out of the certify step.
    """

    voters: Any
    codes: np.ndarray
    weights: np.ndarray
    validation_indices: Any
    validation_fraction: Any
    half: Any
    certificate: Any

    def attributes(self, per_class):
        """The fitted attributes of the estimator, by name: the deployed vote, its rows and
        its certificate (``risk_bounds_`` with risks, ``class_bounds_`` with ``per_class``,
        ``group_bounds_`` with groups)."""
        details = self.certificate.details
        attributes = {
            "voters_": self.voters,
            "_codes": self.codes,
            "weights_": self.weights,
            "validation_indices_": self.validation_indices,
            "validation_fraction_": self.validation_fraction,
            "half_": self.half,
            "certificate_": self.certificate,
            "bound_": float(self.certificate.value),
        }
        if "risk_bounds" in details:
            bounds = details["risk_bounds"].items()
            attributes["risk_bounds_"] = {k: v if k == "error" else np.array(v) for k, v in bounds}
        if per_class:
            attributes["class_bounds_"] = np.array(details["class_bounds"])
        if "group_bounds" in details:  # groups given to fit
            bounds = details["group_bounds"].items()
            attributes["group_bounds_"] = {k: np.array(v) for k, v in bounds}
        attributes["n_iter_"] = 0
        return attributes


@dataclass
class HeldOutCount:
    """The errors of one fraction's vote on its held-out rows, before any statement.

    Attributes
    ----------
    voters : fitted voter bank
        Grown on the training rows.
    codes : ndarray of int
        The bank's classes among the estimator's.
    held : ndarray of int
        Sorted indices of the held-out rows.
    confusion : ndarray of int64, shape (n_classes, n_classes + 1)
        Rows per (true, predicted) class of the plain vote (what ``predict`` returns).
    n_train : int
        Rows the voters were grown on.
    details : dict
        What the certificate records about the fraction's rows.
    """

    voters: Any
    codes: np.ndarray
    held: np.ndarray
    confusion: np.ndarray
    n_train: int
    details: dict = field(default_factory=dict)

    @property
    def errors(self):
        """Errors on every held-out row."""
        return error_counts(self.confusion)[0]

    @property
    def size(self):
        """Held-out rows counted."""
        return int(self.confusion.sum())


def validation_rows(n_samples, fraction, seed, fold=0):
    """Training and held-out row indices, drawn from the seed and the sample size alone.

    The held-out rows are the entries ``fold * n_held`` to ``(fold + 1) * n_held - 1``
    (the last fold cut at ``n_samples``) of a permutation of ``range(n_samples)`` seeded
    by ``seed``, with ``n_held = ceil(fraction * n_samples)`` (at least one row on each
    side). Neither ``X`` nor ``y`` is read, so the held-out rows are an i.i.d. sample
    independent of the training rows (no stratification: a split that looks at the
    labels ties the two sides' class counts together). For the same seed, a larger
    fraction holds out a superset of the rows of fold 0, and the folds of one fraction
    are disjoint (fold 1 of ``0.5`` is the other half).

    Parameters
    ----------
    n_samples : int
        Number of rows (at least 2).
    fraction : float in (0, 1)
        Share of the rows held out.
    seed : int
        Seed of the permutation.
    fold : int, default=0
        Which block of ``n_held`` rows of the permutation is held out; it must start
        inside the permutation and leave at least one row to train on.

    Returns
    -------
    train : ndarray of int
        Sorted indices of the rows the ensemble is grown on.
    held_out : ndarray of int
        Sorted indices of the rows its vote is certified on.

    Examples
    --------
    >>> from skpacbayes.engine.protocols.held_out import validation_rows
    >>> train, held_out = validation_rows(10, 0.25, seed=0)
    >>> train.size, held_out.size
    (7, 3)
    >>> sorted(set(train) | set(held_out)) == list(range(10))
    True
    >>> other = validation_rows(10, 0.25, seed=0, fold=1)[1]
    >>> other.size, set(other) & set(held_out)
    (3, set())
    """
    n_held = min(max(int(np.ceil(fraction * n_samples)), 1), n_samples - 1)
    start = int(fold) * n_held
    if not 0 <= start < n_samples or n_samples - min(n_held, n_samples - start) < 1:
        raise ValueError(
            f"Fold {fold} of validation_fraction={fraction} does not fit in {n_samples} rows: "
            f"{fold} disjoint held-out sets of {n_held} rows come before it."
        )
    perm = np.random.RandomState(seed).permutation(n_samples)
    held = perm[start : start + n_held]
    train = np.concatenate([perm[:start], perm[start + n_held :]])
    return np.sort(train), np.sort(held)


def rows_seed(random_state):
    """The seed every draw of a hold-out's rows is made from, given its ``random_state``.

    ``HoldOutBoundClassifier(random_state=r)`` draws its held-out rows (and the rows of its
    sample protocol) from ``rows_seed(r)``; ``CertifiedVoteClassifier`` draws its sample of
    ``train_size`` rows from the same seed, so both hold the same rows in memory.

    Parameters
    ----------
    random_state : int, RandomState instance or None

    Returns
    -------
    seed : int

    Examples
    --------
    >>> from skpacbayes.engine.protocols.held_out import rows_seed
    >>> rows_seed(0) == rows_seed(0)
    True
    """
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


def training_rows(n_samples, train_size, seed):
    """The ``train_size`` rows the voters are grown on, drawn from the seed and ``n_samples``.

    ``train_size`` distinct rows drawn by :func:`~skpacbayes.engine.sampling.draw_rows`
    (uniformly without replacement by ``numpy.random.default_rng(seed)``); neither ``X``
    nor ``y`` is read, so every other row is an i.i.d. sample independent of them.

    Parameters
    ----------
    n_samples : int
        Number of rows.
    train_size : int
        Rows drawn, ``1 <= train_size <= n_samples - 1`` (at least one row is held out).
    seed : int
        Seed of the draw.

    Returns
    -------
    train : ndarray of int
        Sorted indices of the drawn rows.

    Examples
    --------
    >>> from skpacbayes.engine.protocols.held_out import training_rows
    >>> training_rows(10, 3, seed=0).size
    3
    """
    if not 1 <= train_size <= n_samples - 1:
        raise ValueError(
            f"train_size={train_size} must leave at least one of the n_samples={n_samples} "
            "rows to certify on: 1 <= train_size <= n_samples - 1."
        )
    return draw_rows(n_samples, train_size, seed)


def plain_vote_counts(bank, codes, n_classes, X):
    """``count(voters, rows)``: the confusion matrix of the plain vote of ``voters`` on the
    mask ``rows`` (shape ``(n_classes, n_classes + 1)``).

    One pass over ``X`` per call (in memory, the votes are kept between calls): block by
    block on the workers for a dask array. The cells of exactly what ``predict`` returns:
    a tie goes to the first class of largest score, as in ``predict``.

    Parameters
    ----------
    bank : fitted voter bank
    codes : ndarray of int
        The bank's classes among the estimator's ``n_classes``.
    n_classes : int
    X : {ndarray, sparse matrix, dask array}
        The rows.

    Returns
    -------
    count : callable
        ``count(voters, rows, y_idx)`` with ``voters`` the indices of the voting voters,
        ``rows`` a boolean mask of the rows and ``y_idx`` the true class indices of every row.
    """
    from skpacbayes.engine.passes import VotePasses

    recoded = RecodedVoters(bank, codes, n_classes)
    if np.array_equal(codes, np.arange(n_classes)):  # the bank's own votes: those of a
        recoded = bank  # shared_votes block (a benchmark's) are read, not recomputed
    if is_dask_input(X):
        from skpacbayes.engine.dask_passes import DaskVotePasses

        passes = DaskVotePasses(recoded, X)
    else:
        passes = VotePasses(recoded, X)

    def count(voters, rows, y_idx):
        weights = np.zeros((1, bank.n_voters_))
        weights[0, voters] = 1.0
        return passes.vote_confusions(y_idx, weights, n_classes, rows)[0]

    return count


def _vote_confusion(votes, codes, y_idx, n_classes):
    """The confusion matrix of what ``predict`` returns, the plain vote (ties to the first
    class), votes mapped by ``codes``."""
    from skpacbayes.engine.risks import confusion_counts
    from skpacbayes.engine.vote import vote_predictions

    predicted = vote_predictions(codes[votes], np.ones(votes.shape[1]), n_classes)
    return confusion_counts(y_idx, predicted, n_classes)


def _share(spec, n_statements, n_classes):
    """Each held-out statement's share of ``delta`` (and of each of its risk statements)."""
    from skpacbayes.engine.risks import beside_error

    extra = len(beside_error(spec.risks, n_classes))
    return spec.bound.share(spec.delta, n_statements, extra)


def count_fraction(spec, X, y, y_idx, classes, fraction, fold=0):
    """Grow the voters on the rows one fraction leaves and count their errors on the others.

    Parameters
    ----------
    spec : HeldOutSpec
    X : {ndarray, sparse matrix} of shape (n_rows, n_features)
    y : ndarray of shape (n_rows,)
        Labels.
    y_idx : ndarray of shape (n_rows,)
        Their indices among ``classes``.
    classes : ndarray
        The estimator's classes.
    fraction : float in (0, 1)
        Share of the rows held out.
    fold : int, default=0
        Which block of the permutation is held out (:func:`validation_rows`).

    Returns
    -------
    counted : HeldOutCount
    """
    train, held = validation_rows(_num_samples(X), fraction, spec.seed, fold=fold)
    if np.unique(y_idx[train]).size < 2:
        raise ValueError(
            f"The {train.size} training rows left by validation_fraction={fraction} hold a "
            "single class; use a smaller validation_fraction or more data."
        )
    X_train = _safe_indexing(X, train)
    bank = grown_voters(spec.voters, X_train, y[train], spec.seed, spec.n_jobs)
    codes = np.searchsorted(classes, np.asarray(bank.classes_))
    votes = bank.votes(_safe_indexing(X, held))
    confusion = _vote_confusion(votes, codes, y_idx[held], classes.size)
    return HeldOutCount(bank, codes, held, confusion, int(train.size))


def _group_confusions(spec, bank, codes, weights, X, rows, y_idx, n_classes):
    """The deployed vote's confusion matrix on the held-out ``rows`` (indices) of each group
    (None without groups): one more pass over those rows, in memory."""
    if spec.groups is None:
        return None
    from skpacbayes.engine.risks import group_confusion_counts
    from skpacbayes.engine.vote import vote_predictions

    votes = bank.votes(_safe_indexing(X, rows))
    predicted = vote_predictions(codes[votes], weights, n_classes)
    return group_confusion_counts(
        y_idx[rows], predicted, spec.groups[rows], spec.n_groups, n_classes
    )


def certify_count(spec, counted, details, group_confusions=None):
    """The certificate of one counted vote at ``spec.delta`` (one statement).

    Parameters
    ----------
    spec : HeldOutSpec
    counted : HeldOutCount
    details : dict
        Recorded in the certificate.
    group_confusions : ndarray or None, default=None
        The vote's confusion matrix on the held-out rows of each group.

    Returns
    -------
    result : HeldOutResult
    """
    weights = np.ones(counted.voters.n_voters_)
    certified = certify(
        HeldOutStatement(
            spec.bound,
            0,
            (counted.errors,),
            (counted.size,),
            float(spec.delta),
            counted.voters.n_voters_,
            weights,
            (counted.confusion,),
            spec.risks,
            group_confusions,
            details=details,
        )
    )
    return HeldOutResult(
        counted.voters, counted.codes, weights, counted.held, None, None, certified.certificate
    )


def certify_fractions(spec, X, y, y_idx, classes, fractions, fold=0):
    """Fraction protocol: one vote per validation fraction, the statement of lowest bound
    deployed, ``delta`` split evenly over the fractions.

    Parameters
    ----------
    spec : HeldOutSpec
    X, y, y_idx, classes
        The validated rows, their labels and class indices, the estimator's classes.
    fractions : tuple of float
        The validation fractions, in order.
    fold : int, default=0
        Which block of each fraction's permutation is held out.

    Returns
    -------
    result : HeldOutResult
    """
    share = _share(spec, len(fractions), classes.size)
    spec.announce(
        f"validation fractions {', '.join(map(str, fractions))} on {_num_samples(X)} rows, each "
        "reported as it ends"
    )
    counts, values, best = [], [], None
    for f in fractions:
        start = time.perf_counter()
        counted = count_fraction(spec, X, y, y_idx, classes, f, fold)
        # the statement's bound, to keep the best vote only (the certify step recomputes it)
        values.append(spec.bound.statement(counted.errors, counted.size, share))
        counts.append(counted.confusion)
        spec.report(
            f"fraction {f} (grown on {counted.n_train} rows)",
            counted.errors,
            counted.size,
            values[-1],
            start,
        )
        if best is None or values[-1] < values[best[0]]:
            best = (len(values) - 1, counted)
    index, counted = best
    weights = np.ones(counted.voters.n_voters_)
    by_group = _group_confusions(
        spec, counted.voters, counted.codes, weights, X, counted.held, y_idx, classes.size
    )
    certified = certify(
        HeldOutStatement(
            spec.bound,
            index,
            tuple(error_counts(c)[0] for c in counts),
            tuple(error_counts(c)[1] for c in counts),
            float(spec.delta),
            counted.voters.n_voters_,
            weights,
            tuple(counts),
            spec.risks,
            by_group,
            details={
                "validation_fractions": fractions,
                "training_rows": int(_num_samples(X) - counted.size),
            },
        )
    )
    return HeldOutResult(
        counted.voters,
        counted.codes,
        weights,
        counted.held,
        fractions[index],
        None,
        certified.certificate,
    )


def certify_halves(spec, X, y, y_idx, classes):
    """Halves protocol: a bank that brings its own evaluation rule; the plain vote of each
    group of voters certified on the rows it may be evaluated on, the tightest deployed.

    The halves of a split bank (:class:`~skpacbayes.voters.SplitForest`), each certified on
    the other half at ``delta / 2``; a bank that is not split (fixed voters:
    :class:`~skpacbayes.voters.PrefitVoters`, :class:`~skpacbayes.voters.StumpBank`) on every
    row it may be evaluated on, at ``delta``.

    Parameters
    ----------
    spec : HeldOutSpec
    X, y, y_idx, classes
        The validated rows (in memory or a dask array), labels, class indices, classes.

    Returns
    -------
    result : HeldOutResult
    """
    from skpacbayes.engine.dask_passes import WHAT_WORKS
    from skpacbayes.engine.statistics import EvaluationScheme
    from skpacbayes.voters import SplitForest
    from skpacbayes.voters._base import fit_without_rows, resolve_voters

    if spec.voters is not None and not hasattr(spec.voters, "votes"):
        raise ValueError(
            "voters must be a voter bank (e.g. SplitForest) with validation_fraction=None; "
            f"got {type(spec.voters).__name__}. Set validation_fraction to grow a "
            "scikit-learn classifier on part of the rows."
        )
    start = time.perf_counter()
    default = SplitForest(n_estimators=DEFAULT_N_ESTIMATORS)
    bank = resolve_voters(spec.voters, default, spec.seed, spec.n_jobs)
    spec.announce(
        f"the plain vote of {type(bank).__name__} on {_num_samples(X)} rows, each statement "
        "reported as it ends"
    )
    if is_dask_input(X):
        fit_without_rows(bank, X, classes, WHAT_WORKS)
    else:
        bank.fit(X, y)
    if hasattr(bank, "deployed_voters"):  # prefit models: the model itself, if one
        bank = bank.deployed_voters()
    if getattr(bank, "is_out_of_bag", False):
        raise ValueError(
            "This estimator evaluates voters on two halves or on every example and cannot "
            "use an out-of-bag voter bank (OutOfBagVoters), whose voters may each only be "
            "evaluated on their own out-of-bag rows. Use FirstOrderBoundClassifier("
            "posterior='categorical') or SecondOrderBoundClassifier(posterior='categorical') "
            "with it."
        )
    codes = np.searchsorted(classes, np.asarray(bank.classes_))
    count = plain_vote_counts(bank, codes, classes.size, X)
    groups = EvaluationScheme.from_voters(bank, np.asarray(bank.sample_groups_).size).groups
    share = _share(spec, len(groups), classes.size)
    counts, values = [], []
    for g in groups:
        rows = np.zeros(_num_samples(X), dtype=bool)
        rows[g.samples] = True
        counts.append(count(g.voters, rows, y_idx))
        k = error_counts(counts[-1])[0]
        # the statement's bound for the progress line (the certify step computes its own)
        values.append(spec.bound.statement(k, g.samples.size, share))
        spec.report(
            f"statement {len(values)} of {len(groups)}", k, g.samples.size, values[-1], start
        )
    half = int(np.argmin(values))
    weights = np.zeros(bank.n_voters_)
    weights[groups[half].voters] = 1.0
    by_group = _group_confusions(spec, bank, codes, weights, X, groups[half].samples, y_idx,
                                 classes.size)  # fmt: skip
    certified = certify(
        HeldOutStatement(
            spec.bound,
            half,
            tuple(error_counts(c)[0] for c in counts),
            tuple(int(g.samples.size) for g in groups),
            float(spec.delta),
            int(bank.n_voters_),
            weights,
            tuple(counts),
            spec.risks,
            by_group,
            details={"half": half, "bounds_per_half": tuple(values)},
        )
    )
    return HeldOutResult(
        bank, codes, weights, groups[half].samples, None, half, certified.certificate
    )


def certify_sample(spec, X, y, y_idx, classes, train_size):
    """Sample protocol: the voters grown on ``train_size`` rows drawn from the seed and the
    number of rows alone, certified on every other row (one statement at ``delta``).

    On a dask array only the drawn rows are brought into memory; the others are counted block
    by block on the workers.

    Parameters
    ----------
    spec : HeldOutSpec
    X, y, y_idx, classes
        The validated rows (in memory or a dask array), labels, class indices, classes.
    train_size : int
        Rows drawn.

    Returns
    -------
    result : HeldOutResult
    """
    n_rows = _num_samples(X)
    train = training_rows(n_rows, int(train_size), spec.seed)
    spec.announce(f"voters grown on {train.size} of {n_rows} rows, certified on the others")
    if is_dask_input(X):
        import dask

        X_train, y_train = dask.compute(X[train], y[train])
    else:
        X_train, y_train = _safe_indexing(X, train), y[train]
    if np.unique(y_train).size < 2:
        raise ValueError(
            f"The {train.size} training rows drawn for train_size={train_size} hold "
            "a single class; use a larger train_size."
        )
    bank = grown_voters(spec.voters, X_train, y_train, spec.seed, spec.n_jobs)
    del X_train, y_train
    codes = np.searchsorted(classes, np.asarray(bank.classes_))
    held = np.ones(n_rows, dtype=bool)
    held[train] = False
    confusion = plain_vote_counts(bank, codes, classes.size, X)(
        np.arange(bank.n_voters_), held, y_idx
    )
    counted = HeldOutCount(bank, codes, np.flatnonzero(held), confusion, int(train.size))
    by_group = _group_confusions(
        spec, bank, codes, np.ones(bank.n_voters_), X, counted.held, y_idx, classes.size
    )
    return certify_count(spec, counted, {"train_size": int(train.size)}, by_group)
