"""Dirichlet posterior D(alpha): weights drawn on the simplex (:ref:`theory-losses`)."""

import math

import numpy as np
import torch

from skpacbayes._sync import checks_enabled

from .._special import (
    betainc_half,
    digamma_minus_log,
    dirichlet_loss_table,
    dirichlet_ray_losses,
    stirling_remainder,
)
from ._base import Posterior, _as_float_tensor
from ._exact_sums import exact_total
from ._random import init_noise, log_gamma_variates
from ._registry import register_family
from ._vote_sums import ErrorMask, vote_sums

__all__ = ["Dirichlet", "dirichlet_kl"]

_MAX_TOTAL = 1e16  # float64 losses are certified for sum(alpha) <= this
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def dirichlet_kl(alpha, beta):
    r"""``KL(D(alpha) || D(beta))``, written without large cancellations.

    With ``lgamma(x) = (x - 1/2) ln x - x + ln(2 pi)/2 + S(x)`` (Stirling remainder ``S``)
    and ``digamma(x) = ln x + T(x)``, the textbook formula
    ``lnG(a0) - sum lnG(a_i) - lnG(b0) + sum lnG(b_i) + sum (a_i - b_i)(psi(a_i) - psi(a0))``
    becomes (the ``a_i ln(a_i / a0)`` terms cancel exactly)

    ``sum (1/2 - b_i) ln a_i + (b0 - 1/2) ln a0 + (1 - n) ln(2 pi)/2 + S(a0) - sum S(a_i)
    + sum (a_i - b_i) T(a_i) - (a0 - b0) T(a0) - lnG(b0) + sum lnG(b_i)``,

    whose terms stay moderate even for concentrations of ``1e7`` and more (the plain
    formula would lose about ``1e-8`` absolute there). Differentiable in ``alpha``.

    Parameters
    ----------
    alpha, beta : torch.Tensor
        Positive concentration vectors of the same shape and dtype.

    Returns
    -------
    torch.Tensor
        Scalar, clamped at ``>= 0``.

    Examples
    --------
    >>> import torch
    >>> from skpacbayes.posteriors import dirichlet_kl
    >>> a = torch.tensor([3.5, 2.5, 2.0, 1.2, 0.8], dtype=torch.float64)
    >>> round(float(dirichlet_kl(a, torch.ones_like(a))), 12)
    1.183273274886
    """
    n = alpha.shape[-1]
    a0 = alpha.sum()
    b0 = beta.sum()
    value = (
        ((0.5 - beta) * torch.log(alpha)).sum()
        + (b0 - 0.5) * torch.log(a0)
        + (1 - n) * _HALF_LOG_2PI
        + stirling_remainder(a0)
        - stirling_remainder(alpha).sum()
        + ((alpha - beta) * digamma_minus_log(alpha)).sum()
        - (a0 - b0) * digamma_minus_log(a0)
        - torch.lgamma(b0)
        + torch.lgamma(beta).sum()
    )
    return torch.clamp(value, min=0.0)


# ---------------------------------------------------------------------------------------------
# Training path: a_F and a_T from byte patterns of the votes (float32, CPU)
# ---------------------------------------------------------------------------------------------
@register_family
class Dirichlet(Posterior):
    """Dirichlet posterior ``D(alpha)`` over the voter weights (:ref:`theory-losses`).

    A draw ``w ~ D(alpha)`` lies on the simplex; its vote errs iff the weight of the
    erring voters is at least one half (ties are errors). With ``a_F = sum_{err} alpha_i``
    and ``a_T = sum_{correct} alpha_i`` (each summed directly), the erring mass is
    ``Beta(a_F, a_T)`` and ``r = P(Beta(a_F, a_T) >= 1/2) = I_{1/2}(a_T, a_F)``
    (:func:`~skpacbayes._special.betainc_half`). The mean vote (weights
    ``alpha / sum alpha``) errs iff ``2 a_F >= A``; ``r >= 1/2`` exactly then (median
    property, (F1)).

    Parameters
    ----------
    n_voters : int
        Number of voters.
    n_classes : int, default=2
        Number of classes (the loss ``1{w_F >= 1/2}`` is used for every ``k``;
        :meth:`win_probabilities` is binary only).
    prior : array-like of shape (n_voters,) or float, default=None
        Prior concentrations (``> 0``); ``None`` is ``Dirichlet(1, ..., 1)``.

    Attributes
    ----------
    loss_tolerance : float
        ``1e-9``, for ``A = sum(alpha) <= 1e16`` (float64 :meth:`stochastic_loss` refuses
        larger totals). In float64, ``a_T`` and ``a_F`` are summed with the error-free
        split and their rounding residuals are kept (two-sum) and passed to
        :func:`~skpacbayes._special.betainc_half`, which adds the first-order correction
        ``dI/da res_T + dI/db res_F``: without it the answer would move by up to
        ``(|a dI/da| + |b dI/db|) 2^-52``, about ``0.4 sqrt(A) 2^-52`` (``3e-11`` measured at
        ``A = 6e14``); with it the input error is below ``1e-30 A`` plus a second-order
        ``u^2 A``. The evaluation of ``I_{1/2}`` is within ``2e-15`` of 50-digit mpmath
        references on every case tested (``a, b`` from ``1e-8`` to ``1e16``,
        ``tests/test_special.py``, ``tests/test_posteriors.py``); it is measured, not
        proven, hence a wide margin.

    Notes
    -----
    ``natural(raw) = exp(raw)``. KL from :func:`dirichlet_kl`.

    Examples
    --------
    >>> import torch
    >>> from skpacbayes.posteriors import Dirichlet
    >>> post = Dirichlet(n_voters=2)
    >>> alpha = torch.tensor([3.0, 2.0], dtype=torch.float64)
    >>> votes = torch.tensor([[1, 0], [0, 1]], dtype=torch.int8)  # y = 1
    >>> post.stochastic_loss(alpha, votes, torch.tensor([1, 1]))  # I(3,2), I(2,3)
    tensor([0.3125, 0.6875], dtype=torch.float64)
    >>> post.deterministic_loss(alpha, votes, torch.tensor([1, 1]))
    tensor([False,  True])
    """

    name = "dirichlet"
    loss_tolerance = 1e-9
    nonnegative_weights = True
    certifies_margins = True
    # float priors the float32 training represents, with sums over ~1e6 voters still finite
    float_prior_range = (1e-30, 1e8)
    search_bounds = (-69.0, 18.0)  # log-concentrations within the float32 training range
    #: what the clipped weights of the partition tightening become (times the largest one):
    #: a concentration stays > 0
    _CLIP_FLOORS = (1e-1, 1e-2, 1e-3)

    def _resolve_prior(self, prior):
        if prior is None:
            return torch.ones(self.n_voters, dtype=torch.float64)
        beta = _as_float_tensor(prior, "prior", torch.float64, "cpu").reshape(-1)
        if beta.numel() == 1:
            beta = beta.expand(self.n_voters).clone()
        if beta.shape != (self.n_voters,):
            raise ValueError(f"prior must have shape ({self.n_voters},), got {tuple(beta.shape)}.")
        if not bool(torch.isfinite(beta).all()) or bool((beta <= 0).any()):
            raise ValueError("prior concentrations must be finite and > 0.")
        return beta

    def _checked(self, nat):
        nat = self._nat(nat)
        if not checks_enabled():  # training epochs: no host synchronisation
            return nat
        with torch.no_grad():
            if not bool(torch.isfinite(nat).all()) or bool((nat <= 0).any()):
                raise ValueError(
                    "Dirichlet concentrations must be finite and > 0 (alpha_i = 0 makes the "
                    "KL to the prior infinite)."
                )
        return nat

    # -- parametrization ------------------------------------------------------------------
    def init_raw(self, *, generator=None, dtype=torch.float32, device="cpu"):
        """``log(prior) + 0.01 N(0, I)`` (noise from ``generator``).

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Dirichlet
        >>> raw = Dirichlet(3).init_raw(generator=torch.Generator().manual_seed(0))
        >>> bool((Dirichlet(3).natural(raw) - 1).abs().max() < 0.1)
        True
        """
        raw = torch.log(self.prior) + init_noise(self.n_voters, generator)
        raw = raw.to(dtype=dtype, device=device)
        return raw.requires_grad_(True)

    def natural(self, raw):
        """``alpha = exp(raw)``.

        Returns
        -------
        nat : torch.Tensor of shape (n_voters,)
            Concentrations ``alpha > 0``.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Dirichlet
        >>> Dirichlet(2).natural(torch.zeros(2))
        tensor([1., 1.])
        """
        return torch.exp(raw)

    def raw_from_natural(self, nat):
        """``log(alpha)``.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Dirichlet
        >>> Dirichlet(2).raw_from_natural(torch.tensor([1.0, 1.0]))
        tensor([0., 0.])
        """
        return torch.log(self._checked(nat))

    # -- KL, losses -----------------------------------------------------------------------
    def kl(self, nat):
        """``KL(D(alpha) || D(prior))`` (:func:`dirichlet_kl`).

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Dirichlet
        >>> float(Dirichlet(3).kl(torch.ones(3, dtype=torch.float64)))
        0.0
        """
        nat = self._checked(nat)
        return dirichlet_kl(nat, self._prior_like(nat))

    def _masses(self, nat, votes, y):
        """``(a_T, a_F, residual of a_T, residual of a_F)`` (residuals ``None`` in float32):
        the sums of :func:`~skpacbayes.posteriors._vote_sums.vote_sums`."""
        hi, lo = vote_sums(nat, votes, y, "err_ok", self.n_classes, self._exact(nat))
        a_f, res_f = exact_total(hi[..., 0], lo[:, 0])
        a_t, res_t = exact_total(hi[..., 1], lo[:, 1])
        return a_t, a_f, res_t, res_f

    def stochastic_loss(self, nat, votes, y):
        """``r = I_{1/2}(a_T, a_F)``, shape ``(b,)``, differentiable in ``alpha``.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Dirichlet
        >>> alpha = torch.tensor([1.5, 1.5], dtype=torch.float64)
        >>> Dirichlet(2).stochastic_loss(alpha, torch.tensor([[1, 0]]), torch.tensor([1]))
        tensor([0.5000], dtype=torch.float64)
        """
        nat = self._checked(nat)
        votes, y = self._votes(votes, nat.device, y)
        if self._exact(nat) and float(nat.detach().sum()) > _MAX_TOTAL:
            raise ValueError(
                f"sum(alpha) = {float(nat.detach().sum()):.3g} > {_MAX_TOTAL:g}: the float64 "
                "Dirichlet loss is only certified (loss_tolerance) up to 1e16."
            )
        if isinstance(votes, ErrorMask) and not self._exact(nat):
            # the training: the loss read off a table of knots (the certificate, in float64,
            # evaluates it exactly)
            return dirichlet_loss_table(votes.matvec(nat), nat.sum())
        a_t, a_f, res_t, res_f = self._masses(nat, votes, y)
        return betainc_half(a_t, a_f, a_residual=res_t, b_residual=res_f)

    def _ray_losses(self, nat, votes, y, scales):
        """float32 on an :class:`ErrorMask` (the training's and the tightening's path): the
        wrong masses ``a_F`` and the total, which scale with ``t``, computed once."""
        if not isinstance(votes, ErrorMask) or self._exact(nat):
            return None
        self._votes(votes, nat.device, y)
        return dirichlet_ray_losses(votes.matvec(nat), nat.sum(), scales)

    def win_probabilities(self, nat, votes):
        """Binary only: ``P(w mass on class y > 1/2) = I_{1/2}(a_other, a_y)``, ``(b, 2)``.

        Returns
        -------
        proba : torch.Tensor of shape (b, 2)
            Probability that each class holds more than half of the sampled weight.

        Raises
        ------
        NotImplementedError
            For ``n_classes > 2`` (the strict-plurality probability of a Dirichlet
            vote has no one-dimensional form here).

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Dirichlet
        >>> alpha = torch.tensor([3.0, 2.0], dtype=torch.float64)
        >>> Dirichlet(2).win_probabilities(alpha, torch.tensor([[1, 0]]))
        tensor([[0.3125, 0.6875]], dtype=torch.float64)
        """
        nat = self._checked(nat)
        if self.n_classes != 2:
            raise NotImplementedError(
                "Dirichlet win probabilities are implemented for binary votes only."
            )
        votes = self._votes(votes, nat.device, need_y=False)
        hi, lo, counts = vote_sums(nat, votes, None, "class", 2, self._exact(nat))
        m0, r0 = exact_total(hi[..., 0], lo[:, 0])
        m1, r1 = exact_total(hi[..., 1], lo[:, 1])
        return torch.stack(
            [
                betainc_half(m1, m0, a_residual=r1, b_residual=r0),
                betainc_half(m0, m1, a_residual=r0, b_residual=r1),
            ],
            dim=1,
        )

    def sample(self, nat, n_samples, generator):
        """``w ~ D(alpha)``: normalized Gamma variates (drawn with ``generator``).

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Dirichlet
        >>> w = Dirichlet(3).sample(torch.ones(3), 5, torch.Generator().manual_seed(0))
        >>> w.shape, bool(torch.allclose(w.sum(1), torch.ones(5)))
        (torch.Size([5, 3]), True)
        """
        nat = self._checked(nat)
        log_g = log_gamma_variates(nat, int(n_samples), generator)
        return torch.softmax(log_g, dim=1).to(nat.dtype)

    # -- the family beyond its losses ----------------------------------------------------------
    @classmethod
    def check_float_prior(cls, prior):
        """A Dirichlet prior concentration must also be ``> 0``."""
        if math.isfinite(prior) and not prior > 0:
            raise ValueError(f"A Dirichlet prior concentration must be > 0, got {prior}.")
        super().check_float_prior(prior)

    @classmethod
    def into_domain(cls, nat, dtype):
        """Concentrations at least the smallest normal number of ``dtype``."""
        tiny = torch.finfo(dtype).tiny
        if torch.is_tensor(nat):
            return nat.clamp_min(tiny)
        return np.maximum(nat, tiny)

    def start_natural(self, target, scale, largest_scale):
        """The prior's concentrations plus ``scale n target``."""
        return self.prior.numpy() + scale * target.size * target

    @classmethod
    def one_voter_natural(cls, n_voters, index):
        """Concentration 1 on the voter and ``1 / (2 n)`` on each other: they share less than
        half of the weight (a concentration stays > 0).

        Examples
        --------
        >>> from skpacbayes.posteriors import Dirichlet
        >>> Dirichlet.one_voter_natural(2, 0)
        array([1.  , 0.25])
        """
        nat = np.full(n_voters, 1.0 / (2 * n_voters))
        nat[index] = 1.0
        return nat

    @classmethod
    def clip_candidates(cls, theta, clipped):
        """``theta`` with the weights ``clipped`` set to ``rho max(theta)``, for ``rho`` in
        ``(0.1, 0.01, 0.001)`` (a concentration stays > 0)."""
        for rho in cls._CLIP_FLOORS:
            cand = theta.copy()
            cand[clipped] = rho * np.max(theta)
            yield cand

    @classmethod
    def has_partition_terms(cls, n_classes, split):
        return True

    @classmethod
    def partition_terms(cls, natural, mixture, vote_weights, bits=24):
        """``(0, I_{1/2}(A - cs, cs))`` of the concentrations
        (:func:`~skpacbayes.partition.dirichlet_partition_terms`); on split voters ``b~ = 0``
        and ``c~`` of the mixture-mean vote
        (:func:`~skpacbayes.partition.dirichlet_split_c_tilde`)."""
        from skpacbayes import partition

        if len(natural) == 1:
            return partition.dirichlet_partition_terms(natural[0], bits=bits)
        c = partition.dirichlet_split_c_tilde(natural[0], natural[1], float(mixture[0]), bits=bits)
        return 0.0, c

    @classmethod
    def ray_partition_terms(cls, natural, mixture, vote_weights, scales, bits):
        """Without split voters, the terms of the exact multiples ``t alpha`` from one
        partition certificate for the whole ray
        (:func:`~skpacbayes.partition.dirichlet_ray_terms`)."""
        if len(natural) > 1:
            return super().ray_partition_terms(natural, mixture, vote_weights, scales, bits)
        from skpacbayes.partition import dirichlet_ray_terms

        return dirichlet_ray_terms(np.asarray(natural[0], dtype=np.float64), scales, bits)
