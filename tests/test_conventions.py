"""scikit-learn's conventions: keyword-only constructors, one name per concept, values that
mean nothing refused, one verbose prefix, documentation links in the HTML repr."""

import inspect
import re
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.utils._param_validation import InvalidParameterError

import skpacbayes
from skpacbayes import (
    CertifiedVoteClassifier,
    FirstOrderBoundClassifier,
    HoldOutBoundClassifier,
    OccamBoundClassifier,
)
from skpacbayes.model_selection import BoundSelectionClassifier
from skpacbayes.voters import OutOfBagVoters, PrefitVoters, SplitForest, StumpBank

#: parameters scikit-learn itself keeps positional on the same kind of estimator:
#: VotingClassifier(estimators, *, ...), BaggingClassifier(estimator, n_estimators, *, ...),
#: RandomForestClassifier(n_estimators, *, ...), FixedThresholdClassifier(estimator, *, ...)
POSITIONAL = {
    skpacbayes.CertifiedThresholdClassifier: ("estimator",),
    skpacbayes.CertifiedSelectiveClassifier: ("estimator",),
    BoundSelectionClassifier: ("estimators",),
    SplitForest: ("estimator", "n_estimators"),
    OutOfBagVoters: ("estimator", "n_estimators"),
    PrefitVoters: ("estimators",),
    StumpBank: ("n_thresholds",),
}
ESTIMATORS = [
    getattr(skpacbayes, name) for name in skpacbayes.__all__ if name.endswith("Classifier")
] + list(POSITIONAL)


def _data(m=60, seed=0):
    return make_classification(n_samples=m, n_features=4, random_state=seed)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_constructors_are_keyword_only(cls):
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    positional = tuple(p.name for p in params if p.kind is not p.KEYWORD_ONLY)
    assert positional == POSITIONAL.get(cls, ()), f"{cls.__name__}{positional}"


def test_a_positional_forest_is_refused():
    with pytest.raises(TypeError, match="positional"):
        HoldOutBoundClassifier(SplitForest(n_estimators=4))
    with pytest.raises(TypeError, match="positional"):
        CertifiedVoteClassifier(RandomForestClassifier(n_estimators=4))


def test_certified_vote_takes_the_forest_as_voters_and_the_old_name_warns():
    X, y = _data()
    forest = RandomForestClassifier(n_estimators=4)
    params = dict(validation_fraction=(0.5,), random_state=0)
    new = CertifiedVoteClassifier(voters=forest, **params)
    old = CertifiedVoteClassifier(estimator=forest, **params)
    assert old.get_params()["estimator"] is forest and new.get_params()["estimator"] == (
        "deprecated"
    )
    assert clone(old).get_params()["estimator"] is not forest  # cloned as any parameter
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new.fit(X, y)
    with pytest.warns(FutureWarning, match="estimator was renamed voters"):
        old.fit(X, y)
    # honoured: the same forests, the same bounds and predictions
    assert [c["bound"] for c in old.candidates_] == [c["bound"] for c in new.candidates_]
    assert (old.predict(X) == new.predict(X)).all()
    with pytest.raises(ValueError, match="Both voters and estimator"):
        CertifiedVoteClassifier(voters=forest, estimator=forest).fit(X, y)


def _fitted_selections():
    X, y = _data()
    return [
        OccamBoundClassifier(random_state=0).fit(X, y),
        HoldOutBoundClassifier(
            voters=SplitForest(n_estimators=4), validation_fraction=None, random_state=0
        ).fit(X, y),
        BoundSelectionClassifier([OccamBoundClassifier(random_state=0)]).fit(X, y),
        CertifiedVoteClassifier(
            voters=RandomForestClassifier(n_estimators=3), validation_fraction=(0.5,)
        ).fit(X, y),
    ]


@pytest.mark.parametrize("delta", [1.0, 0.0, 1.5, float("nan")])
def test_recompute_bound_refuses_delta_outside_the_open_interval(delta):
    for est in _fitted_selections():
        name = type(est).__name__
        with pytest.raises(InvalidParameterError, match=f"'delta' parameter of {name}.recomp"):
            est.recompute_bound(delta)
        assert 0 < est.recompute_bound(0.5) <= 1


@pytest.mark.parametrize("bank", [SplitForest(), OutOfBagVoters(), PrefitVoters([])])
def test_voter_banks_refuse_n_jobs_zero(bank):
    X, y = _data()
    with pytest.raises(InvalidParameterError, match="'n_jobs' parameter"):
        bank.set_params(n_jobs=0).fit(X, y)


def test_every_verbose_line_has_one_prefix(capsys):
    X, y = _data()
    forest = RandomForestClassifier(n_estimators=3)
    estimators = [
        FirstOrderBoundClassifier(posterior="gaussian", max_epochs=2, random_state=0),
        HoldOutBoundClassifier(voters=forest, validation_fraction=(0.5,), random_state=0),
        CertifiedVoteClassifier(voters=forest, validation_fraction=(0.5,), random_state=0),
        BoundSelectionClassifier([OccamBoundClassifier()]),
    ]
    for est in estimators:
        est.set_params(verbose=1).fit(X, y)
        lines = capsys.readouterr().out.splitlines()
        assert lines
        for line in lines:
            assert re.match(rf"\[{type(est).__name__}\] \S", line), line


def test_html_repr_links_each_estimator_to_its_built_api_page(monkeypatch):
    monkeypatch.setenv("SKPACBAYES_DOCS_URL", "https://example.org/skpacbayes")
    pages = "https://example.org/skpacbayes/gen_modules/generated/"
    html = "".join(
        est._repr_html_()
        for est in (
            BoundSelectionClassifier([OccamBoundClassifier()]),
            OccamBoundClassifier(voters=StumpBank()),  # the nested bank has its link too
            CertifiedVoteClassifier(voters=RandomForestClassifier()),
        )
    )
    for page in (
        "skpacbayes.model_selection.BoundSelectionClassifier",
        "skpacbayes.OccamBoundClassifier",
        "skpacbayes.voters.StumpBank",
        "skpacbayes.CertifiedVoteClassifier",
    ):
        assert f'href="{pages}{page}.html"' in html, page
    # a private subclass links to its documented parent; scikit-learn's own to its site
    from skpacbayes.classifiers._held_out_vote import _FoldHoldOut

    assert _FoldHoldOut()._get_doc_link() == f"{pages}skpacbayes.HoldOutBoundClassifier.html"
    assert "scikit-learn.org" in RandomForestClassifier()._get_doc_link()


def test_html_repr_has_no_link_where_no_docs_are_built(monkeypatch, tmp_path):
    from skpacbayes.voters import _base

    monkeypatch.delenv("SKPACBAYES_DOCS_URL", raising=False)
    monkeypatch.setattr(_base, "__file__", str(tmp_path / "skpacbayes" / "voters" / "_base.py"))
    assert OccamBoundClassifier()._get_doc_link() == ""
    built = tmp_path / "docs" / "_build" / "html"
    built.mkdir(parents=True)
    (built / "index.html").write_text("")
    link = OccamBoundClassifier()._get_doc_link()
    assert link == (built / "gen_modules/generated/skpacbayes.OccamBoundClassifier.html").as_uri()


def test_certified_vote_sizes_its_default_forests_to_the_rows_and_fraction():
    """Below 128 rows one tree per four rows; from 128 on, 140 (fraction below 0.5) or 40 trees,
    the first trees of the forest HoldOut grows on the same rows."""
    from skpacbayes.engine.protocols.default_candidates import SMALL_SAMPLE, default_forest_trees

    for m, f in ((60, 0.5), (SMALL_SAMPLE, 0.2), (SMALL_SAMPLE, 0.5)):
        X, y = _data(m)
        one = dict(validation_fraction=(f,), n_folds=1, stump_candidate=False)
        est = CertifiedVoteClassifier(random_state=0, **one).fit(X, y)
        trees = m // 4 if m < SMALL_SAMPLE else (140 if f < 0.5 else 40)
        assert default_forest_trees(m, f) == trees
        grown = est.best_estimator_.voters_.estimators_
        assert len(grown) == trees
        # HoldOut's candidate of the same fraction and seed: same rows, and its forest
        # (200 trees from 128 rows on) begins with the same trees
        reference = HoldOutBoundClassifier(validation_fraction=f, random_state=0)
        if m < SMALL_SAMPLE:
            reference.set_params(voters=RandomForestClassifier(n_estimators=trees))
        reference.fit(X, y)
        assert np.array_equal(
            est.best_estimator_.validation_indices_, reference.validation_indices_
        )
        first = reference.voters_.estimators_[:trees]
        for a, b in zip(grown, first, strict=True):
            assert a.random_state == b.random_state
            assert np.array_equal(a.tree_.threshold, b.tree_.threshold)
        if m < SMALL_SAMPLE:
            assert est.bound_ == reference.bound_


def test_the_untrained_start_is_asked_for_by_name():
    """``max_epochs=0`` is refused; ``solver="none"`` deploys the start, whatever the budget."""
    X, y = _data(300)
    params = dict(posterior="gaussian", voters=SplitForest(n_estimators=10), random_state=0)
    with pytest.raises(InvalidParameterError, match="'max_epochs' parameter"):
        FirstOrderBoundClassifier(max_epochs=0, **params).fit(X, y)
    fits = [
        FirstOrderBoundClassifier(solver="none", max_epochs=e, **params).fit(X, y) for e in (1, 50)
    ]
    assert [f.solver_ for f in fits] == ["none", "none"] and fits[0].n_iter_ == 0
    assert fits[0].bound_ == fits[1].bound_
    trained = FirstOrderBoundClassifier(max_epochs=50, **params).fit(X, y)
    assert trained.bound_ < fits[0].bound_
