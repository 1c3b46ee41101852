"""Choosing among certified classifiers without losing the certificate.

Picking the tightest of K bounds computed on the same sample is itself a
data-dependent choice: each bound holds with probability ``1 - delta``, but
their minimum does not. The union bound repairs it: fit every candidate with
``delta / K``; then all K statements hold together with probability at least
``1 - delta``, and so does the smallest one. :class:`BoundSelectionClassifier`
does exactly that.
"""

from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.utils import get_tags
from sklearn.utils.parallel import delayed
from sklearn.utils.validation import check_is_fitted, validate_data

from skpacbayes._utils._fit_params import reject_fit_params
from skpacbayes._utils._search_refit import SelectionWarning, warn_if_refit_by_search
from skpacbayes.classifiers._constraints import DELTA, N_JOBS
from skpacbayes.classifiers._docstrings import fill_doc
from skpacbayes.classifiers._out_of_core import refuse_dask_input
from skpacbayes.classifiers._selected import SelectedCandidateMixin
from skpacbayes.engine.certificate import equal_share
from skpacbayes.engine.parallel import as_completed
from skpacbayes.engine.protocols.candidates import timed_fit
from skpacbayes.engine.sharing import shared_votes
from skpacbayes.engine.spec import progress
from skpacbayes.voters._base import DocLinkMixin

__all__ = ["BoundSelectionClassifier", "SelectionWarning", "bound_scorer"]


@fill_doc()
class BoundSelectionClassifier(
    SelectedCandidateMixin, ClassifierMixin, DocLinkMixin, BaseEstimator
):
    """Fit several certified classifiers and keep the tightest, validly.

    Every candidate is cloned and fitted on the same sample with confidence
    parameter ``delta / len(estimators)``; the candidate with the smallest
    ``bound_`` is kept. By the union bound, with probability at least
    ``1 - delta`` every candidate's bound holds, hence ``bound_`` (the
    minimum) upper-bounds the true risk of ``predict``.

    Candidates given the same fitted voters (for instance one
    :class:`~sklearn.frozen.FrozenEstimator` of a fitted bank) and fitted one
    after another (``n_jobs`` None or 1) compute the vote matrix of the
    training rows once and share it (when it fits in 512 MiB). Candidates given
    the same unfitted voters and the same ``random_state`` grow that bank once:
    the later ones get the bank the first one grew (an identical copy is what
    each would have grown).

    Parameters
    ----------
    estimators : list of estimators
        Unfitted skpacbayes classifiers (e.g. one per posterior family or bound).
        Their own ``delta`` is overridden.
    delta : float in (0, 1), default=0.05
        Total confidence budget, split evenly over the candidates (``delta / K``,
        rounded down by one ulp where K of them would sum to more than ``delta``).
    n_jobs : int, default=None
        Candidates fitted in parallel with joblib (``None`` means 1 unless in a
        :func:`joblib.parallel_config` context, which may also select a cluster backend such
        as ``"dask"``; see the "Scaling out" page of the documentation).
    verbose : int, default=0
        When > 0, print one line per candidate as soon as it is fitted (its bound and
        the seconds it took).

    Attributes
    ----------
    estimators_ : list of estimators
        The fitted candidates.
    bounds_ : ndarray of shape (n_candidates,)
        Each candidate's certified bound at ``delta / n_candidates``.
    best_index_ : int
        Index of the selected candidate.
    best_estimator_ : estimator
        The selected fitted candidate (``predict`` delegates to it).
    bound_ : float
        Certified bound of the selected classifier at confidence ``1 - delta``.
    certificate_ : Certificate
        Ingredients of the selected candidate's bound (its ``delta`` is the share
        ``delta / K``).
    n_iter_ : int
        Training epochs of the selected candidate.
    {classes_features}

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from skpacbayes import FirstOrderBoundClassifier
    >>> from skpacbayes.model_selection import BoundSelectionClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> candidates = [FirstOrderBoundClassifier(posterior=p, max_epochs=3, random_state=0)
    ...               for p in ("categorical", "gaussian")]
    >>> sel = BoundSelectionClassifier(candidates, delta=0.05).fit(X, y)
    >>> bool(sel.bound_ == min(sel.bounds_))
    True
    """

    #: parameters that only steer the optimisation or the computation: a search over
    #: them alone keeps the refitted bound_ (warn_if_refit_by_search)
    _optimisation_params: ClassVar[frozenset] = frozenset({"n_jobs", "verbose"})

    _parameter_constraints: ClassVar[dict] = {
        "estimators": [list],
        "delta": DELTA,
        "n_jobs": N_JOBS,
        "verbose": ["verbose"],
    }

    def __init__(self, estimators, *, delta=0.05, n_jobs=None, verbose=0):
        self.estimators = estimators
        self.delta = delta
        self.n_jobs = n_jobs
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=False)
    @fill_doc()
    def fit(self, X, y, **fit_params):
        """Fit every candidate with ``delta / K`` and keep the tightest.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (finite; sparse input is converted to CSR).
        y : array-like of shape (n_samples,)
            Class labels.
        {fit_params}

        Returns
        -------
        self : object
            Fitted estimator; ``bound_`` holds the certificate of the selected candidate.

        Examples
        --------
        {fitted_selection}
        >>> sel.best_index_, bool(sel.bound_ == sel.best_estimator_.bound_)
        (0, True)
        """
        reject_fit_params(self, fit_params)
        warn_if_refit_by_search(self, self._optimisation_params)
        if len(self.estimators) == 0:
            raise ValueError("estimators must contain at least one candidate.")
        refuse_dask_input(self, X, y, "fits every candidate on the rows held in memory")
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=[np.float64, np.float32])
        share = equal_share(self.delta, len(self.estimators))
        jobs = (
            delayed(timed_fit)(i, clone(est).set_params(delta=share), X, y)
            for i, est in enumerate(self.estimators)
        )
        self.estimators_ = [None] * len(self.estimators)
        with shared_votes():  # candidates on the same voters: one bank, one vote matrix
            for done, (i, est, seconds) in enumerate(as_completed(jobs, self.n_jobs), start=1):
                self.estimators_[i] = est
                if self.verbose:
                    progress(
                        type(self).__name__,
                        f"{done}/{len(self.estimators)} candidate {i} "
                        f"({type(est).__name__}): bound {est.bound_:.4f} ({seconds:.1f} s)",
                    )
        self.bounds_ = np.array([est.bound_ for est in self.estimators_])
        self.best_index_ = int(np.argmin(self.bounds_))
        self.best_estimator_ = self.estimators_[self.best_index_]
        self.bound_ = float(self.bounds_[self.best_index_])
        self.certificate_ = self.best_estimator_.certificate_
        self.n_iter_ = int(getattr(self.best_estimator_, "n_iter_", 0))
        self.classes_ = self.best_estimator_.classes_
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # sparse input reaches the candidates as CSR: accepted when every candidate takes it
        candidates = self.estimators if isinstance(self.estimators, list | tuple) else []
        tags.input_tags.sparse = bool(candidates) and all(
            get_tags(est).input_tags.sparse for est in candidates
        )
        return tags

    def _candidate_deltas(self, delta):
        return [equal_share(delta, len(self.estimators_))] * len(self.estimators_)


@fill_doc()
def bound_scorer(estimator, X=None, y=None):
    """Scorer reading the fitted estimator's certificate: ``-bound_`` (greater is better).

    Use it as ``GridSearchCV(..., scoring=bound_scorer)`` to rank
    hyper-parameters by their certified bound instead of by validation
    accuracy. ``X`` and ``y`` are ignored: the bound was computed on the
    training fold.

    Parameters
    ----------
    estimator : fitted skpacbayes classifier
        Any fitted estimator with a ``bound_`` attribute.
    X : object, default=None
        Ignored (present for the scorer signature).
    y : object, default=None
        Ignored (present for the scorer signature).

    Returns
    -------
    score : float
        Minus the certified bound.

    Notes
    -----
    The model that GridSearchCV then refits is NOT certified by the minimum
    it saw: each candidate's bound was computed with the full ``delta`` on a
    training fold, and taking the best of many is a data-dependent choice
    (the refit on the whole data is yet another sample). The refitted
    estimator's own ``bound_`` is a valid certificate for its own fit only if
    the grid was chosen without the data (or varies only what the PAC-Bayes
    statement covers for all posteriors at once: ``learning_rate``, ``max_epochs``,
    ``tighten``, ...). To select among K candidates on the same data and keep a
    certificate, use :class:`BoundSelectionClassifier`, which splits ``delta`` over
    the candidates (``[clone(est).set_params(**p) for p in ParameterGrid(grid)]``
    turns a grid into its candidates), or report
    ``best_estimator_.recompute_bound(delta / K)``.

    The refit of such a choice raises a :class:`SelectionWarning` when the
    configurations differ in more than the optimisation parameters.

    Examples
    --------
    {fitted_occam}
    >>> from skpacbayes.model_selection import bound_scorer
    >>> bound_scorer(clf) == -clf.bound_
    True
    """
    check_is_fitted(estimator, "bound_")
    return -float(estimator.bound_)
