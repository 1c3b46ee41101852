"""The risk vocabulary: the rates a decision is certified on, as statements on a confusion matrix.

A classifier fixed before its rows are read (possibly abstaining) turns each row into a cell
of the confusion matrix ``C[true, predicted]`` (``K`` classes, and a last column for the rows
it does not answer). Every risk of the vocabulary is, for each class it concerns, the rate of
an *error* event among the rows of a *denominator* event, both unions of cells:

``"error"``
    predicted != true, among the answered rows (one statement; with no abstention, the
    error rate of ``predict``; with abstention, the selective risk);
``"miss_rate"`` (1 - recall), per true class ``c``
    predicted != ``c``, among the answered rows of true class ``c``;
``"false_positive_rate"`` (one-vs-rest), per class ``c``
    predicted == ``c``, among the answered rows of another true class;
``"false_discovery_rate"`` (1 - precision), per predicted class ``c``
    true != ``c``, among the rows predicted ``c``.

Each statement's count is binomial given the number of rows of its denominator (the rows are
i.i.d. and the classifier fixed: :ref:`Lemma D <theory-decisions>`, which also covers the
random denominators of the precision and of abstention), so its certified upper bound is the
exact binomial tail inversion at its share of ``delta``. Statements with the same cells (in a
binary task, the miss rate of one class is the false-positive rate of the other) are one
statement, certified once. Confusion matrices add over blocks of rows, so a protocol may count
them block by block, in memory, on a stream or on a dask array.
"""

from dataclasses import dataclass

import numpy as np

from skpacbayes._docstrings import fill_doc

__all__ = [
    "RISKS",
    "RiskStatement",
    "beside_error",
    "certified_upper",
    "check_risks",
    "class_counts",
    "confusion_counts",
    "error_counts",
    "group_confusion_counts",
    "risk_statements",
]

#: The names of the vocabulary, in the order they are reported.
RISKS = ("error", "miss_rate", "false_positive_rate", "false_discovery_rate")


@dataclass(frozen=True)
class RiskStatement:
    """One statement of the vocabulary: an error event among the rows of a denominator event.

    Attributes
    ----------
    names : tuple of (str, int or None)
        The (risk, class index) pairs it certifies (class None for ``"error"``; two pairs when
        two risks of the vocabulary have the same cells).
    rows : ndarray of bool, shape (K, K + 1)
        The cells of the denominator (true class, predicted class or ``K`` for no answer).
    errors : ndarray of bool, shape (K, K + 1)
        The cells of the error event, a subset of ``rows``.
    """

    names: tuple
    rows: np.ndarray
    errors: np.ndarray

    def counts(self, confusion):
        """Errors and rows of the statement in a confusion matrix.

        Parameters
        ----------
        confusion : ndarray of int, shape (K, K + 1)
            Row counts per (true, predicted) cell, from :func:`confusion_counts`.

        Returns
        -------
        errors, rows : int
        """
        confusion = np.asarray(confusion)
        return int(confusion[self.errors].sum()), int(confusion[self.rows].sum())

    def true_classes(self):
        """The true classes whose rows the statement reads (those of its denominator).

        Returns
        -------
        classes : frozenset of int
        """
        return frozenset(int(c) for c in np.flatnonzero(self.rows.any(axis=1)))


def check_risks(risks, parameter="risks"):
    """The risk names of a ``risks`` parameter, checked: ``"all"`` or a sequence of names.

    Parameters
    ----------
    risks : "all" or sequence of str
        Names among :data:`RISKS`, each at most once.
    parameter : str, default="risks"
        The parameter named by the error.

    Returns
    -------
    names : tuple of str
        In the order of :data:`RISKS`.

    Raises
    ------
    ValueError
        On an unknown or repeated name.

    Examples
    --------
    >>> from skpacbayes.engine.risks import check_risks
    >>> check_risks(["miss_rate", "error"])
    ('error', 'miss_rate')
    >>> check_risks("all") == ("error", "miss_rate", "false_positive_rate", "false_discovery_rate")
    True
    """
    if isinstance(risks, str):
        if risks == "all":
            return RISKS
        risks = (risks,)
    names = list(risks)
    unknown = [r for r in names if r not in RISKS]
    if unknown or len(set(names)) != len(names):
        raise ValueError(
            f"{parameter} must be 'all' or distinct names among {list(RISKS)}; got {risks!r}."
        )
    return tuple(r for r in RISKS if r in names)


def _cells(risk, c, n_classes):
    """The (rows, errors) cells of ``risk`` for class ``c`` (None for ``"error"``)."""
    k = n_classes
    true = np.arange(k)[:, None]
    pred = np.arange(k + 1)[None, :]
    answered = pred < k
    if risk == "error":
        rows = np.broadcast_to(answered, (k, k + 1))
        return rows, rows & (pred != true)
    if risk == "miss_rate":
        rows = answered & (true == c)
        return rows, rows & (pred != c)
    if risk == "false_positive_rate":
        rows = answered & (true != c)
        return rows, rows & (pred == c)
    rows = np.broadcast_to(pred == c, (k, k + 1))  # false_discovery_rate
    return rows, rows & (true != c)


def risk_statements(risks, n_classes):
    """The distinct statements certifying ``risks`` on a ``n_classes`` task.

    Parameters
    ----------
    risks : sequence of str
        Names among :data:`RISKS` (see :func:`check_risks`).
    n_classes : int
        ``K >= 2``.

    Returns
    -------
    statements : list of RiskStatement
        One per distinct pair of cells, in the order of ``risks`` and of the classes.

    Examples
    --------
    >>> from skpacbayes.engine.risks import risk_statements
    >>> [s.names for s in risk_statements(("miss_rate", "false_positive_rate"), 2)]
    [(('miss_rate', 0), ('false_positive_rate', 1)), (('miss_rate', 1), ('false_positive_rate', 0))]
    >>> len(risk_statements(("error", "miss_rate", "false_discovery_rate"), 3))
    7
    """
    found = {}
    for risk in risks:
        for c in [None] if risk == "error" else range(n_classes):
            rows, errors = _cells(risk, c, n_classes)
            key = (rows.tobytes(), errors.tobytes())
            names, _, _ = found.get(key, ((), rows, errors))
            found[key] = (names + ((risk, c),), rows, errors)
    return [
        RiskStatement(names, np.array(rows), np.array(errors))
        for names, rows, errors in found.values()
    ]


def beside_error(risks, n_classes):
    """The statements of ``risks`` besides the error rate of the answers (which a held-out
    certificate's own value certifies).

    Parameters
    ----------
    risks : sequence of str
        Names among :data:`RISKS`.
    n_classes : int

    Returns
    -------
    statements : list of RiskStatement

    Examples
    --------
    >>> from skpacbayes.engine.risks import beside_error
    >>> [s.names for s in beside_error(("error", "miss_rate"), 2)]
    [(('miss_rate', 0),), (('miss_rate', 1),)]
    """
    return [s for s in risk_statements(risks, n_classes) if ("error", None) not in s.names]


def confusion_counts(y_true, y_pred, n_classes):
    """Row counts per (true class, predicted class) cell, with a last column for no answer.

    Parameters
    ----------
    y_true : array-like of int, shape (n_rows,)
        True class indices in ``[0, K)``.
    y_pred : array-like of int, shape (n_rows,)
        Predicted class indices in ``[0, K)``, or ``-1`` (or ``K``) where the classifier
        does not answer.
    n_classes : int
        ``K``.

    Returns
    -------
    confusion : ndarray of int64, shape (K, K + 1)
        Additive over blocks of rows.

    Examples
    --------
    >>> from skpacbayes.engine.risks import confusion_counts
    >>> confusion_counts([0, 0, 1, 1], [0, 1, 1, -1], 2)
    array([[1, 1, 0],
           [0, 1, 1]])
    """
    y_true = np.asarray(y_true, dtype=np.int64)
    y_pred = np.asarray(y_pred, dtype=np.int64)
    y_pred = np.where(y_pred < 0, n_classes, y_pred)
    cells = np.bincount(y_true * (n_classes + 1) + y_pred, minlength=n_classes * (n_classes + 1))
    return cells.reshape(n_classes, n_classes + 1)


#: the parameter of the counts read from a confusion matrix
_OF_CONFUSION = """\
Parameters
----------
confusion : ndarray of int, shape (K, K + 1)
    From :func:`confusion_counts`."""


@fill_doc(of_confusion=_OF_CONFUSION)
def error_counts(confusion):
    """The errors and the rows of the error rate: the answered rows and those of them whose
    predicted class is not the true one.

    {of_confusion}

    Returns
    -------
    errors, rows : int

    Examples
    --------
    >>> from skpacbayes.engine.risks import error_counts
    >>> error_counts([[1, 1, 0], [0, 1, 1]])
    (1, 3)
    """
    answered = np.asarray(confusion, dtype=np.int64)[:, :-1]
    return int(answered.sum() - np.trace(answered)), int(answered.sum())


@fill_doc(of_confusion=_OF_CONFUSION)
def class_counts(confusion):
    """The errors and the answered rows of each true class (the counts of its miss rate).

    {of_confusion}

    Returns
    -------
    errors, rows : ndarray of int64, shape (K,)

    Examples
    --------
    >>> from skpacbayes.engine.risks import class_counts
    >>> class_counts([[1, 1, 0], [0, 1, 1]])
    (array([1, 0]), array([2, 1]))
    """
    confusion = np.asarray(confusion, dtype=np.int64)
    rows = confusion[:, :-1].sum(axis=1)
    return rows - np.diagonal(confusion), rows


def group_confusion_counts(y_true, y_pred, groups, n_groups, n_classes):
    """:func:`confusion_counts` of the rows of each group.

    Parameters
    ----------
    y_true, y_pred : array-like of int, shape (n_rows,)
        As in :func:`confusion_counts`.
    groups : array-like of int, shape (n_rows,)
        Group indices in ``[0, n_groups)``.
    n_groups, n_classes : int

    Returns
    -------
    confusions : ndarray of int64, shape (n_groups, K, K + 1)

    Examples
    --------
    >>> from skpacbayes.engine.risks import group_confusion_counts
    >>> group_confusion_counts([0, 1, 1], [0, 0, 1], [0, 0, 1], 2, 2)[0]
    array([[1, 0, 0],
           [1, 0, 0]])
    """
    y_true = np.asarray(y_true, dtype=np.int64)
    y_pred = np.asarray(y_pred, dtype=np.int64)
    y_pred = np.where(y_pred < 0, n_classes, y_pred)
    cell = (np.asarray(groups, dtype=np.int64) * n_classes + y_true) * (n_classes + 1) + y_pred
    counts = np.bincount(cell, minlength=n_groups * n_classes * (n_classes + 1))
    return counts.reshape(n_groups, n_classes, n_classes + 1)


def certified_upper(errors, rows, delta):
    """The certified upper bound of one statement: the exact binomial tail inversion.

    Parameters
    ----------
    errors, rows : int
        The statement's counts (:meth:`RiskStatement.counts`).
    delta : float
        Its share of the confidence parameter.

    Returns
    -------
    bound : float
        :func:`~skpacbayes.bounds.binomial_inv_upper` of the counts; 1.0 for a statement
        without rows (nothing is certified for it).

    Examples
    --------
    >>> from skpacbayes.engine.risks import certified_upper
    >>> round(certified_upper(16, 62, 0.05), 4), certified_upper(0, 0, 0.05)
    (0.3652, 1.0)
    """
    from skpacbayes.bounds import binomial_inv_upper

    return 1.0 if rows == 0 else float(binomial_inv_upper(int(errors), int(rows), delta))
