"""The best single voter, certified by the Occam bound."""

from skpacbayes.objectives import Occam

from ._base import MajorityVoteClassifier
from ._docstrings import fill_doc

__all__ = ["OccamBoundClassifier"]


@fill_doc()
class OccamBoundClassifier(MajorityVoteClassifier):
    """The best single voter, certified by Occam's razor (the line to beat).

    Picks the voter whose Seeger bound with ``KL = ln(n)`` (a point mass
    under the uniform prior over the ``n`` voters of its bank) is smallest.
    On split voters, each tree is evaluated on the half it was not grown on,
    with ``delta / 2`` per half (``KL = ln(n_half)``), and the better half's
    tree is kept (:ref:`theory-split`: the cross bound with mixture weights (1, 0)).
    Nothing is trained: the training knobs are ignored.

    Parameters
    ----------
    voters
        See :class:`MajorityVoteClassifier`.
    posterior, prior
        ``posterior`` must be ``"categorical"`` (a point mass is a Categorical
        posterior) and ``prior`` must be ``None`` (the prior is uniform over the voters).
    delta
        See :class:`MajorityVoteClassifier`.
    solver, max_epochs, batch_size, learning_rate, early_stopping_patience, device
        Unused; kept so every estimator shares one parameter set.
    random_state, verbose, n_jobs
        See :class:`MajorityVoteClassifier`.
    max_train_rows
        Unused (nothing is trained on the rows).

    Attributes
    ----------
    bound_ : float
        Certified upper bound on the true risk of the selected voter.
    certificate_ : Certificate
        Its ingredients. Other attributes as :class:`FirstOrderBoundClassifier`.

    Notes
    -----
    **A single voter by design**: one stump of the 600 of the default ``StumpBank`` on
    breast cancer (``certificate_.n_effective_voters`` is 1). It is the line a learned vote
    has to beat, not a vote; for a genuine vote, use
    :class:`~skpacbayes.CertifiedVoteClassifier` (a forest certified on held-out rows).

    Examples
    --------
    {fitted_occam}
    >>> int((clf.weights_ > 0).sum())
    1
    """

    _warns_single_voter = False  # one voter on purpose

    _bound_class = Occam
