"""What a selection estimator delegates to the candidate it deployed.

Shared by :class:`~skpacbayes.model_selection.BoundSelectionClassifier` and
:class:`~skpacbayes.CertifiedVoteClassifier`: predictions are the deployed candidate's, and
its certificate, re-computed at its share of ``delta``, certifies them (the union bound
covers the choice, :ref:`theory-selection`).
"""

import inspect

import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data

from skpacbayes.classifiers._constraints import check_delta
from skpacbayes.classifiers._docstrings import FRAGMENTS, fill_doc
from skpacbayes.classifiers._out_of_core import dask_rows
from skpacbayes.classifiers._vote_predictions import VotePredictions

__all__ = ["SelectedCandidateMixin", "validated_for_predict"]


def validated_for_predict(estimator, X):
    """The rows ``X`` (an ndarray, or ``X`` itself where the deployed candidate reads it as
    given) after the fitted check and ``validate_data`` of the selection ``estimator``.

    The candidates were fitted on validated arrays (or, where the deployed one reads the
    rows as the user gives them, on those rows), so feature names (and their count) are
    checked here, by the estimator the user fitted.
    """
    check_is_fitted(estimator)
    if getattr(getattr(estimator.best_estimator_, "voters_", None), "_keeps_input", False):
        return validate_data(estimator, X, reset=False, skip_check_array=True)  # as given
    return validate_data(
        estimator, X, reset=False, accept_sparse="csr", dtype=[np.float64, np.float32]
    )


def _selected_doc(method, summary, example):
    """The docstring of a selection's ``method``: ``summary``, then the text of the deployed
    vote's ``method`` (:class:`~skpacbayes.classifiers._vote_predictions.VotePredictions`) up
    to its Examples, then ``example`` on the fitted selection ``sel``."""
    text = inspect.cleandoc(getattr(VotePredictions, method).__doc__)
    body = text.partition("\n")[2].split("Examples\n--------")[0].rstrip()
    return f"{summary}\n{body}\n\nExamples\n--------\n{FRAGMENTS['fitted_selection']}\n{example}\n"


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

    @fill_doc()
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
        {fitted_selection}
        >>> sel.recompute_bound(sel.delta) == sel.bound_
        True
        """
        check_is_fitted(self)
        check_delta(delta, f"{type(self).__name__}.recompute_bound")
        return self.best_estimator_.recompute_bound(self._candidate_deltas(delta)[self.best_index_])

    def _delegated(self, method, X):
        """The deployed candidate's ``method`` on ``X``, validated by this estimator."""
        X = validated_for_predict(self, X)
        return getattr(self.best_estimator_, method)(X)

    @dask_rows("labels")
    def predict(self, X):
        return self._delegated("predict", X)

    @dask_rows("scores")
    def decision_function(self, X):
        return self._delegated("decision_function", X)

    @dask_rows("proba")
    def predict_proba(self, X):
        return self._delegated("predict_proba", X)

    predict.__doc__ = _selected_doc(
        "predict",
        "Predict with the selected candidate.",
        ">>> sel.predict(X[:5])\narray([0, 0, 0, 0, 0])",
    )
    decision_function.__doc__ = _selected_doc(
        "decision_function",
        "Decision function of the selected candidate.",
        ">>> sel.decision_function(X[:2])\narray([-1., -1.])",
    )
    predict_proba.__doc__ = _selected_doc(
        "predict_proba",
        "Vote shares of the selected candidate.",
        ">>> sel.predict_proba(X[:2]).shape\n(2, 2)",
    )
