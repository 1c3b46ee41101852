"""Certified number partitioning: the weight-only terms of the partition bound.

The partition bound (:ref:`theory-triple`) is a certificate only if the partition value it uses is
exact or a certified LOWER bound (:ref:`theory-partition`): a heuristic partition (greedy,
Karmarkar-Karp, a truncated search) is an actual subset, hence an UPPER bound, and using
it silently breaks validity. Everything here is computed in exact arithmetic:

* every float is a dyadic rational (:meth:`float.as_integer_ratio`), so the non-zero
  weights are exact Python integers times one power-of-two unit; every rounding step
  (floor scaling of the dynamic programme, the final conversion back to float) has an
  exact, provable error term and nothing depends on floating-point luck;
* lower bounds are rounded DOWN and upper bounds UP when they are converted to float.

Portfolio of :func:`certified_cstar` (all sound; chosen by size and structure):

1. trivial cases: no non-zero weight, one weight at least half of the total (this covers
   one or two non-zero weights);
2. Karmarkar-Karp differencing (exact integers) for a feasible subset (upper side) and
   the trivial lower bound ``ceil(total / 2)``; stop when they meet;
3. exact meet-in-the-middle over the distinct values (equal weights are grouped, so
   ``k`` copies of a value cost ``k + 1`` sums, not ``2**k``) when the two halves hold at
   most ``2**(max_exact_log2 / 2)`` sums each (40 non-zero weights by default, more when
   values repeat): the result is proven exact;
4. otherwise, until ``upper - lower <= rtol * total``: a complete Karmarkar-Karp search
   with a node budget (upper side); an integer DP on a decimal grid ``10**-k`` when the
   weights lie on one up to tiny residuals (e.g. weights rounded to 3 decimals); a
   floor-scaled integer subset-sum bitset DP with the exact residual term (resolution
   ``bits``); "largest 32 items exactly, the rest as slack" (all three on the lower side).

The family terms (:ref:`theory-partition`) and the Dirichlet two-set scan of split voters
(:ref:`theory-split`)
are built on the same machinery.
"""

# Layout (each private module is named for what it holds):
#   _exact.py        exact dyadic integers, directed rounding, input checks
#   _solvers.py      subset-sum search: Karmarkar-Karp (upper side), bitset/grid DP and
#                    meet-in-the-middle (lower side), the portfolio `_solve`
#   _certificates.py certified_cstar / certified_pbar and their scaled reuse
#   _terms.py        the (b~, c~) terms of the Categorical, Dirichlet and Gaussian families
#   _split_scan.py   the two-set scan of Dirichlet posteriors on split voters

# Tests exercise private helpers in the module that holds them (e.g. ``_solvers._mitm``);
# module constants (e.g. ``_solvers._CAND_CAP``) must be patched there too.
from ._certificates import (
    CstarCertificate,
    PbarCertificate,
    certified_cstar,
    certified_pbar,
    cstar_lower,
    scaled_cstar_lower,
    scaled_pbar_lower,
)
from ._split_scan import DirichletSplitScan, dirichlet_split_c_tilde
from ._terms import (
    categorical_partition_terms,
    dirichlet_partition_terms,
    dirichlet_ray_terms,
    gaussian_partition_terms,
    gaussian_ray_terms,
)

__all__ = [
    "CstarCertificate",
    "PbarCertificate",
    "DirichletSplitScan",
    "certified_cstar",
    "certified_pbar",
    "cstar_lower",
    "scaled_cstar_lower",
    "scaled_pbar_lower",
    "categorical_partition_terms",
    "dirichlet_partition_terms",
    "gaussian_partition_terms",
    "dirichlet_ray_terms",
    "gaussian_ray_terms",
    "dirichlet_split_c_tilde",
]
