"""The stream of a hold-out estimator with fixed voters: ``partial_fit`` and its time-uniform
certificate (:func:`~skpacbayes.bounds.binomial_anytime_upper`)."""

import numpy as np
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import validate_data

from skpacbayes.classifiers._fit_params import reject_fit_params
from skpacbayes.classifiers._held_out_rows import _has_fixed_voters
from skpacbayes.engine.dask_passes import is_dask_input

__all__ = []


class StreamMixin:
    """``partial_fit`` of :class:`~skpacbayes.HoldOutBoundClassifier` (prefit voters only)."""

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
