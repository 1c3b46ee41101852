"""Visualising certificates: certified bound against test error.

matplotlib is imported lazily, only when something is drawn.
"""

import numpy as np

__all__ = ["BoundDisplay"]


class BoundDisplay:
    """Certified bound vs test error, one point (or error bar) per method.

    Build it with :meth:`from_estimators` (fitted estimators and a test set)
    or :meth:`from_results` (rows of :func:`skpacbayes.benchmark.compare`),
    then :meth:`plot`. Points below the diagonal would be bounds smaller than
    the test error: they should not happen (up to test-set noise).

    Parameters
    ----------
    names : list of str
        Label of each point.
    bounds, test_errors : array-like of shape (n_points,)
        Mean certified bound and mean test error.
    bound_stds, test_stds : array-like of shape (n_points,), optional
        Standard deviations (error bars).
    title : str, optional
        Title of the plot.
    delta : float, optional
        The confidence parameter every bound holds at, shown as the legend's title
        (``delta = 0.05``); leave it None when the points differ (say it in their names).

    Attributes
    ----------
    ax_ : matplotlib Axes
        Axes drawn on by :meth:`plot`.
    figure_ : matplotlib Figure
        Figure holding ``ax_``.

    Examples
    --------
    >>> from skpacbayes.plotting import BoundDisplay
    >>> disp = BoundDisplay(["FO", "Partition"], [0.3, 0.2], [0.1, 0.12], delta=0.05).plot()
    >>> [t.get_text() for t in disp.ax_.get_legend().get_texts()][:2]
    ['FO', 'Partition']
    >>> disp.ax_.get_legend().get_title().get_text()
    'delta = 0.05'
    """

    def __init__(
        self,
        names,
        bounds,
        test_errors,
        bound_stds=None,
        test_stds=None,
        title=None,
        delta=None,
    ):
        self.names = list(names)
        self.bounds = np.asarray(bounds, dtype=float)
        self.test_errors = np.asarray(test_errors, dtype=float)
        self.bound_stds = None if bound_stds is None else np.asarray(bound_stds, dtype=float)
        self.test_stds = None if test_stds is None else np.asarray(test_stds, dtype=float)
        self.title = title
        self.delta = delta

    @classmethod
    def from_estimators(cls, estimators, X_test, y_test, names=None, ax=None, title=None):
        """Plot fitted skpacbayes estimators evaluated on a test set.

        Parameters
        ----------
        estimators : list of fitted estimators
            Each must have ``bound_``.
        X_test, y_test : array-like
            Held-out data.
        names : list of str, optional
            Defaults to each estimator's name without ``BoundClassifier`` (or
            ``Classifier``), followed by its posterior family where it has one
            (``FirstOrder/categorical``, ``HoldOut``).
        ax : matplotlib Axes, optional
            Axes to draw on; a new figure is created if None.
        title : str, optional
            Title of the axes.

        Returns
        -------
        BoundDisplay
            The display, already drawn (``ax_`` and ``figure_`` are set). The estimators'
            ``delta`` is the legend's title when they share one, else it ends each name.

        Examples
        --------
        >>> from sklearn.datasets import load_breast_cancer
        >>> from sklearn.ensemble import RandomForestClassifier
        >>> from sklearn.model_selection import train_test_split
        >>> from skpacbayes import HoldOutBoundClassifier, OccamBoundClassifier
        >>> from skpacbayes.plotting import BoundDisplay
        >>> X, y = load_breast_cancer(return_X_y=True)
        >>> X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
        >>> occam = OccamBoundClassifier(random_state=0).fit(X_train, y_train)
        >>> forest = RandomForestClassifier(n_estimators=10)
        >>> hold_out = HoldOutBoundClassifier(voters=forest, random_state=0).fit(X_train, y_train)
        >>> disp = BoundDisplay.from_estimators([occam, hold_out], X_test, y_test)
        >>> disp.names, disp.delta
        (['Occam/categorical', 'HoldOut'], 0.05)
        """
        if names is None:
            names = [_label(e) for e in estimators]
        deltas = [getattr(e, "delta", None) for e in estimators]
        delta = deltas[0] if len(set(deltas)) == 1 else None
        if delta is None:  # several levels: each point says its own
            names = [
                n if d is None else f"{n} (delta {d:g})" for n, d in zip(names, deltas, strict=True)
            ]
        bounds = [e.bound_ for e in estimators]
        errors = [float(np.mean(e.predict(X_test) != np.asarray(y_test))) for e in estimators]
        return cls(names, bounds, errors, title=title, delta=delta).plot(ax=ax)

    @classmethod
    def from_results(cls, rows, posterior="best", ax=None, title=None, delta=None):
        """Plot benchmark rows (mean and std over seeds per method).

        Parameters
        ----------
        rows : list of dict
            Rows of a :class:`skpacbayes.benchmark.CompareResult`.
        posterior : str, default="best"
            Which rows to show (a family name or "best").
        ax : matplotlib Axes, optional
            Axes to draw on; a new figure is created if None.
        title : str, optional
            Title of the axes.
        delta : float, optional
            The confidence parameter of the rows (``CompareResult.settings["delta"]``),
            shown as the legend's title.

        Returns
        -------
        BoundDisplay
            The display, already drawn (``ax_`` and ``figure_`` are set).

        Examples
        --------
        >>> from skpacbayes.plotting import BoundDisplay
        >>> rows = [{"method": "FO", "posterior": "best", "bound": b, "test_error": t}
        ...         for b, t in [(0.30, 0.10), (0.32, 0.12)]]
        >>> disp = BoundDisplay.from_results(rows)
        >>> disp.names, disp.bounds.round(2).tolist()
        (['FO'], [0.31])
        """
        sel = [r for r in rows if r["posterior"] == posterior]
        methods = list(dict.fromkeys(r["method"] for r in sel))
        stats = []
        for m in methods:
            b = np.array([r["bound"] for r in sel if r["method"] == m])
            t = np.array([r["test_error"] for r in sel if r["method"] == m])
            stats.append((b.mean(), t.mean(), b.std(), t.std()))
        b, t, bs, ts = (np.array(col) for col in zip(*stats, strict=True)) if stats else ([],) * 4
        return cls(methods, b, t, bs, ts, title=title, delta=delta).plot(ax=ax)

    def plot(self, ax=None):
        """Draw the points, their error bars and the diagonal.

        Each point has its own colour and marker and is named in a legend to the right of
        the axes, so names never overlap. A point that falls on earlier ones (within 1 % of
        the axes' range: two bounds that certify the same classifier with the same number)
        is drawn as a larger ring around them, so that none is hidden.

        A figure created here (``ax=None``) uses matplotlib's constrained layout, which keeps
        the legend inside the figure however it is saved; on axes of your own, leave room for
        it (or save with ``bbox_inches="tight"``).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Created if None.

        Returns
        -------
        self : BoundDisplay
            The display, with ``ax_`` and ``figure_`` set.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> from skpacbayes.plotting import BoundDisplay
        >>> fig, ax = plt.subplots()
        >>> disp = BoundDisplay(["FO"], [0.3], [0.1], title="toy").plot(ax=ax)
        >>> disp.ax_ is ax, ax.get_title()
        (True, 'toy')
        """
        import matplotlib.pyplot as plt

        if ax is None:
            # constrained layout makes room for the legend beside the axes, so the figure
            # shows it whole however it is saved (a gallery scraper saves without
            # bbox_inches="tight")
            _, ax = plt.subplots(figsize=(6.5, 4.5), layout="constrained")
        ax.errorbar(
            self.test_errors,
            self.bounds,
            xerr=self.test_stds,
            yerr=self.bound_stds,
            fmt="none",
            ecolor="0.6",
            elinewidth=1,
            capsize=2,
        )
        top = float(max(np.max(self.bounds, initial=0.0), np.max(self.test_errors, initial=0.0)))
        top = min(1.0, 1.05 * top + 0.02)
        # one colour and marker per point, named in a legend beside the axes: labels never
        # overlap, however close the points are; a point on earlier ones is a larger ring
        markers = "osD^vP*X<>ph"
        colors = plt.get_cmap("tab10").colors
        size = plt.rcParams["lines.markersize"] ** 2  # scatter's default area
        xs, ys = np.asarray(self.test_errors, float), np.asarray(self.bounds, float)
        for i, name in enumerate(self.names):
            color = colors[i % len(colors)]
            below = int(np.sum((np.abs(xs[:i] - xs[i]) <= 0.01 * top)
                               & (np.abs(ys[:i] - ys[i]) <= 0.01 * top)))  # fmt: skip
            style = {"color": color}
            if below:
                style = {"s": size * (1 + 1.2 * below) ** 2, "facecolors": "none",
                         "edgecolors": color, "linewidths": 1.5}  # fmt: skip
            ax.scatter(
                [xs[i]], [ys[i]], marker=markers[i % len(markers)], zorder=3, label=name, **style
            )
        ax.plot([0, top], [0, top], ls="--", color="0.7", lw=1, label="bound = test error")
        pad = 0.02 * top  # points on the edges (a bound of 1, an error of 0) stay whole
        ax.set_xlim(-pad, top + pad)
        ax.set_ylim(-pad, top + pad)
        ax.set_xlabel("test error")
        ax.set_ylabel("certified bound")
        if self.title:
            ax.set_title(self.title)
        ax.legend(
            loc="upper left",
            bbox_to_anchor=(1.02, 1.0),
            fontsize=8,
            borderaxespad=0,
            title=None if self.delta is None else f"delta = {self.delta:g}",
            title_fontsize=8,
        )
        self.ax_, self.figure_ = ax, ax.figure
        return self


def _label(estimator):
    """``FirstOrder/categorical``, ``HoldOut``, ``CertifiedVote``: the estimator's name without
    its suffix, and its posterior family where it has one."""
    name = type(estimator).__name__
    for suffix in ("BoundClassifier", "Classifier"):
        if name.endswith(suffix) and name != suffix:
            name = name[: -len(suffix)]
            break
    posterior = getattr(estimator, "posterior", None)
    return f"{name}/{posterior}" if isinstance(posterior, str) else name
