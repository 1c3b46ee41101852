"""A plain vote certified on held-out rows, as a fitted estimator: what the hold-out protocols
(:mod:`skpacbayes.engine.protocols.held_out`) hand back, with its predictions.

:class:`HeldOutVote` is the fitted half every held-out estimator shares (the result of a
protocol copied onto the estimator, ``predict`` and the vote's scores, the certificate at
another ``delta``); :class:`_FoldHoldOut` is one hold-out candidate of
:class:`~skpacbayes.CertifiedVoteClassifier` (one fraction, one fold of its permutation), the
estimator it deploys.
"""

from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.validation import check_is_fitted

from skpacbayes._utils._fit_params import reject_fit_params
from skpacbayes.classifiers._base import validate_training_data
from skpacbayes.classifiers._constraints import DELTA, N_JOBS, Integers, check_delta, keyword_init
from skpacbayes.classifiers._vote_predictions import VotePredictions
from skpacbayes.engine.protocols.held_out import HeldOutSpec, certify_fractions, rows_seed
from skpacbayes.engine.protocols.held_out_voters import own_model
from skpacbayes.engine.vote import weighted_vote_scores
from skpacbayes.objectives import TestSet
from skpacbayes.voters._base import DocLinkMixin

__all__ = ["HeldOutVote", "fitted_fold"]


class HeldOutVote(VotePredictions, ClassifierMixin, DocLinkMixin, BaseEstimator):
    """The fitted plain vote of a held-out protocol (base class, not to be used directly).

    A subclass's ``fit`` hands the engine its rows and a
    :class:`~skpacbayes.engine.protocols.held_out.HeldOutSpec` and copies the
    :class:`~skpacbayes.engine.protocols.held_out.HeldOutResult` onto itself
    (:meth:`_copy_result`); the predictions are the deployed vote's.
    """

    #: the parameters every held-out estimator takes (a subclass adds its own)
    _parameter_constraints: ClassVar[dict] = {
        "voters": [None, HasMethods(["fit", "votes"]), HasMethods(["fit", "predict"])],
        "delta": DELTA,
        "random_state": ["random_state"],
        "n_jobs": N_JOBS,
        "verbose": ["verbose"],
        "per_class": ["boolean"],
    }

    def _spec(self, seed):
        """The protocol's specification from this estimator's parameters."""
        return HeldOutSpec(
            bound=TestSet(),
            voters=self.voters,
            delta=float(self.delta),
            seed=seed,
            risks=self._risks(),
            n_jobs=self.n_jobs,
            label=type(self).__name__,
            verbose=int(self.verbose),
        )

    def _risks(self):
        """The risks certified besides the error rate (the miss rate with ``per_class``)."""
        return ("miss_rate",) if self.per_class else ()

    def _copy_result(self, result):
        """The deployed vote, its rows and its certificate
        (:meth:`~skpacbayes.engine.protocols.held_out.HeldOutResult.attributes`)."""
        for name in ("risk_bounds_", "class_bounds_"):  # from an earlier fit
            self.__dict__.pop(name, None)
        vars(self).update(result.attributes(self.per_class))

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

    def _class_scores(self, votes, decide=False):
        """The number of deployed voters voting for each class (the votes mapped to the
        estimator's classes)."""
        return weighted_vote_scores(self._codes[votes], self.weights_, self.classes_.size)

    def _shares(self, scores):
        """The share of the deployed voters voting for each class."""
        return scores / self.weights_.sum()

    def _own_model(self):
        return own_model(self.voters_, self._codes)


class _FoldHoldOut(HeldOutVote):
    """One hold-out candidate: ``voters`` grown on the rows one fold of one fraction leaves,
    their plain vote certified on the fold (the candidate
    :class:`~skpacbayes.CertifiedVoteClassifier` deploys).

    The held-out rows are block ``fold`` of the permutation of
    :func:`~skpacbayes.engine.protocols.held_out.validation_rows` drawn from
    ``rows_seed(random_state)`` and the sample size alone (fold 0 is what
    :class:`~skpacbayes.HoldOutBoundClassifier` holds out with the same fraction and
    ``random_state``): the folds of one fraction are disjoint (fold 1 of ``0.5`` is the
    other half), and the test-set bound applies to each (:ref:`theory-holdout`). Its
    parameters are HoldOut's, with ``validation_fraction`` a single float.
    """

    #: documented as the estimator it is one fold of (its HTML repr links there)
    _doc_link_parent = "HoldOutBoundClassifier"

    _parameter_constraints: ClassVar[dict] = {
        **HeldOutVote._parameter_constraints,
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "fold": [Integers(0, None, closed="left")],
    }

    __init__ = keyword_init(
        voters=None,
        validation_fraction=0.5,
        fold=1,
        delta=0.05,
        random_state=None,
        n_jobs=None,
        verbose=0,
        per_class=False,
    )

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, **fit_params):
        """Grow the voters on the rows the fold leaves and certify their vote on the fold.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Class labels (at least two classes).
        **fit_params : dict
            Not supported (a ``TypeError`` names the estimator).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        reject_fit_params(self, fit_params)
        X, y, classes = validate_training_data(self, X, y)
        self.classes_ = classes
        y_idx = np.searchsorted(classes, y)
        spec = self._spec(rows_seed(self.random_state))
        fraction = float(self.validation_fraction)
        self._copy_result(certify_fractions(spec, X, y, y_idx, classes, (fraction,), self.fold))
        return self


def fitted_fold(params, result, classes, n_features, feature_names=None):
    """A fitted hold-out candidate (:class:`_FoldHoldOut`) from the result of its protocol.

    The candidate of parameters ``params`` (``voters``, ``validation_fraction``, ``fold``,
    ``delta``, ``random_state``, ``n_jobs``, ``per_class``), fitted: the ``result`` (a
    ``HeldOutResult``) its protocol handed back is copied onto it, with the ``classes`` of
    the fit, the ``n_features`` it saw and their ``feature_names`` (when the fit saw a
    DataFrame), so that its predictions and certificate are the candidate's.
    """
    estimator = _FoldHoldOut(**params)
    estimator.classes_ = classes
    estimator.n_features_in_ = int(n_features)
    if feature_names is not None:
        estimator.feature_names_in_ = feature_names
    estimator._copy_result(result)
    return estimator
