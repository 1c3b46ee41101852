"""The predictions of a fitted vote: each class's score, the class of largest score, shares.

Shared by the PAC-Bayes votes (:class:`~skpacbayes.MajorityVoteClassifier`) and the held-out
votes (:class:`~skpacbayes.HoldOutBoundClassifier` and the candidates of
:class:`~skpacbayes.CertifiedVoteClassifier`); each gives the scores of its vote and their
shares, the three methods are written once here.
"""

import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data

from skpacbayes.classifiers._docstrings import fill_doc
from skpacbayes.classifiers._out_of_core import dask_rows
from skpacbayes.engine.dask_passes import is_dask_input, predict_accuracy
from skpacbayes.engine.protocols.held_out_voters import own_model_output

__all__ = ["VotePredictions"]


class VotePredictions:
    """``decision_function``, ``predict`` and ``predict_proba`` of a fitted vote (a mixin).

    A subclass gives ``_class_scores(votes, decide)``, the score of each class from the
    votes of the fitted ``voters_`` on the rows (``decide=True``: only the arg-max is read),
    and ``_shares(scores)``, their shares; and, where its vote may be one model's ``predict``,
    ``_own_model()``: that model and the estimator's index of each of its classes (None
    otherwise), whose ``predict_proba`` and ``decision_function`` are then the estimator's.
    """

    def _own_model(self):
        """The deployed vote's one model (a prefit model, a grown boosted model) and the
        estimator's index of each of its classes; (None, None) where the vote is not one
        model's."""
        return None, None

    def _rows(self, X):
        """``X`` validated as in ``fit``."""
        check_is_fitted(self)
        if getattr(self.voters_, "_keeps_input", False):  # prefit models read X as given
            return validate_data(self, X, reset=False, skip_check_array=True)
        with np.errstate(invalid="ignore"):  # sklearn's finiteness pre-check sums X
            return validate_data(
                self, X, reset=False, accept_sparse="csr", dtype=[np.float64, np.float32]
            )

    def _scores(self, X, decide=False):
        """The vote of each class on the rows ``X``."""
        from skpacbayes.engine.passes import shared_vote_matrix

        X = self._rows(X)
        return self._class_scores(shared_vote_matrix(self.voters_, X), decide)

    def _model_output(self, X, method):
        """The deployed model's own ``method`` on ``X`` (its columns mapped to ``classes_``),
        or None where the vote is not one model's or the model has no ``method``."""
        check_is_fitted(self)
        model, columns = self._own_model()
        n_classes = self.classes_.size
        return own_model_output(model, columns, n_classes, method, lambda: self._rows(X))

    @dask_rows("scores")
    @fill_doc()
    def decision_function(self, X):
        """The vote of each class.

        Parameters
        ----------
        {X_rows}

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Binary tasks: the vote for ``classes_[1]`` minus the vote for ``classes_[0]``.
            Multi-class: the vote of every class. The weighted vote of a PAC-Bayes estimator
            (for a Gaussian posterior on split voters, the probability that each class
            wins); the number of deployed voters voting for each class for a held-out vote,
            and, when the deployed vote is one prefit model that has a
            ``decision_function`` over the same classes, the model's own.

        Examples
        --------
        {fitted_occam}
        >>> clf.decision_function(X[:2])  # binary: vote for classes_[1] minus vote for classes_[0]
        array([-1., -1.])
        """
        own = self._model_output(X, "decision_function")
        if own is not None:
            return own
        scores = self._scores(X)
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores

    @dask_rows("labels")
    @fill_doc()
    def predict(self, X):
        """The class of largest vote: what ``bound_`` certifies.

        With ``PrefitVoters(model)`` of one model on the hold-out line, the deployed voter is
        the model itself: this is ``model.predict``.

        Parameters
        ----------
        {X_rows}

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Class label with the largest vote (ties go to the first class of ``classes_``);
            ``bound_`` certifies the error rate of exactly these predictions (the certificate
            counted their errors, ties included).

        Examples
        --------
        {fitted_occam}
        >>> clf.predict(X[:5])
        array([0, 0, 0, 0, 0])
        """
        scores = self._scores(X, decide=True)
        return self.classes_[np.argmax(scores, axis=1)]

    @dask_rows("proba")
    @fill_doc()
    def predict_proba(self, X):
        """Vote shares of each class.

        For non-negative weights (a held-out vote, the Categorical and Dirichlet posteriors)
        the share of the total weight voting for each class; for a Gaussian posterior, the
        softmax of the vote scaled by ``1 / sqrt(n_voters)`` (or the mixture's win
        probabilities on split voters). The arg-max is the prediction, except for a held-out
        vote of one prefit model that has a ``predict_proba``: that is the model's own
        (columns in the order of ``classes_``, 0 for a class the model does not know), whose
        arg-max may differ from the model's ``predict`` where the model's does.

        Parameters
        ----------
        {X_rows}

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Vote shares (or the model's probabilities), in the order of ``classes_``. They
            carry no guarantee.

        Examples
        --------
        {fitted_occam}
        >>> clf.predict_proba(X[:2])  # a single voter: all the weight on one class
        array([[1., 0.],
               [1., 0.]])
        """
        own = self._model_output(X, "predict_proba")
        return self._shares(self._scores(X)) if own is None else own

    def score(self, X, y, sample_weight=None):
        """Mean accuracy of ``predict`` on ``X`` against ``y`` (its errors are what ``bound_``
        certifies).

        On a dask ``X`` (an array, or a DataFrame read by prefit models), one pass over its
        blocks adds up the right answers; ``y`` and ``sample_weight`` are then dask Series in
        the partitions of ``X``, or arrays of its rows (dask or in memory).

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array, dask DataFrame} of shape (n_samples, n_features)
            The rows, as ``predict`` takes them.
        y : array-like of shape (n_samples,)
            True labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows.

        Returns
        -------
        score : float
            The weighted share of the rows that ``predict`` labels right.
        """
        if is_dask_input(X, y):
            return predict_accuracy(self, X, y, sample_weight)
        return super().score(X, y, sample_weight=sample_weight)
