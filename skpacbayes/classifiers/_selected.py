"""What a selection estimator delegates to the candidate it deployed.

Shared by :class:`~skpacbayes.model_selection.BoundSelectionClassifier` and
:class:`~skpacbayes.CertifiedVoteClassifier`: predictions are the deployed candidate's, and
its certificate, re-computed at its share of ``delta``, certifies them (the union bound
covers the choice, :ref:`theory-selection`).
"""

import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data

from skpacbayes.classifiers._constraints import check_delta
from skpacbayes.classifiers._docstrings import fill_doc
from skpacbayes.classifiers._out_of_core import dask_rows

__all__ = ["SelectedCandidateMixin", "validated_for_predict"]


def validated_for_predict(estimator, X):
    """Fitted check and ``validate_data`` of a selection estimator before it delegates.

    The candidates were fitted on validated arrays (or, where the deployed one reads the
    rows as the user gives them, on those rows), so feature names (and their count) are
    checked here, by the estimator the user fitted.

    Parameters
    ----------
    estimator : fitted estimator
        The selection estimator.
    X : array-like of shape (n_samples, n_features)
        Input samples.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        Validated input (``X`` itself where the deployed candidate reads it as given).
    """
    check_is_fitted(estimator)
    if getattr(getattr(estimator.best_estimator_, "voters_", None), "_keeps_input", False):
        return validate_data(estimator, X, reset=False, skip_check_array=True)  # as given
    return validate_data(
        estimator, X, reset=False, accept_sparse="csr", dtype=[np.float64, np.float32]
    )


class SelectedCandidateMixin:
    """What a selection estimator delegates to the candidate it deployed.

    A selection estimator fits K certified candidates, candidate ``c`` at a share
    ``delta * w_c`` of the confidence budget (``w_c`` fixed before the data, summing to
    1; ``1 / K`` each unless the estimator says otherwise), and deploys one of them
    (``best_estimator_``). Predictions are that candidate's; its certificate, re-computed
    at its share, certifies them (the union bound covers the choice). The estimator
    gives every candidate's share of a budget in ``_candidate_deltas``, rounded down so
    that they sum to at most the budget (:func:`shares_within`).
    """

    def _candidate_deltas(self, delta):
        raise NotImplementedError

    def recompute_bound(self, delta):
        """Certificate of the selected classifier at another total confidence level.

        The selected candidate is re-certified at its share of ``delta`` (``delta / K``
        with K candidates, unless the estimator documents other shares): the union
        bound still covers the choice made at fit.

        Parameters
        ----------
        delta : float in (0, 1)
            Total confidence parameter, fixed independently of the data.

        Returns
        -------
        bound : float
            Certified upper bound on the risk of ``predict`` at confidence ``1 - delta``.

        Examples
        --------
        >>> from sklearn.datasets import load_breast_cancer
        >>> from skpacbayes import OccamBoundClassifier
        >>> from skpacbayes.model_selection import BoundSelectionClassifier
        >>> X, y = load_breast_cancer(return_X_y=True)
        >>> sel = BoundSelectionClassifier([OccamBoundClassifier()] * 2).fit(X, y)
        >>> sel.recompute_bound(sel.delta) == sel.bound_
        True
        """
        check_is_fitted(self)
        check_delta(delta, f"{type(self).__name__}.recompute_bound")
        return self.best_estimator_.recompute_bound(self._candidate_deltas(delta)[self.best_index_])

    @dask_rows("labels")
    @fill_doc()
    def predict(self, X):
        """Predict with the selected candidate.

        Parameters
        ----------
        {X_selected_rows}

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted class labels; ``bound_`` certifies their error rate.

        Examples
        --------
        {fitted_selection}
        >>> sel.predict(X[:5])
        array([0, 0, 0, 0, 0])
        """
        X = validated_for_predict(self, X)
        return self.best_estimator_.predict(X)

    @dask_rows("scores")
    @fill_doc()
    def decision_function(self, X):
        """Decision function of the selected candidate.

        Parameters
        ----------
        {X_selected_rows}

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            See :meth:`~skpacbayes.MajorityVoteClassifier.decision_function`.

        Examples
        --------
        {fitted_selection}
        >>> sel.decision_function(X[:2])
        array([-1., -1.])
        """
        X = validated_for_predict(self, X)
        return self.best_estimator_.decision_function(X)

    @dask_rows("proba")
    @fill_doc()
    def predict_proba(self, X):
        """Vote shares of the selected candidate.

        Parameters
        ----------
        {X_selected_rows}

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            See :meth:`~skpacbayes.MajorityVoteClassifier.predict_proba`.

        Examples
        --------
        {fitted_selection}
        >>> sel.predict_proba(X[:2]).shape
        (2, 2)
        """
        X = validated_for_predict(self, X)
        return self.best_estimator_.predict_proba(X)
