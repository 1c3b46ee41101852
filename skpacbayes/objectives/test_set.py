"""The test-set bound: the exact binomial bound on held-out errors (the hold-out estimators).

Any classifier fixed before the held-out rows are read is certified by the binomial tail of
its error count on them: ``sup{R : P(Bin(m, R) <= k) >= delta}``. With several statements
(fractions, halves, candidates) ``delta`` is split evenly over them and the lowest is kept.
As a PAC-Bayes statement it is the case of a point-mass prior equal to the posterior
(``KL = 0``).

Per class (``per_class=True``): conditionally on the held-out labels, the errors on the rows
of class ``k`` are binomial with the class's miss rate ``P(h(x) != y | y = k)``, so the same
inversion certifies each class; ``delta`` is then split evenly over the ``K + 1`` statements
(the overall error and each of the ``K`` classes) of every held-out statement.

On a stream (``partial_fit``), the time-uniform counterpart of the inversion
(:func:`~skpacbayes.bounds.binomial_anytime_upper`, a confidence sequence) certifies the rows
read so far at every point of the stream at once.
"""

import numpy as np

from skpacbayes.objectives._base import Bound

__all__ = ["TestSet"]


class TestSet(Bound, name="HoldOut", estimator="HoldOutBoundClassifier"):
    """The exact binomial test-set bound of one or several held-out statements.

    {estimator}
    """

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

    def share(self, delta, n_statements, n_risk_statements=0):
        """Each statement's share of ``delta``.

        Parameters
        ----------
        delta : float
            The confidence parameter.
        n_statements : int
            Number of held-out statements (fractions, halves, ...).
        n_risk_statements : int, default=0
            Number of risk statements each held-out statement holds besides its error rate
            (``K`` with each class's miss rate): each then holds ``1 + n_risk_statements``.

        Returns
        -------
        share : float
            ``delta / (n_statements (1 + n_risk_statements))``, rounded down so that the
            shares never sum above ``delta``.
        """
        from skpacbayes.engine.certificate import equal_share

        per_statement = 1 + int(n_risk_statements)
        return equal_share(float(delta), int(n_statements) * per_statement)

    def anytime_statement(self, n_errors, m, delta):
        """The time-uniform bound of ``n_errors`` errors on the first ``m`` rows of a stream.

        Parameters
        ----------
        n_errors : int
            Errors on the rows read so far.
        m : int
            Rows read so far.
        delta : float
            The statement's share of the confidence parameter.

        Returns
        -------
        bound : float
            :func:`~skpacbayes.bounds.binomial_anytime_upper`: it holds at every ``m`` at
            once with probability at least ``1 - delta`` (:ref:`Proposition 5b <theory-streaming>`).
        """
        from skpacbayes.bounds import binomial_anytime_upper

        return binomial_anytime_upper(int(n_errors), int(m), delta)

    def rate_statements(self, errors, rows, delta, anytime=False):
        """The bound of each rate of the risk vocabulary: errors among the rows of its event
        (a class's miss rate, a false-positive or false-discovery rate).

        Parameters
        ----------
        errors, rows : array-like of int, shape (n_rates,)
            Each statement's errors on the held-out rows of its denominator, and the number
            of those rows (:meth:`~skpacbayes.engine.risks.RiskStatement.counts`).
        delta : float
            Each statement's share of the confidence parameter.
        anytime : bool, default=False
            The time-uniform bound of a stream (:meth:`anytime_statement`) instead of the
            fixed-size one.

        Returns
        -------
        bounds : ndarray of shape (n_rates,)
            ``sup{R : P(Bin(n, R) <= k) >= delta}`` per statement, or its time-uniform
            counterpart (1.0 for a statement without rows: nothing is certified for it).
        """
        statement = self.anytime_statement if anytime else self.statement
        return np.array(
            [statement(k, n, delta) if n > 0 else 1.0 for k, n in zip(errors, rows, strict=True)],
            dtype=np.float64,
        )

    def recompute(self, certificate, delta):
        i = certificate.details["statement"]
        # still split over the fit's statements (and the risk statements of each)
        extra = certificate.details.get("n_risk_statements")
        if extra is None:  # a certificate of 0.1.0: one miss-rate statement per class, if any
            extra = certificate.details.get("n_classes", 0)
        if certificate.details.get("n_groups"):  # delta / 2 went to the groups' statements
            delta = delta / 2
        share = self.share(delta, len(certificate.m), extra)
        errors, m = certificate.statistics["errors"][i], certificate.m[i]
        if certificate.details.get("anytime"):  # a stream: its bound at the rows read so far
            return self.anytime_statement(errors, m, share)
        return self.statement(errors, m, share)
