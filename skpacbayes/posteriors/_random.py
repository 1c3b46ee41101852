"""Random numbers of the posterior families, from an explicit generator only.

The global random state is never used: without a generator the start-up noise is zero and
the samplers draw from a fresh CPU generator seeded with 0.
"""

import torch

__all__ = ["init_noise", "log_gamma_variates"]


def _local_generator(generator):
    """``generator``, or a fresh CPU generator with seed 0 when it is ``None``."""
    return torch.Generator().manual_seed(0) if generator is None else generator


def _randn(shape, generator, dtype, device):
    generator = _local_generator(generator)
    x = torch.randn(shape, generator=generator, dtype=dtype, device=generator.device)
    return x.to(device)


def _rand(shape, generator, dtype, device):
    generator = _local_generator(generator)
    x = torch.rand(shape, generator=generator, dtype=dtype, device=generator.device)
    return x.to(device)


def init_noise(n, generator):
    """Start-up noise ``0.01 N(0, I)`` (float64, CPU) from ``generator``; zeros without one."""
    if generator is None:
        return torch.zeros(n, dtype=torch.float64)
    return 0.01 * _randn(n, generator, torch.float64, "cpu")


def log_gamma_variates(alpha, n_samples, generator):
    """``log G`` with ``G ~ Gamma(alpha_i, 1)`` independent, shape ``(n_samples, n)``.

    Marsaglia-Tsang squeeze/rejection (vectorized, float64) driven by ``generator``;
    for ``alpha < 1`` the boost ``G(alpha) = G(alpha + 1) U^(1/alpha)``, applied in log
    space so that tiny shapes do not underflow.
    """
    generator = _local_generator(generator)
    a = alpha.detach().to(torch.float64).expand(n_samples, -1).clone()
    device = a.device
    boost = a < 1.0
    shape = torch.where(boost, a + 1.0, a)
    d = shape - 1.0 / 3.0
    c = 1.0 / torch.sqrt(9.0 * d)
    log_g = torch.empty_like(a)
    todo = torch.ones_like(a, dtype=torch.bool)
    while bool(todo.any()):
        idx = torch.nonzero(todo.reshape(-1)).reshape(-1)
        dd, cc = d.reshape(-1)[idx], c.reshape(-1)[idx]
        x = _randn(idx.shape, generator, torch.float64, device)
        u = _rand(idx.shape, generator, torch.float64, device)
        v = (1.0 + cc * x) ** 3
        ok = (v > 0) & (
            torch.log(u) < 0.5 * x * x + dd - dd * v + dd * torch.log(v.clamp_min(1e-300))
        )
        acc = idx[ok]
        log_g.reshape(-1)[acc] = torch.log(dd[ok] * v[ok])
        todo.reshape(-1)[acc] = False
    if bool(boost.any()):
        u = _rand(a.shape, generator, torch.float64, device)
        log_g = torch.where(boost, log_g + torch.log(u) / a, log_g)
    return log_g
