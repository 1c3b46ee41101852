"""The test-set bound: the exact binomial bound on held-out errors (the hold-out estimators).

Any classifier fixed before the held-out rows are read is certified by the binomial tail of
its error count on them: ``sup{R : P(Bin(m, R) <= k) >= delta}``. With several statements
(fractions, halves, candidates) ``delta`` is split evenly over them and the lowest is kept.
As a PAC-Bayes statement it is the case of a point-mass prior equal to the posterior
(``KL = 0``).
"""

from skpacbayes.objectives._base import Bound, register

__all__ = ["TestSet"]


@register
class TestSet(Bound):
    """The exact binomial test-set bound of one or several held-out statements.

    The bound of :class:`~skpacbayes.HoldOutBoundClassifier`.

    Examples
    --------
    >>> from skpacbayes import HoldOutBoundClassifier
    >>> from skpacbayes.objectives import TestSet
    >>> TestSet().name
    'HoldOut'
    """

    name = "HoldOut"
    statistic_keys = ("errors",)

    def valid_posteriors(self, n_classes, split):
        return ()  # no posterior is trained

    def statement(self, n_errors, m, delta):
        """The bound of ``n_errors`` errors on ``m`` held-out rows at ``delta``.

        Parameters
        ----------
        n_errors : int
            Errors on the held-out rows.
        m : int
            Held-out rows.
        delta : float
            The statement's share of the confidence parameter.

        Returns
        -------
        bound : float
            ``sup{R : P(Bin(m, R) <= n_errors) >= delta}``.
        """
        from skpacbayes.bounds import binomial_inv_upper

        return binomial_inv_upper(int(n_errors), int(m), delta)

    def recompute(self, certificate, delta):
        from skpacbayes.engine.certificate import equal_share

        i = certificate.details["statement"]
        share = equal_share(delta, len(certificate.m))  # still split over the fit's statements
        return self.statement(certificate.statistics["errors"][i], certificate.m[i], share)
