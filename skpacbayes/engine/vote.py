"""The weighted majority vote: class scores of a weighted vote, the strict-winner rule and the
deployed rule (ties to the first class).

Shared by ``predict`` and by the certificate's training error, so that both read the same
classifier. The PAC-Bayes bounds count a tie as an error (``ties="error"``: their statements
bound that event); a test-set bound counts the errors of exactly what ``predict`` returns
(``ties="first"``: ``numpy.argmax``, the first class of largest score).
"""

import numpy as np

__all__ = ["TIE_RULES", "vote_errors", "vote_shares", "weighted_vote_scores"]

#: How a tie of the vote is counted: an error (the PAC-Bayes statements), or broken towards
#: the first class of largest score, as ``predict`` breaks it (the test-set statements).
TIE_RULES = ("error", "first")

_VOTE_CHUNK = 2**21  # mask elements per block of weighted_vote_scores


def weighted_vote_scores(votes, weights, n_classes):
    """Total weight voting for each class.

    Parameters
    ----------
    votes : ndarray of shape (n_samples, n_voters)
        Class indices.
    weights : ndarray of shape (n_voters,)
        Vote weights (any sign).
    n_classes : int

    Returns
    -------
    scores : ndarray of shape (n_samples, n_classes)
    """
    weights = np.asarray(weights)
    scores = np.zeros((votes.shape[0], n_classes), dtype=np.result_type(weights, np.float64))
    step = max(1, _VOTE_CHUNK // max(1, votes.shape[1]))
    mask = np.empty((min(step, votes.shape[0]), votes.shape[1]), dtype=scores.dtype)
    for start in range(0, votes.shape[0], step):
        block = votes[start : start + step]
        rows = mask[: block.shape[0]]
        for j in range(n_classes):  # 0/1 masks in the weights' float type: BLAS products
            np.equal(block, j, out=rows, casting="unsafe")
            scores[start : start + step, j] = rows @ weights
    return scores


def vote_shares(scores, weights, mixture=False):
    """The vote shares of ``predict_proba``: of the total weight, or a softmax of the vote
    where weights can be negative (the Gaussian posterior).

    Parameters
    ----------
    scores : ndarray of shape (n_samples, n_classes)
        The weight voting for each class (:func:`weighted_vote_scores`), or the win
        probabilities of a Gaussian mixture on split voters.
    weights : ndarray of shape (n_voters,)
        Vote weights.
    mixture : bool, default=False
        Whether ``scores`` are a mixture's win probabilities (shares of their sum).

    Returns
    -------
    shares : ndarray of shape (n_samples, n_classes)

    Examples
    --------
    >>> import numpy as np
    >>> from skpacbayes.engine.vote import vote_shares
    >>> vote_shares(np.array([[3.0, 1.0]]), np.array([3.0, 1.0]))
    array([[0.75, 0.25]])
    """
    if mixture:
        total = scores.sum(axis=1, keepdims=True)
        return scores / np.where(total > 0, total, 1.0)
    if np.all(weights >= 0) and weights.sum() > 0:
        return scores / weights.sum()
    z = scores / np.sqrt(weights.shape[0])
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def vote_predictions(votes, weights, n_classes):
    """What ``predict`` returns, as class indices: the first class of largest score
    (``numpy.argmax``).

    Parameters
    ----------
    votes : ndarray of shape (n_samples, n_voters)
        Class indices.
    weights : ndarray of shape (n_voters,)
        Vote weights.
    n_classes : int

    Returns
    -------
    ndarray of int, shape (n_samples,)

    Examples
    --------
    >>> import numpy as np
    >>> from skpacbayes.engine.vote import vote_predictions
    >>> vote_predictions(np.array([[0, 1], [1, 1]]), np.ones(2), 2)  # a tie to class 0
    array([0, 1])
    """
    return np.argmax(weighted_vote_scores(votes, weights, n_classes), axis=1)


def _strict_argmax_is(scores, y_idx):
    """True where the true class has a STRICT maximum score (ties are errors)."""
    true = scores[np.arange(scores.shape[0]), y_idx]
    others = scores.copy()
    others[np.arange(scores.shape[0]), y_idx] = -np.inf
    return true > others.max(axis=1)


def vote_errors(votes, y_idx, weights, n_classes, ties="error"):
    """Where the weighted vote errs.

    Parameters
    ----------
    votes, y_idx, weights, n_classes
        The votes (class indices) and the vote weights as :func:`vote_predictions`, and
        the true class indices of the rows.
    ties : {"error", "first"}, default="error"
        ``"error"``: the vote errs unless the true class has a STRICT maximum score (ties are
        errors). ``"first"``: the vote errs where its prediction, the first class of largest
        score (``numpy.argmax``, as ``predict``), is not the true class.

    Returns
    -------
    ndarray of bool, shape (n_samples,)
    """
    if ties not in TIE_RULES:
        raise ValueError(f"ties must be one of {TIE_RULES}; got {ties!r}.")
    if ties == "first":
        return vote_predictions(votes, weights, n_classes) != np.asarray(y_idx)
    return ~_strict_argmax_is(weighted_vote_scores(votes, weights, n_classes), y_idx)
