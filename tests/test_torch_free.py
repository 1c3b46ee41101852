"""What uses no torch never imports it: ``import skpacbayes``, a hold-out certificate of a model
one has, and ``CertifiedVoteClassifier`` with its default candidates (each in a fresh
interpreter, where ``sys.modules`` tells what was imported)."""

import subprocess
import sys

import pytest

_DATA = (
    "import sys\n"
    "from sklearn.datasets import load_breast_cancer\n"
    "from sklearn.model_selection import train_test_split\n"
    "X, y = load_breast_cancer(return_X_y=True)\n"
    "X_fit, X_cert, y_fit, y_cert = train_test_split(X, y, test_size=0.5, random_state=0)\n"
)

CASES = {
    "import": "import sys\nimport skpacbayes, skpacbayes.bounds, skpacbayes.voters\n",
    "hold-out of a prefit model": (
        _DATA + "from sklearn.ensemble import HistGradientBoostingClassifier\n"
        "from skpacbayes import HoldOutBoundClassifier\n"
        "from skpacbayes.voters import PrefitVoters\n"
        "model = HistGradientBoostingClassifier(max_iter=20).fit(X_fit, y_fit)\n"
        "clf = HoldOutBoundClassifier(voters=PrefitVoters(model)).fit(X_cert, y_cert)\n"
        "clf.predict(X_cert), clf.predict_proba(X_cert), clf.score(X_cert, y_cert)\n"
    ),
    "certified vote, default candidates": (
        _DATA + "from skpacbayes import CertifiedVoteClassifier\n"
        "clf = CertifiedVoteClassifier(random_state=0).fit(X_fit, y_fit)\n"
        "assert any(c['kind'] == 'stump' for c in clf.candidates_)\n"
        "clf.predict(X_cert), clf.score(X_cert, y_cert)\n"
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_no_torch_imported(case):
    code = CASES[case] + "assert 'torch' not in sys.modules, 'torch was imported'\nprint('ok')\n"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_bounds_resolve_the_torch_functions_on_first_use():
    from skpacbayes import bounds

    assert set(bounds.__all__) <= set(dir(bounds))
    assert bounds.kl_inv_upper(0.3, 0.0) == 0.3
    assert callable(bounds._kl.branch_free)  # a submodule, as an attribute
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        bounds.nothing  # noqa: B018
