"""The fit engine: votes -> statistics -> optimiser -> certificate.

Handed plain arrays and a :class:`~skpacbayes.engine.fit.FitSpec` (the bound object and the
options), never an estimator.
"""
