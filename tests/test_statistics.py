"""The statistics engine: exact counts, chunking, and the certificate read from the counts."""

import numpy as np
import pytest
import torch
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_iris, make_classification

from skpacbayes import (
    CBoundClassifier,
    FirstOrderBoundClassifier,
    OccamBoundClassifier,
    PartitionBoundClassifier,
    SecondOrderBoundClassifier,
)
from skpacbayes.engine.passes import VotePasses
from skpacbayes.engine.statistics import (
    EvaluationScheme,
    VoteStatistics,
    certified_statistics,
    count_statistics,
)
from skpacbayes.voters import OutOfBagVoters, SplitForest, StumpBank


def _brute(votes, y, mask):
    """Counts by definition, one voter (pair) at a time, in Python integers."""
    wrong = (votes != y[:, None]) & mask
    n = votes.shape[1]
    sizes = mask.sum(axis=0)
    errors = wrong.sum(axis=0)
    pair_sizes = np.array([[np.sum(mask[:, i] & mask[:, j]) for j in range(n)] for i in range(n)])
    pair_errors = np.array(
        [[np.sum(wrong[:, i] & wrong[:, j]) for j in range(n)] for i in range(n)]
    )
    return sizes, errors, pair_sizes, pair_errors


def _full_mask(scheme):
    if scheme.out_of_bag:
        return scheme.mask(0, scheme.n_rows)
    mask = np.zeros((scheme.n_rows, scheme.n_voters), dtype=bool)
    for group in scheme.groups:
        mask[np.ix_(group.samples, group.voters)] = True
    return mask


@pytest.mark.parametrize(
    "bank",
    [
        StumpBank(n_thresholds=3, random_state=0),  # build rows: excluded for every voter
        StumpBank(n_thresholds=3, feature_range=(-3, 3)),  # every voter on every row
        SplitForest(n_estimators=6, random_state=0),  # two halves
        OutOfBagVoters(n_estimators=6, random_state=0),  # one row set per voter
        OutOfBagVoters(n_estimators=6, bootstrap=True, random_state=0),
    ],
    ids=["stumps-built", "stumps-range", "split", "oob-sub", "oob-boot"],
)
@pytest.mark.parametrize("chunk_rows", [7, 10_000])
def test_counts_are_exact_for_every_evaluation_rule(bank, chunk_rows):
    X, y = make_classification(150, 4, random_state=0)
    bank.fit(X, y)
    scheme = EvaluationScheme.from_voters(bank, X.shape[0])
    passes = VotePasses(bank, X, chunk_rows=chunk_rows)
    counts = count_statistics(passes.chunks(), y, scheme, pairs=True)
    sizes, errors, pair_sizes, pair_errors = _brute(bank.votes(X), y, _full_mask(scheme))
    np.testing.assert_array_equal(counts.sizes, sizes)
    np.testing.assert_array_equal(counts.errors, errors)
    np.testing.assert_array_equal(counts.pair_errors, pair_errors)
    np.testing.assert_array_equal(counts.pair_sizes, pair_sizes)


def test_vote_passes_keep_the_votes_only_within_budget():
    X, y = make_classification(100, 4, random_state=0)
    bank = StumpBank(n_thresholds=2, feature_range=(-3, 3)).fit(X, y)
    calls = []
    original = bank.votes

    def counting(rows):
        calls.append(rows.shape[0])
        return original(rows)

    bank.votes = counting
    kept = VotePasses(bank, X, chunk_rows=30)
    for _ in range(2):
        list(kept.chunks())
    assert calls == [30, 30, 30, 10]  # computed once, then read back
    calls.clear()
    dropped = VotePasses(bank, X, keep_bytes=0, chunk_rows=30)
    for _ in range(2):
        list(dropped.chunks())
    assert calls == [30, 30, 30, 10] * 2  # computed again at every pass


def _counting_votes(bank):
    """``bank`` frozen, with the row count of each of its ``votes`` calls listed."""
    from sklearn.frozen import FrozenEstimator

    calls = []
    original = bank.votes

    def counting(rows, **kwargs):
        calls.append(rows.shape[0])
        return original(rows, **kwargs)

    bank.votes = counting
    return FrozenEstimator(bank), calls


@pytest.mark.parametrize("path", ["counts", "rows"])
def test_selection_candidates_on_frozen_voters_share_one_vote_matrix(path):
    from sklearn.base import clone

    from skpacbayes.model_selection import BoundSelectionClassifier

    X, y = load_iris(return_X_y=True)
    bank = SplitForest(n_estimators=8, random_state=0).fit(X, y)
    frozen, calls = _counting_votes(bank)
    if path == "counts":
        candidates = [
            cls(voters=frozen, random_state=0)
            for cls in (FirstOrderBoundClassifier, SecondOrderBoundClassifier, OccamBoundClassifier)
        ]
    else:
        candidates = [
            FirstOrderBoundClassifier(
                solver="none", voters=frozen, posterior="gaussian", prior=t, random_state=0
            )
            for t in (0.5, 1.0, 2.0)
        ]
    sel = BoundSelectionClassifier(candidates).fit(X, y)
    assert calls.count(X.shape[0]) == 1  # one vote matrix of the training rows for all three
    shared = [est.bound_ for est in sel.estimators_]
    calls.clear()
    alone = [clone(c).set_params(delta=sel.delta / 3).fit(X, y).bound_ for c in candidates]
    assert calls.count(X.shape[0]) == 3  # outside a selection, each fit computes its own
    assert shared == alone  # the same certificates to the last digit


def test_fits_and_predictions_in_a_block_share_one_vote_matrix_per_rows():
    """Within a block, fits and predictions on one frozen bank compute its votes once per
    row set (training rows, test rows), a selection inside the block joins it, and the
    predictions are those of fits of their own."""

    from skpacbayes import HoldOutBoundClassifier
    from skpacbayes.engine.passes import shared_vote_matrix
    from skpacbayes.engine.sharing import shared_votes
    from skpacbayes.model_selection import BoundSelectionClassifier

    X, y = load_iris(return_X_y=True)
    order = np.random.default_rng(0).permutation(y.size)
    X_train, X_test, y_train = X[order[:100]], X[order[100:]], y[order[:100]]
    bank = SplitForest(n_estimators=8, random_state=0).fit(X_train, y_train)
    frozen, calls = _counting_votes(bank)

    def estimators():
        return [
            FirstOrderBoundClassifier(voters=frozen, random_state=0),
            FirstOrderBoundClassifier(
                solver="none", voters=frozen, posterior="gaussian", random_state=0
            ),
            HoldOutBoundClassifier(voters=frozen, validation_fraction=None, random_state=0),
            BoundSelectionClassifier(
                [OccamBoundClassifier(voters=frozen), SecondOrderBoundClassifier(voters=frozen)]
            ),
        ]

    alone = [est.fit(X_train, y_train).predict(X_test) for est in estimators()]
    # one matrix of the training rows per estimator (the selection's candidates share one)
    assert calls.count(100) == 4 and calls.count(50) == 4
    calls.clear()
    with shared_votes():
        votes = shared_vote_matrix(frozen, X_train)
        with shared_votes():  # a block inside a block joins it
            assert shared_vote_matrix(frozen, X_train) is votes
        shared = [est.fit(X_train, y_train).predict(X_test) for est in estimators()]
        assert not votes.flags.writeable
        assert shared_vote_matrix(frozen, X_test.copy()) is not shared_vote_matrix(frozen, X_test)
    # the hold-out fit's passes (its bank's classes are the task's: no recoding) read the
    # block's matrix too
    assert calls.count(100) == 1  # the block's matrix
    assert calls.count(50) == 2  # one for every prediction, one for the copy of the rows
    for a, b in zip(alone, shared, strict=True):
        np.testing.assert_array_equal(a, b)
    assert shared_vote_matrix(frozen, X_test).flags.writeable  # outside a block: computed anew


def test_fits_on_memory_mapped_rows_share_their_votes(tmp_path):
    """joblib hands its worker processes memory-mapped arrays, of which scikit-learn's input
    validation makes a new plain array at every fit: the fits and predictions of a block
    still compute one vote matrix per row set, a copy of the rows one of its own."""
    from skpacbayes.engine.passes import shared_vote_matrix
    from skpacbayes.engine.sharing import rows_key, shared_votes

    X, y = load_iris(return_X_y=True)
    mapped = np.memmap(tmp_path / "X.dat", dtype=X.dtype, mode="w+", shape=X.shape)
    mapped[:] = X
    bank = SplitForest(n_estimators=8, random_state=0).fit(X, y)
    frozen, calls = _counting_votes(bank)
    fits = [
        FirstOrderBoundClassifier(voters=frozen, random_state=0),
        FirstOrderBoundClassifier(
            solver="none", voters=frozen, posterior="gaussian", random_state=0
        ),
        SecondOrderBoundClassifier(voters=frozen, random_state=0),
    ]
    with shared_votes():
        votes = shared_vote_matrix(frozen, mapped)
        shared = [est.fit(mapped, y).predict(mapped) for est in fits]
        assert shared_vote_matrix(frozen, np.asarray(mapped)) is votes
        assert shared_vote_matrix(frozen, mapped.copy()) is not votes
    assert calls == [150, 150]  # the block's matrix and the copy's
    assert rows_key(mapped) != rows_key(mapped[::2]) != rows_key(mapped.T)
    for est, labels in zip(fits, shared, strict=True):
        np.testing.assert_array_equal(labels, clone(est).fit(X, y).predict(X))


def test_selection_candidates_on_the_same_votes_share_the_vote_start(monkeypatch):
    # the vote of least cross-entropy (a start of the per-row training) depends on the
    # votes of each half only: a selection computes it once per half, not once per candidate
    from sklearn.base import clone
    from sklearn.frozen import FrozenEstimator

    from skpacbayes.engine import vote_loss
    from skpacbayes.model_selection import BoundSelectionClassifier

    X, y = load_iris(return_X_y=True)
    frozen = FrozenEstimator(SplitForest(n_estimators=8, random_state=0).fit(X, y))
    starts = []
    minimize = vote_loss.minimize_lbfgs

    def counting(params, objective, **kwargs):
        starts.append(kwargs.get("max_iter") == vote_loss._VOTE_START_ITER)
        return minimize(params, objective, **kwargs)

    monkeypatch.setattr(vote_loss, "minimize_lbfgs", counting)
    candidates = [
        FirstOrderBoundClassifier(
            voters=frozen, posterior="gaussian", prior=t, max_epochs=3, random_state=0
        )
        for t in (0.5, 1.0, 2.0)
    ]
    sel = BoundSelectionClassifier(candidates).fit(X, y)
    assert sum(starts) == 2  # two halves, once each for the three candidates
    shared = [est.bound_ for est in sel.estimators_]
    starts.clear()
    alone = [clone(c).set_params(delta=sel.delta / 3).fit(X, y).bound_ for c in candidates]
    assert sum(starts) == 6  # outside a selection, each fit computes its own
    assert shared == alone  # the same certificates to the last digit


def test_selection_candidates_on_the_same_votes_share_their_start_scans(monkeypatch):
    # the stochastic losses at the start scans' points depend on the votes, the labels and
    # the point alone, not on the prior or the bound: a selection of Gaussian candidates that
    # differ by their prior (the same points: the target weights times a scale, one ray per
    # target) evaluates each ray once per half, not once per candidate
    from sklearn.base import clone
    from sklearn.frozen import FrozenEstimator

    from skpacbayes.engine import rows
    from skpacbayes.engine.problem import RowProblem
    from skpacbayes.model_selection import BoundSelectionClassifier

    X, y = load_iris(return_X_y=True)
    frozen = FrozenEstimator(SplitForest(n_estimators=8, random_state=0).fit(X, y))
    scans = []
    losses = RowProblem.losses

    def counting(self, g, nat, rows=None, scales=None):
        if not torch.is_grad_enabled() and nat.dtype == torch.float32:  # a scan's points
            scans.append(len(scales))  # a ray: the sums of the weights formed once
        return losses(self, g, nat, rows, scales)

    monkeypatch.setattr(RowProblem, "losses", counting)
    candidates = [
        FirstOrderBoundClassifier(
            voters=frozen, posterior="gaussian", prior=t, max_epochs=3, random_state=0
        )
        for t in (0.5, 1.0, 2.0)
    ]
    sel = BoundSelectionClassifier(candidates).fit(X, y)
    shared = sum(scans)
    assert set(scans) == {len(rows._START_SCALES)}  # each scan, one ray
    scans.clear()
    alone = [clone(c).set_params(delta=sel.delta / 3).fit(X, y).bound_ for c in candidates]
    assert shared >= 2 * 2 * len(rows._START_SCALES)  # two halves, two targets or more
    assert sum(scans) == 3 * shared  # outside a selection, each fit scans its own
    assert [est.bound_ for est in sel.estimators_] == alone  # the same certificates


@pytest.mark.parametrize("bank", ["stumps", "forest"])
def test_selection_candidates_growing_the_same_bank_grow_it_once(bank, monkeypatch):
    # candidates given the same unfitted voters and random_state would grow identical banks:
    # a selection grows it once (and computes its votes once); another seed grows its own
    from sklearn.base import clone

    from skpacbayes.model_selection import BoundSelectionClassifier

    X, y = load_breast_cancer(return_X_y=True)
    cls = StumpBank if bank == "stumps" else SplitForest
    grown = []
    fit = cls.fit

    def counting(self, X, y):
        grown.append(self.random_state)
        return fit(self, X, y)

    monkeypatch.setattr(cls, "fit", counting)
    voters = StumpBank(n_thresholds=5) if bank == "stumps" else SplitForest(n_estimators=6)
    candidates = [
        FirstOrderBoundClassifier(voters=voters, posterior=p, max_epochs=2, random_state=0)
        for p in ("categorical", "gaussian")
    ] + [SecondOrderBoundClassifier(voters=voters, max_epochs=2, random_state=0)]
    candidates.append(clone(candidates[0]).set_params(random_state=1))
    sel = BoundSelectionClassifier(candidates).fit(X, y)
    assert len(grown) == 2 and grown[0] != grown[1]  # random_state 0 once, 1 once
    banks = [id(est.voters_) for est in sel.estimators_]
    assert banks[0] == banks[1] == banks[2] != banks[3]
    shared = [est.bound_ for est in sel.estimators_]
    grown.clear()
    alone = [clone(c).set_params(delta=sel.delta / 4).fit(X, y).bound_ for c in candidates]
    assert len(grown) == 4  # outside a selection, each fit grows its own
    assert shared == alone  # the same certificates to the last digit


def test_selection_candidates_on_other_labels_grow_their_own_bank():
    from skpacbayes.engine.sharing import shared_fit, shared_votes

    X, y = load_breast_cancer(return_X_y=True)
    with shared_votes():
        a = shared_fit(StumpBank(random_state=0), X, y)
        b = shared_fit(StumpBank(random_state=0), X, 1 - y)
        c = shared_fit(StumpBank(random_state=0), X.copy(), y)
        d = shared_fit(StumpBank(random_state=0), X, y)
        names = np.array(["benign", "malignant"], dtype=object)[y]  # labels of any dtype
        e = shared_fit(StumpBank(random_state=0), X, names)
        f = shared_fit(StumpBank(random_state=0), X, names.copy())
    assert a is d and e is f and len({id(a), id(b), id(c), id(e)}) == 4
    with shared_votes():  # a bank that cannot be hashed is fitted on its own
        odd = StumpBank(random_state=0)
        odd.hook = lambda: None  # pickle refuses a lambda
        assert shared_fit(odd, X, y) is odd and odd.n_voters_ == a.n_voters_
    assert shared_fit(StumpBank(random_state=0), X, y) is not a  # outside a block: a new fit


def test_counts_add_over_disjoint_rows():
    a = VoteStatistics(np.array([2, 3]), np.array([1, 0]), np.eye(2, dtype=int), np.ones((2, 2)))
    b = VoteStatistics(np.array([1, 1]), np.array([1, 1]), np.eye(2, dtype=int), np.ones((2, 2)))
    total = a + b
    np.testing.assert_array_equal(total.sizes, [3, 4])
    np.testing.assert_array_equal(total.errors, [2, 1])
    np.testing.assert_array_equal(total.pair_errors, 2 * np.eye(2))


def test_certified_statistics_are_the_means_of_the_row_losses_raised_by_the_allowance():
    X, y = make_classification(300, 5, random_state=1)
    bank = StumpBank(n_thresholds=4, random_state=0).fit(X, y)
    scheme = EvaluationScheme.from_voters(bank, X.shape[0])
    counts = count_statistics([(0, bank.votes(X))], y, scheme, pairs=True)
    group = counts.group(scheme.groups[0].voters)
    rows = scheme.groups[0].samples
    w = np.random.default_rng(0).dirichlet(np.ones(bank.n_voters_))
    r = (bank.votes(X)[rows] != y[rows, None]) @ w  # Categorical stochastic losses
    stats = certified_statistics(w, group, ("gibbs", "tandem", "disagreement"))
    for key, exact in (
        ("gibbs", r.mean()),
        ("tandem", (r**2).mean()),
        ("disagreement", (2 * r * (1 - r)).mean()),
    ):
        assert stats[key] == pytest.approx(exact, abs=1e-11)
    assert stats["gibbs"] > r.mean() and stats["tandem"] > (r**2).mean()  # the safe side
    assert stats["disagreement"] < (2 * r * (1 - r)).mean()


@pytest.mark.parametrize(
    "cls", [FirstOrderBoundClassifier, SecondOrderBoundClassifier, CBoundClassifier]
)
def test_the_count_certificate_equals_the_row_certificate(cls):
    # the same posterior certified from the counts and from the float64 losses of the rows
    import skpacbayes.engine.rows as fitting

    X, y = load_breast_cancer(return_X_y=True)
    counted = cls(random_state=0).fit(X, y)
    assert counted.solver_ in ("exact", "lbfgs")

    # certify the count path's weights on the row path (solver="adam"): patch its training
    def trained(spec, problem, seed, solver, **kwargs):
        natural = [np.asarray(p) for p in counted.posterior_params_]
        return natural, counted.mixture_weights_, [], 0, "prior"

    original = fitting.train_rows
    fitting.train_rows = trained
    try:
        rows = cls(random_state=0, solver="adam").fit(X, y)
    finally:
        fitting.train_rows = original
    np.testing.assert_allclose(rows.weights_, counted.weights_)
    assert rows.bound_ == pytest.approx(counted.bound_, abs=1e-10)
    for key, values in counted.certificate_.statistics.items():
        np.testing.assert_allclose(rows.certificate_.statistics[key], values, atol=1e-10)


def test_out_of_bag_counts_feed_the_same_engine():
    X, y = load_iris(return_X_y=True)
    clf = SecondOrderBoundClassifier(voters=OutOfBagVoters(n_estimators=8), random_state=0)
    clf.fit(X, y)
    assert clf.solver_ == "exact" and clf.certificate_.details["scheme"] == "out_of_bag"
    assert clf.certificate_.m == (clf.certificate_.details["r2"],)


@pytest.mark.parametrize(
    "cls", [FirstOrderBoundClassifier, PartitionBoundClassifier, OccamBoundClassifier]
)
def test_split_voters_on_the_count_path(cls):
    X, y = load_iris(return_X_y=True)
    clf = cls(voters=SplitForest(n_estimators=6), random_state=0).fit(X, y)
    assert len(clf.certificate_.m) == 2 and 0 < clf.bound_ <= 1
    # the bound is linear in the free mixture weight: all the weight on the better half
    assert sorted(clf.mixture_weights_.tolist()) == [0.0, 1.0]
