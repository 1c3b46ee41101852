"""The estimator to reach for first: a certified vote of trees (by bagging or by boosting),
strong and tight.

Candidates, each fitted once and certified at its share of ``delta``: for each validation
fraction ``f`` (by default 0.2 and 0.5) and each of ``n_folds`` disjoint held-out sets of
``f`` of the rows, the plain vote of a forest grown on the other rows, certified on the
held-out ones by the exact test-set bound (fold 0 of every fraction holds out the rows
``HoldOutBoundClassifier`` holds out with the same ``random_state``, and its default forest
is the first trees of HoldOut's); with the defaults, gradient boosting
(``HistGradientBoostingClassifier``) grown on 80 % of the rows of a binary task of 500 rows
or more, and one decision stump per half (the fall-back where a forest is weaker than one
split); or the user's own models (``candidates``); and, where the rule can pick them, the
forest grown on every row certified by the out-of-bag first-order and tandem bounds. All
statements hold together with probability at least ``1 - delta`` (union bound), so the
deployed candidate may be chosen by any rule without losing the certificate: by default the
tightest bound.
"""

import warnings
from numbers import Real
from typing import ClassVar

from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, Hidden, Interval, StrOptions
from sklearn.utils.validation import _num_samples

from skpacbayes.classifiers._base import _OutOfBagCandidate, fitted_vote, validate_training_data
from skpacbayes.classifiers._constraints import DELTA, N_JOBS, Integers, check_fractions
from skpacbayes.classifiers._fit_params import reject_fit_params
from skpacbayes.classifiers._held_out_vote import fitted_fold
from skpacbayes.classifiers._out_of_core import dask_training_data
from skpacbayes.classifiers._search_refit import warn_if_refit_by_search
from skpacbayes.classifiers._selected import SelectedCandidateMixin
from skpacbayes.engine.dask_passes import is_dask_input
from skpacbayes.engine.protocols import candidates as cands
from skpacbayes.engine.protocols import default_candidates as defaults
from skpacbayes.engine.protocols.sample import resolve_train_size
from skpacbayes.objectives import FirstOrder, SecondOrder, TestSet
from skpacbayes.voters._base import DocLinkMixin, plain_numbers

__all__ = ["CertifiedVoteClassifier"]

#: the bounds of the out-of-bag candidates: the first-order and the tandem bound
_OUT_OF_BAG = (FirstOrder.name, SecondOrder.name)


def _is_deprecated(value):
    """Whether ``value`` is the sentinel default of a renamed parameter."""
    return isinstance(value, str) and value == "deprecated"


class CertifiedVoteClassifier(SelectedCandidateMixin, ClassifierMixin, DocLinkMixin, BaseEstimator):
    """A vote of trees grown on most of the rows, by bagging or by boosting, with a
    certificate that holds.

    Every candidate is a certified classifier fitted once, at its share of
    ``delta`` (see Notes): for each validation fraction ``f`` and each of
    ``n_folds`` disjoint held-out sets of ``ceil(f m)`` rows (drawn from the seed
    and the sample size alone), the plain vote of ``voters`` grown on the other
    rows, certified on the held-out ones by the test-set bound
    (:class:`~skpacbayes.HoldOutBoundClassifier`), or each model of ``candidates``
    grown and certified so; with the default forests, gradient boosting
    (``HistGradientBoostingClassifier()``, one voter: a vote of trees by boosting) grown
    and certified so at the fraction 0.2, on binary tasks of 500 rows or more; with
    ``stump_candidate``, a decision stump grown on each half, certified on the other half; with
    ``out_of_bag``, the weighted vote of ``voters`` bagged on every row
    (:class:`~skpacbayes.voters.OutOfBagVoters`), certified by the out-of-bag
    first-order and tandem bounds (:class:`~skpacbayes.FirstOrderBoundClassifier`,
    :class:`~skpacbayes.SecondOrderBoundClassifier`, Categorical posterior). One
    candidate is deployed by the ``selection`` rule; ``bound_`` certifies it at
    confidence ``1 - delta`` whatever the rule.

    With the same ``random_state``, fold 0 of every fraction holds out the rows
    ``HoldOutBoundClassifier(validation_fraction=fractions)`` holds out, and its default
    forest is the first trees of HoldOut's (the same seed; with the same ``voters`` given
    to both, it is exactly HoldOut's candidate).

    Parameters
    ----------
    voters : scikit-learn classifier or None, default=None
        The ensemble each candidate grows (unfitted; cloned per candidate). Its
        members vote (the trees of a forest), as with ``voters`` of
        :class:`~skpacbayes.HoldOutBoundClassifier`. ``None``: a
        ``RandomForestClassifier`` of 140 trees for a hold-out candidate of a fraction
        below 0.5 and of 40 for 0.5 or more, and ``OutOfBagVoters(n_estimators=200)`` for
        the out-of-bag ones (each tree grown on half the rows without replacement); on
        fewer than 128 rows, one tree per four rows (at least 10) for all of them (see
        Notes, and :func:`~skpacbayes.engine.protocols.default_candidates.default_forest_trees`).
    validation_fraction : float or sequence of float in (0, 1), default=(0.2, 0.5)
        The held-out share of each hold-out candidate (fixed before the data). Small
        fractions give a stronger vote, large ones a tighter bound on small samples.
        ``(0.1, 0.2, 0.5)`` adds two forests grown on 90 % of the rows (the fit then
        takes about 1.7 times as long; see Notes).
    n_folds : int >= 1, default=2
        Disjoint held-out sets per fraction, each with its own forest grown on the
        other rows (fold 1 of ``0.5`` is the other half). ``n_folds * f`` must not
        exceed 1. A second fold is a second, independent draw of every hold-out
        candidate: the tighter of two draws more than pays for the larger union,
        and it is as strong a forest (see Notes). Each fold grows its own forest,
        so the fit takes ``n_folds`` times as long as one fold.
    selection : {"tightest_bound", "most_accurate"} or float >= 0, \
default="tightest_bound"
        Which certified candidate is deployed: the one with the smallest estimated
        error (its error on its own held-out rows, which its voters never saw; never
        its bound) among those whose bound is close enough to the smallest.
        ``"tightest_bound"``: the smallest certificate, trading nothing of it for an
        estimate. ``"most_accurate"``: the smallest estimated error among the
        candidates whose bound is at most one point (0.01,
        :data:`~skpacbayes.engine.protocols.candidates.MOST_ACCURATE_MARGIN`) above
        the smallest, so the certificate stays useful. A float ``t``: among those whose
        bound is at most ``1 + t`` times the smallest, trading at most a relative ``t``
        of the certificate; ``float("inf")`` asks explicitly for the most accurate
        estimate whatever certificate comes with it (the out-of-bag candidates then
        join). See Notes for what each rule trades, measured.
    out_of_bag : "auto" or bool, default="auto"
        Add the two out-of-bag candidates (one bagged ensemble of every row,
        fitted once and shared). ``"auto"``: only when ``selection`` is a float
        ``t >= 1`` (a bound at least twice the smallest accepted) and the
        candidates are not the user's own (``candidates``),
        the only rules under which they can win: their bounds carry a factor 2
        (first order) or 4 (tandem) and are several times looser than the
        hold-out bounds wherever the trees err (:ref:`strategies`).
    stump_candidate : "auto" or bool, default="auto"
        Add two candidates: a decision stump (``DecisionTreeClassifier(max_depth=1)``)
        grown on each half, its prediction certified on the other half. On a few
        hundred noisy rows a forest can be weaker than its best single split, and
        the user would then deploy that split instead; elsewhere the stumps are far
        weaker and never deployed, and each costs the others a small share of
        ``delta`` (see Notes). ``"auto"``: only with the default candidates
        (``voters=None``, ``candidates=None``) of a binary task (two leaves predict two
        classes at most); an ensemble the user brings is the one certified.
    delta : float in (0, 1), default=0.05
        Total confidence budget, split over the candidates (see Notes).
    random_state : int, RandomState instance or None, default=None
        Seeds the held-out rows and the ensembles. An int is handed to every
        candidate as is (so fold 0 holds out HoldOut's rows and grows the first trees
        of its forest for the same ``random_state``); otherwise one int is drawn from it
        for all of them.
    n_jobs : int or None, default=None
        Parallel jobs: candidates fitted at the same time (through joblib, so a
        Dask backend spreads them out), and each forest's own ``n_jobs``.
    verbose : int, default=0
        When > 0, print a line when the fit starts, one line per candidate as
        soon as it is certified (its bound, estimated error and seconds), and the
        deployed candidate at the end.
    per_class : bool, default=False
        Also certify each class's miss rate ``P(predict(x) != y | y = k)``
        (``class_bounds_``): every hold-out and stump candidate splits its share of
        ``delta`` evenly over its ``K + 1`` statements (overall and per class,
        :ref:`Proposition 5a <theory-per-class>`), so ``bound_`` and every class bound
        hold together with probability at least ``1 - delta``. The out-of-bag candidates
        have no per-class statement: ``"auto"`` leaves them out, ``out_of_bag=True``
        raises.
    train_size : "auto", int or None, default="auto"
        **Sample protocol** (an int ``n``): ``n`` rows are drawn from the seed and the
        number of rows alone (the rows ``HoldOutBoundClassifier(train_size=n)`` draws with
        the same ``random_state``) and held in memory; every candidate is fitted on them as
        on a whole sample, then certified on every row its voters never saw: its held-out
        rows of the sample and every row outside it, read once for all the candidates (one
        map-reduce over the blocks of a dask array). No out-of-bag candidate then
        (``"auto"`` leaves them out, ``out_of_bag=True`` raises). ``None``: every row in
        memory (the candidates above). ``"auto"``: ``None`` in memory; for a dask array,
        ``min(50000, n_samples // 3)`` rows, so that every candidate is certified on at
        least two thirds of the rows, and on all but 50,000 of a large array (see Notes).
        A dask array with ``train_size=None`` is refused (never loaded whole).
    candidates : list or None, default=None
        The user's own candidates instead of ``voters`` (which must then be None): each
        an unfitted scikit-learn classifier (cloned; grown for every fraction of
        ``validation_fraction``) or a ``(classifier, validation_fraction)`` pair (its own
        fraction or fractions), each fraction with ``n_folds`` folds, every one at an
        equal share of ``delta``; "certify the best of these models" is
        ``CertifiedVoteClassifier(candidates=[m1, (m2, 0.3), ...])``. A classifier that
        votes (a forest, bagging, AdaBoost) is certified as the plain vote of its members;
        any other model (gradient boosting, a linear model, ...) as one voter. No stump
        or out-of-bag candidate unless asked for (``stump_candidate=True``). ``None``: the
        default forests and boosting.
    estimator : scikit-learn classifier or None, default="deprecated"
        The former name of ``voters``.

        .. deprecated:: 0.2.0
            ``estimator`` was renamed ``voters`` (the name every estimator of this package
            gives what votes) in 0.2.0 and will be removed in 0.3.0. Using it raises a
            ``FutureWarning`` and is honoured.

    Attributes
    ----------
    candidates_ : list of dict
        One entry per candidate, in a fixed order (fractions, then folds, model by
        model; boosting; stumps; out-of-bag): ``kind`` ("holdout", "boosting", "stump" or
        "out_of_bag"), ``validation_fraction`` and ``fold`` (None for the out-of-bag
        ones), ``model`` (the class name of what a hold-out, boosting or stump candidate
        grows), ``out_of_bag_bound`` (the short name of the first- or
        second-order bound, else None), ``delta``
        (the candidate's share), ``bound`` (at that share), ``estimated_error``
        (the candidate's error on rows its voters never saw: the held-out error, or
        the out-of-bag error of the weighted vote; an estimate of its accuracy, not
        part of the certificate) and ``fit_time`` (seconds). A candidate that cannot be
        fitted or certified (a fraction whose training rows hold a single class, a model
        whose ``fit`` raises, an out-of-bag candidate on so few rows that some pair of
        trees shares no out-of-bag row) drops out with a ``FitFailedWarning`` (and a
        progress line with ``verbose``): ``bound`` 1.0, ``estimated_error`` nan and the
        reason under ``dropped``; it is never deployed. If every candidate drops out,
        ``fit`` raises a ``ValueError`` naming each reason. With a sample
        (``train_size``), also ``held_out_rows`` (the rows the candidate is certified on:
        its held-out rows of the sample and every row outside it) and ``train_size``.
    best_index_ : int
        Index of the deployed candidate in ``candidates_``.
    best_candidate_ : dict
        ``candidates_[best_index_]``.
    best_estimator_ : estimator
        The deployed fitted candidate (``predict`` delegates to it). The other
        candidates' ensembles are not kept.
    certificate_ : Certificate
        Ingredients of the deployed candidate's bound (its ``delta`` is the
        candidate's share; ``details["candidate_deltas"]`` every candidate's share, in
        the order of ``candidates_``, and ``details["candidate"]`` the deployed one).
    bound_ : float
        Certified bound on the error rate of ``predict`` at confidence ``1 - delta``.
    class_bounds_ : ndarray of shape (n_classes,)
        With ``per_class=True`` only: the deployed candidate's certified bounds on
        ``P(predict(x) != y | y = classes_[k])``.
    n_iter_ : int
        Training epochs of the deployed candidate.
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_features_in_ : int
        Number of features seen during fit.

    See Also
    --------
    skpacbayes.HoldOutBoundClassifier : one fold of every fraction, the tightest deployed.
    skpacbayes.model_selection.BoundSelectionClassifier : the tightest of any candidates.

    Notes
    -----
    **Certificate.** Candidate ``c`` states ``R(h_c) <= B_c`` with probability at
    least ``1 - delta_c``; by the union bound all statements hold together with
    probability at least ``1 - sum_c delta_c = 1 - delta``, so ``R(h) <= B`` holds
    for the deployed pair ``(h, B)`` whichever way it was chosen, from any data
    (:ref:`theory-selection`). Only i.i.d. training examples are assumed; the
    candidate list and the shares are fixed before seeing the data.

    **Shares of delta.** ``delta_c = delta w_c / sum_c' w_c'``, the weights fixed by
    the numbers of rows and classes before the data. With the default candidates
    (:func:`~skpacbayes.engine.protocols.default_candidates.default_weight`): ``w_c =
    min(1, h_c / 200)`` for a forest or boosting candidate of ``h_c`` held-out rows (an
    out-of-bag one counts half the rows), 0.1 for a stump. A held-out set of ``h`` rows
    certifies at best ``ln(1 / delta_c) / h``, so on a few hundred rows the shares go
    to the large held-out sets, the ones deployed there: on 244 rows the forests on 80 %
    weigh 0.245, those on half the rows 0.61. From 1,000 rows on every forest and
    boosting candidate weighs 1: with four forests, two boosting candidates and two
    stumps, ``delta / 6.2`` each (``delta / 62`` per stump). A user's candidates weigh
    1 each (0.1 a stump). Where the float shares would sum to more than ``delta``, each
    is rounded down by a few ulps.

    **Boosting.** Gradient boosting is a vote of trees too (by boosting, where a forest
    votes by bagging): ``HistGradientBoostingClassifier()`` with scikit-learn's
    defaults, one voter (its trees are never taken apart), grown on 80 % of the rows
    (two folds) and certified on the others as every hold-out candidate. It joins
    binary tasks of 500 rows or more
    (:func:`~skpacbayes.engine.protocols.default_candidates.default_boosting`): below,
    its share costs the forests more than it wins on the reference data sets, and a
    ``K``-class model grows ``K`` trees a round (13 times a forest's CPU on mnist's
    ten classes).

    **Why two folds.** A hold-out bound is a random draw: the held-out error of one
    forest on one held-out set. A second fold of the same fraction is an
    independent draw with the same distribution (a forest as strong, grown on as
    many rows), so the smaller of the two is about half a standard deviation of
    the held-out error below either, while the larger union (``delta / 4.2``
    instead of ``delta / 2``) costs about a quarter of one (for a held-out error
    ``p`` on ``n`` rows the bound is close to ``p + sqrt(2 p ln(K / delta) / n)``).
    The gain is largest where the held-out sets are smallest, so the tighter
    candidate is more often one grown on 80 % of the rows: the deployed vote tends
    to be stronger too (measured in :ref:`strategies`).

    **Default forests and fractions.** The default candidates grow 2 x 140 trees on
    80 % of the rows and 2 x 40 on 50 %: 360 trees, the work of 1.3 (many rows: a tree's
    cost grows with its rows) to 1.8 (few rows: a tree's fixed cost dominates)
    ``RandomForestClassifier(200)`` on every row
    (:func:`~skpacbayes.engine.protocols.default_candidates.default_forest_trees`). A forest
    grown on half the rows is deployed where the rows are few or noisy, where the size
    of its held-out set, not its last trees, sets the bound; the forests grown on 80 %
    are deployed elsewhere and keep most of the trees. Two more folds of 0.1 (forests
    grown on 90 % of the rows) would cost the union more (``delta / 6.2`` instead of
    ``delta / 4.2``) than the extra rows gain on the reference data sets (:ref:`strategies`).
    Trees and fractions depend on the number of rows alone, so every certificate holds.

    **Small samples.** With the default forests (``voters=None``) and fewer than 128
    rows, each forest holds one tree per four rows (at least 10)
    (:func:`~skpacbayes.engine.protocols.default_candidates.default_n_estimators`): trees
    grown on a few dozen rows have a handful of leaves, and held-out sets of a few rows certify
    little either way, while a fit on tens of rows (scikit-learn's ``check_estimator``
    runs about a hundred) takes a fraction of the time. The number depends on the number
    of rows only, so the certificate holds as before (the reference figures start at 142
    training rows). Pass ``voters=RandomForestClassifier(n_estimators=200)`` to grow 200
    trees for every candidate on any sample; for a light fit (a downstream CI), small forests
    (``voters=RandomForestClassifier(n_estimators=10)``) or ``n_folds=1``.

    **Out of core.** ``fit`` on a dask array draws ``train_size`` rows into memory
    (:func:`~skpacbayes.engine.protocols.held_out.training_rows`) and grows the forests
    there; the client holds that sample and the forests, the workers read the other rows
    block by block and only error counts come back. Each candidate's held-out set (its
    held-out rows of the sample and every row outside the sample) is drawn from the seed and
    the number of rows alone and its forest is grown on the other rows, so the test-set
    bound holds for it as for a hold-out of the rows in memory (:ref:`theory-holdout`).
    The default of 50,000 rows: forests grown on tens of thousands of rows are close to
    those grown on all of them, while the certificate's deviation term shrinks with the
    rows it is counted on, so on a large array the rows are better spent certifying; a
    third of a smaller array keeps two thirds for the certificate. ``predict``,
    ``predict_proba`` and ``decision_function`` on a dask array give lazy dask arrays.

    **Selection.** Each candidate has its bound ``B_c`` and an estimate ``E_c``
    of its error on its own held-out rows (the out-of-bag error for an out-of-bag
    candidate). The deployed candidate is the one with the smallest ``E_c`` among
    those with ``B_c <= min_c B_c + 0.01`` (``"most_accurate"``), ``B_c <= (1 + t)
    min_c B_c`` (a float ``t``) or ``B_c = min_c B_c`` (``"tightest_bound"``); ties go
    to the smaller bound, then to the earlier candidate (the larger training set among
    the hold-outs of one fold). The estimates never enter ``bound_``, and every rule is
    a choice among statements that hold together. What they trade, measured on the
    twelve reference data sets of :ref:`strategies` (3 seeds; bound / test error in
    percent, means over the data sets; ``RandomForestClassifier(200)`` on every row: 7.15):
    ``"tightest_bound"`` 9.21 / 6.92, ``"most_accurate"`` 9.22 / 6.90 (a hundredth of a
    point of certificate for two hundredths of test error: on small held-out sets the
    estimates are noisy), while
    ``float("inf")`` deployed the out-of-bag tandem candidate (certified at 27-44 %) on
    half the cells of data sets you do not have (a mean bound of 20.6 %).

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from skpacbayes import CertifiedVoteClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = CertifiedVoteClassifier(voters=RandomForestClassifier(n_estimators=20),
    ...                               validation_fraction=(0.2, 0.5), random_state=0).fit(X, y)
    >>> [(c["validation_fraction"], c["fold"]) for c in clf.candidates_]
    [(0.2, 0), (0.2, 1), (0.5, 0), (0.5, 1)]
    >>> bool(0 < clf.bound_ < 0.2), [c["delta"] for c in clf.candidates_]
    (True, [0.0125, 0.0125, 0.0125, 0.0125])

    The best of a few models of one's own, certified in one call:

    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.ensemble import HistGradientBoostingClassifier
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> linear = make_pipeline(StandardScaler(), LogisticRegression())
    >>> models = [HistGradientBoostingClassifier(), (linear, 0.5)]
    >>> clf = CertifiedVoteClassifier(candidates=models, n_folds=1, random_state=0).fit(X, y)
    >>> [(c["model"], c["validation_fraction"]) for c in clf.candidates_]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('HistGradientBoostingClassifier', 0.2), ('HistGradientBoostingClassifier', 0.5),
     ('Pipeline', 0.5)]
    >>> bool(clf.bound_ < 0.15)
    True
    """

    #: parameters that only steer the optimisation or the computation: a search over
    #: them alone keeps the refitted bound_ (warn_if_refit_by_search)
    _optimisation_params: ClassVar[frozenset] = frozenset({"n_jobs", "selection", "verbose"})

    _parameter_constraints: ClassVar[dict] = {
        "voters": [None, HasMethods(["fit", "predict"])],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither"), "array-like"],
        "n_folds": [Integers(1, None, closed="left")],
        "selection": [
            StrOptions(set(cands.SELECTIONS)),
            Interval(Real, 0, float("inf"), closed="both"),
        ],
        "out_of_bag": [StrOptions({"auto"}), "boolean"],
        "stump_candidate": [StrOptions({"auto"}), "boolean"],
        "delta": DELTA,
        "random_state": ["random_state"],
        "n_jobs": N_JOBS,
        "verbose": ["verbose"],
        "per_class": ["boolean"],
        "train_size": [StrOptions({"auto"}), None, Integers(1, None, closed="left")],
        "candidates": [None, list],
        "estimator": [None, HasMethods(["fit", "predict"]), Hidden(StrOptions({"deprecated"}))],
    }

    def __init__(
        self,
        *,
        voters=None,
        validation_fraction=defaults.CANDIDATE_FRACTIONS,
        n_folds=defaults.DEFAULT_FOLDS,
        selection="tightest_bound",
        out_of_bag="auto",
        stump_candidate="auto",
        delta=0.05,
        random_state=None,
        n_jobs=None,
        verbose=0,
        per_class=False,
        train_size="auto",
        candidates=None,
        estimator="deprecated",
    ):
        self.voters = voters
        self.validation_fraction = validation_fraction
        self.n_folds = n_folds
        self.selection = selection
        self.out_of_bag = out_of_bag
        self.stump_candidate = stump_candidate
        self.delta = delta
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.per_class = per_class
        self.train_size = train_size
        self.candidates = candidates
        self.estimator = estimator

    def _forest(self):
        """The ensemble to grow: ``voters``, or the deprecated ``estimator`` where it is set."""
        return self.voters if _is_deprecated(self.estimator) else self.estimator

    def _check_renamed(self):
        """Refuse both spellings of the ensemble; warn on the deprecated one."""
        if _is_deprecated(self.estimator):
            return
        if self.voters is not None:
            raise ValueError(
                "Both voters and estimator were set; estimator is the deprecated name of "
                "voters: set voters only."
            )
        warnings.warn(
            "CertifiedVoteClassifier: estimator was renamed voters in 0.2.0 and will be "
            "removed in 0.3.0; use voters=... (the ensemble each candidate grows).",
            FutureWarning,
            stacklevel=4,  # the user's call: _check_renamed < fit < scikit-learn's wrapper
        )

    def _models(self):
        """The user's candidates as (unfitted classifier, validation fractions) pairs, or None."""
        if self.candidates is None:
            return None
        if self._forest() is not None:
            raise ValueError(
                "Both voters and candidates were set; candidates=[...] lists every model "
                "certified: set one of them (put the ensemble of voters in the list)."
            )
        if not self.candidates:
            raise ValueError(
                "candidates=[] lists no model; pass unfitted classifiers or (classifier, "
                "validation_fraction) pairs, or candidates=None for the default ones."
            )
        models = []
        for i, entry in enumerate(self.candidates):
            model, fraction = entry, self.validation_fraction
            if isinstance(entry, tuple | list):
                if len(entry) != 2:
                    raise ValueError(
                        f"candidates[{i}] has {len(entry)} items; a candidate is an unfitted "
                        "classifier or a (classifier, validation_fraction) pair."
                    )
                model, fraction = entry
            if not (hasattr(model, "fit") and hasattr(model, "predict")) or hasattr(model, "votes"):
                raise ValueError(
                    f"candidates[{i}] must be an unfitted scikit-learn classifier (with fit "
                    f"and predict, e.g. HistGradientBoostingClassifier()); got "
                    f"{type(model).__name__}."
                )
            try:
                fractions = check_fractions(fraction)
            except ValueError as error:
                raise ValueError(f"candidates[{i}]: {error}") from None
            models.append((model, fractions))
        return models

    def _out_of_bag_estimator(self, bound, voters, seed):
        """An out-of-bag candidate, unfitted: the Categorical vote of ``voters`` certified by
        the bound named ``bound``."""
        return _OutOfBagCandidate(
            bound=bound, posterior="categorical", random_state=seed, voters=voters
        )

    def _spec(self, n_rows, n_classes, seed, train_size):
        """The candidates protocol's specification from this estimator's parameters."""
        forest = self._forest()
        if hasattr(forest, "votes"):
            raise ValueError(
                "voters must be a scikit-learn classifier (e.g. RandomForestClassifier), "
                f"not a voter bank; got {type(forest).__name__}."
            )
        fractions = check_fractions(self.validation_fraction)
        names = ("n_folds", "selection", "out_of_bag", "stump_candidate", "delta", "per_class")
        params = {name: getattr(self, name) for name in (*names, "n_jobs", "verbose")}
        return cands.plan_candidates(
            n_rows,
            seed,
            train_size,
            voters=forest,
            fractions=fractions,
            models=self._models(),
            params={**params, "label": type(self).__name__},
            bound=TestSet(),
            fit_specs={
                name: self._out_of_bag_estimator(name, None, seed)._fit_spec(n_classes)
                for name in _OUT_OF_BAG
            },
        )

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, **fit_params):
        """Fit every candidate once at its share of ``delta``; deploy one by the selection rule.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
            Training data (finite; sparse input is converted to CSR). A ``dask.array`` is
            never loaded whole: ``train_size`` rows are drawn into memory, every other row
            is read block by block on the workers.
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
        >>> from skpacbayes import CertifiedVoteClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = CertifiedVoteClassifier(voters=RandomForestClassifier(n_estimators=10),
        ...                               random_state=0).fit(X, y)
        >>> clf.bound_ == min(c["bound"] for c in clf.candidates_)
        True
        """
        reject_fit_params(self, fit_params)
        warn_if_refit_by_search(self, self._optimisation_params)
        self._check_renamed()
        out_of_core, keep = is_dask_input(X, y), False
        if out_of_core:
            X, y, classes = dask_training_data(self, X, y)
        else:  # the user's own models (no stump or out-of-bag candidate) read X as given
            keep = self._forest() is not None or self.candidates is not None
            keep = keep and not (
                cands.use_stumps(self.stump_candidate, default=False)
                or cands.use_out_of_bag(
                    self.out_of_bag, self.selection, self.per_class, self.candidates is not None
                )
                or plain_numbers(X)
            )
            X, y, classes = validate_training_data(self, X, y, keep_input=keep)
        n_rows = _num_samples(X)
        train_size = resolve_train_size(self.train_size, n_rows, out_of_core)
        seed = cands.candidates_seed(self.random_state)
        spec = self._spec(n_rows, classes.size, seed, train_size)
        result = cands.certify_candidates(spec, X, y, classes)
        self.candidates_ = result.entries
        self.best_index_ = result.best_index
        self.best_candidate_ = result.entries[result.best_index]
        self._shares = result.shares
        best, info = result.outcomes[result.best_index], self.best_candidate_
        if info["kind"] == "out_of_bag":
            from sklearn.frozen import FrozenEstimator

            voters = FrozenEstimator(result.out_of_bag_voters)
            estimator = self._out_of_bag_estimator(info["out_of_bag_bound"], voters, seed)
            best = fitted_vote(estimator.set_params(delta=info["delta"]), best, voters, X)
        else:
            params = {
                "voters": spec.candidates[result.best_index].voters,
                "validation_fraction": info["validation_fraction"],
                "fold": info["fold"],
                "delta": info["delta"],
                "random_state": seed,
                "n_jobs": self.n_jobs,
                "per_class": self.per_class,
            }
            names = getattr(self, "feature_names_in_", None) if keep else None
            best = fitted_fold(params, best, classes, self.n_features_in_, names)
        self.best_estimator_ = best
        self.certificate_ = best.certificate_
        self.bound_ = float(best.bound_)
        self.n_iter_ = int(best.n_iter_)
        self.classes_ = best.classes_
        if self.per_class:
            self.class_bounds_ = best.class_bounds_
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # CSR end to end (the voter banks take it)
        return tags

    def _candidate_deltas(self, delta):
        return cands.candidate_deltas(delta, self._shares)
