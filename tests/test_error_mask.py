"""The training fast path (precomputed float error masks) gives the losses of the votes path."""

import pytest
import torch

from skpacbayes.posteriors import Categorical, Dirichlet, Gaussian
from skpacbayes.posteriors._base import ErrorMask


def _case(n_classes, seed=0, b=300, n=40):
    g = torch.Generator().manual_seed(seed)
    votes = torch.randint(0, n_classes, (b, n), generator=g, dtype=torch.int8)
    y = torch.randint(0, n_classes, (b,), generator=g)
    return votes, y


@pytest.mark.parametrize(
    "family, n_classes",
    [(Categorical, 2), (Categorical, 4), (Dirichlet, 2), (Dirichlet, 3), (Gaussian, 2)],
)
def test_error_mask_matches_votes(family, n_classes):
    votes, y = _case(n_classes)
    post = family(votes.shape[1], n_classes)
    raw = post.init_raw(generator=torch.Generator().manual_seed(1))
    mask = ErrorMask((votes != y[:, None].to(votes.dtype)).to(torch.float32))

    def loss_and_grad(v, t):
        raw.grad = None
        r = post.stochastic_loss(post.natural(raw), v, t)
        (r * torch.linspace(0.5, 1.5, r.numel())).sum().backward()
        return r.detach().clone(), raw.grad.clone()

    r_votes, g_votes = loss_and_grad(votes, y)
    r_mask, g_mask = loss_and_grad(mask, None)
    torch.testing.assert_close(r_mask, r_votes, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(g_mask, g_votes, rtol=1e-4, atol=1e-5)


def test_error_mask_is_refused_where_votes_are_needed():
    votes, y = _case(3)
    mask = ErrorMask((votes != y[:, None].to(votes.dtype)).to(torch.float32))
    gauss = Gaussian(votes.shape[1], 3)
    with pytest.raises(TypeError, match="ErrorMask"):
        gauss.stochastic_loss(torch.zeros(votes.shape[1]), mask, None)
    cat = Categorical(votes.shape[1], 3)
    with pytest.raises(ValueError, match="y=None"):
        cat.stochastic_loss(torch.ones(votes.shape[1]), mask, y)
    with pytest.raises(TypeError, match="2-D floating"):
        ErrorMask(votes)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_error_mask_complement_gives_the_same_dirichlet_loss(n_classes):
    votes, y = _case(n_classes, seed=4)
    errors = (votes != y[:, None].to(votes.dtype)).to(torch.float32)
    post = Dirichlet(votes.shape[1], n_classes)
    raw = post.init_raw(generator=torch.Generator().manual_seed(2))
    results = []
    for mask in (ErrorMask(errors), ErrorMask(errors, 1.0 - errors)):
        raw.grad = None
        r = post.stochastic_loss(post.natural(raw), mask, None)
        r.sum().backward()
        results.append((r.detach().clone(), raw.grad.clone()))
    torch.testing.assert_close(results[1][0], results[0][0], rtol=0, atol=0)
    torch.testing.assert_close(results[1][1], results[0][1], rtol=0, atol=0)
    # a complement that is not 1 - errors changes the loss: it is really used
    wrong = ErrorMask(errors, torch.zeros_like(errors))
    assert not torch.equal(post.stochastic_loss(post.natural(raw), wrong, None), results[0][0])


def test_error_mask_complement_must_match():
    errors = torch.zeros(3, 4)
    with pytest.raises(TypeError, match="complement"):
        ErrorMask(errors, torch.zeros(3, 5))
    with pytest.raises(TypeError, match="complement"):
        ErrorMask(errors, torch.zeros(3, 4, dtype=torch.float64))


@pytest.mark.parametrize("posterior", ["categorical", "dirichlet", "gaussian"])
def test_vc_objective_from_the_error_matrix_matches_the_votes(posterior):
    # The VC baseline's cross-entropy, read off the error matrix on two-class tasks, equals
    # the one computed from the class scores of the votes.
    from types import SimpleNamespace

    import numpy as np

    from skpacbayes import _fitting

    votes, y = _case(2, seed=7, b=500, n=30)
    est = SimpleNamespace(n_classes_=2, posterior=posterior, prior=None)
    group = SimpleNamespace(samples=np.arange(500), voters=np.arange(30))
    fast = _fitting._Problem(est, votes.numpy(), y.numpy(), [group], "cpu", torch.float32)
    slow = _fitting._Problem(est, votes.numpy(), y.numpy(), [group], "cpu", torch.float32)
    slow.errors = None
    assert fast.errors is not None
    post = fast.posteriors[0]
    raw = post.init_raw(generator=torch.Generator().manual_seed(3)).requires_grad_(True)
    for rows in (None, torch.arange(0, 500, 3)):
        values = []
        for problem in (fast, slow):
            raw.grad = None
            value = _fitting._vote_cross_entropy(problem, [post.natural(raw)], [rows])
            value.backward()
            values.append((value.detach(), raw.grad.clone()))
        torch.testing.assert_close(values[0][0], values[1][0], rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(values[0][1], values[1][1], rtol=1e-3, atol=1e-5)
