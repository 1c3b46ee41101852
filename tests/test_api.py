"""API conventions: documented defaults, ``device`` as a torch.device, nested voter parameters."""

import ast
import importlib
import inspect
import re

import numpy as np
import pytest
from numpydoc.docscrape import ClassDoc, FunctionDoc
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV
from sklearn.utils._param_validation import InvalidParameterError

import skpacbayes
from skpacbayes.model_selection import SelectionWarning
from skpacbayes.voters import StumpBank

MODULES = (
    "skpacbayes",
    "skpacbayes.voters",
    "skpacbayes.posteriors",
    "skpacbayes.model_selection",
    "skpacbayes.plotting",
    "skpacbayes.datasets",
    "skpacbayes.benchmark",
)


def _public_callables():
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) and issubclass(obj, BaseException):
                continue  # warnings and errors take a message, no documented parameters
            if inspect.isclass(obj) or inspect.isfunction(obj):
                yield f"{module_name}.{name}", obj


def _documented_defaults(obj):
    doc = ClassDoc(obj) if inspect.isclass(obj) else FunctionDoc(obj)
    for param in doc["Parameters"]:
        match = re.search(r"default\s*=\s*(.+)$", param.type)
        if match is None:
            continue
        for name in (n.strip() for n in param.name.split(",")):
            yield name, match.group(1).strip()


PUBLIC = sorted(dict(_public_callables()).items())


@pytest.mark.parametrize(("qualname", "obj"), PUBLIC, ids=[q for q, _ in PUBLIC])
def test_documented_defaults_match_signatures(qualname, obj):
    """Every numpydoc ``default=...`` equals the default of the signature."""
    signature = inspect.signature(obj)
    for name, text in _documented_defaults(obj):
        assert name in signature.parameters, f"{qualname}: documents unknown parameter {name!r}"
        default = signature.parameters[name].default
        assert default is not inspect.Parameter.empty, f"{qualname}({name}) has no default"
        try:
            documented = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            documented = text
        assert documented == default or text == repr(default), (
            f"{qualname}: the docstring says {name} default={text}, the signature {default!r}"
        )


def test_documented_defaults_check_can_fail():
    def f(a=1):
        """Toy.

        Parameters
        ----------
        a : int, default=2
            A value.
        """

    ((name, text),) = _documented_defaults(f)
    assert (name, text) == ("a", "2") and ast.literal_eval(text) != inspect.signature(f).parameters[
        "a"
    ].default


def test_split_forest_default_is_not_stratified():
    """The cross bound needs a split that does not look at the labels: the default."""
    from skpacbayes.voters import SplitForest

    assert SplitForest().stratify is False
    X, y = make_classification(n_samples=80, weights=[0.8], random_state=0)
    assert SplitForest(n_estimators=4, random_state=0).fit(X, y).stratified_ is False


# ----------------------------------------------------------------------------- device


@pytest.mark.parametrize(
    "cls", [skpacbayes.FirstOrderBoundClassifier, skpacbayes.SecondOrderBoundClassifier]
)
def test_device_accepts_torch_device(cls):
    torch = pytest.importorskip("torch")
    X, y = make_classification(n_samples=120, n_features=5, random_state=0)
    kwargs = {"max_epochs": 3, "random_state": 0}
    est = cls(device=torch.device("cpu"), **kwargs).fit(X, y)
    ref = cls(device="cpu", **kwargs).fit(X, y)
    assert est.bound_ == ref.bound_
    np.testing.assert_array_equal(est.predict(X), ref.predict(X))
    assert est.get_params()["device"] == torch.device("cpu")


def test_device_rejects_other_types():
    X, y = make_classification(
        n_samples=40, n_features=3, n_informative=2, n_redundant=0, random_state=0
    )
    with pytest.raises(InvalidParameterError, match=r"'device'.*torch\.device"):
        skpacbayes.FirstOrderBoundClassifier(device=0).fit(X, y)


# ----------------------------------------------------------------------------- voters__ params


def test_grid_search_over_voter_parameters_with_explicit_voters():
    X, y = make_classification(n_samples=120, n_features=4, random_state=0)
    search = GridSearchCV(
        skpacbayes.OccamBoundClassifier(voters=StumpBank()),
        {"voters__n_thresholds": [2, 5]},
        cv=2,
    )
    with pytest.warns(SelectionWarning, match="voters__n_thresholds"):  # the voters changed
        search.fit(X, y)
    assert search.best_params_["voters__n_thresholds"] in (2, 5)


def test_voter_parameters_with_default_voters_give_a_clear_error():
    X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    est = skpacbayes.OccamBoundClassifier()
    with pytest.raises(ValueError, match=r"voters=None.*voters=StumpBank\(\)"):
        est.set_params(voters__n_thresholds=3)
    with pytest.raises(ValueError, match=r"voters__n_thresholds"):
        GridSearchCV(est, {"voters__n_thresholds": [2, 5]}, cv=2, error_score="raise").fit(X, y)


def test_votes_in_place_under_a_process_backend():
    """Threads filling the vote matrix in place must stay threads under any joblib backend."""
    from joblib import parallel_config

    from skpacbayes.voters import SplitForest

    X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    forest = SplitForest(n_estimators=4, random_state=0, n_jobs=2).fit(X, y)
    ref = SplitForest(n_estimators=4, random_state=0).fit(X, y).votes(X)
    with parallel_config(backend="loky"):
        np.testing.assert_array_equal(forest.votes(X), ref)


def _every_estimator():
    from sklearn.ensemble import RandomForestClassifier

    import skpacbayes
    from skpacbayes.model_selection import BoundSelectionClassifier

    names = [
        n for n in skpacbayes.__all__ if n.endswith("Classifier") and n != "MajorityVoteClassifier"
    ]
    forest = RandomForestClassifier(n_estimators=3)
    out = {}
    for name in names:
        cls = getattr(skpacbayes, name)
        if name in ("CertifiedThresholdClassifier", "CertifiedSelectiveClassifier"):
            from sklearn.linear_model import LogisticRegression

            out[name] = cls(LogisticRegression())  # a decision of the model it wraps
        else:
            out[name] = cls(voters=forest) if name == "CertifiedVoteClassifier" else cls()
    out["BoundSelectionClassifier"] = BoundSelectionClassifier([skpacbayes.OccamBoundClassifier()])
    return out


@pytest.mark.parametrize("name", sorted(_every_estimator()))
def test_sample_weight_is_refused_by_name(name):
    """Every estimator refuses sample weights with its own name, before any work."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.utils.validation import has_fit_parameter

    X, y = load_breast_cancer(return_X_y=True)
    est = _every_estimator()[name]
    with pytest.raises(TypeError, match=f"^{name} does not support sample_weight"):
        est.fit(X, y, sample_weight=np.ones(y.size))
    with pytest.raises(TypeError, match=f"^{name}.fit.. takes X and y only.*: foo"):
        est.fit(X, y, foo=1)
    # meta-estimators (AdaBoost, Bagging) still see that weights are not supported
    assert not has_fit_parameter(est, "sample_weight")


def test_bound_selection_reports_each_candidate_as_it_is_fitted(capsys, monkeypatch):
    from _progress import lines_printed_before_each_fit
    from sklearn.datasets import load_breast_cancer

    import skpacbayes.model_selection as module
    from skpacbayes.model_selection import BoundSelectionClassifier

    X, y = load_breast_cancer(return_X_y=True)
    printed_before = lines_printed_before_each_fit(module, "timed_fit", capsys, monkeypatch)
    candidates = [skpacbayes.OccamBoundClassifier(random_state=s) for s in (0, 1)]
    sel = BoundSelectionClassifier(candidates, verbose=1).fit(X, y)
    assert printed_before == [0, 1]  # the first line came before the second fit started
    last = capsys.readouterr().out
    assert last.startswith("[BoundSelectionClassifier] 2/2 candidate 1 (OccamBoundClassifier)")
    assert f"bound {sel.estimators_[1].bound_:.4f}" in last


def test_estimators_pickled_under_the_old_module_paths_load():
    # 0.1.0 kept the hold-out estimators and the certificate in modules at the package root:
    # a fitted estimator pickled then names them there, and still loads and predicts
    import pickle

    from sklearn.datasets import load_iris
    from sklearn.ensemble import RandomForestClassifier

    from skpacbayes import CertifiedVoteClassifier, HoldOutBoundClassifier
    from skpacbayes.voters import SplitForest

    X, y = load_iris(return_X_y=True)
    fitted = [
        HoldOutBoundClassifier(
            voters=SplitForest(n_estimators=5), validation_fraction=None, random_state=0
        ),
        CertifiedVoteClassifier(voters=RandomForestClassifier(n_estimators=10), random_state=0),
    ]
    moved = {
        b"skpacbayes.classifiers._hold_out": b"skpacbayes._hold_out",
        b"skpacbayes.classifiers._certified_vote": b"skpacbayes._certified_vote",
        b"skpacbayes.engine.certificate": b"skpacbayes._certificate",
    }
    for est in fitted:
        est.set_params(random_state=0).fit(X, y)
        data = pickle.dumps(est, protocol=2)  # text module paths: renamed in place below
        for new, old in moved.items():
            data = data.replace(new, old)
        assert b"skpacbayes._certificate" in data
        loaded = pickle.loads(data)
        assert type(loaded) is type(est) and type(loaded.certificate_) is type(est.certificate_)
        np.testing.assert_array_equal(loaded.predict(X), est.predict(X))
        assert loaded.bound_ == est.bound_


# ----------------------------------------------------------------------------- search refits


def _selection_warnings(search, X, y):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(X, y)
    return [w for w in caught if issubclass(w.category, SelectionWarning)]


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_search_refit_over_the_statement_warns_once(n_jobs):
    """The refit of a configuration chosen among statements warns (once, in this process)."""
    from sklearn.model_selection import RandomizedSearchCV

    X, y = make_classification(n_samples=120, n_features=4, random_state=0)
    est = skpacbayes.FirstOrderBoundClassifier(max_epochs=2, random_state=0)
    grid = {"posterior": ["categorical", "gaussian"], "learning_rate": [0.1, 0.01]}
    caught = _selection_warnings(GridSearchCV(est, grid, cv=2, n_jobs=n_jobs), X, y)
    assert len(caught) == 1
    text = str(caught[0].message)
    assert "GridSearchCV" in text and "among 2 configurations" in text and "posterior" in text
    assert "learning_rate" not in text and "recompute_bound(delta / 2)" in text
    search = RandomizedSearchCV(est, {"delta": [0.05, 0.1]}, n_iter=2, cv=2, random_state=0)
    assert len(_selection_warnings(search, X, y)) == 1


def test_search_refit_over_optimisation_parameters_is_silent():
    """Every statement holds for all posteriors: choosing how to optimise costs nothing."""
    X, y = make_classification(n_samples=120, n_features=4, random_state=0)
    est = skpacbayes.FirstOrderBoundClassifier(max_epochs=2, random_state=0)
    grid = {"learning_rate": [0.1, 0.01], "max_epochs": [1, 2], "posterior": ["gaussian"]}
    assert _selection_warnings(GridSearchCV(est, grid, cv=2), X, y) == []
    # a plain fit, and a search without refit, say nothing either
    assert _selection_warnings(est, X, y) == []
    search = GridSearchCV(est, {"posterior": ["categorical", "gaussian"]}, cv=2, refit=False)
    assert _selection_warnings(search, X, y) == []


def test_search_refit_of_a_pipeline_and_of_hold_out_warns():
    """The estimator is found inside the refitted pipeline; a preprocessing choice counts."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = make_classification(n_samples=200, n_features=4, random_state=0)
    pipe = make_pipeline(StandardScaler(), skpacbayes.OccamBoundClassifier(random_state=0))
    caught = _selection_warnings(
        GridSearchCV(pipe, {"standardscaler__with_mean": [True, False]}, cv=2), X, y
    )
    assert len(caught) == 1 and "OccamBoundClassifier" in str(caught[0].message)
    hold_out = skpacbayes.HoldOutBoundClassifier(
        voters=RandomForestClassifier(n_estimators=5), random_state=0
    )
    grid = {"validation_fraction": [0.2, 0.5], "n_jobs": [None]}
    caught = _selection_warnings(GridSearchCV(hold_out, grid, cv=2), X, y)
    assert len(caught) == 1 and "validation_fraction" in str(caught[0].message)
