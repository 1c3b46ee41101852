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
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from skpacbayes.classifiers._base import (
    _evaluation_groups,
    _VotersParamsMixin,
    resolve_voters,
    validate_training_data,
)
from skpacbayes.classifiers._constraints import DELTA, N_JOBS, check_delta
from skpacbayes.classifiers._fit_params import reject_fit_params
from skpacbayes.classifiers._held_out_rows import (
    DEFAULT_FRACTIONS,
    DEFAULT_N_ESTIMATORS,
    RecodedVoters,
    _class_vote_errors,
    _fractions,
    grown_voters,
    rows_seed,
    training_rows,
    validation_rows,
)
from skpacbayes.classifiers._out_of_core import dask_rows
from skpacbayes.classifiers._search_refit import warn_if_refit_by_search
from skpacbayes.classifiers._stream import StreamMixin
from skpacbayes.engine.certify import HeldOutStatement, certify
from skpacbayes.engine.dask_passes import is_dask_input
from skpacbayes.engine.spec import progress
from skpacbayes.engine.vote import weighted_vote_scores
from skpacbayes.objectives import TestSet
from skpacbayes.voters._base import DocLinkMixin

__all__ = ["HoldOutBoundClassifier"]


class HoldOutBoundClassifier(
    StreamMixin, _VotersParamsMixin, ClassifierMixin, DocLinkMixin, BaseEstimator
):
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

    #: parameters that only steer the optimisation or the computation: a search over
    #: them alone keeps the refitted bound_ (warn_if_refit_by_search)
    _optimisation_params: ClassVar[frozenset] = frozenset({"n_jobs", "verbose"})

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
        warn_if_refit_by_search(self, self._optimisation_params)
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
        seed = rows_seed(self.random_state)
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
        self.certificate_ = certify(
            HeldOutStatement(
                TestSet(),
                index,
                tuple(errors),
                tuple(sizes),
                float(self.delta),
                n_voters,
                self.weights_,
                class_counts if self.per_class else None,
                anytime=anytime,
                previous=previous,
            )
        ).certificate
        if self.per_class:
            self.class_bounds_ = np.array(self.certificate_.details["class_bounds"])
        elif hasattr(self, "class_bounds_"):  # from an earlier fit with per_class=True
            del self.class_bounds_

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
