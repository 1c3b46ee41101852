"""The engine's entry point: a fit handed a specification, the voters and the rows, never an
estimator.

votes -> statistics -> optimiser -> certificate, along one of two paths
(:ref:`theory-statistics`):

* **counts** (:mod:`skpacbayes.engine.counts`): a family whose statistics are functions of the
  error counts (the Categorical) with a bound that reads the sample only through the error
  counts of the voters and pairs of voters, and every out-of-bag bank;
* **rows** (:mod:`skpacbayes.engine.rows`): the per-row families, trained on the 0/1 error
  matrix in float32 and certified on every stochastic loss in float64.

Both end in the one certify step (:mod:`skpacbayes.engine.certify`).
"""

from dataclasses import replace

from joblib import effective_n_jobs

from skpacbayes.engine.counts import fit_on_counts, uses_counts
from skpacbayes.engine.dask_passes import DaskVotePasses, is_dask_input
from skpacbayes.engine.optimisers import resolve_device
from skpacbayes.engine.parallel import thread_limit
from skpacbayes.engine.passes import VotePasses
from skpacbayes.engine.rows import fit_on_rows, out_of_core_refusal
from skpacbayes.engine.statistics import EvaluationScheme

__all__ = [
    "check_combination",
    "check_out_of_bag",
    "check_task",
    "fit_posterior",
    "fit_vote",
    "fitted_voters",
    "out_of_core_refusal",
    "uses_counts",
]


def fitted_voters(voters, X, y, classes):
    """The voters fitted on the training rows, and the rows' class indices among theirs.

    A bank grown from the rows is grown once per selection
    (:func:`~skpacbayes.engine.sharing.shared_fit`); a fitted (frozen) bank or prefit models
    are used as they are fitted; on a dask array only banks that need no pass over the rows
    are fitted (:func:`~skpacbayes.voters._base.fit_without_rows`, from the labels
    ``classes``).

    Parameters
    ----------
    voters : voter bank
        Unfitted (or fitted: prefit models, a frozen bank).
    X, y, classes
        The training rows, their labels and the sorted labels, as :func:`fit_vote`.

    Returns
    -------
    voters : voter bank
        Fitted.
    y_idx : ndarray or dask array of int
        Each row's class index among ``voters.classes_``.

    Raises
    ------
    ValueError
        If ``y`` holds labels the voters do not know.
    """
    import numpy as np
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    from skpacbayes.engine.sharing import shared_fit
    from skpacbayes.voters import PrefitVoters

    if is_dask_input(X):
        from skpacbayes.engine.dask_passes import WHAT_WORKS, label_indices
        from skpacbayes.voters._base import fit_without_rows

        fit_without_rows(voters, X, classes, WHAT_WORKS)  # refuses unknown labels
        return voters, label_indices(y, np.asarray(voters.classes_))
    try:
        check_is_fitted(voters)
        grown = False
    except NotFittedError:
        grown = not isinstance(voters, PrefitVoters)
    voters = shared_fit(voters, X, y) if grown else voters.fit(X, y)
    known = np.asarray(voters.classes_)
    y_idx = np.clip(np.searchsorted(known, y), 0, known.shape[0] - 1)
    if not np.array_equal(known[y_idx], y):
        raise ValueError(
            f"The voters know the classes {known.tolist()}, but y contains "
            f"{sorted(set(np.unique(y).tolist()) - set(known.tolist()))}."
        )
    return voters, y_idx


def check_combination(spec, split):
    """Refuse a posterior family the bound does not certify on these voters.

    Parameters
    ----------
    spec : FitSpec
        The fit's specification.
    split : bool
        Whether the voters are split (two halves) or out of bag.

    Raises
    ------
    ValueError
        Naming the families that are valid here.
    """
    valid = spec.bound.valid_posteriors(spec.n_classes, split)
    if spec.posterior not in valid:
        task = "binary" if spec.n_classes == 2 else f"{spec.n_classes}-class"
        voters = "split voters (two halves)" if split else "data-independent voters"
        raise ValueError(
            f"{spec.label} gives no certificate for posterior={spec.posterior!r} on a {task} "
            f"task with {voters}. Valid posteriors here: {list(valid) or 'none'}."
        )


def fit_posterior(spec, voters, X, y_idx, seed):
    """Optimise the posterior on the statistics or the rows, then certify it.

    Parameters
    ----------
    spec : FitSpec
        The bound, the posterior family and the optimiser's options.
    voters : voter bank
        Fitted on the rows of ``X``: which voter may be evaluated on which row follows from
        it (:class:`~skpacbayes.engine.statistics.EvaluationScheme`), and an out-of-bag bank's
        draws go into the certificate's details.
    X : {ndarray, sparse matrix, dask array} of shape (n_rows, n_features)
        The training rows (a dask array is read by map-reduce passes on its blocks).
    y_idx : ndarray or dask array of shape (n_rows,)
        True class indices.
    seed : int
        Seed of the local torch generator (starting noise, mini-batches).

    Returns
    -------
    FitResult

    Raises
    ------
    ValueError
        If the bound does not certify the family on these voters
        (:func:`check_combination`), or the fit cannot run on a dask array
        (:func:`~skpacbayes.engine.rows.out_of_core_refusal`).
    """
    scheme = EvaluationScheme.from_voters(voters, X.shape[0])
    check_combination(spec, scheme.is_split or scheme.out_of_bag)
    if is_dask_input(X):
        passes = DaskVotePasses(voters, X)
    else:
        passes = VotePasses(voters, X)
    device = resolve_device(spec.device)
    # threads of torch (OpenMP): n_jobs (None: one), of BLAS: one (see thread_limit)
    with thread_limit(effective_n_jobs(spec.n_jobs)):
        if uses_counts(spec, scheme.out_of_bag):
            return fit_on_counts(spec, passes, y_idx, scheme, seed, voters, device)
        return fit_on_rows(spec, passes, y_idx, scheme, seed, device)


def check_task(spec, n_classes):
    """Refuse a target of ``n_classes > 2`` to a bound of binary votes (a ``ValueError``)."""
    if spec.bound.capabilities.binary_only and n_classes > 2:
        raise ValueError(
            f"Only binary classification is supported by {spec.label}. "
            f"The target has {n_classes} classes."
        )


def check_out_of_bag(spec):
    """Refuse out-of-bag voters (a ``ValueError``) unless the bound certifies them (the
    first-order and tandem bounds) and the family's statistics are the error counts (the
    Categorical posterior)."""
    if spec.bound.capabilities.certifies_out_of_bag and spec.family.counts_suffice:
        return
    valid = ", ".join(
        f"{cls}(posterior='categorical')"
        for cls in ("FirstOrderBoundClassifier", "SecondOrderBoundClassifier")
    )
    raise ValueError(
        f"{spec.label}(posterior={spec.posterior!r}) cannot certify "
        "out-of-bag voters (OutOfBagVoters): each voter may only be evaluated on its own "
        "out-of-bag rows, which the first-order and tandem bounds of a Categorical "
        f"posterior use and no other bound or posterior here does. Valid: {valid}."
    )


def fit_vote(spec, voters, X, y, classes, random_state):
    """Grow the voters, optimise the posterior on them and certify it: a bound estimator's fit.

    Parameters
    ----------
    spec : FitSpec
        The fit's specification, with the ``n_classes`` of ``y`` (the fit's are those of the
        fitted voters).
    voters : voter bank, scikit-learn classifier or None
        An estimator's ``voters`` parameter (cloned, never modified). None: ``StumpBank()``
        on a binary task, ``SplitForest()`` otherwise.
    X : {ndarray, sparse matrix, dask array} of shape (n_rows, n_features)
        The validated training rows.
    y : ndarray or dask array of shape (n_rows,)
        Their labels.
    classes : ndarray
        The sorted labels of ``y``.
    random_state : int, RandomState instance or None
        Draws the seed of the voters, then the seed of the torch generator.

    Returns
    -------
    fitted : FitResult
    voters : voter bank
        Fitted.

    Raises
    ------
    ValueError
        If the fit cannot run on a dask array, the bound is binary only on more classes
        (:func:`check_task`), the voters are out of bag and the bound or the family does not
        certify them (:func:`check_out_of_bag`, before the voters are grown), or the bound
        does not certify the family on these voters (:func:`check_combination`).
    """
    import numpy as np
    from sklearn.utils import check_random_state

    from skpacbayes.voters import SplitForest, StumpBank
    from skpacbayes.voters._base import resolve_voters

    if is_dask_input(X, y):
        from skpacbayes.engine.dask_passes import WHAT_WORKS

        refusal = out_of_core_refusal(spec)
        if refusal is not None:
            raise ValueError(f"{refusal} {WHAT_WORKS}")
    n_classes = classes.shape[0]
    check_task(spec, n_classes)
    rng = check_random_state(random_state)
    voter_seed, torch_seed = (int(s) for s in rng.randint(np.iinfo(np.int32).max, size=2))
    default = None
    if voters is None:  # the task's default bank
        default = StumpBank() if n_classes == 2 else SplitForest()
    voters = resolve_voters(voters, default, voter_seed, spec.n_jobs)
    if getattr(voters, "is_out_of_bag", False):  # one row set per voter (theory-out-of-bag)
        check_out_of_bag(spec)
    voters, y_idx = fitted_voters(voters, X, y, classes)
    spec = replace(spec, n_classes=int(np.asarray(voters.classes_).shape[0]))
    return fit_posterior(spec, voters, X, y_idx, torch_seed), voters
