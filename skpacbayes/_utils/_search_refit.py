"""A warning when a scikit-learn search refits a certified estimator it selected on the data.

``GridSearchCV`` (and every search built on scikit-learn's ``BaseSearchCV``: randomized,
successive halving) ranks configurations on the sample, then refits the best one on the
whole sample as ``best_estimator_``. Its ``bound_`` certifies that fit at level ``delta``;
it does not cover the choice among the configurations whenever they differ in what fixes
the statement (the voters, the family, the prior, the bound, ``delta``, ...): that choice
needs the union bound (:ref:`theory-selection`). The refit is the one call a search always
makes in the user's own process, directly on the estimator it selected, so it can be told
apart cheaply and surely; a plain fit, or any other selection (a loop that keeps the best),
raises nothing.
"""

import sys
import warnings

__all__ = ["SelectionWarning", "warn_if_refit_by_search"]

#: frames between an estimator's ``fit`` and the search's ``fit`` that may lie between them:
#: scikit-learn's ``_fit_context`` wrapper, a ``Pipeline`` (its ``fit`` and ``_fit`` steps),
#: callbacks' context managers
_MAX_DEPTH = 12


class SelectionWarning(UserWarning):
    """A search chose this estimator's configuration on the data its ``bound_`` is computed on.

    Raised when a scikit-learn search (``GridSearchCV``, ``RandomizedSearchCV``, successive
    halving) refits a certified estimator as its ``best_estimator_`` after comparing
    configurations that differ in what fixes the certified statement. The refitted
    ``bound_`` certifies its own fit, not the choice:
    :class:`~skpacbayes.model_selection.BoundSelectionClassifier` over the same
    configurations (``delta`` split over them) keeps a certificate.

    Examples
    --------
    >>> import warnings
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.model_selection import GridSearchCV
    >>> from skpacbayes import FirstOrderBoundClassifier
    >>> from skpacbayes.model_selection import SelectionWarning
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> search = GridSearchCV(FirstOrderBoundClassifier(max_epochs=2, random_state=0),
    ...                       {"posterior": ["categorical", "gaussian"]}, cv=2)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = search.fit(X, y)
    >>> [w.category.__name__ for w in caught if issubclass(w.category, SelectionWarning)]
    ['SelectionWarning']
    """


def _refitting_search(estimator):
    """The search refitting ``estimator`` (or a pipeline holding it), its results and depth.

    ``None`` when no search's ``fit`` is refitting it. The depth counts frames from the
    caller of this function's caller (``warnings.warn``'s ``stacklevel`` there).
    """
    from sklearn.model_selection._search import BaseSearchCV

    frame = sys._getframe(2)  # the estimator's fit, then its callers
    for depth in range(2, 2 + _MAX_DEPTH):
        if frame is None:
            return None
        search = frame.f_locals.get("self") if frame.f_code.co_name == "fit" else None
        if isinstance(search, BaseSearchCV):
            best = getattr(search, "best_estimator_", None)
            if best is estimator or (
                best is not None
                and any(value is estimator for value in best.get_params(deep=True).values())
            ):
                return search, frame.f_locals.get("results"), depth
            return None  # a fit on a training fold, or another search's estimator
        frame = frame.f_back
    return None


def _varied(configurations, free):
    """The searched parameters that fix the statement and take several values, and their count.

    A parameter path (``clf__posterior``) counts unless its last part names a parameter in
    ``free`` (one that only steers the optimisation); the count is the number of distinct
    combinations of the counted parameters among the configurations searched.
    """
    counted = sorted(
        {key for params in configurations for key in params if key.rsplit("__", 1)[-1] not in free}
    )
    combos = {tuple(repr(params.get(key)) for key in counted) for params in configurations}
    varied = [key for key in counted if len({repr(p.get(key)) for p in configurations}) > 1]
    return varied, len(combos)


def warn_if_refit_by_search(estimator, free):
    """Warn when a scikit-learn search refits ``estimator`` after choosing it on the data.

    Called at the start of ``fit``. Nothing is raised for a plain fit, for the fits a search
    makes on its training folds, or when the configurations searched differ only in
    parameters that steer the optimisation (``free``): every statement holds for all
    posteriors at once, so choosing those from the data costs nothing.

    Parameters
    ----------
    estimator : estimator
        The estimator whose ``fit`` is running.
    free : frozenset of str
        The estimator's parameters that do not change the certified statement.
    """
    found = _refitting_search(estimator)
    if found is None:
        return
    search, results, depth = found
    if isinstance(results, dict) and "params" in results:
        configurations = list(results["params"])
    else:  # another scikit-learn layout: count every parameter the search set
        configurations = [dict(search.best_params_), {}]
    varied, count = _varied(configurations, free)
    if not varied:
        return
    name = type(estimator).__name__
    warnings.warn(
        f"{name} is being refitted by {type(search).__name__} as its best_estimator_, chosen "
        f"among {count} configurations that differ in {', '.join(varied)} on this same "
        "sample: its bound_ certifies this fit, not the choice. For a certificate that "
        f"covers the choice, report its recompute_bound(delta / {count}), or fit "
        "skpacbayes.model_selection.BoundSelectionClassifier on the same configurations "
        "(delta split over them).",
        SelectionWarning,
        stacklevel=depth,  # the search's line that refits
    )
