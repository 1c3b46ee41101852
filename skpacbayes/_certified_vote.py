"""The estimator to reach for first: a certified vote of trees, strong and tight.

Candidates that can win, each fitted once and certified at its share of ``delta``:
the plain vote of a forest grown on ``1 - f`` of the rows, certified on the held-out
``f`` (one candidate per validation fraction ``f``; both halves for ``f = 0.5``),
and, where the rule can pick them, the forest grown on every row certified by the
out-of-bag first-order and tandem bounds; with the default forest, one decision stump
per half, certified on the other half (the fall-back where a forest is weaker than one
split). All statements hold together with
probability at least ``1 - delta`` (union bound), so the deployed candidate may be
chosen by any rule without losing the certificate: the tightest bound, the best
expected accuracy, or (the default) a balance of both.
"""

import time
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.parallel import Parallel, delayed

from skpacbayes._fit_params import reject_fit_params
from skpacbayes._hold_out import (
    DEFAULT_N_ESTIMATORS,
    HoldOutBoundClassifier,
    _fractions,
    validation_rows,
)
from skpacbayes._vote import _strict_argmax_is, weighted_vote_scores
from skpacbayes.classifiers import FirstOrderBoundClassifier, SecondOrderBoundClassifier
from skpacbayes.classifiers._base import validate_training_data
from skpacbayes.model_selection import SelectedCandidateMixin

__all__ = ["CertifiedVoteClassifier"]

#: the default hold-out fractions: a fifth (a forest of 80 % of the rows, a bound already tight
#: on thousands of rows) and a half (both halves: the tightest bound on a few hundred rows)
CANDIDATE_FRACTIONS = (0.2, 0.5)
#: named selection rules -> their tolerance on the bound (relative to the smallest one)
SELECTIONS = {"balanced": 0.05, "bound": 0.0, "accuracy": float("inf")}
_OUT_OF_BAG = {"FO": FirstOrderBoundClassifier, "SO": SecondOrderBoundClassifier}
#: weight of each stump candidate in the split of delta (a hold-out's is its fraction): a
#: fall-back that wins only where a forest is weaker than one split gets a small share, so
#: that with the default fractions it costs the forest candidates ln(1.4 / 1.2) ~ 0.15 nat
#: of their budget
STUMP_WEIGHT = 0.1


def out_of_bag_error(estimator, X, y):
    """Error of a fitted vote on out-of-bag voters: each row voted by the voters it may evaluate.

    Row ``i`` is classified by the weighted vote of the voters ``j`` with
    ``evaluation_mask()[i, j]`` (the voters that never saw it; ties count as errors);
    rows that no voter may evaluate are left out. For an
    :class:`~skpacbayes.voters.OutOfBagVoters` bank it is the out-of-bag error of a
    random forest: an estimate of the deployed vote's error, not a certificate.

    Parameters
    ----------
    estimator : fitted MajorityVoteClassifier
        With ``voters_`` fitted on ``X`` and ``weights_``.
    X, y : ndarray
        The rows the bank was fitted on.

    Returns
    -------
    error : float

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from skpacbayes import FirstOrderBoundClassifier
    >>> from skpacbayes._certified_vote import out_of_bag_error
    >>> from skpacbayes.voters import OutOfBagVoters
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = FirstOrderBoundClassifier(voters=OutOfBagVoters(n_estimators=20, random_state=0),
    ...                                 random_state=0).fit(X, y)
    >>> bool(0 < out_of_bag_error(clf, X, y) < 0.1)
    True
    """
    mask = estimator.voters_.evaluation_mask()
    votes = np.where(mask, estimator.voters_.votes(X), -1)  # -1: no class, no weight
    scores = weighted_vote_scores(votes, estimator.weights_, estimator.classes_.size)
    rows = mask.any(axis=1)
    y_idx = np.searchsorted(estimator.classes_, y)
    return float(np.mean(~_strict_argmax_is(scores[rows], y_idx[rows])))


def select(bounds, estimates, tolerance):
    """Index of the deployed candidate: the most accurate among the nearly tightest.

    Among the candidates whose bound is at most ``(1 + tolerance)`` times the
    smallest bound, the one with the smallest estimated error; ties go to the
    smaller bound, then to the earlier candidate.

    Parameters
    ----------
    bounds, estimates : sequence of float
        Each candidate's certified bound and estimated error.
    tolerance : float >= 0
        ``0``: the tightest bound; ``inf``: the most accurate estimate.

    Returns
    -------
    index : int

    Examples
    --------
    >>> from skpacbayes._certified_vote import select
    >>> bounds, estimates = [0.040, 0.041, 0.060], [0.035, 0.030, 0.020]
    >>> select(bounds, estimates, 0.0), select(bounds, estimates, 0.05)
    (0, 1)
    >>> select(bounds, estimates, float("inf"))
    2
    """
    limit = np.inf if np.isinf(tolerance) else (1.0 + tolerance) * min(bounds)
    eligible = [i for i, b in enumerate(bounds) if b <= limit]
    return min(eligible, key=lambda i: (estimates[i], bounds[i], i))


class _OtherHalfHoldOut(HoldOutBoundClassifier):
    """The other half of a ``validation_fraction=0.5`` hold-out.

    Same parameters and seed as the :class:`~skpacbayes.HoldOutBoundClassifier` it
    mirrors, with the two sides of :func:`~skpacbayes._hold_out.validation_rows`
    swapped: the ensemble is grown on the rows the mirrored hold-out certifies on, and
    certified on the rows it grows on. Both row sets are drawn from the seed and the
    sample size alone, so Proposition 5 of the theory page applies to each half.
    """

    def _rows(self, n_samples, fraction, seed):
        train, held_out = validation_rows(n_samples, fraction, seed)
        return held_out, train


def _half_ensemble(estimator):
    """The ensemble each half grows: ``estimator`` with half its ``n_estimators``.

    The two halves of a 0.5 split share one ensemble's members, as a split forest
    does: ``None`` (``RandomForestClassifier(200)``) gives 100 trees per half, an
    ensemble with an integer ``n_estimators >= 2`` gives ``n_estimators // 2``, and
    any other classifier is grown as given on each half.
    """
    from sklearn.base import clone
    from sklearn.ensemble import RandomForestClassifier

    if estimator is None:
        return RandomForestClassifier(n_estimators=DEFAULT_N_ESTIMATORS // 2)
    n = estimator.get_params(deep=False).get("n_estimators")
    if isinstance(n, Integral) and not isinstance(n, bool) and n >= 2:
        return clone(estimator).set_params(n_estimators=int(n) // 2)
    return estimator


def _weight(info):
    """A candidate's weight in the split of ``delta``: the share of rows it is certified on.

    ``f`` for the hold-out of a fraction ``f`` (each half of a 0.5 split: 0.5), one
    half for each out-of-bag candidate (every voter's out-of-bag share by default), and
    :data:`STUMP_WEIGHT` for each stump.
    """
    if info["kind"] == "holdout":
        return info["validation_fraction"]
    return STUMP_WEIGHT if info["kind"] == "stump" else 0.5


def _fit_candidate(info, estimator, X, y):
    """Fit one candidate; return its description (bound, estimated error, time) and itself."""
    start = time.perf_counter()
    estimator.fit(X, y)
    if info["kind"] == "out_of_bag":
        estimate = out_of_bag_error(estimator, X, y)
    else:
        estimate = float(estimator.certificate_.train_error)  # on the held-out rows
    entry = {
        **info,
        "bound": float(estimator.bound_),
        "estimated_error": estimate,
        "fit_time": time.perf_counter() - start,
    }
    return entry, estimator


class CertifiedVoteClassifier(SelectedCandidateMixin, ClassifierMixin, BaseEstimator):
    """A vote of trees grown on (almost) every row, with a certificate that holds.

    Every candidate is a certified classifier fitted once, at its share of
    ``delta`` (see Notes): for each validation fraction ``f``, the plain vote of
    ``estimator`` grown on ``1 - f`` of the rows, certified on the held-out
    ``f`` by the test-set bound (:class:`~skpacbayes.HoldOutBoundClassifier`);
    for ``f = 0.5``, both halves (each half's vote certified on the other half,
    the two sharing the ensemble's ``n_estimators``); with ``out_of_bag``, the
    weighted vote of ``estimator`` bagged on every row
    (:class:`~skpacbayes.voters.OutOfBagVoters`), certified by the out-of-bag
    first-order and tandem bounds (:class:`~skpacbayes.FirstOrderBoundClassifier`,
    :class:`~skpacbayes.SecondOrderBoundClassifier`, Categorical posterior); with
    ``stump_candidate``, a decision stump grown on each half of the 0.5 split,
    certified on the other half. One candidate is deployed by the ``selection``
    rule; ``bound_`` certifies it at confidence ``1 - delta`` whatever the rule.

    Parameters
    ----------
    estimator : scikit-learn classifier or None, default=None
        The ensemble each candidate grows (unfitted; cloned per candidate). Its
        members vote (the trees of a forest). The two halves of ``f = 0.5`` grow
        ``n_estimators // 2`` members each when it has an integer ``n_estimators``
        (at least 2), as a split forest does. ``None``:
        ``RandomForestClassifier(n_estimators=200)`` for the hold-out candidates and
        ``OutOfBagVoters(n_estimators=200)`` for the out-of-bag ones (the same trees,
        each grown on half the rows without replacement: every tree sees half of the
        sample out of bag and every pair a quarter, where a bootstrap leaves about
        37 % and 14 %).
    validation_fraction : float or sequence of float in (0, 1), default=(0.2, 0.5)
        One hold-out candidate per fraction (fixed before the data); ``0.5``
        gives two, one per half. Small fractions give a stronger vote, large ones
        a tighter bound on small samples. The default has no ``0.1``: a forest of
        90 % of the rows instead of 80 % is barely stronger, its bound on half as
        many held-out rows rarely within a few percent of the tightest, and its
        forest costs more than the two halves together (:ref:`strategies`).
    selection : {"balanced", "bound", "accuracy"} or float >= 0, default="balanced"
        Which certified candidate is deployed: the most accurate (by estimated
        error) among those whose bound is at most ``1 + selection`` times the
        smallest bound. ``"bound"`` is 0 (the tightest), ``"accuracy"`` is
        infinity (the most accurate), ``"balanced"`` is 0.05 (give up at most
        5 % of the certificate, relative, for the most accurate vote). See Notes.
    out_of_bag : "auto" or bool, default="auto"
        Add the two out-of-bag candidates (one bagged ensemble of every row,
        fitted once and shared). ``"auto"``: only when ``selection`` accepts a
        bound at least twice the smallest (``"accuracy"``, or a float >= 1),
        the only rules under which they can win: their bounds carry a factor 2
        (first order) or 4 (tandem) and are several times looser than the
        hold-out bounds wherever the trees err (:ref:`strategies`), so under the
        other rules they would only cost time and a share of ``delta``.
    stump_candidate : "auto" or bool, default="auto"
        Add two candidates: a decision stump
        (``DecisionTreeClassifier(max_depth=1)``) grown on each half of the
        ``0.5`` split, its prediction certified on the other half. On a few
        hundred noisy rows a forest can be weaker than its best single split, and
        the user would then deploy that split instead; elsewhere the stumps are
        far weaker and never deployed, and each costs the others a small share
        of ``delta`` (see Notes). ``"auto"``: only with the default forest
        (``estimator=None``); an ensemble the user brings is the one certified.
    delta : float in (0, 1], default=0.05
        Total confidence budget, split over the candidates in proportion to the
        share of rows each is certified on (see Notes).
    random_state : int, RandomState instance or None, default=None
        Seeds the held-out rows and the ensembles.
    n_jobs : int or None, default=None
        Parallel jobs for growing the ensembles and computing their votes.
    verbose : int, default=0
        Print one line per candidate when > 0.

    Attributes
    ----------
    candidates_ : list of dict
        One entry per candidate, in the order fitted: ``kind`` ("holdout",
        "out_of_bag" or "stump"), ``validation_fraction`` (hold-out and stump),
        ``half`` (0 or 1 for the two halves of ``0.5`` and the stumps, None
        otherwise), ``out_of_bag_bound`` ("FO" or
        "SO"), ``delta`` (the candidate's share), ``bound`` (at that share),
        ``estimated_error`` (the
        candidate's error on rows its voters never saw: the held-out error, or
        the out-of-bag error of the weighted vote; an estimate of its accuracy,
        not part of the certificate) and ``fit_time`` (seconds).
    best_index_ : int
        Index of the deployed candidate in ``candidates_``.
    best_candidate_ : dict
        ``candidates_[best_index_]``.
    best_estimator_ : estimator
        The deployed fitted candidate (``predict`` delegates to it). The other
        candidates' ensembles are not kept.
    certificate_ : Certificate
        Ingredients of the deployed candidate's bound (its ``delta`` is the
        candidate's share).
    bound_ : float
        Certified bound on the error rate of ``predict`` at confidence ``1 - delta``.
    n_iter_ : int
        Training epochs of the deployed candidate.
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_features_in_ : int
        Number of features seen during fit.

    See Also
    --------
    skpacbayes.HoldOutBoundClassifier : one hold-out candidate.
    skpacbayes.model_selection.BoundSelectionClassifier : the tightest of any candidates.

    Notes
    -----
    **Certificate.** Candidate ``c`` states ``R(h_c) <= B_c`` with probability at
    least ``1 - delta_c``; by the union bound all statements hold together with
    probability at least ``1 - sum_c delta_c = 1 - delta``, so ``R(h) <= B`` holds
    for the deployed pair ``(h, B)`` whichever way it was chosen, from any data
    (:ref:`theory-selection`). Only i.i.d. training examples are assumed; the
    candidate list and the shares are fixed before seeing the data.

    **Shares of delta.** ``delta_c = delta w_c / sum_c' w_c'`` with ``w_c`` the
    share of the rows candidate ``c`` is certified on: ``f`` for a hold-out of
    ``f`` (each half of ``0.5``: 0.5), 0.5 for each out-of-bag candidate, and
    0.1 for each stump (a fall-back: with the default fractions its small share
    costs the others ``ln(1.4 / 1.2)``, about 0.15 nat, of their budget). A candidate certified
    on few rows rarely gives the tightest bound where the bounds differ most
    (small samples), and on large samples its smaller share costs little: the
    defaults give the three forest hold-outs ``delta / 7`` and ``5 delta / 14``
    per half, and each stump ``delta / 14``.

    **Selection.** Each candidate has its bound ``B_c`` and an estimate ``E_c``
    of its error on rows its voters never saw (the held-out rows; for the
    out-of-bag candidates, each row voted by the members that did not see it).
    With tolerance ``t`` (``selection``), the deployed candidate is the one with
    the smallest ``E_c`` among those with ``B_c <= (1 + t) min_c B_c``; ties go to
    the smaller bound, then to the earlier candidate. The estimates never enter
    ``bound_``; they are noisy on small held-out sets (a few dozen rows), which
    is why the default only trades a small, relative share of the bound for
    them: on tens of thousands of rows the candidates' bounds are within a few
    percent of each other and the most accurate vote is deployed, on a few
    hundred rows usually the tightest one (``selection="bound"`` always
    deploys it).

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from skpacbayes import CertifiedVoteClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = CertifiedVoteClassifier(RandomForestClassifier(n_estimators=20),
    ...                               validation_fraction=(0.2, 0.5), random_state=0).fit(X, y)
    >>> [(c["validation_fraction"], c["half"]) for c in clf.candidates_]
    [(0.2, None), (0.5, 0), (0.5, 1)]
    >>> bool(0 < clf.bound_ < 0.2), [round(c["delta"], 4) for c in clf.candidates_]
    (True, [0.0083, 0.0208, 0.0208])
    """

    _parameter_constraints: ClassVar[dict] = {
        "estimator": [None, HasMethods(["fit", "predict"])],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither"), "array-like"],
        "selection": [StrOptions(set(SELECTIONS)), Interval(Real, 0, None, closed="left")],
        "out_of_bag": [StrOptions({"auto"}), "boolean"],
        "stump_candidate": [StrOptions({"auto"}), "boolean"],
        "delta": [Interval(Real, 0, 1, closed="right")],
        "random_state": ["random_state"],
        "n_jobs": [None, Integral],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        estimator=None,
        validation_fraction=CANDIDATE_FRACTIONS,
        selection="balanced",
        out_of_bag="auto",
        stump_candidate="auto",
        delta=0.05,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.estimator = estimator
        self.validation_fraction = validation_fraction
        self.selection = selection
        self.out_of_bag = out_of_bag
        self.stump_candidate = stump_candidate
        self.delta = delta
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _use_out_of_bag(self):
        if self.out_of_bag == "auto":
            return self._tolerance() >= 1.0
        return bool(self.out_of_bag)

    def _use_stumps(self):
        if self.stump_candidate == "auto":
            return self.estimator is None
        return bool(self.stump_candidate)

    def _tolerance(self):
        return float(SELECTIONS.get(self.selection, self.selection))

    def _candidates(self, seed):
        """(description, unfitted certified estimator) per candidate, in a fixed order."""
        if hasattr(self.estimator, "votes"):
            raise ValueError(
                "estimator must be a scikit-learn classifier (e.g. RandomForestClassifier), "
                f"not a voter bank; got {type(self.estimator).__name__}."
            )
        halves = [(0, HoldOutBoundClassifier), (1, _OtherHalfHoldOut)]
        held_out = []  # (kind, voters, fraction, sides): one candidate per side
        for f in _fractions(self.validation_fraction):
            if f == 0.5:  # both halves, sharing the ensemble's members
                held_out.append(("holdout", _half_ensemble(self.estimator), f, halves))
            else:
                held_out.append(("holdout", self.estimator, f, [(None, HoldOutBoundClassifier)]))
        if self._use_stumps():  # one split, grown on each half of 0.5, certified on the other
            from sklearn.tree import DecisionTreeClassifier

            held_out.append(("stump", DecisionTreeClassifier(max_depth=1), 0.5, halves))
        candidates = [
            (
                {"kind": kind, "validation_fraction": f, "half": half, "out_of_bag_bound": None},
                cls(voters=voters, validation_fraction=f, random_state=seed, n_jobs=self.n_jobs),
            )
            for kind, voters, f, sides in held_out
            for half, cls in sides
        ]
        if self._use_out_of_bag():
            candidates += [
                (
                    {
                        "kind": "out_of_bag",
                        "validation_fraction": None,
                        "half": None,
                        "out_of_bag_bound": name,
                    },
                    cls(posterior="categorical", random_state=seed),
                )
                for name, cls in _OUT_OF_BAG.items()
            ]
        return candidates

    def _out_of_bag_voters(self, X, y, seed):
        """The bagged ensemble of every row shared by the out-of-bag candidates (fitted once)."""
        from sklearn.frozen import FrozenEstimator

        from skpacbayes.voters import OutOfBagVoters

        if self.estimator is None:  # the bank's default trees, each on half the rows
            bank = OutOfBagVoters(
                n_estimators=DEFAULT_N_ESTIMATORS, random_state=seed, n_jobs=self.n_jobs
            )
        else:
            bank = OutOfBagVoters(estimator=self.estimator, random_state=seed, n_jobs=self.n_jobs)
        return FrozenEstimator(bank.fit(X, y))

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, **fit_params):
        """Fit every candidate once at its share of ``delta``; deploy one by the selection rule.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (finite; sparse input is converted to CSR).
        y : array-like of shape (n_samples,)
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
        >>> from skpacbayes import CertifiedVoteClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = CertifiedVoteClassifier(RandomForestClassifier(n_estimators=10),
        ...                               selection="bound", random_state=0).fit(X, y)
        >>> clf.bound_ == min(c["bound"] for c in clf.candidates_)
        True
        """
        reject_fit_params(self, fit_params)
        X, y, _ = validate_training_data(self, X, y)
        seed = int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))
        candidates = self._candidates(seed)
        weights = np.array([_weight(info) for info, _ in candidates])
        shares = weights / weights.sum()
        deltas = [float(self.delta * share) for share in shares]
        if any(info["kind"] == "out_of_bag" for info, _ in candidates):
            bank = self._out_of_bag_voters(X, y, seed)  # grown once, shared by FO and SO
            for info, est in candidates:
                if info["kind"] == "out_of_bag":
                    est.set_params(voters=bank)
        # every candidate is fitted once, through joblib (a dask backend spreads them out)
        results = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_candidate)({**info, "delta": d}, est.set_params(delta=d), X, y)
            for (info, est), d in zip(candidates, deltas, strict=True)
        )
        self.candidates_ = [entry for entry, _ in results]
        if self.verbose:
            for index, entry in enumerate(self.candidates_):
                print(
                    f"candidate {index} {entry['kind']} "
                    f"(fraction {entry['validation_fraction']}, half {entry['half']}, bound "
                    f"{entry['out_of_bag_bound']}): bound {entry['bound']:.4f}, estimated "
                    f"error {entry['estimated_error']:.4f} ({entry['fit_time']:.1f} s)"
                )
        self.best_index_ = select(
            [c["bound"] for c in self.candidates_],
            [c["estimated_error"] for c in self.candidates_],
            self._tolerance(),
        )
        self._shares = tuple(float(share) for share in shares)
        self.best_estimator_ = results[self.best_index_][1]
        self.best_candidate_ = self.candidates_[self.best_index_]
        self.certificate_ = self.best_estimator_.certificate_
        self.bound_ = float(self.best_estimator_.bound_)
        self.n_iter_ = int(self.best_estimator_.n_iter_)
        self.classes_ = self.best_estimator_.classes_
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # CSR end to end (the voter banks take it)
        return tags

    def _deployed_share(self):
        return self._shares[self.best_index_]
