"""Decision stumps on a grid of thresholds fixed before the rows that certify them."""

from numbers import Integral

import numpy as np
from scipy import sparse
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions

from skpacbayes._docstrings import fill_doc

from ._base import FOUR_ROWS, BaseVoters, keep_parameters
from ._integers import Integers

__all__ = ["StumpBank"]

# build_size="auto": a tenth of the rows, at least min(10, m // 2), at most 1000.
_AUTO_BUILD_MIN = 10
_AUTO_BUILD_CAP = 1000


@fill_doc(four_rows=FOUR_ROWS)
class StumpBank(BaseVoters):
    """Decision stumps on a grid of thresholds of every feature, fixed before the bound's rows.

    For each feature ``d`` the bank takes up to ``n_thresholds`` thresholds ``t`` and, for
    binary labels, both orientations ``s`` in ``{+1, -1}`` of the stump
    ``f(x) = s * (+1 if x_d > t else -1)`` (a tie ``x_d == t`` gives ``-s``). The output
    ``-1`` is ``classes_[0]`` and ``+1`` is ``classes_[1]``; ``votes`` returns the class
    index ``(f(x) + 1) // 2``.

    Where the thresholds come from:

    * ``feature_range`` given (known in advance, e.g. ``(0, 255)`` for pixels): the
      ``n_thresholds`` interior points of an even grid on each ``[lo_d, hi_d]``,
      ``t_i = lo_d + i * (hi_d - lo_d) / (n_thresholds + 1)``, ``i = 1..n_thresholds``.
      The stumps depend on no training row, and every row serves the bound.
    * ``feature_range=None`` (default): ``build_size`` rows, drawn from ``random_state``
      and the number of rows alone (before any row is read), build the thresholds:
      the empirical quantiles ``i / (n_thresholds + 1)`` of each feature on those rows
      (``spacing="quantile"``, default), or the even grid between their minimum and
      maximum (``spacing="uniform"``). These build rows are then excluded from the
      bound (``sample_groups_``): the stumps are fixed before the other rows, which
      alone are used for the weights and the certificate (``certificate_.m`` counts
      them). See :ref:`theory-stump-bank`.

    Parameters
    ----------
    n_thresholds : int, default=10
        Number of thresholds per feature (``T``; fewer when some coincide).
    feature_range : array-like of shape (2,) or (n_features, 2), default=None
        ``(min, max)`` of every feature (a pair is used for all features), known
        without looking at the training data. When None, the thresholds are built from
        ``build_size`` training rows, which the bound then does not use.
    build_size : "auto", int or float, default="auto"
        Number of training rows that build the thresholds when ``feature_range`` is
        None: an int (rows), a float in ``(0, 1)`` (fraction of the rows, rounded up)
        or ``"auto"``: ``min(1000, max(m // 10, min(10, m // 2)))`` for ``m`` rows, a
        tenth of the sample (at least 10 rows when ``m >= 20``, at most 1000). At least
        one row must remain for the bound. Must be left at ``"auto"`` when
        ``feature_range`` is given.
    spacing : {"quantile", "uniform"} or None, default=None
        How the thresholds are placed when they are built from rows: ``"quantile"``
        (the default when ``feature_range`` is None) puts them at empirical quantiles,
        each one a value of the feature on a build row; ``"uniform"`` spreads them
        evenly between the build rows' minimum and maximum. With ``feature_range`` the
        grid is even (``None`` or ``"uniform"``; ``"quantile"`` is refused).
    random_state : int, RandomState instance or None, default=None
        Draws the build rows (a function of ``random_state`` and the number of rows
        only; unused with ``feature_range``). The estimators of this package pass their
        own seed when it is None.

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
        The ``(min, max)`` of each feature: ``feature_range``, or the build rows'
        minimum and maximum.
    thresholds_ : ndarray of shape (n_features_in_, n_thresholds)
        The distinct thresholds of each feature, increasing, padded with NaN. A row of
        NaN is a feature that produces no voter.
    build_indices_ : ndarray of shape (n_build,)
        Sorted rows (of the ``X`` given to ``fit``) that built the thresholds; empty
        when ``feature_range`` is given.
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
        All ``0`` when built from rows (the stumps depend on the build rows), all
        ``-1`` with ``feature_range``.
    sample_groups_ : ndarray of shape (n_fit_samples,)
        ``0`` on the build rows and ``1`` elsewhere (all ``0`` with ``feature_range``).
        A stump may be evaluated on row ``i`` iff ``sample_groups_[i] !=
        voter_groups_[j]``: never on a build row.
    n_groups_ : int
        Always 1 (one group of voters: this is not the two-halves protocol).

    See Also
    --------
    SplitForest : trees grown on two halves of the training sample.
    PrefitVoters : classifiers fitted beforehand on other data.

    Notes
    -----
    **Data independence.** PAC-Bayes bounds assume that the voters and the prior are
    fixed before the rows that evaluate them (assumption (A2), :ref:`theory-guarantee`).
    Thresholds taken from the range or the quantiles of all the training rows would
    break it; thresholds built on a part of the sample chosen independently of the data
    are fixed given that part, and the rest of the sample is a fresh i.i.d. sample for
    them (:ref:`theory-stump-bank`). The price is ``build_size`` rows fewer in the
    bound.

    **Degenerate features.** A feature that is constant (over the build rows, or in
    ``feature_range``) produces no stump, a quantile equal to the build rows' maximum
    is dropped (its stumps would be constant on the build rows), and thresholds that
    coincide are kept once, so the bank never contains two stumps with the same
    feature, threshold and orientation. If no feature produces a stump, ``fit`` raises
    a ``ValueError``.

    **Multi-class labels (k > 2).** A hard vote must name one class on each side
    of the threshold, so each stump is given an ordered pair of distinct classes
    ``(a, b)``: it votes ``b`` when ``x_d > t`` and ``a`` otherwise. All ``k (k - 1)``
    ordered pairs are used, i.e. both orientations of each one-vs-one pair
    ``{a, b}``: orientation ``s = +1`` votes the larger index above the threshold,
    ``s = -1`` the smaller. This one-vs-one construction does not look at the labels,
    every stump is a genuine separator between two classes, and the posterior can
    express any per-class score on each side of each threshold. For ``k = 2`` it is
    exactly the binary bank above. The number of voters is

    ``n_voters_ = n_distinct_thresholds * k * (k - 1)``

    (at most ``2 * d * T`` for binary labels), and the vote matrix takes
    ``n_samples * n_voters_`` bytes for ``k <= 127``. It grows as ``k**2``: for
    many classes or many features prefer :class:`SplitForest`.

    **Order of the voters.** Blocks of ``n_distinct_thresholds`` (feature, threshold)
    pairs, one block per (orientation, pair): first all ``s = +1`` blocks, then all
    ``s = -1`` blocks, pairs ``a < b`` in lexicographic order; inside a block, by
    feature then increasing threshold.

    Examples
    --------
    {four_rows}
    >>> y = np.array(["no", "no", "yes", "yes"])
    >>> bank = StumpBank(n_thresholds=2, feature_range=(0, 3)).fit(X, y)
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

    By default the thresholds are quantiles of a few rows drawn from the seed, and the
    bound does not use those rows:

    >>> X = np.arange(40.0).reshape(-1, 1)
    >>> bank = StumpBank(n_thresholds=3, random_state=0).fit(X, np.arange(40) >= 20)
    >>> bank.build_indices_.size, int(bank.evaluation_mask().any(axis=1).sum())
    (10, 30)
    """

    _fits_without_rows = True  # fit_without_rows: the shape of X and the labels

    _parameter_constraints: dict = {
        "n_thresholds": [Integers(1, None, closed="left")],
        "feature_range": ["array-like", None],
        "build_size": [
            StrOptions({"auto"}),
            Integers(1, None, closed="left"),
            Interval(RealNotInt, 0, 1, closed="neither"),
        ],
        "spacing": [StrOptions({"quantile", "uniform"}), None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_thresholds=10,
        *,
        feature_range=None,
        build_size="auto",
        spacing=None,
        random_state=None,
    ):
        keep_parameters(self, locals())

    def _given_ranges(self, n_features):
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

    def _even_grid(self, lo, hi):
        """``n_thresholds`` interior points of an even grid on each ``[lo, hi]`` (NaN if empty)."""
        n_thr = int(self.n_thresholds)
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
        grid[~(hi > lo)] = np.nan
        return grid

    def _quantile_grid(self, X_build):
        """Empirical quantiles ``i / (n_thresholds + 1)`` of each feature on the build rows.

        Every threshold is a value taken by the feature on a build row, strictly below the
        feature's largest build value (so that no stump is constant on the build rows).
        """
        n_thr = int(self.n_thresholds)
        levels = np.arange(1, n_thr + 1) / (n_thr + 1)
        grid = np.quantile(X_build, levels, axis=0, method="inverted_cdf").T
        grid[grid >= X_build.max(axis=0)[:, None]] = np.nan
        return grid

    def _build_rows(self, m):
        """Row indices of the build sample: a function of ``random_state`` and ``m`` only."""
        size = self.build_size
        if isinstance(size, str):  # "auto"
            n_build = min(_AUTO_BUILD_CAP, max(m // 10, min(_AUTO_BUILD_MIN, m // 2)))
        elif isinstance(size, Integral):
            n_build = int(size)
        else:
            n_build = int(np.ceil(float(size) * m))
        if not 1 <= n_build <= m - 1:
            raise ValueError(
                f"StumpBank builds its thresholds from build_size={size!r} training rows "
                f"({n_build} of n_samples={m}) and certifies on the others: it needs "
                "1 <= build rows <= n_samples - 1. Give more samples, a smaller build_size, "
                "or a data-independent feature_range."
            )
        rng = check_random_state(self.random_state)
        return np.sort(rng.permutation(m)[:n_build])

    def _no_stump_message(self, n_build, m):
        """Why no stump could be built: too few build rows, or genuinely constant features."""
        if self.feature_range is not None:
            return (
                "StumpBank: every feature is constant in feature_range (min == max), so no "
                "stump can be built."
            )
        if n_build < 2:
            return (
                f"StumpBank: too few training rows ({m}): the thresholds are built from "
                f"{n_build} of them (build_size={self.build_size!r}), and on a single row every "
                "feature is constant, so no stump can be built. Stumps need at least 2 build "
                "rows and more to certify on: give more samples (at least 4 with the default "
                "build_size), or a data-independent feature_range."
            )
        return (
            f"StumpBank: every feature is constant on the {n_build} build rows (min == max), "
            "so no stump can be built."
        )

    def _fit(self, X, y_encoded):
        n_thr = int(self.n_thresholds)
        k = self.n_classes_
        m, n_features = X.shape
        if self.feature_range is not None:
            for name, bad in (
                ("build_size", not isinstance(self.build_size, str)),
                ("spacing", self.spacing == "quantile"),
            ):
                if bad:
                    raise ValueError(
                        f"StumpBank: {name}={getattr(self, name)!r} applies only when the "
                        "thresholds are built from training rows (feature_range=None); with "
                        "a feature_range the grid is even over the given range. Leave "
                        f"{name} at its default."
                    )
            lo, hi = self._given_ranges(n_features)
            grid = self._even_grid(lo, hi)
            build = np.empty(0, dtype=np.intp)
        else:
            build = self._build_rows(m)
            X_build = X[build]
            if sparse.issparse(X_build):
                X_build = X_build.toarray()
            X_build = np.asarray(X_build, dtype=np.float64)
            lo, hi = X_build.min(axis=0), X_build.max(axis=0)
            if (self.spacing or "quantile") == "quantile":
                grid = self._quantile_grid(X_build)
            else:
                grid = self._even_grid(lo, hi)
        self.feature_range_ = np.column_stack([lo, hi])
        self.build_indices_ = build

        features, thresholds = [], []
        padded = np.full((n_features, n_thr), np.nan)
        for f in range(n_features):
            uniq = np.unique(grid[f][~np.isnan(grid[f])])
            if uniq.size == 0:
                continue
            padded[f, : uniq.size] = uniq
            features.append(np.full(uniq.size, f, dtype=np.intp))
            thresholds.append(uniq)
        if not features:
            raise ValueError(self._no_stump_message(build.size, m))
        self.thresholds_ = padded
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
        self._active_features = np.unique(feat)
        self._ft_offsets = np.concatenate([[0], np.cumsum([a.size for a in thresholds])])

        self.n_voters_ = n_blocks * n_ft
        self.stump_features_ = np.tile(feat, n_blocks)
        self.stump_thresholds_ = np.tile(thr, n_blocks)
        self.stump_signs_ = np.repeat(np.where(above > below, 1, -1).astype(np.int8), n_ft)
        self.stump_votes_ = np.repeat(self._blocks, n_ft, axis=0)
        # Evaluation rule (BaseVoters): voter j on row i iff sample_groups_[i] != voter_groups_[j].
        self.sample_groups_ = np.ones(m, dtype=np.int8)
        if build.size:  # built from rows: one group of voters, never evaluated on them
            self.voter_groups_ = np.zeros(self.n_voters_, dtype=np.int8)
            self.sample_groups_[build] = 0
        else:  # data-independent: every voter on every row
            self.voter_groups_ = np.full(self.n_voters_, -1, dtype=np.int8)
            self.sample_groups_[:] = 0
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
