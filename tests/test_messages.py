"""Messages that name the estimator, the parameter and the fix: ``partial_fit`` without fixed
voters, positional arguments, one-class data, booleans given for integers, and the start line
of a long hold-out fit."""

import re
from pathlib import Path

import dask.array as da
import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.utils._param_validation import InvalidParameterError

import skpacbayes
from skpacbayes import (
    CBoundClassifier,
    CertifiedVoteClassifier,
    FirstOrderBoundClassifier,
    HoldOutBoundClassifier,
    OccamBoundClassifier,
    SecondOrderBoundClassifier,
)
from skpacbayes.voters import OutOfBagVoters, PrefitVoters, SplitForest, StumpBank


def _data(m=60, seed=0):
    return make_classification(n_samples=m, n_features=4, random_state=seed)


@pytest.mark.parametrize("voters", [None, RandomForestClassifier(n_estimators=3)])
def test_partial_fit_without_fixed_voters_says_what_it_needs(voters):
    X, y = _data()
    clf = HoldOutBoundClassifier(voters=voters)
    assert not hasattr(clf, "partial_fit")
    with pytest.raises(AttributeError) as info:
        clf.partial_fit(X, y)
    message = str(info.value)
    assert message.startswith("HoldOutBoundClassifier.partial_fit certifies fixed voters")
    assert "voters=PrefitVoters(model)" in message and "got voters=" in message
    model = LogisticRegression().fit(X, y)
    assert HoldOutBoundClassifier(voters=PrefitVoters(model)).partial_fit(X, y).bound_ < 1


@pytest.mark.parametrize(
    "cls",
    [FirstOrderBoundClassifier, SecondOrderBoundClassifier, CBoundClassifier, OccamBoundClassifier],
)
def test_a_positional_argument_names_the_estimator_called(cls):
    with pytest.raises(TypeError) as info:
        cls(0.1)
    message = str(info.value)
    assert message.startswith(f"{cls.__name__} takes its parameters by keyword only")
    assert "MajorityVoteClassifier" not in message
    assert f"{cls.__name__}(<parameter>=0.1)" in message and "delta" in message


@pytest.mark.parametrize("label", [0.0, 3, "spam"])
@pytest.mark.parametrize("dask", [False, True], ids=["memory", "dask"])
def test_one_class_error_prints_the_plain_label(label, dask):
    X = np.random.default_rng(0).random((40, 3))
    y = np.full(40, label)
    if dask:
        X, y = da.from_array(X, chunks=20), da.from_array(y, chunks=20)
    clf = FirstOrderBoundClassifier(voters=StumpBank(feature_range=(0, 1)))
    with pytest.raises(ValueError, match="only one class") as info:
        clf.fit(X, y)
    assert str(info.value).endswith(f"only one class: {label!r}.")
    assert "np." not in str(info.value)


def test_unknown_labels_are_printed_plain():
    X, y = _data()
    model = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError) as info:
        FirstOrderBoundClassifier(voters=PrefitVoters(model)).fit(X, np.where(y == 1, 2, 0))
    assert "np." not in str(info.value) and "[2]" in str(info.value)


def test_hold_out_verbose_starts_with_a_line_before_any_forest(capsys, monkeypatch):
    import skpacbayes.engine.protocols.held_out as module

    X, y = _data(200)
    grow = module.count_fraction
    printed = []

    def spy(*args, **kwargs):
        printed.append(capsys.readouterr().out.splitlines())
        return grow(*args, **kwargs)

    monkeypatch.setattr(module, "count_fraction", spy)
    forest = RandomForestClassifier(n_estimators=3)
    HoldOutBoundClassifier(voters=forest, random_state=0, verbose=1).fit(X, y)
    # before the first forest: the start line; before each later one: the previous fraction's
    assert printed[0] == [
        "[HoldOutBoundClassifier] validation fractions 0.1, 0.2, 0.5 on 200 rows, each "
        "reported as it ends"
    ]
    assert [len(lines) for lines in printed[1:]] == [1, 1]
    assert printed[1][0].startswith("[HoldOutBoundClassifier] fraction 0.1 (grown on 180 rows)")
    assert capsys.readouterr().out.startswith("[HoldOutBoundClassifier] fraction 0.5")
    HoldOutBoundClassifier(voters=forest, train_size=50, random_state=0, verbose=1).fit(X, y)
    assert capsys.readouterr().out.splitlines()[0] == (
        "[HoldOutBoundClassifier] voters grown on 50 of 200 rows, certified on the others"
    )


@pytest.mark.parametrize(
    "estimator, name",
    [
        (FirstOrderBoundClassifier(), "max_epochs"),
        (FirstOrderBoundClassifier(), "n_jobs"),
        (HoldOutBoundClassifier(), "n_jobs"),
        (CertifiedVoteClassifier(), "n_jobs"),
        (StumpBank(), "n_thresholds"),
        (StumpBank(), "build_size"),
        (SplitForest(), "n_estimators"),
        (OutOfBagVoters(), "n_estimators"),
        (OutOfBagVoters(), "max_samples"),
    ],
)
def test_booleans_are_refused_for_integers(estimator, name):
    X, y = _data()
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter .* Got True instead"):
        estimator.set_params(**{name: True}).fit(X, y)


#: the integer constraints still declared with scikit-learn's Interval(Integral, ...) (none:
#: each reads Integers(...), classifiers/_constraints)
PENDING = {}


def test_integer_parameters_are_declared_without_booleans():
    """``Interval(Integral, ...)`` takes ``True`` for 1: integers are declared ``Integers``."""
    package = Path(skpacbayes.__file__).parent
    declared = {
        path.relative_to(package).as_posix()
        for path in package.rglob("*.py")
        if re.search(r"(?<![`\w])Interval\(\s*Integral\s*,", path.read_text())
    }
    assert declared == set(PENDING), "declare integer parameters with Integers (_constraints)"


def test_a_package_warning_no_test_expects_fails_the_test():
    """pyproject.toml's filterwarnings: what the package warns is an error unless expected."""
    import warnings

    from skpacbayes.model_selection import SelectionWarning
    from skpacbayes.voters import SampleReuseWarning

    for category in (UserWarning, FutureWarning, RuntimeWarning):
        with pytest.raises(category):  # attributed to a module of the package
            warnings.warn_explicit("x", category, "f.py", 1, module="skpacbayes.engine.fit")
    for category in (SampleReuseWarning, SelectionWarning):
        with pytest.raises(category):  # the package's own classes, wherever they point
            warnings.warn_explicit("x", category, "f.py", 1, module="users_script")
    with pytest.warns(UserWarning):  # another library's warning: not the package's to fail
        warnings.warn_explicit("x", UserWarning, "f.py", 1, module="sklearn.base")


def test_a_single_voter_vote_says_so_and_occam_does_not():
    """Issue 57 item 3: one effective voter among many gets a SingleVoterWarning naming the
    estimators that certify a genuine vote, at the user's line; Occam's razor stays silent."""
    import warnings

    from sklearn.datasets import load_breast_cancer

    from skpacbayes import OccamBoundClassifier, PartitionBoundClassifier, SingleVoterWarning

    X, y = load_breast_cancer(return_X_y=True)
    with pytest.warns(SingleVoterWarning, match="1 effective voter among 600") as caught:
        clf = PartitionBoundClassifier(random_state=0).fit(X, y)
    assert clf.certificate_.n_effective_voters == 1
    assert "CertifiedVoteClassifier()" in str(caught[0].message)
    assert "PrefitVoters(model)" in str(caught[0].message)
    assert caught[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error", SingleVoterWarning)
        assert OccamBoundClassifier(random_state=0).fit(X, y).certificate_.n_effective_voters == 1
