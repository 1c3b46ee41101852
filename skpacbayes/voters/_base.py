"""Common interface of the voter banks.

A voter bank turns a feature matrix ``X`` into a vote matrix ``V`` where
``V[i, j]`` is the index (into ``classes_``) of the class that voter ``j``
predicts for example ``i``. It also tells the bound which training examples each
voter may be evaluated on (all of them for data-independent voters, the other
half for voters grown on half of the sample, the rows that did not build them for
stumps built from a few rows).
"""

import os
import sys
from numbers import Integral
from pathlib import Path

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, _fit_context, clone
from sklearn.utils import _safe_indexing
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _num_samples, check_is_fitted, validate_data

from skpacbayes._docstrings import fill_doc

from ._integers import Integers

__all__ = ["DOCS_URL_ENV", "N_JOBS", "BaseVoters", "DocLinkMixin", "keep_parameters"]

#: the fitted attributes every voter bank documents first (``{fitted}`` in its docstring)
FITTED_ATTRIBUTES = """classes_ : ndarray of shape (n_classes,)
    Sorted class labels.
n_classes_ : int
    Number of classes.
n_features_in_ : int
    Number of features seen in ``fit``.
feature_names_in_ : ndarray of shape (n_features_in_,)
    Names of the features, when ``X`` has string column names."""

#: the setup of the examples on four rows of one feature (a stump bank fits them)
FOUR_ROWS = """\
>>> import numpy as np
>>> from skpacbayes.voters import StumpBank
>>> X = np.array([[0.0], [1.0], [2.0], [3.0]])"""

#: the example of the kinds of banks (:attr:`BaseVoters.is_split`, ``is_out_of_bag``)
_BANK_KINDS = """\
>>> from skpacbayes.voters import OutOfBagVoters, SplitForest, StumpBank
>>> banks = StumpBank(), SplitForest(), OutOfBagVoters()
>>> [bank.is_split for bank in banks], [bank.is_out_of_bag for bank in banks]
([False, True, True], [False, False, True])"""

#: ``n_jobs`` as scikit-learn reads it: None, a positive count, or -1, -2, ... (every core,
#: every core but one, ...); 0 means nothing and is refused (``InvalidParameterError``)
N_JOBS = [
    None,
    Integers(None, -1, closed="right"),
    Integers(1, None, closed="left"),
]

# Budget for the temporaries of one chunk of rows in ``votes`` (the output
# matrix itself is not counted: it is what the caller asked for).
_CHUNK_BYTES = 64 * 2**20

#: environment variable naming the base URL of the built HTML documentation
DOCS_URL_ENV = "SKPACBAYES_DOCS_URL"
#: the modules whose API pages exist (``docs/api.rst``), where a public class is looked up
_DOCUMENTED_MODULES = ("skpacbayes", "skpacbayes.voters", "skpacbayes.model_selection")


def keep_parameters(estimator, parameters):
    """Set each argument of an ``__init__`` as the attribute of its name, from that
    ``__init__``'s ``locals()`` (scikit-learn's rule: ``__init__`` stores its arguments as
    given, nothing more)."""
    for name, value in parameters.items():
        if name != "self":
            setattr(estimator, name, value)


def docs_base_url():
    """Base URL of the built HTML documentation, or ``""`` where none is known.

    ``$SKPACBAYES_DOCS_URL`` when set (for instance the address the docs are served from);
    otherwise the documentation built in this checkout (``docs/_build/html`` beside the
    package, by ``docs/build.sh``) when its ``index.html`` exists, as a ``file://`` URL.

    Returns
    -------
    url : str
        Ends with ``/``, or is empty.

    Examples
    --------
    >>> import os
    >>> from skpacbayes.voters._base import docs_base_url
    >>> os.environ["SKPACBAYES_DOCS_URL"] = "https://example.org/skpacbayes"
    >>> docs_base_url()
    'https://example.org/skpacbayes/'
    >>> del os.environ["SKPACBAYES_DOCS_URL"]
    """
    url = os.environ.get(DOCS_URL_ENV, "")
    if not url:
        built = Path(__file__).resolve().parents[2] / "docs" / "_build" / "html"
        url = built.as_uri() if (built / "index.html").is_file() else ""
    return url if not url or url.endswith("/") else url + "/"


class DocLinkMixin:
    """The link of an estimator's HTML repr to its page of the built API reference.

    scikit-learn's HTML repr (``_repr_html_``, shown by Jupyter) links each estimator to
    the page ``_get_doc_link`` returns. Here that is
    ``<base>gen_modules/generated/<module>.<Name>.html`` (the pages of ``docs/api.rst``),
    with ``<base>`` from :func:`docs_base_url` and ``<module>.<Name>`` the public name of
    the estimator's class, or of its nearest documented parent (or of the public class a
    private one names in ``_doc_link_parent``, the estimator it is a part of); no link
    where no built documentation is known.
    """

    _doc_link_module = "skpacbayes"

    @property
    def _doc_link_template(self):
        return docs_base_url() + "gen_modules/generated/{page}.html"

    def _doc_link_url_param_generator(self):
        parent = getattr(type(self), "_doc_link_parent", None)
        if parent is not None:
            return {"page": f"{self._doc_link_module}.{parent}"}
        for cls in type(self).__mro__:
            for name in _DOCUMENTED_MODULES:
                if getattr(sys.modules.get(name), cls.__name__, None) is cls:
                    return {"page": f"{name}.{cls.__name__}"}
        return None

    def _get_doc_link(self):
        if not docs_base_url() or self._doc_link_url_param_generator() is None:
            return ""
        return super()._get_doc_link()


def _votes_dtype(n_classes):
    """Smallest signed integer dtype able to hold the class indices."""
    if n_classes <= 127:
        return np.dtype(np.int8)
    if n_classes <= 32767:
        return np.dtype(np.int16)
    if n_classes <= 2**31 - 1:
        return np.dtype(np.int32)
    return np.dtype(np.int64)  # pragma: no cover


def check_float32_range(X, bank):
    """Refuse clearly the values scikit-learn's trees (float32 features) cannot represent."""
    values = X.data if hasattr(X, "tocsr") else np.asarray(X)
    if values.size == 0 or values.dtype.kind != "f":
        return
    largest, limit = float(np.max(np.abs(values))), float(np.finfo(np.float32).max)
    if largest > limit:
        raise ValueError(
            f"{bank}: X has values up to |x| = {largest:.3g}, beyond the float32 range "
            f"(|x| <= {limit:.3g}) of scikit-learn's decision trees. "
            "Rescale X (e.g. with sklearn.preprocessing.MaxAbsScaler or StandardScaler)."
        )


def resolve_voters(voters, default, seed, n_jobs):
    """An unfitted copy of the user's voters (or ``default``), seeded and parallelised.

    Parameters
    ----------
    voters : voter bank, scikit-learn classifier or None
        An estimator's ``voters`` parameter (cloned, never modified).
    default : voter bank or None
        Used when ``voters`` is None.
    seed : int
        Given to the bank's ``random_state`` when that is None.
    n_jobs : int or None
        Given to the bank's ``n_jobs`` when that is None.

    Returns
    -------
    voters : voter bank or classifier
        Unfitted.

    Examples
    --------
    >>> from skpacbayes.voters import StumpBank
    >>> from skpacbayes.voters._base import resolve_voters
    >>> resolve_voters(None, StumpBank(), seed=3, n_jobs=None).random_state
    3
    """
    voters = default if voters is None else clone(voters)
    params = voters.get_params(deep=False)
    if "random_state" in params and params["random_state"] is None:
        voters.set_params(random_state=seed)
    if "n_jobs" in params and params["n_jobs"] is None and n_jobs is not None:
        voters.set_params(n_jobs=n_jobs)
    return voters


def fit_without_rows(voters, X, classes, refusal_note=""):
    """Fit a bank that needs no pass over the rows, from the shape of ``X`` and the labels
    ``classes`` alone (``X`` a dask array; an in-memory ``X`` works the same).

    A :class:`~skpacbayes.voters.StumpBank` with ``feature_range`` and
    :class:`~skpacbayes.voters.PrefitVoters` read the shape of ``X`` only; the default
    ``StumpBank`` computes its few build rows, drawn from its seed and the number of rows
    alone, exactly as the in-memory fit draws them. Any other bank is grown on the rows and
    is refused.

    Parameters
    ----------
    voters : voter bank
        Unfitted.
    X : dask array or ndarray of shape (n_rows, n_features)
    classes : ndarray
        The sorted labels (PrefitVoters refuses those it does not know).
    refusal_note : str, default=""
        Appended to the message that refuses a bank grown on the rows (what works instead).

    Returns
    -------
    voters : voter bank
        Fitted.
    """
    if not voters._fits_without_rows:
        raise ValueError(
            f"The voters {type(voters).__name__} are grown on the training rows, which a dask "
            "array does not hold in memory (voters=None is SplitForest for more than two "
            "classes). On a dask array the voters must need no pass over the rows: "
            "StumpBank(feature_range=...), the default StumpBank() (built from a few "
            "seed-drawn rows) or PrefitVoters(model) (fitted beforehand on other data). "
            f"{refusal_note}"
        )
    voters._validate_params()
    voters._encode_y(classes)  # sets classes_ (PrefitVoters: refuses labels it does not know)
    voters.n_classes_ = len(voters.classes_)
    if getattr(X, "meta", None) is not None:  # a dask DataFrame's partitions: its columns
        validate_data(voters, X.meta, skip_check_array=True)
    elif "dask" in sys.modules and sys.modules["dask"].is_dask_collection(X):
        voters.n_features_in_ = X.shape[1]
        if hasattr(voters, "feature_names_in_"):
            del voters.feature_names_in_
    else:  # n_features_in_ and the feature names, X as given (a stream's first batch)
        validate_data(voters, X, skip_check_array=True)
    voters._fit(X, None)  # neither bank reads a label here
    return voters


def plain_numbers(X):
    """Whether ``X`` is a plain numeric matrix (an array of numbers, a sparse matrix): rows
    that validation turns into a float array or a CSR matrix losing nothing. A DataFrame (its
    columns, dtypes and categories), strings, objects or dicts are not."""
    if hasattr(X, "columns") or hasattr(X, "dtypes"):
        return False
    if sparse.issparse(X):
        return True
    try:
        return np.asarray(X).dtype.kind in "biuf"
    except (TypeError, ValueError):  # ragged rows: the model's validation will say
        return False


def reads_input_as_given(voters, X):
    """Whether the rows ``X`` reach ``voters`` as the user gave them: always for prefit
    models (they validate what they read); for a scikit-learn classifier grown here (a
    pipeline), where ``X`` is not :func:`plain_numbers` (a DataFrame keeps its columns,
    dtypes and categories); never for voter banks and the default voters (``None``), which
    read float arrays."""
    if voters is None:
        return False
    keeps = getattr(voters, "_keeps_input", None)  # voter banks: False; PrefitVoters: True
    return bool(keeps) if keeps is not None else not plain_numbers(X)


def n_columns(X):
    """The columns of ``X`` (a matrix, a DataFrame), or 64 for rows without a shape (a list of
    dicts for a ``DictVectorizer`` pipeline): what a chunk of rows is sized by."""
    shape = getattr(X, "shape", None)
    return int(shape[1]) if shape is not None and len(shape) == 2 else 64


def _n_chunk_rows(n_rows, row_bytes, chunk_size):
    """Number of rows per chunk: ``chunk_size`` or what fits in the budget."""
    if chunk_size is not None:
        return max(1, min(int(chunk_size), n_rows))
    return max(1, min(n_rows, _CHUNK_BYTES // max(1, int(row_bytes))))


class BaseVoters(DocLinkMixin, BaseEstimator):
    """Base class of the voter banks (not to be used directly).

    A subclass implements ``_fit(X, y_encoded)`` (which must set ``n_voters_``,
    ``voter_groups_``, ``sample_groups_`` and ``n_groups_``), ``_votes_chunk(X_chunk, out)``
    (which fills ``out``, shape ``(len(X_chunk), n_voters_)``) and
    ``_row_bytes(X)`` (temporary bytes per row of ``votes``, for the chunking).

    Evaluation rule for the bound: voter ``j`` may be evaluated on training
    example ``i`` (row ``i`` of the ``X`` given to ``fit``) if and only if
    ``sample_groups_[i] != voter_groups_[j]``. Data-independent banks use
    ``voter_groups_ = -1`` and ``sample_groups_ = 0`` (every voter on every
    example); a bank built from some rows marks them (``StumpBank``: voter group 0,
    sample group 0 on its build rows and 1 elsewhere). Only banks with two groups of
    voters follow the two-halves protocol (``is_split``).

    Examples
    --------
    >>> import numpy as np
    >>> from skpacbayes.voters import BaseVoters, StumpBank
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> bank = StumpBank(n_thresholds=1, feature_range=(0, 3)).fit(X, [0, 0, 1, 1])
    >>> isinstance(bank, BaseVoters), bank.is_split
    (True, False)
    >>> bank.votes(X)
    array([[0, 1],
           [0, 1],
           [1, 0],
           [1, 0]], dtype=int8)
    >>> bank.evaluation_mask().all()
    np.True_
    """

    _parameter_constraints: dict = {}

    # dtype requested from ``validate_data`` (see ``_validate_X``).
    _X_dtype = "numeric"
    # True for banks whose voters were grown on (part of) the training sample.
    _is_split = False
    # True for banks whose voters are each evaluated on their own out-of-bag rows.
    _is_out_of_bag = False
    # True for banks built from the shape of X and the labels alone (fit_without_rows).
    _fits_without_rows = False
    # True for banks that read the rows only through fitted models (PrefitVoters): X reaches
    # the models as the user gave it (a DataFrame with its columns and dtypes, a list of
    # dicts), and the models validate it.
    _keeps_input = False

    @property
    @fill_doc(bank_kinds=_BANK_KINDS)
    def is_split(self):
        """Whether the voters depend on the training sample (two halves, or out of bag).

        Examples
        --------
        {bank_kinds}
        """
        return self._is_split

    @property
    @fill_doc(bank_kinds=_BANK_KINDS)
    def is_out_of_bag(self):
        """Whether each voter is evaluated on its own out-of-bag rows (one row set per voter).

        Such a bank has no ``voter_groups_`` / ``sample_groups_``: its evaluation rule is
        :meth:`evaluation_mask` (one set of rows per voter, and per pair of voters).

        Examples
        --------
        {bank_kinds}
        """
        return self._is_out_of_bag

    # ------------------------------------------------------------------ fit
    @_fit_context(prefer_skip_nested_validation=False)
    @fill_doc(four_rows=FOUR_ROWS)
    def fit(self, X, y):
        """Build the voters.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data. NaN and infinite values are rejected. Sparse input is
            converted to CSR.
        y : array-like of shape (n_samples,)
            Class labels (any sortable label type, e.g. integers or strings).

        Returns
        -------
        self : object
            The fitted voter bank.

        Examples
        --------
        {four_rows}
        >>> bank = StumpBank(n_thresholds=1, feature_range=(0, 3)).fit(X, ["a", "a", "b", "b"])
        >>> bank.classes_, bank.n_voters_
        (array(['a', 'b'], dtype='<U1'), 2)
        """
        if "dask" in sys.modules and any(map(sys.modules["dask"].is_dask_collection, (X, y))):
            raise ValueError(
                f"{type(self).__name__}.fit holds its rows in memory and does not take a dask "
                "array. On a dask array, fit a certified estimator on StumpBank(...) or "
                "PrefitVoters(...): it builds them without a pass over the rows (see the "
                "scaling-out page). Or pass X.compute() when the rows fit in memory."
            )
        X, y = self._validate_fit_data(X, y)
        check_classification_targets(y)
        y_encoded = self._encode_y(y)
        self.n_classes_ = len(self.classes_)
        self._fit(X, y_encoded)
        return self

    def _validate_fit_data(self, X, y):
        """``X`` and ``y`` of ``fit``, validated (``n_features_in_`` and feature names set)."""
        with np.errstate(invalid="ignore"):  # sklearn's finiteness pre-check sums X (inf - inf)
            return validate_data(
                self, X, y, accept_sparse="csr", dtype=self._X_dtype, ensure_all_finite=True
            )

    def _encode_y(self, y):
        """Set ``classes_`` and return ``y`` as indices into it."""
        classes, y_encoded = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(
                f"{type(self).__name__} needs at least 2 classes in y; got only "
                f"{classes.tolist()!r}."
            )
        self.classes_ = classes
        return y_encoded.astype(np.intp, copy=False)

    def _fit(self, X, y_encoded):  # pragma: no cover - abstract
        raise NotImplementedError

    # ---------------------------------------------------------------- votes
    @fill_doc(four_rows=FOUR_ROWS)
    def votes(self, X, *, chunk_size=None):
        """Vote matrix: the class index each voter predicts for each example.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input data (same features as in ``fit``; NaN and infinite values are
            rejected).
        chunk_size : int, default=None
            Number of rows processed at once. By default the rows are processed in
            chunks whose temporaries take about 64 MiB, so that the peak memory is
            the output matrix plus a bounded amount.

        Returns
        -------
        V : ndarray of shape (n_samples, n_voters_)
            ``V[i, j]`` is an index into ``classes_``. The dtype is the smallest
            signed integer type that holds ``n_classes_`` values (``int8`` up to
            127 classes).

        Examples
        --------
        {four_rows}
        >>> bank = StumpBank(n_thresholds=1, feature_range=(0, 3)).fit(X, ["a", "a", "b", "b"])
        >>> bank.votes(X[:2])
        array([[0, 1],
               [0, 1]], dtype=int8)
        """
        check_is_fitted(self)
        if chunk_size is not None and (
            not isinstance(chunk_size, Integral) or isinstance(chunk_size, bool) or chunk_size < 1
        ):
            raise ValueError(f"chunk_size must be a positive integer or None; got {chunk_size!r}.")
        X = self._validate_X(X)
        n_rows = _num_samples(X)
        out = np.empty((n_rows, self.n_voters_), dtype=_votes_dtype(self.n_classes_))
        if n_rows == 0 or self.n_voters_ == 0:
            return out
        step = _n_chunk_rows(n_rows, self._row_bytes(X), chunk_size)
        for start in range(0, n_rows, step):
            stop = min(start + step, n_rows)
            try:
                self._votes_chunk(_safe_indexing(X, slice(start, stop)), out[start:stop])
            except (TypeError, ValueError) as exc:
                if not sparse.issparse(X):
                    raise
                # e.g. a prefit model whose predict needs dense input
                raise (TypeError if isinstance(exc, TypeError) else ValueError)(
                    f"{type(self).__name__} could not evaluate its voters on sparse input: "
                    f"{exc} Pass a dense array (X.toarray()) or voters that accept sparse "
                    "matrices."
                ) from exc
        return out

    def _validate_X(self, X):
        with np.errstate(invalid="ignore"):  # see fit
            return validate_data(
                self,
                X,
                reset=False,
                accept_sparse="csr",
                dtype=self._X_dtype,
                ensure_all_finite=True,
                ensure_min_samples=0,
            )

    def _row_bytes(self, X):  # pragma: no cover - overridden
        return 8 * n_columns(X) + 8 * self.n_voters_

    def _votes_chunk(self, X, out):  # pragma: no cover - abstract
        raise NotImplementedError

    # ------------------------------------------------------ bound structure
    @fill_doc(four_rows=FOUR_ROWS)
    def evaluation_mask(self):
        """Which (training example, voter) pairs the bound may use.

        Returns
        -------
        mask : ndarray of bool, shape (n_fit_samples, n_voters_)
            ``mask[i, j]`` is True when voter ``j`` may be evaluated on row ``i``
            of the ``X`` given to ``fit``, i.e. when
            ``sample_groups_[i] != voter_groups_[j]``.

        Examples
        --------
        {four_rows}
        >>> bank = StumpBank(n_thresholds=1, feature_range=(0, 3)).fit(X, ["a", "a", "b", "b"])
        >>> mask = bank.evaluation_mask()  # stumps on a given range: every pair
        >>> mask.shape, bool(mask.all())
        ((4, 2), True)
        """
        check_is_fitted(self)
        return self.sample_groups_[:, None] != self.voter_groups_[None, :]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = False
        tags.target_tags.required = True
        return tags

    def __sklearn_is_fitted__(self):
        return hasattr(self, "n_voters_")
