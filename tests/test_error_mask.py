"""The training fast paths (precomputed float error masks, held class indices and counts) give
the losses of the votes path."""

import numpy as np
import pytest
import torch

from skpacbayes.posteriors import Categorical, Dirichlet, Gaussian
from skpacbayes.posteriors._base import ClassVotes, ErrorMask


def _case(n_classes, seed=0, b=300, n=40):
    g = torch.Generator().manual_seed(seed)
    votes = torch.randint(0, n_classes, (b, n), generator=g, dtype=torch.int8)
    y = torch.randint(0, n_classes, (b,), generator=g)
    return votes, y


@pytest.mark.parametrize("family, n_classes", [(Categorical, 2), (Categorical, 4), (Gaussian, 2)])
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


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("n_classes", [3, 7])
def test_class_votes_give_the_losses_and_gradients_of_the_votes(dtype, n_classes):
    votes, y = _case(n_classes, b=500)
    votes[:40, :] = 0  # rows where most classes have no vote
    post = Gaussian(votes.shape[1], n_classes)
    raw = post.init_raw(generator=torch.Generator().manual_seed(1), dtype=dtype)
    held = ClassVotes(votes, n_classes, dtype)
    assert torch.equal(held.counts.sum(dim=1), torch.full((500,), 40.0, dtype=dtype))

    def loss_and_grad(v):
        raw.grad = None
        r = post.stochastic_loss(post.natural(raw), v, y)
        (r * torch.linspace(0.5, 1.5, r.numel(), dtype=dtype)).sum().backward()
        return r.detach().clone(), raw.grad.clone()

    r_votes, g_votes = loss_and_grad(votes)
    r_held, g_held = loss_and_grad(held)
    # the same sums, up to the order of the additions
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == torch.float32 else {"rtol": 1e-12, "atol": 0}
    torch.testing.assert_close(r_held, r_votes, **tol)
    torch.testing.assert_close(g_held, g_votes, **tol)


def test_class_votes_are_refused_where_they_do_not_apply():
    votes, y = _case(3)
    held = ClassVotes(votes, 3)
    n = votes.shape[1]
    for post in (Categorical(n, 3), Dirichlet(n, 3), Gaussian(n, 4)):
        with pytest.raises(ValueError, match="ClassVotes"):
            post.stochastic_loss(post.natural(post.init_raw()), held, y)
    with pytest.raises(ValueError, match="ClassVotes"):  # losses of the vote itself
        Gaussian(n, 3).deterministic_loss(torch.ones(n), held, y)
    with pytest.raises(ValueError, match=r"y must be class indices in \[0, 3\)"):
        Gaussian(n, 3).stochastic_loss(torch.zeros(n), held, y + 3)
    with pytest.raises(ValueError, match=r"class indices in \[0, 2\)"):
        ClassVotes(votes, 2)
    with pytest.raises(TypeError, match="2-D integer"):
        ClassVotes(votes.float(), 3)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("scale", [0.05, 1.0, 30.0, 3000.0])
def test_dirichlet_training_table_follows_the_exact_loss(n_classes, scale):
    # the float32 training reads the Dirichlet loss off a table of knots: within 1e-5 of the
    # exact loss (float64), its gradient within 1e-3, at concentrations from tiny to large
    votes, y = _case(n_classes, seed=4)
    errors = (votes != y[:, None].to(votes.dtype)).to(torch.float32)
    post = Dirichlet(votes.shape[1], n_classes)
    alpha = scale * torch.rand(votes.shape[1], generator=torch.Generator().manual_seed(2))
    weights = torch.linspace(0.5, 1.5, votes.shape[0])
    results = []
    for dtype, v, t in ((torch.float32, ErrorMask(errors), None), (torch.float64, votes, y)):
        nat = (alpha + 0.01 * scale).to(dtype).requires_grad_(True)
        r = post.stochastic_loss(nat, v, t)
        (r * weights.to(dtype)).sum().backward()
        results.append((r.detach().double(), nat.grad.double()))
    (r_table, g_table), (r_exact, g_exact) = results
    torch.testing.assert_close(r_table, r_exact, rtol=0, atol=1e-5)
    torch.testing.assert_close(g_table, g_exact, rtol=1e-3, atol=1e-3 * g_exact.abs().max())


@pytest.mark.parametrize("posterior", ["categorical", "dirichlet", "gaussian"])
def test_vc_objective_from_the_error_matrix_matches_the_votes(posterior):
    # The VC baseline's cross-entropy, read off the error matrix on two-class tasks, equals
    # the one computed from the class scores of the votes.
    from types import SimpleNamespace

    import numpy as np

    from skpacbayes.engine.problem import RowProblem
    from skpacbayes.engine.spec import FitSpec
    from skpacbayes.engine.vote_loss import vote_cross_entropy
    from skpacbayes.objectives import VCDim

    votes, y = _case(2, seed=7, b=500, n=30)
    spec = FitSpec(bound=VCDim(), posterior=posterior, prior=None, delta=0.05, n_classes=2)
    group = SimpleNamespace(samples=np.arange(500), voters=np.arange(30))
    fast = RowProblem(spec, votes.numpy(), y.numpy(), [group], "cpu", torch.float32)
    slow = RowProblem(spec, votes.numpy(), y.numpy(), [group], "cpu", torch.float32)
    slow.errors = None
    assert fast.errors is not None
    post = fast.posteriors[0]
    raw = post.init_raw(generator=torch.Generator().manual_seed(3)).requires_grad_(True)
    for rows in (None, torch.arange(0, 500, 3)):
        values = []
        for problem in (fast, slow):
            raw.grad = None
            value = vote_cross_entropy(problem, [post.natural(raw)], [rows])
            value.backward()
            values.append((value.detach(), raw.grad.clone()))
        torch.testing.assert_close(values[0][0], values[1][0], rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(values[0][1], values[1][1], rtol=1e-3, atol=1e-5)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_vote_start_is_a_far_better_vote_than_any_single_voter(n_classes):
    # The per-row families' third start: the vote of least cross-entropy. 11 voters are right
    # on 70% of the rows and 30 worse than chance, independently: the best single voter errs
    # on about 30% of the rows, the uniform vote on most, the vote of the 11 on under 10%.
    from types import SimpleNamespace

    import numpy as np

    from skpacbayes.engine.problem import RowProblem
    from skpacbayes.engine.spec import FitSpec
    from skpacbayes.engine.vote_loss import vote_target
    from skpacbayes.objectives import FirstOrder

    rng = np.random.default_rng(0)
    b, good, bad = 800, 11, 30
    y = rng.integers(n_classes, size=b)
    right = np.r_[np.full(good, 0.7), np.full(bad, 0.4 if n_classes == 2 else 0.2)]
    wrong = (y[:, None] + rng.integers(1, n_classes, size=(b, good + bad))) % n_classes
    votes = np.where(rng.random((b, good + bad)) < right, y[:, None], wrong)
    spec = FitSpec(FirstOrder(), posterior="gaussian", prior=None, delta=0.05, n_classes=n_classes)
    group = SimpleNamespace(samples=np.arange(b), voters=np.arange(good + bad))
    problem = RowProblem(spec, votes, y, [group], "cpu", torch.float32)
    assert (problem.errors is not None) == (n_classes == 2)  # both paths of the loss

    def vote_error(q):
        scores = np.zeros((b, n_classes))
        np.add.at(scores, (np.arange(b)[:, None], votes), q)
        return np.mean(scores.argmax(axis=1) != y)

    q = vote_target(problem, 0)
    assert q.shape == (good + bad,) and np.all(q >= 0) and q.sum() == pytest.approx(1.0)
    assert vote_error(np.ones(good + bad)) > 0.4
    assert np.min(np.mean(votes != y[:, None], axis=0)) > 0.2
    assert vote_error(q) < 0.12


def _paired_errors(seed=0, b=400, n=30):
    """0/1 errors whose columns come in complementary pairs (a stump and its opposite), with
    some duplicated columns, shuffled."""
    g = torch.Generator().manual_seed(seed)
    base = torch.randint(0, 2, (b, n), generator=g).to(torch.float32)
    columns = torch.cat([base, 1.0 - base, base[:, :5]], dim=1)
    return columns[:, torch.randperm(columns.shape[1], generator=g)].contiguous()


def test_folded_error_mask_keeps_one_column_per_class_of_equal_or_complementary_columns():
    errors = _paired_errors()
    mask = ErrorMask.folded(errors)
    assert mask.shape == errors.shape
    assert mask.values.shape == (errors.shape[0], 30)  # 65 columns: 30 pairs and 5 copies
    rebuilt = torch.where(
        mask.signs > 0, mask.values[:, mask.columns], 1 - mask.values[:, mask.columns]
    )
    assert torch.equal(rebuilt, errors)
    # rows taken keep the fold; nothing to fold: the mask itself
    assert torch.equal(mask.take(slice(10, 20)).values, mask.values[10:20])
    independent = torch.eye(6)
    assert ErrorMask.folded(independent).columns is None


@pytest.mark.parametrize("family", [Categorical, Dirichlet, Gaussian])
def test_folded_error_mask_gives_the_losses_and_gradients_of_the_mask(family):
    errors = _paired_errors(seed=3)
    n = errors.shape[1]
    post = family(n, 2)
    raw = post.init_raw(generator=torch.Generator().manual_seed(1))
    weights = torch.linspace(0.5, 1.5, errors.shape[0])

    def loss_and_grad(mask, scales=None):
        raw.grad = None
        if scales is not None:
            with torch.no_grad():
                return post.scaled_stochastic_losses(post.natural(raw), mask, None, scales), None
        r = post.stochastic_loss(post.natural(raw), mask, None)
        (r * weights).sum().backward()
        return r.detach().clone(), raw.grad.clone()

    full, folded = ErrorMask(errors), ErrorMask.folded(errors)
    assert folded.columns is not None
    r_full, g_full = loss_and_grad(full)
    r_folded, g_folded = loss_and_grad(folded)
    torch.testing.assert_close(r_folded, r_full, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(g_folded, g_full, rtol=1e-4, atol=1e-5)
    scales = [0.5, 2.0]
    torch.testing.assert_close(
        loss_and_grad(folded, scales)[0], loss_and_grad(full, scales)[0], rtol=1e-5, atol=1e-6
    )
    with pytest.raises(TypeError, match="not folded"):  # the right votes' sums
        from skpacbayes.posteriors._vote_sums import vote_sums

        vote_sums(torch.ones(n), folded, None, "err_ok", 2, False)


def test_training_holds_the_stump_bank_errors_folded():
    # the default stumps come with their opposites: the training's error matrix holds at most
    # half of the columns, and reads the errors of every voter
    import numpy as np
    from sklearn.datasets import load_breast_cancer

    from skpacbayes import BinomialBoundClassifier
    from skpacbayes.engine.problem import RowProblem
    from skpacbayes.engine.statistics import EvaluationGroup
    from skpacbayes.voters import StumpBank

    X, y = load_breast_cancer(return_X_y=True)
    votes = StumpBank(random_state=0).fit(X, y).votes(X)
    est = BinomialBoundClassifier(posterior="categorical", random_state=0).fit(X, y)
    groups = [EvaluationGroup(np.arange(votes.shape[1]), np.arange(votes.shape[0]))]
    spec = est._fit_spec(len(est.classes_))
    problem = RowProblem(spec, votes, y, groups, torch.device("cpu"), torch.float32)
    mask = problem.errors[0]
    assert mask.columns is not None and mask.values.shape[1] <= votes.shape[1] // 2
    errors = torch.from_numpy((votes != y[:, None]).astype(np.float32))
    rebuilt = torch.where(
        mask.signs > 0, mask.values[:, mask.columns], 1 - mask.values[:, mask.columns]
    )
    assert torch.equal(rebuilt, errors)
    # not where the search follows the last bits of the objective: the VC baseline (training
    # errors), the margin bound (margin errors) and the tightened partition bound (its jumping
    # terms) hold the plain matrix
    from skpacbayes import MarginBoundClassifier, PartitionBoundClassifier, VCDimBoundClassifier

    for plain in (
        VCDimBoundClassifier(posterior="categorical"),
        MarginBoundClassifier(),
        PartitionBoundClassifier(posterior="dirichlet"),
    ):
        spec = plain._fit_spec(2)
        problem = RowProblem(spec, votes, y, groups, torch.device("cpu"), torch.float32)
        assert problem.errors[0].columns is None
    untightened = PartitionBoundClassifier(posterior="dirichlet", tighten=False)
    spec = untightened._fit_spec(2)
    problem = RowProblem(spec, votes, y, groups, torch.device("cpu"), torch.float32)
    assert problem.errors[0].columns is not None


@pytest.mark.parametrize(
    "data, posterior",
    [("breast_cancer", "gaussian"), ("breast_cancer", "dirichlet"), ("classification", "gaussian")],
)
def test_values_shared_in_a_block_are_keyed_by_how_the_errors_are_held(data, posterior):
    # a fit that holds the errors folded and one that holds them plain compute their own vote
    # start within a block (the products round differently): the plain fit is that of its own.
    # Where the key forgets how the errors are held (RowProblem.held a constant), the dirichlet
    # fit on breast cancer and the gaussian fit on the make_classification rows differ from
    # their own (the gaussian fit on breast cancer happens to round alike)
    import numpy as np
    from sklearn.datasets import load_breast_cancer, make_classification
    from sklearn.frozen import FrozenEstimator

    from skpacbayes import FirstOrderBoundClassifier, VCDimBoundClassifier
    from skpacbayes.engine.sharing import shared_votes
    from skpacbayes.voters import StumpBank

    if data == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
    else:
        X, y = make_classification(700, 15, random_state=0)
    bank = FrozenEstimator(StumpBank(random_state=0).fit(X, y))

    def vc():
        return VCDimBoundClassifier(
            voters=bank, posterior=posterior, max_epochs=15, cv=None, random_state=0
        )

    alone = vc().fit(X, y)
    with shared_votes():
        FirstOrderBoundClassifier(
            voters=bank, posterior=posterior, max_epochs=15, random_state=0
        ).fit(X, y)
        shared = vc().fit(X, y)
    assert shared.bound_ == alone.bound_
    np.testing.assert_array_equal(shared.weights_, alone.weights_)


def test_voter_errors_from_the_held_errors_are_those_of_the_votes():
    # the starts read each voter's errors off the held (folded) error matrix: the same counts
    # as the votes give, and the votes are held without a copy when every row is used
    import numpy as np
    from sklearn.datasets import load_breast_cancer

    from skpacbayes import FirstOrderBoundClassifier
    from skpacbayes.engine.problem import RowProblem
    from skpacbayes.engine.statistics import EvaluationGroup
    from skpacbayes.voters import StumpBank

    X, y = load_breast_cancer(return_X_y=True)
    votes = StumpBank(random_state=0).fit(X, y).votes(X)
    spec = FirstOrderBoundClassifier(posterior="dirichlet")._fit_spec(2)
    expected = np.sum(votes != y[:, None], axis=0)
    every_row = EvaluationGroup(np.arange(votes.shape[1]), np.arange(votes.shape[0]))
    some_rows = EvaluationGroup(np.arange(votes.shape[1]), np.arange(0, votes.shape[0], 3))
    for dtype in (torch.float32, torch.float64):
        problem = RowProblem(spec, votes, y, [every_row, some_rows], "cpu", dtype)
        assert (problem.errors is not None) == (dtype == torch.float32)
        assert np.array_equal(problem.voter_errors(0), expected)
        on_some = problem.voter_errors(1)
        assert on_some.dtype == np.int64
        assert np.array_equal(on_some, np.sum(votes[::3] != y[::3, None], axis=0))
        assert np.shares_memory(problem.votes[0].numpy(), votes)
        assert not np.shares_memory(problem.votes[1].numpy(), votes)


@pytest.mark.parametrize("shape", [(70_001, 200), (9_999, 37), (130, 400), (3, 5)])
def test_byte_products_are_those_of_the_float32_matrix(shape, monkeypatch):
    # a large float32 mask is also held in bytes, which the products of its rows and their
    # gradients read a block of rows at a time: the numbers of the float32 matrix
    import skpacbayes.posteriors._vote_sums as vote_sums

    g = torch.Generator().manual_seed(shape[0])
    values = (torch.rand(shape, generator=g) < 0.4).to(torch.float32)
    monkeypatch.setattr(vote_sums, "_BYTES_MIN_ELEMENTS", 1)
    for block in (2**21, 2**12):
        monkeypatch.setattr(vote_sums, "_BYTES_BLOCK", block)
        for mask in (ErrorMask(values), ErrorMask.folded(torch.cat([values, 1 - values], 1))):
            held = mask.with_bytes()
            assert held.codes is not None and mask.codes is None
            w = torch.randn(mask.shape[1], generator=g).exp().requires_grad_(True)
            expected = mask.matvec(w)
            (expected * torch.linspace(0, 1, shape[0])).sum().backward()
            grad, w.grad = w.grad, None
            product = held.matvec(w)
            (product * torch.linspace(0, 1, shape[0])).sum().backward()
            # bit for bit with the x86-64 OpenBLAS kernels measured (each row summed alike
            # whatever the block; the gradient's blocks added in order into one result);
            # BLAS promises the values to rounding only
            torch.testing.assert_close(product, expected, rtol=1e-5, atol=1e-6)
            torch.testing.assert_close(w.grad, grad, rtol=1e-5, atol=1e-4)
            post = Gaussian(mask.shape[1])
            torch.testing.assert_close(
                post.stochastic_loss(w.detach() - 1, held, None),
                post.stochastic_loss(w.detach() - 1, mask, None),
                rtol=1e-5,
                atol=1e-6,
            )
            assert held.take(slice(0, 2)).codes is None  # rows taken: the float32 matrix
    assert ErrorMask(values.double()).with_bytes().codes is None  # float32 only


def test_a_fit_on_read_only_votes_warns_nothing():
    # the row problem holds a kept (read-only) vote matrix without a copy: torch's warning on
    # non-writable arrays is raised once per process, so the fit runs in a fresh one
    import subprocess
    import sys

    code = (
        "import warnings; warnings.simplefilter('error')\n"
        "import numpy as np\n"
        "from skpacbayes import SingleVoterWarning, VCDimBoundClassifier\n"
        "warnings.simplefilter('ignore', SingleVoterWarning)  # advice, not the subject\n"
        "from skpacbayes.voters import StumpBank\n"
        "rng = np.random.RandomState(0)\n"
        "X = rng.uniform(-1, 1, size=(200, 12))\n"
        "y = (X[:, 0] > 0).astype(int) ^ (rng.rand(200) < 0.2)\n"
        "VCDimBoundClassifier(voters=StumpBank(feature_range=(-1, 1)), max_epochs=20,\n"
        "                     random_state=0).fit(X, y)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int64, np.uint32, np.float16])
def test_take_rows_is_numpy_take(dtype):
    # the rows of the vote matrix a row problem holds, copied into memory torch allocates
    from skpacbayes.engine.problem import take_rows

    votes = np.arange(7 * 5).reshape(7, 5).astype(dtype)
    rows = np.array([6, 0, 2, 2])
    taken = take_rows(votes, rows)
    assert taken.dtype == votes.dtype and taken.flags.c_contiguous
    assert np.array_equal(taken, np.take(votes, rows, axis=0))
    assert take_rows(votes, np.array([], dtype=np.int64)).shape == (0, 5)
