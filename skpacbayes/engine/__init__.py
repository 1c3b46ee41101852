"""The fit engine: votes -> statistics -> optimiser -> certificate.

Handed plain arrays and a :class:`~skpacbayes.engine.spec.FitSpec` (the bound object and the
options), never an estimator.
"""
