"""The C-bound classifier (binary)."""

from ._base import MajorityVoteClassifier, _minimum, _training_upper

__all__ = ["CBoundClassifier"]


class CBoundClassifier(MajorityVoteClassifier):
    """Binary majority vote certified by the C-bound (PAC-Bound 1, :ref:`theory-classical`).

    Two PAC-Bayes statements at ``delta / 2`` each: an upper bound on the
    Gibbs risk and a lower bound on the expected disagreement, combined by
    Chebyshev-Cantelli.

    Parameters
    ----------
    voters, posterior, prior, delta, solver, max_epochs, batch_size, learning_rate, \
early_stopping_patience, device, random_state, verbose, n_jobs
        See :class:`MajorityVoteClassifier`.

    Attributes
    ----------
    bound_ : float
        Certified upper bound on the true risk of ``predict``.
    certificate_ : Certificate
        Its ingredients. Other attributes as :class:`FirstOrderBoundClassifier`.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from skpacbayes import CBoundClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = CBoundClassifier(max_epochs=5, random_state=0).fit(X, y)
    >>> 0 < clf.bound_ <= 1
    True
    """

    _bound_name = "CBound"
    _statistic_keys = ("gibbs", "disagreement")
    _binary_only = True

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _valid_posteriors(self, n_classes, split):
        if n_classes != 2:
            return ()
        return super()._valid_posteriors(n_classes, split)

    def _statistics(self, r_lo, r_hi, xp_mean):
        # 2 r (1 - r) is concave: its minimum over [r_lo, r_hi] is at an end.
        d_lo = 2 * r_lo * (1 - r_lo)
        d_hi = 2 * r_hi * (1 - r_hi)
        return {"gibbs": xp_mean(r_hi), "disagreement": xp_mean(_minimum(d_lo, d_hi))}

    def _bound_value(self, stats, kl, m, weights, delta):
        from skpacbayes.bounds import cbound_bound

        return cbound_bound(stats["gibbs"], stats["disagreement"], kl, m, delta, weights=weights)

    def _training_objective(self, stats, kl, m, weights, delta):
        # where the Gibbs bound is >= 1/2 the C-bound is flat at 1: descend the Gibbs bound
        import torch

        # (a torch.where, not a test of the value: no host synchronisation in the training)
        g_up = _training_upper(stats["gibbs"], kl, m, delta / 2, weights)
        bound = self._bound_value(stats, kl, m, weights, delta)
        return torch.where(g_up.detach() >= 0.5, 1 + g_up, bound)
