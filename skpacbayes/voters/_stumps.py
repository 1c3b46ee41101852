"""Decision stumps on a grid of thresholds."""

from numbers import Integral

import numpy as np
from scipy import sparse
from sklearn.utils._param_validation import Interval

from ._base import BaseVoters

__all__ = ["StumpBank"]


class StumpBank(BaseVoters):
    """Decision stumps on evenly spread thresholds of every feature.

    For each feature ``d`` with range ``[lo_d, hi_d]`` the bank uses the
    ``n_thresholds`` interior points of an even grid,

    ``t_i = lo_d + i * ((hi_d - lo_d) / (n_thresholds + 1))``, ``i = 1..n_thresholds``,

    and, for binary labels, both orientations ``s`` in ``{+1, -1}`` of the stump
    ``f(x) = s * (+1 if x_d > t else -1)`` (a tie ``x_d == t`` gives ``-s``). The
    output ``-1`` is ``classes_[0]`` and ``+1`` is ``classes_[1]``; ``votes``
    returns the class index ``(f(x) + 1) // 2``.

    Parameters
    ----------
    n_thresholds : int, default=10
        Number of thresholds per feature (``T``).
    feature_range : array-like of shape (2,) or (n_features, 2), default=None
        ``(min, max)`` of every feature (a pair is used for all features). When
        None, the range of each feature on the training data is used.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Sorted class labels.
    n_classes_ : int
        Number of classes ``k``.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features, when ``X`` has string column names.
    feature_range_ : ndarray of shape (n_features_in_, 2)
        The ``(min, max)`` used for each feature.
    thresholds_ : ndarray of shape (n_features_in_, n_thresholds)
        The grid of each feature. Rows of features that produce no voter
        (``min == max``) are NaN.
    n_voters_ : int
        Number of stumps.
    stump_features_ : ndarray of shape (n_voters_,)
        Feature index of each stump.
    stump_thresholds_ : ndarray of shape (n_voters_,)
        Threshold of each stump.
    stump_signs_ : ndarray of shape (n_voters_,)
        Orientation ``s`` of each stump: ``+1`` when the class voted above the
        threshold has the larger index, ``-1`` otherwise.
    stump_votes_ : ndarray of shape (n_voters_, 2)
        Class index voted by each stump when ``x_d <= t`` (column 0) and when
        ``x_d > t`` (column 1).
    voter_groups_ : ndarray of shape (n_voters_,)
        All ``-1``: the stumps do not depend on the training examples.
    sample_groups_ : ndarray of shape (n_fit_samples,)
        All ``0``: every stump may be evaluated on every training example.
    n_groups_ : int
        Always 1.

    See Also
    --------
    SplitForest : trees grown on two halves of the training sample.
    PrefitVoters : classifiers fitted beforehand on other data.

    Notes
    -----
    **Data independence.** PAC-Bayes bounds assume that the voters are fixed
    before the training sample is seen. With ``feature_range`` given (e.g.
    ``(0, 1)`` for pixel intensities, or a range known from the data source),
    the stumps depend on nothing but the number of features and the labels'
    names, and the bound holds exactly as stated. With ``feature_range=None``
    the grid uses the minimum and maximum of the training data, as in the
    reference paper: this is a mild data dependence (two order statistics per
    feature) which the bound does not account for.

    **Degenerate features.** A feature with ``min == max`` produces no stump (all
    its stumps would be constant), and thresholds that coincide after rounding
    are kept once, so the bank never contains duplicate voters. When
    ``feature_range`` is given, which features produce stumps depends only on
    ``feature_range``, never on the data. If no feature produces a stump, ``fit``
    raises a ``ValueError``.

    **Multi-class labels (k > 2).** A hard vote must name one class on each side
    of the threshold, so each stump is given an ordered pair of distinct classes
    ``(a, b)``: it votes ``b`` when ``x_d > t`` and ``a`` otherwise. All ``k (k - 1)``
    ordered pairs are used, i.e. both orientations of each one-vs-one pair
    ``{a, b}``: orientation ``s = +1`` votes the larger index above the threshold,
    ``s = -1`` the smaller. This one-vs-one construction does not look at the data,
    every stump is a genuine separator between two classes, and the posterior can
    express any per-class score on each side of each threshold. For ``k = 2`` it is
    exactly the binary bank above. The number of voters is

    ``n_voters_ = n_active_features * n_unique_thresholds * k * (k - 1)``

    (``2 * d * T`` for binary labels), and the vote matrix takes
    ``n_samples * n_voters_`` bytes for ``k <= 127``. It grows as ``k**2``: for
    many classes or many features prefer :class:`SplitForest`.

    **Order of the voters.** Blocks of ``n_active_features * n_unique_thresholds``
    stumps, one block per (orientation, pair): first all ``s = +1`` blocks, then
    all ``s = -1`` blocks, pairs ``a < b`` in lexicographic order; inside a block,
    by feature then increasing threshold.

    Examples
    --------
    >>> import numpy as np
    >>> from skpacbayes.voters import StumpBank
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> y = np.array(["no", "no", "yes", "yes"])
    >>> bank = StumpBank(n_thresholds=2).fit(X, y)
    >>> bank.thresholds_
    array([[1., 2.]])
    >>> bank.stump_signs_
    array([ 1,  1, -1, -1], dtype=int8)
    >>> bank.votes(X)
    array([[0, 0, 1, 1],
           [0, 0, 1, 1],
           [1, 0, 0, 1],
           [1, 1, 0, 0]], dtype=int8)
    >>> bank.classes_[bank.votes([[2.5]])]
    array([['yes', 'yes', 'no', 'no']], dtype='<U3')

    Data-independent grid over a known range:

    >>> StumpBank(n_thresholds=3, feature_range=(0, 1)).fit(X, y).thresholds_
    array([[0.25, 0.5 , 0.75]])
    """

    _parameter_constraints: dict = {
        "n_thresholds": [Interval(Integral, 1, None, closed="left")],
        "feature_range": ["array-like", None],
    }

    def __init__(self, n_thresholds=10, feature_range=None):
        self.n_thresholds = n_thresholds
        self.feature_range = feature_range

    def _ranges(self, X):
        n_features = X.shape[1]
        if self.feature_range is None:
            if X.shape[0] == 0:  # pragma: no cover - validate_data forbids it
                raise ValueError("StumpBank needs at least one sample.")
            if sparse.issparse(X):
                lo = np.asarray(X.min(axis=0).toarray(), dtype=np.float64).ravel()
                hi = np.asarray(X.max(axis=0).toarray(), dtype=np.float64).ravel()
            else:
                lo = np.asarray(X.min(axis=0), dtype=np.float64)
                hi = np.asarray(X.max(axis=0), dtype=np.float64)
            return lo, hi
        try:
            rng = np.asarray(self.feature_range, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"feature_range must be numeric (min, max) pairs; got {self.feature_range!r}."
            ) from exc
        if rng.shape == (2,):
            rng = np.broadcast_to(rng, (n_features, 2))
        elif rng.shape != (n_features, 2):
            raise ValueError(
                "feature_range must have shape (2,) or (n_features, 2) = "
                f"({n_features}, 2); got shape {rng.shape}."
            )
        if not np.all(np.isfinite(rng)):
            raise ValueError("feature_range must contain finite values only.")
        if np.any(rng[:, 0] > rng[:, 1]):
            bad = np.flatnonzero(rng[:, 0] > rng[:, 1])
            raise ValueError(
                f"feature_range must satisfy min <= max; violated for features {bad.tolist()}."
            )
        return rng[:, 0].copy(), rng[:, 1].copy()

    def _fit(self, X, y_encoded):
        n_thr = int(self.n_thresholds)
        k = self.n_classes_
        lo, hi = self._ranges(X)
        self.feature_range_ = np.column_stack([lo, hi])

        i = np.arange(1, n_thr + 1)[None, :]
        with np.errstate(over="ignore", invalid="ignore"):
            step = (hi - lo) / (n_thr + 1)
            grid = lo[:, None] + i * step[:, None]
        # |lo|, |hi| near the float maximum: hi - lo or i * step overflows. The same grid at
        # half scale, doubled back (exact, powers of two): finite, ordered, inside [lo, hi].
        huge = ~np.all(np.isfinite(grid), axis=1)
        if np.any(huge):
            lo2, hi2 = lo[huge] / 2, hi[huge] / 2
            grid[huge] = 2 * (lo2[:, None] + i * ((hi2 - lo2) / (n_thr + 1))[:, None])
        active = hi > lo
        grid[~active] = np.nan
        self.thresholds_ = grid

        features, thresholds = [], []
        for f in np.flatnonzero(active):
            uniq = np.unique(grid[f])
            features.append(np.full(uniq.size, f, dtype=np.intp))
            thresholds.append(uniq)
        if not features:
            raise ValueError(
                "StumpBank: every feature has min == max (over the training data, or in "
                "feature_range), so no stump can be built."
            )
        feat = np.concatenate(features)
        thr = np.concatenate(thresholds)
        n_ft = feat.size

        lo_cls, hi_cls = np.triu_indices(k, 1)
        below = np.concatenate([lo_cls, hi_cls])  # s = +1 blocks, then s = -1 blocks
        above = np.concatenate([hi_cls, lo_cls])
        n_blocks = below.size
        self._blocks = np.column_stack([below, above]).astype(np.intp)
        self._ft_features = feat
        self._ft_thresholds = thr
        self._active_features = np.flatnonzero(active)
        self._ft_offsets = np.concatenate([[0], np.cumsum([a.size for a in thresholds])])

        self.n_voters_ = n_blocks * n_ft
        self.stump_features_ = np.tile(feat, n_blocks)
        self.stump_thresholds_ = np.tile(thr, n_blocks)
        self.stump_signs_ = np.repeat(np.where(above > below, 1, -1).astype(np.int8), n_ft)
        self.stump_votes_ = np.repeat(self._blocks, n_ft, axis=0)
        self.voter_groups_ = np.full(self.n_voters_, -1, dtype=np.int8)
        self.sample_groups_ = np.zeros(X.shape[0], dtype=np.int8)
        self.n_groups_ = 1

    def _row_bytes(self, X):
        extra = 8 * X.shape[1] if sparse.issparse(X) else 0
        return self._ft_features.size + extra + 16

    def _votes_chunk(self, X, out):
        if sparse.issparse(X):
            X = X.toarray()
        n_rows = X.shape[0]
        n_ft = self._ft_features.size
        above_thr = np.empty((n_rows, n_ft), dtype=bool)
        offsets = self._ft_offsets
        for pos, f in enumerate(self._active_features):
            o0, o1 = offsets[pos], offsets[pos + 1]
            np.greater(X[:, f, None], self._ft_thresholds[o0:o1], out=above_thr[:, o0:o1])
        g = above_thr.view(np.int8)
        scalar = out.dtype.type
        for b, (below, above) in enumerate(self._blocks):
            block = out[:, b * n_ft : (b + 1) * n_ft]
            if below == 0 and above == 1:
                np.copyto(block, g)
            elif below == 1 and above == 0:
                np.subtract(scalar(1), g, out=block)
            else:
                np.multiply(g, scalar(above - below), out=block)
                np.add(block, scalar(below), out=block)
