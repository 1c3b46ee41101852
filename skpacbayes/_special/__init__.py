"""Differentiable special functions (torch) used by the posterior families.

* :func:`betainc_half` -- the regularized incomplete beta function at one half,
  ``I_{1/2}(a, b) = P(Beta(a, b) <= 1/2)``, differentiable in both ``a`` and ``b``;
  it is the stochastic loss of a Dirichlet posterior (:ref:`theory-losses`).
* :func:`gaussian_cdf`, :func:`gaussian_sf` -- the standard normal distribution and
  survival functions, accurate in both tails (:ref:`theory-losses`).
* :func:`gauss_legendre` -- cached Gauss-Legendre rules (used by the quadratures).
* :func:`stirling_remainder`, :func:`digamma_minus_log` -- ``lgamma`` and ``digamma``
  with their large-argument behaviour removed (cancellation-free Gamma ratios, used by
  the Dirichlet KL).
* :func:`binomial_tail_table`, :func:`dirichlet_loss_table`, :func:`dirichlet_ray_losses`
  -- the training tables (float32 interpolations of the binomial tail and of the Dirichlet
  loss, which only steer; the certificates evaluate the functions themselves).

Everything is vectorized (no Python loop over elements), works for ``float32`` and
``float64`` tensors on any device, and never touches the global random state.
"""

# Layout: _elementary.py holds the normal tails, the Gauss-Legendre rules and the Gamma
# series; _betainc.py holds I_{1/2}(a, b) (the tests compare its private evaluation paths
# there); _tables.py the training tables.
from ._betainc import betainc_half
from ._elementary import (
    digamma_minus_log,
    gauss_legendre,
    gaussian_cdf,
    gaussian_sf,
    stirling_remainder,
)
from ._tables import binomial_tail_table, dirichlet_loss_table, dirichlet_ray_losses

__all__ = [
    "betainc_half",
    "binomial_tail_table",
    "digamma_minus_log",
    "dirichlet_loss_table",
    "dirichlet_ray_losses",
    "gauss_legendre",
    "gaussian_cdf",
    "gaussian_sf",
    "stirling_remainder",
]
