"""The hold-out line: a plain vote certified on rows its voters never saw (test-set bound).

Two protocols. With ``validation_fraction=None``, split voters
(:class:`~skpacbayes.voters.SplitForest`) supply their own halves: the
unweighted vote of the trees grown on one half is certified on the other half
(one statement per half, union bound). With a fraction ``f`` (or a sequence of
them), ``ceil(f m)`` rows are drawn from the seed and the sample size alone,
the ensemble is grown on the remaining rows, and its plain vote is certified on
the held-out rows. Either way the vote is a classifier fixed before the held-out
rows are read, its error count there is binomial, and the exact binomial tail
inversion (the test-set bound: the largest ``R`` with ``P(Bin(n, R) <= k) >=
delta / K``) certifies its true risk ``R``. It is never looser than Chernoff's
``kl(k/n || R) <= ln(K / delta) / n``, the PAC-Bayes bound of a point mass
equal to the prior (KL = 0), and is the line any learned posterior has to beat.
"""

import time
import warnings
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from skpacbayes.classifiers._base import (
    _evaluation_groups,
    _VotersParamsMixin,
    resolve_voters,
    validate_training_data,
)
from skpacbayes.classifiers._constraints import DELTA, N_JOBS, check_delta
from skpacbayes.classifiers._fit_params import reject_fit_params
from skpacbayes.classifiers._out_of_core import dask_rows
from skpacbayes.engine.certify import certify_test_set
from skpacbayes.engine.dask_passes import is_dask_input
from skpacbayes.engine.spec import progress
from skpacbayes.engine.vote import weighted_vote_scores
from skpacbayes.objectives import TestSet
from skpacbayes.voters._base import DocLinkMixin, _check_float32_range

__all__ = ["HoldOutBoundClassifier", "training_rows", "validation_rows"]

#: Trees of the forest grown on the training rows when ``voters`` is None.
DEFAULT_N_ESTIMATORS = 200
#: Default validation fractions: a held-out share that doubles, then grows 2.5-fold, from a
#: tenth (tens of thousands of rows: the vote barely weakens, the bound is already tight) to
#: a half (hundreds of rows: the bound needs every held-out row it can get).
DEFAULT_FRACTIONS = (0.1, 0.2, 0.5)


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
    >>> from skpacbayes.classifiers._hold_out import validation_rows
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


def training_rows(n_samples, train_size, seed):
    """The ``train_size`` rows the voters are grown on, drawn from the seed and ``n_samples``.

    ``train_size`` distinct rows drawn uniformly without replacement by
    ``numpy.random.default_rng(seed)``; neither ``X`` nor ``y`` is read, so every other row
    is an i.i.d. sample independent of them. The draw takes memory in ``train_size``, not in
    ``n_samples``.

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
    >>> from skpacbayes.classifiers._hold_out import training_rows
    >>> training_rows(10, 3, seed=0).size
    3
    """
    if not 1 <= train_size <= n_samples - 1:
        raise ValueError(
            f"train_size={train_size} must leave at least one of the n_samples={n_samples} "
            "rows to certify on: 1 <= train_size <= n_samples - 1."
        )
    return np.sort(np.random.default_rng(seed).choice(n_samples, size=train_size, replace=False))


class RecodedVoters:
    """A fitted bank whose votes are mapped by ``codes`` (its classes -> the estimator's).

    Parameters
    ----------
    voters : voter bank
        Fitted.
    codes : ndarray of int
        ``codes[i]``: index, among ``n_classes``, of the bank's class ``i``.
    n_classes : int
        Number of classes of the mapped votes.
    """

    def __init__(self, voters, codes, n_classes):
        self.voters = voters
        self.codes = np.asarray(codes)
        self.n_classes_ = int(n_classes)
        self.n_voters_ = voters.n_voters_

    def votes(self, X):
        """Votes of the bank on ``X``, mapped by ``codes``."""
        return self.codes[self.voters.votes(X)]


def grown_voters(voters, X, y, seed, n_jobs):
    """A fitted voter bank grown on ``(X, y)`` only (the training rows of a hold-out).

    Parameters
    ----------
    voters : voter bank, scikit-learn classifier or None
        A bank is cloned and fitted (``PrefitVoters`` of one model: the model itself,
        :meth:`~skpacbayes.voters.PrefitVoters.deployed_voters`); a classifier is cloned,
        fitted and its members become the voters (:class:`~skpacbayes.voters.PrefitVoters`);
        ``None`` grows ``RandomForestClassifier(n_estimators=200)``.
    X, y : ndarray
        The training rows.
    seed : int
        ``random_state`` of the bank or classifier when it has one left at None.
    n_jobs : int or None
        ``n_jobs`` of the bank or classifier when it has one left at None.

    Returns
    -------
    bank : fitted voter bank
    """
    from sklearn.ensemble import RandomForestClassifier

    from skpacbayes.voters import PrefitVoters, SampleReuseWarning

    if voters is not None and hasattr(voters, "votes"):
        bank = resolve_voters(voters, None, seed, n_jobs).fit(X, y)
        # prefit models: the model itself, if one (as with every row, _fit_halves)
        return bank.deployed_voters() if hasattr(bank, "deployed_voters") else bank
    if voters is None:
        voters = RandomForestClassifier(n_estimators=DEFAULT_N_ESTIMATORS)
    if _grows_trees(voters):  # sklearn's own error would not say what is wrong with X
        _check_float32_range(X, type(voters).__name__)
    est = resolve_voters(voters, None, seed, n_jobs).fit(X, y)
    with warnings.catch_warnings():
        # the members were grown on exactly these rows on purpose: the bound reads only the
        # held-out rows, so the same-rows warning of PrefitVoters does not apply here
        warnings.simplefilter("ignore", SampleReuseWarning)
        return PrefitVoters(est, n_jobs=n_jobs).fit(X, y)


def _grows_trees(estimator):
    """Whether ``estimator`` grows scikit-learn decision trees (on float32 features)."""
    from sklearn.ensemble import (
        AdaBoostClassifier,
        BaggingClassifier,
        ExtraTreesClassifier,
        GradientBoostingClassifier,
        RandomForestClassifier,
    )
    from sklearn.tree import BaseDecisionTree

    if isinstance(estimator, AdaBoostClassifier | BaggingClassifier):  # None: a tree
        return estimator.estimator is None or _grows_trees(estimator.estimator)
    trees = (BaseDecisionTree, RandomForestClassifier, ExtraTreesClassifier)
    return isinstance(estimator, (*trees, GradientBoostingClassifier))


def _fractions(value):
    """The validation fractions as a tuple of distinct floats in (0, 1), or None."""
    if value is None:
        return None
    if isinstance(value, Real) and not isinstance(value, bool):
        values = [value]
    else:
        try:
            values = list(value)
        except TypeError:
            values = [value]
    ok = len(values) > 0 and all(
        isinstance(v, Real) and not isinstance(v, bool) and 0.0 < float(v) < 1.0 for v in values
    )
    if not ok:
        raise ValueError(
            "validation_fraction must be None, a float in (0, 1) or a non-empty sequence of "
            f"floats in (0, 1); got {value!r}."
        )
    values = [float(v) for v in values]
    if len(set(values)) != len(values):
        raise ValueError(f"validation_fraction holds duplicates: {value!r}.")
    return tuple(values)


def _class_vote_errors(votes, codes, y_idx, n_classes):
    """Errors of what ``predict`` returns, the plain vote (ties to the first class), votes
    mapped by ``codes``: the errors and the rows of each true class."""
    from skpacbayes.engine.vote import vote_errors

    ones = np.ones(votes.shape[1])
    wrong = vote_errors(codes[votes], y_idx, ones, n_classes, ties="first")
    return (
        np.bincount(y_idx[wrong], minlength=n_classes),
        np.bincount(y_idx, minlength=n_classes),
    )


def _has_fixed_voters(estimator):
    """``partial_fit`` exists only with fixed voters (PrefitVoters): else say why it does not."""
    from skpacbayes.voters import PrefitVoters

    if not isinstance(estimator.voters, PrefitVoters):
        raise AttributeError(
            "partial_fit certifies fixed voters on a stream: it needs voters=PrefitVoters("
            "model) (or a list of models) fitted beforehand on other data; got "
            f"{type(estimator.voters).__name__}."
        )
    return True


class HoldOutBoundClassifier(_VotersParamsMixin, ClassifierMixin, DocLinkMixin, BaseEstimator):
    """Plain vote of an ensemble, certified on rows it never saw (test-set bound).

    **Fraction protocol** (``validation_fraction`` a float or a sequence of ``K``
    floats): for each fraction ``f``, ``n_f = ceil(f m)`` rows are held out
    (drawn from the seed and ``m`` alone, see :func:`validation_rows`), the
    voters are grown on the other rows, and their unweighted vote ``h_f`` is
    certified on the held-out rows: with probability at least ``1 - delta / K``,
    ``R(h_f) <= binomial_inv_upper(k_f, n_f, delta / K)`` (the largest ``r`` with
    ``P(Bin(n_f, r) <= k_f) >= delta / K``), ``k_f`` the errors of ``h_f`` on them,
    the errors of exactly what ``predict`` returns (a tie goes to the first class, as in
    ``predict``). The fraction with the smallest bound
    is deployed. **Halves protocol** (``validation_fraction=None``): a split bank
    brings its own halves; the plain vote of one half's voters is certified on
    the other half, at ``delta / 2`` each, and the tighter half is deployed. For
    a bank that is not split (e.g. stumps) the vote of the whole bank is
    certified on the whole sample (valid when the bank does not depend on it).
    **A model you fitted**: with ``voters=PrefitVoters(model)`` (any fitted scikit-learn
    classifier, fitted on other rows) the deployed classifier is the model's own
    ``predict`` and ``bound_`` certifies it on every row given to ``fit``; with
    ``PrefitVoters([model_1, model_2, ...])``, their plain vote (ties to the first class).
    By default (``"auto"``) a voter bank keeps its own rule (halves or every
    row) and anything else is grown on part of the rows. **Sample protocol**
    (``train_size=n``): the voters are grown on ``n`` rows drawn from the seed and
    the number of rows alone (:func:`training_rows`) and certified on every other row,
    at ``delta``; with a dask array ``X`` only those ``n`` rows are held in memory.

    Parameters
    ----------
    voters : voter bank, scikit-learn classifier or None, default=None
        What is grown on the training rows. A voter bank (any
        :mod:`skpacbayes.voters` object) votes with all of its voters, except
        ``PrefitVoters(model)`` of ONE fitted model, whose own ``predict`` is deployed
        (:meth:`~skpacbayes.voters.PrefitVoters.deployed_voters`). An unfitted
        scikit-learn classifier is cloned and fitted, and its members vote (the
        trees of a forest, as in :class:`~skpacbayes.voters.PrefitVoters`).
        ``None``: ``RandomForestClassifier(n_estimators=200)`` (fraction protocol)
        or ``SplitForest(n_estimators=200)`` (halves protocol, which needs a bank).
    validation_fraction : "auto", float in (0, 1), sequence of floats or None, default="auto"
        Share of the rows held out to certify the vote. A sequence fits one
        ensemble per fraction, each certified at ``delta / K`` (rounded down by one ulp
        where K of them would sum to more than ``delta``), and deploys the
        tightest. ``None`` selects the halves protocol (the behaviour before
        ``validation_fraction`` existed; a bank that is not split, such as
        :class:`~skpacbayes.voters.PrefitVoters` or
        :class:`~skpacbayes.voters.StumpBank`, is then certified on every row).
        ``"auto"``: ``None`` for a voter bank that brings its own evaluation rule
        (split or data-independent), ``(0.1, 0.2, 0.5)`` when ``voters`` is
        ``None``, a scikit-learn classifier or an out-of-bag bank.
    delta : float in (0, 1), default=0.05
        The bound holds with probability at least ``1 - delta``.
    random_state : int, RandomState instance or None, default=None
        Seeds the held-out rows and the voters.
    n_jobs : int or None, default=None
        Parallel jobs for growing the default forest and computing its votes.
    train_size : int or None, default=None
        **Sample protocol**: grow the voters on ``train_size`` rows drawn from the seed
        and the number of rows alone (:func:`training_rows`), held in memory, and certify
        their plain vote on every other row (one statement at ``delta``). Leave
        ``validation_fraction`` at ``"auto"`` with it. This is how a forest is certified
        on data larger than memory: ``X`` a dask array, the forest grown on a sample of
        the size you choose, its error counted block by block on all the remaining rows
        (:ref:`scaling-out`).
    verbose : int, default=0
        When > 0, print a line as each statement (fraction or half) is certified: its
        held-out errors, its bound and the seconds it took (growing a forest on tens of
        thousands of rows takes minutes).
    per_class : bool, default=False
        Also certify, for each class ``k``, the rate at which ``predict`` misses it,
        ``P(predict(x) != y | y = k)`` (``class_bounds_``). The ``K + 1`` statements of each
        held-out statement (the overall error and each class's) share its part of
        ``delta`` evenly, so that ``bound_`` and every class bound hold together with
        probability at least ``1 - delta`` (``bound_`` is a little looser than with
        ``per_class=False``): :ref:`Proposition 5a <theory-per-class>`.

    Attributes
    ----------
    voters_ : voter bank
        The fitted voters of the deployed vote.
    validation_fraction_ : float or None
        The deployed fraction (None with the halves and sample protocols).
    validation_indices_ : ndarray of int
        Rows (of the ``X`` given to ``fit``) the deployed vote is certified on.
    half_ : int or None
        Index of the deployed half (halves protocol; None otherwise).
    weights_ : ndarray of shape (n_voters,)
        Vote weights over the bank (1 on the deployed voters, 0 elsewhere).
    bound_ : float
        Certified upper bound on the true risk of ``predict``.
    class_bounds_ : ndarray of shape (n_classes,)
        With ``per_class=True`` only: certified upper bounds on
        ``P(predict(x) != y | y = classes_[k])`` (1.0 for a class without held-out rows);
        their errors and rows are in ``certificate_.details["class_errors"]`` and
        ``["class_sizes"]``.
    certificate_ : Certificate
        Its ingredients: ``m`` and ``statistics["errors"]`` hold one entry per
        statement (fraction or half), ``details`` the bound of each.
    n_iter_ : int
        0 (nothing is trained).
    n_samples_seen_ : int
        After :meth:`partial_fit` only: the rows of the stream read so far.
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_features_in_ : int
        Number of features seen during fit.

    See Also
    --------
    skpacbayes.OccamBoundClassifier : the best single voter.
    skpacbayes.CertifiedVoteClassifier : hold-out and out-of-bag candidates, with a
        selection rule that also weighs the deployed vote's expected accuracy.

    Notes
    -----
    Only i.i.d. training examples are assumed; the held-out rows are chosen
    without reading ``X`` or ``y``, so conditionally on the training rows the
    deployed vote is a fixed classifier and its held-out errors are independent
    Bernoulli draws (:ref:`theory-holdout`). With a sequence, all ``K``
    statements hold together with probability at least ``1 - delta``
    (:ref:`theory-selection`), so deploying the tightest one keeps the
    certificate. A fraction trades accuracy for tightness: the vote is grown on
    ``1 - f`` of the rows (more rows, a stronger vote), its bound uses ``f m``
    rows (more rows, a smaller deviation term). No single fraction suits every
    sample size, hence the default sequence; measured against the halves
    protocol in :ref:`strategies`.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from skpacbayes import HoldOutBoundClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = HoldOutBoundClassifier(voters=RandomForestClassifier(n_estimators=20),
    ...                              validation_fraction=0.3, random_state=0).fit(X, y)
    >>> clf.validation_indices_.size, bool(clf.bound_ < 0.2)
    (540, True)
    >>> from skpacbayes.voters import SplitForest
    >>> halves = HoldOutBoundClassifier(voters=SplitForest(n_estimators=20),
    ...                                 validation_fraction=None, random_state=0).fit(X, y)
    >>> halves.half_ in (0, 1), int(halves.weights_.sum())
    (True, 10)
    """

    _parameter_constraints: ClassVar[dict] = {
        "voters": [None, HasMethods(["fit", "votes"]), HasMethods(["fit", "predict"])],
        "validation_fraction": [
            None,
            StrOptions({"auto"}),
            Interval(Real, 0, 1, closed="neither"),
            "array-like",
        ],
        "delta": DELTA,
        "random_state": ["random_state"],
        "n_jobs": N_JOBS,
        "train_size": [None, Interval(Integral, 1, None, closed="left")],
        "verbose": ["verbose"],
        "per_class": ["boolean"],
    }

    def __init__(
        self,
        *,
        voters=None,
        validation_fraction="auto",
        delta=0.05,
        random_state=None,
        n_jobs=None,
        train_size=None,
        verbose=0,
        per_class=False,
    ):
        self.voters = voters
        self.validation_fraction = validation_fraction
        self.delta = delta
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.train_size = train_size
        self.verbose = verbose
        self.per_class = per_class

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, **fit_params):
        """Grow the voters on the training rows and certify their plain vote on the rest.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
            Training data (finite; sparse input is converted to CSR). A ``dask.array`` is
            certified out of core, block by block on the workers: with voters that need no
            pass over the rows (``PrefitVoters``, ``StumpBank``) on every row they may be
            evaluated on, or with ``train_size`` (voters grown on that many rows, held in
            memory). The fraction protocol, which grows the voters on most rows, refuses it.
        y : {array-like, dask array} of shape (n_samples,)
            Class labels (at least two classes).
        **fit_params : dict
            Not supported: ``sample_weight`` (or any other keyword) raises a ``TypeError``
            naming the estimator, since the certificate assumes unweighted i.i.d. rows.

        Returns
        -------
        self : object
            Fitted estimator.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from sklearn.ensemble import RandomForestClassifier
        >>> from skpacbayes import HoldOutBoundClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = HoldOutBoundClassifier(voters=RandomForestClassifier(n_estimators=10),
        ...                              validation_fraction=(0.2, 0.4), random_state=0)
        >>> clf.fit(X, y).validation_fraction_ in (0.2, 0.4)
        True
        >>> clf.certificate_.m
        (30, 60)
        """
        reject_fit_params(self, fit_params)
        fractions = self._validation_fractions()
        sample = self.train_size is not None
        if sample and not (
            isinstance(self.validation_fraction, str) and self.validation_fraction == "auto"
        ):
            raise ValueError(
                "train_size and validation_fraction both choose the rows the voters are grown "
                f"on: set one of them (got train_size={self.train_size!r} and "
                f"validation_fraction={self.validation_fraction!r})."
            )
        if hasattr(self, "_stream"):  # a new fit ends the stream of partial_fit
            del self._stream, self.n_samples_seen_
        out_of_core = is_dask_input(X, y)
        if out_of_core:
            from skpacbayes.classifiers._out_of_core import dask_training_data
            from skpacbayes.engine.dask_passes import label_indices

            if not sample and fractions is not None:
                raise ValueError(
                    f"HoldOutBoundClassifier(validation_fraction={fractions}) grows the voters "
                    "on all the rows that are not held out, which a dask array does not hold "
                    "in memory. With a dask array, grow them on an in-memory sample "
                    "(train_size=<number of rows>, certified on every other row), or certify "
                    "voters that need no pass over the rows (voters=PrefitVoters(model) or a "
                    "StumpBank, with validation_fraction=None or 'auto')."
                )
            X, y, classes = dask_training_data(self, X, y)
            classes = self._known_classes(classes)
            y_idx = label_indices(y, classes)
        else:
            X, y, classes = validate_training_data(self, X, y)
            classes = self._known_classes(classes)
            y_idx = np.searchsorted(classes, y)
        seed = int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))
        self.classes_ = classes
        if sample:
            self._fit_sample(X, y, y_idx, seed)
        elif fractions is None:
            self._fit_halves(X, y, y_idx, seed)
        else:
            self._fit_fractions(X, y, y_idx, seed, fractions)
        self.n_iter_ = 0
        return self

    def _validation_fractions(self):
        if isinstance(self.validation_fraction, str) and self.validation_fraction == "auto":
            own_rule = hasattr(self.voters, "votes") and not getattr(
                self.voters, "is_out_of_bag", False
            )
            return None if own_rule else DEFAULT_FRACTIONS
        return _fractions(self.validation_fraction)

    def _rows(self, n_samples, fraction, seed):
        """Training and held-out rows of one fraction (:func:`validation_rows`)."""
        return validation_rows(n_samples, fraction, seed)

    def _report(self, what, k, n, bound, start):
        if self.verbose:
            progress(
                type(self).__name__,
                f"{what}: {k} errors on {n} held-out rows, bound "
                f"{bound:.4f} ({time.perf_counter() - start:.1f} s)",
            )

    def _share(self, n_statements):
        """Each held-out statement's share of ``delta`` (and of each class's, per class)."""
        return TestSet().share(
            self.delta, n_statements, self.classes_.size if self.per_class else None
        )

    def _fit_fractions(self, X, y, y_idx, seed, fractions):
        share = self._share(len(fractions))
        errors, sizes, values, counts, best = [], [], [], [], None
        for f in fractions:
            start = time.perf_counter()
            train, held = self._rows(X.shape[0], f, seed)
            if np.unique(y_idx[train]).size < 2:
                raise ValueError(
                    f"The {train.size} training rows left by validation_fraction={f} hold a "
                    "single class; use a smaller validation_fraction or more data."
                )
            bank = grown_voters(self.voters, X[train], y[train], seed, self.n_jobs)
            codes = np.searchsorted(self.classes_, np.asarray(bank.classes_))
            counts.append(
                _class_vote_errors(bank.votes(X[held]), codes, y_idx[held], self.classes_.size)
            )
            k = int(counts[-1][0].sum())
            errors.append(k)
            sizes.append(int(held.size))
            values.append(TestSet().statement(k, held.size, share))
            self._report(
                f"fraction {f} (grown on {train.size} rows)", k, held.size, values[-1], start
            )
            if best is None or values[-1] < values[best[0]]:
                best = (len(values) - 1, bank, codes, held)
        index, self.voters_, self._codes, self.validation_indices_ = best
        self.validation_fraction_ = fractions[index]
        self.half_ = None
        self.weights_ = np.ones(self.voters_.n_voters_)
        self.bound_ = float(values[index])
        self._set_certificate(index, errors, sizes, self.voters_.n_voters_, counts)
        self.certificate_.details.update(
            validation_fractions=fractions, training_rows=int(X.shape[0] - sizes[index])
        )

    def _fit_halves(self, X, y, y_idx, seed):
        from skpacbayes.voters import SplitForest

        if self.voters is not None and not hasattr(self.voters, "votes"):
            raise ValueError(
                "voters must be a voter bank (e.g. SplitForest) with validation_fraction=None; "
                f"got {type(self.voters).__name__}. Set validation_fraction to grow a "
                "scikit-learn classifier on part of the rows."
            )
        start = time.perf_counter()
        default = SplitForest(n_estimators=DEFAULT_N_ESTIMATORS)
        bank = resolve_voters(self.voters, default, seed, self.n_jobs)
        if is_dask_input(X):
            from skpacbayes.classifiers._out_of_core import fit_voters

            fit_voters(bank, X, self.classes_)
        else:
            bank.fit(X, y)
        if hasattr(bank, "deployed_voters"):  # prefit models: the model itself, if one
            bank = bank.deployed_voters()
        self.voters_ = bank
        self._codes = np.searchsorted(self.classes_, np.asarray(bank.classes_))
        count_errors = self._plain_vote_errors(X, y_idx)
        groups = _evaluation_groups(bank)
        share = self._share(len(groups))
        errors, sizes, values, counts = [], [], [], []
        for g in groups:
            rows = np.zeros(X.shape[0], dtype=bool)
            rows[g.samples] = True
            counts.append(count_errors(g.voters, rows))
            k = int(counts[-1][0].sum())
            errors.append(k)
            sizes.append(int(g.samples.size))
            values.append(TestSet().statement(k, g.samples.size, share))
            self._report(
                f"statement {len(values)} of {len(groups)}", k, sizes[-1], values[-1], start
            )
        self.half_ = int(np.argmin(values))
        self.validation_fraction_ = None
        self.validation_indices_ = groups[self.half_].samples
        self.weights_ = np.zeros(bank.n_voters_)
        self.weights_[groups[self.half_].voters] = 1.0
        self.bound_ = float(values[self.half_])
        self._set_certificate(self.half_, errors, sizes, int(bank.n_voters_), counts)
        self.certificate_.details.update(half=self.half_, bounds_per_half=tuple(values))

    def _fit_sample(self, X, y, y_idx, seed):
        """Sample protocol: voters grown on ``train_size`` drawn rows, certified on the rest."""
        n_rows = X.shape[0]
        train = training_rows(n_rows, int(self.train_size), seed)
        if is_dask_input(X):
            import dask

            X_train, y_train = dask.compute(X[train], y[train])
        else:
            X_train, y_train = X[train], y[train]
        if np.unique(y_train).size < 2:
            raise ValueError(
                f"The {train.size} training rows drawn for train_size={self.train_size} hold "
                "a single class; use a larger train_size."
            )
        bank = grown_voters(self.voters, X_train, y_train, seed, self.n_jobs)
        del X_train, y_train
        self.voters_ = bank
        self._codes = np.searchsorted(self.classes_, np.asarray(bank.classes_))
        held = np.ones(n_rows, dtype=bool)
        held[train] = False
        counts = self._plain_vote_errors(X, y_idx)(np.arange(bank.n_voters_), held)
        n_held = n_rows - train.size
        self.half_ = self.validation_fraction_ = None
        self.validation_indices_ = np.flatnonzero(held)
        self.weights_ = np.ones(bank.n_voters_)
        self._set_certificate(0, [int(counts[0].sum())], [n_held], bank.n_voters_, [counts])
        self.bound_ = self.certificate_.value
        self.certificate_.details.update(train_size=int(train.size))

    def _known_classes(self, classes):
        """``y``'s ``classes``, widened to every class prefit voters know (so that ``predict``
        may return any of them); labels they do not know are refused by their ``fit``."""
        from skpacbayes.voters import PrefitVoters

        if not isinstance(self.voters, PrefitVoters):
            return classes
        known = self.voters.known_classes()
        return known if np.isin(classes, known).all() else classes

    def _plain_vote_errors(self, X, y_idx):
        """``count(voters, rows)``: errors of the plain vote of ``voters`` on the mask ``rows``,
        and the rows, of each true class (two arrays of shape ``(n_classes,)``).

        One pass over ``X`` per call (in memory, the votes are kept between calls): block by
        block on the workers for a dask array. The errors of exactly what ``predict`` returns:
        a tie goes to the first class of largest score, as in ``predict``.
        """
        from skpacbayes.engine.passes import VotePasses

        bank, n_classes = self.voters_, self.classes_.size
        recoded = RecodedVoters(bank, self._codes, n_classes)
        if np.array_equal(self._codes, np.arange(n_classes)):  # the bank's own votes: those
            recoded = bank  # of a shared_votes block (a benchmark's) are read, not recomputed
        if is_dask_input(X):
            from skpacbayes.engine.dask_passes import DaskVotePasses

            passes = DaskVotePasses(recoded, X)
        else:
            passes = VotePasses(recoded, X)

        def count(voters, rows):
            weights = np.zeros(bank.n_voters_)
            weights[voters] = 1.0
            return passes.class_vote_errors(y_idx, weights, n_classes, rows, ties="first")

        return count

    def _set_certificate(
        self, index, errors, sizes, n_voters, class_counts, anytime=False, previous=None
    ):
        """The certificate of statement ``index`` from the one certify step (and, per class,
        ``class_bounds_``)."""
        self.certificate_ = certify_test_set(
            TestSet(),
            index,
            errors,
            sizes,
            float(self.delta),
            n_voters,
            self.weights_,
            class_counts if self.per_class else None,
            anytime=anytime,
            previous=previous,
        )
        if self.per_class:
            self.class_bounds_ = np.array(self.certificate_.details["class_bounds"])
        elif hasattr(self, "class_bounds_"):  # from an earlier fit with per_class=True
            del self.class_bounds_

    @available_if(_has_fixed_voters)
    def partial_fit(self, X, y, classes=None, **fit_params):
        """Add labelled rows of a stream and update the time-uniform certificate.

        With fixed voters, ``voters=PrefitVoters(...)`` fitted beforehand on other data (the
        deployed classifier is the one of :meth:`fit`: one model's own ``predict``, or the
        plain vote of a list), each call counts the errors of ``predict`` on the new rows
        and certifies the rows read so far by a confidence sequence
        (:func:`~skpacbayes.bounds.binomial_anytime_upper`): with probability at least
        ``1 - delta``, EVERY ``bound_`` (and ``class_bounds_``) reported along the stream
        holds at once, so the stream may be read after every batch and stopped whenever
        you like. ``bound_`` is the smallest value reported so far. With ``per_class=True``
        ``delta`` is split evenly over the overall and the ``K`` class statements
        (:ref:`Proposition 5b <theory-streaming>`).

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
            New rows, i.i.d. draws from the distribution of the stream, never seen by the
            voters. A dask array is counted in one pass, block by block.
        y : {array-like, dask array} of shape (n_samples,)
            Their labels (among the classes the voters know; one class is enough).
        classes : array-like of shape (n_classes,), default=None
            scikit-learn's argument of a first ``partial_fit``: the classes are those the
            voters know (``PrefitVoters.known_classes``); when given, it must hold them
            all (a ``ValueError`` otherwise).
        **fit_params : dict
            Not supported (a ``TypeError`` names the estimator).

        Returns
        -------
        self : object
            The estimator, its certificate updated.

        Raises
        ------
        AttributeError
            If ``voters`` is not a :class:`~skpacbayes.voters.PrefitVoters` (voters grown
            on the rows are not fixed: the estimator then has no ``partial_fit``).
        ValueError
            If ``validation_fraction`` or ``train_size`` is set, if the estimator was
            fitted with :meth:`fit` (its certificate is not a stream's:
            ``sklearn.base.clone`` it first), or if ``voters``, ``delta`` or ``per_class``
            changed since the first call.

        Examples
        --------
        >>> from sklearn.datasets import make_classification
        >>> from sklearn.linear_model import LogisticRegression
        >>> from skpacbayes import HoldOutBoundClassifier
        >>> from skpacbayes.voters import PrefitVoters
        >>> X, y = make_classification(n_samples=5000, random_state=0)
        >>> model = LogisticRegression().fit(X[:1000], y[:1000])
        >>> clf = HoldOutBoundClassifier(voters=PrefitVoters(model))
        >>> for start in range(1000, 5000, 1000):  # four batches
        ...     _ = clf.partial_fit(X[start : start + 1000], y[start : start + 1000])
        >>> clf.n_samples_seen_, bool(clf.certificate_.train_error < clf.bound_ < 0.2)
        (4000, True)
        """
        from sklearn.base import clone
        from sklearn.utils.multiclass import check_classification_targets

        from skpacbayes.classifiers._out_of_core import dask_training_data, fit_voters

        reject_fit_params(self, fit_params)
        first = not hasattr(self, "_stream")
        settings = {"voters": self.voters, "delta": self.delta, "per_class": self.per_class}
        if first:
            self._check_stream_params()
        elif any(settings[k] is not v and settings[k] != v for k, v in self._stream[2].items()):
            raise ValueError(
                "voters, delta and per_class are fixed for a stream (every bound reported along "
                "it shares them); they changed since the first partial_fit. Start a new stream "
                "on an unfitted copy (sklearn.base.clone(estimator))."
            )
        out_of_core = is_dask_input(X, y)
        if out_of_core:
            from skpacbayes.engine.dask_passes import DaskVotePasses, label_indices

            n_features = getattr(self, "n_features_in_", None)
            X, y, labels = dask_training_data(self, X, y, min_classes=1)
            if not first and X.shape[1] != n_features:
                raise ValueError(
                    f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                    f"{n_features} features as input."
                )
        else:
            from skpacbayes.engine.passes import VotePasses

            with np.errstate(invalid="ignore"):
                X, y = validate_data(
                    self, X, y, reset=first, accept_sparse="csr", dtype=[np.float64, np.float32]
                )
            check_classification_targets(y)
            labels = np.unique(y)
        if first:
            bank = clone(self.voters)
            known = bank.known_classes()
            if classes is not None and not np.array_equal(np.unique(classes), known):
                raise ValueError(
                    f"classes={np.asarray(classes).tolist()!r} differs from the classes the "
                    f"prefit voters know, {known.tolist()!r}: they are the stream's classes."
                )
            fit_voters(bank, X, known)
            self.voters_ = bank.deployed_voters()
            self.classes_ = np.asarray(self.voters_.classes_)
            self._codes = np.arange(self.classes_.size)
            self.weights_ = np.ones(self.voters_.n_voters_)
            self.validation_fraction_ = self.half_ = self.validation_indices_ = None
            self.n_iter_ = 0
        unknown = labels[~np.isin(labels, self.classes_)]
        if unknown.size:
            raise ValueError(
                f"y contains labels {unknown[:5].tolist()!r} that the prefit voters do not know "
                f"(their classes_ are {self.classes_.tolist()!r})."
            )
        n_classes = self.classes_.size
        if out_of_core:
            passes = DaskVotePasses(self.voters_, X)
            y_idx = label_indices(y, self.classes_)
        else:
            passes = VotePasses(self.voters_, X, keep_bytes=0)
            y_idx = np.searchsorted(self.classes_, y)
        errors, sizes = passes.class_vote_errors(
            y_idx, self.weights_, n_classes, np.ones(X.shape[0], dtype=bool), ties="first"
        )
        previous = None if first else self.certificate_
        if not first:
            errors, sizes = errors + self._stream[0], sizes + self._stream[1]
        self._stream = (errors, sizes, settings)
        self.n_samples_seen_ = int(sizes.sum())
        self._set_certificate(
            0, [int(errors.sum())], [self.n_samples_seen_], self.voters_.n_voters_,
            [(errors, sizes)], anytime=True, previous=previous,
        )  # fmt: skip
        self.bound_ = self.certificate_.value
        return self

    def _check_stream_params(self):
        """The parameters ``partial_fit`` accepts: fixed voters, no split of the rows."""
        self._validate_params()
        if hasattr(self, "certificate_"):
            raise ValueError(
                f"This {type(self).__name__} was fitted with fit; partial_fit certifies a "
                "stream from its first row on. Call partial_fit on an unfitted copy "
                "(sklearn.base.clone(estimator))."
            )
        fraction = self.validation_fraction
        if self.train_size is not None or not (
            fraction is None or (isinstance(fraction, str) and fraction == "auto")
        ):
            raise ValueError(
                "partial_fit certifies every row it is given: leave validation_fraction at "
                f"'auto' (or None) and train_size at None (got validation_fraction={fraction!r}, "
                f"train_size={self.train_size!r})."
            )

    def recompute_bound(self, delta):
        """Certificate of the deployed vote at another confidence level.

        Parameters
        ----------
        delta : float in (0, 1)
            New confidence parameter, fixed independently of the data.

        Returns
        -------
        bound : float
            Certified upper bound on the risk of ``predict`` at confidence ``1 - delta``
            (still split over the fit's statements, so the choice made at fit stays
            covered). After :meth:`partial_fit`: the time-uniform bound at the rows read
            so far (not the running minimum, which is ``bound_``).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from skpacbayes import HoldOutBoundClassifier
        >>> from skpacbayes.voters import SplitForest
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = HoldOutBoundClassifier(voters=SplitForest(n_estimators=10),
        ...                              validation_fraction=None, random_state=0).fit(X, y)
        >>> clf.recompute_bound(clf.delta) == clf.bound_
        True
        """
        check_is_fitted(self)
        check_delta(delta, f"{type(self).__name__}.recompute_bound")
        return TestSet().recompute(self.certificate_, delta)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # CSR end to end (the voter banks take it)
        return tags

    def _scores(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, accept_sparse="csr", dtype=[np.float64, np.float32])
        from skpacbayes.engine.passes import shared_vote_matrix

        votes = self._codes[shared_vote_matrix(self.voters_, X)]
        return weighted_vote_scores(votes, self.weights_, self.classes_.size)

    @dask_rows("scores")
    def decision_function(self, X):
        """Number of the deployed voters voting for each class.

        Parameters
        ----------
        X : {array-like, dask array} of shape (n_samples, n_features)
            Input samples, with the features seen during ``fit``. A dask array gives a
            lazy dask array, computed block by block.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Binary: votes for ``classes_[1]`` minus votes for ``classes_[0]``;
            multi-class: the votes of every class.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from skpacbayes import HoldOutBoundClassifier
        >>> from skpacbayes.voters import SplitForest
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = HoldOutBoundClassifier(voters=SplitForest(n_estimators=10),
        ...                              validation_fraction=None, random_state=0).fit(X, y)
        >>> clf.decision_function(X[:1])
        array([[5., 0., 0.]])
        """
        scores = self._scores(X)
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores

    @dask_rows("labels")
    def predict(self, X):
        """Plain vote of the deployed voters (ties go to the first class).

        With ``PrefitVoters(model)`` of one model, the deployed voter is the model itself:
        this is ``model.predict``.

        Parameters
        ----------
        X : {array-like, dask array} of shape (n_samples, n_features)
            Input samples, with the features seen during ``fit``. A dask array gives a
            lazy dask array, computed block by block.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted class labels; ``bound_`` certifies their error rate (the
            certificate counted the errors of exactly these predictions, ties included).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from skpacbayes import HoldOutBoundClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = HoldOutBoundClassifier(random_state=0).fit(X, y)
        >>> clf.predict(X[:2])
        array([0, 0])
        """
        scores = self._scores(X)
        return self.classes_[np.argmax(scores, axis=1)]

    @dask_rows("proba")
    def predict_proba(self, X):
        """Vote shares of the deployed voters.

        Parameters
        ----------
        X : {array-like, dask array} of shape (n_samples, n_features)
            Input samples, with the features seen during ``fit``. A dask array gives a
            lazy dask array, computed block by block.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Fraction of the deployed voters voting for each class (0 or 1 for one
            prefit model, the deployed voter: its own probabilities are
            ``clf.voters_.estimators_[0].predict_proba``, when it has them).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from skpacbayes import HoldOutBoundClassifier
        >>> from skpacbayes.voters import SplitForest
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = HoldOutBoundClassifier(voters=SplitForest(n_estimators=10),
        ...                              validation_fraction=None, random_state=0).fit(X, y)
        >>> clf.predict_proba(X[:1])
        array([[1., 0., 0.]])
        """
        scores = self._scores(X)
        return scores / self.weights_.sum()
