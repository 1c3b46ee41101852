"""Scale-out: everything parallel goes through joblib, so a dask.distributed cluster runs it.

One ``LocalCluster`` with two worker processes for the module; each check compares the
result under ``joblib.parallel_config(backend="dask")`` with the sequential one and that
tasks really ran on the cluster.
"""

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
pytest.importorskip("dask")

from joblib import parallel_config  # noqa: E402
from sklearn.datasets import make_classification  # noqa: E402
from sklearn.ensemble import RandomForestClassifier  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

import skpacbayes  # noqa: E402
from skpacbayes.benchmark import compare  # noqa: E402
from skpacbayes.model_selection import BoundSelectionClassifier, SelectionWarning  # noqa: E402
from skpacbayes.voters import SplitForest, StumpBank  # noqa: E402

pytestmark = pytest.mark.xdist_group("dask")


def _warm_up():
    import skpacbayes.engine.fit  # noqa: F401  (imports torch)
    import skpacbayes.voters  # noqa: F401


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",  # any free port: no clash with a running cluster
        silence_logs=40,  # logging.ERROR
    )
    client = distributed.Client(cluster)
    client.run(_warm_up)  # import torch and the package once per worker, not inside a test
    yield client
    client.close()
    cluster.close()


def _on_cluster(client, func):
    """Run ``func`` under the dask backend; return its result and the number of tasks run."""
    with distributed.get_task_stream(client) as stream, parallel_config(backend="dask"):
        result = func()
    return result, len(stream.data)


@pytest.fixture(scope="module")
def data():
    return make_classification(
        n_samples=160, n_features=6, n_informative=4, n_classes=3, random_state=0
    )


@pytest.mark.parametrize("estimator", [None, DecisionTreeClassifier(max_depth=3)])
def test_split_forest_growth(client, data, estimator):
    """Both growth paths (a random forest per half, bagged clones) and the votes."""
    X, y = data
    params = {"estimator": estimator, "n_estimators": 6, "random_state": 0, "n_jobs": 2}
    ref = SplitForest(**{**params, "n_jobs": None}).fit(X, y)  # sequential reference
    forest, n_tasks = _on_cluster(client, lambda: SplitForest(**params).fit(X, y))
    assert n_tasks > 0
    np.testing.assert_array_equal(forest.votes(X), ref.votes(X))
    # votes computed under the dask backend too (threads writing in place: shared memory)
    with parallel_config(backend="dask"):
        votes = forest.votes(X)
    np.testing.assert_array_equal(votes, ref.votes(X))


def test_bound_selection_candidates(client, data):
    X, y = data
    X, y = X[y < 2], y[y < 2]
    candidates = [
        skpacbayes.FirstOrderBoundClassifier(
            voters=StumpBank(), posterior=p, max_epochs=2, random_state=0
        )
        for p in ("categorical", "gaussian")
    ]
    ref = BoundSelectionClassifier(candidates).fit(X, y)
    sel, n_tasks = _on_cluster(
        client, lambda: BoundSelectionClassifier(candidates, n_jobs=2).fit(X, y)
    )
    assert n_tasks >= 2
    np.testing.assert_allclose(sel.bounds_, ref.bounds_)


def test_certified_vote_candidates(client, data):
    X, y = data
    params = dict(
        voters=RandomForestClassifier(n_estimators=6),
        validation_fraction=(0.2, 0.5),
        out_of_bag=True,
        random_state=0,
        n_jobs=2,
    )
    ref = skpacbayes.CertifiedVoteClassifier(**{**params, "n_jobs": None}).fit(X, y)
    est, n_tasks = _on_cluster(
        client, lambda: skpacbayes.CertifiedVoteClassifier(**params).fit(X, y)
    )
    assert n_tasks > 0
    assert est.bound_ == pytest.approx(ref.bound_)
    np.testing.assert_array_equal(est.predict(X), ref.predict(X))


def test_grid_search(client, data):
    X, y = data
    X, y = X[y < 2], y[y < 2]
    grid = {"voters__n_thresholds": [2, 4]}
    est = skpacbayes.OccamBoundClassifier(voters=StumpBank(), random_state=0)
    with pytest.warns(SelectionWarning):  # the refit on the client, chosen among voters
        ref = GridSearchCV(est, grid, cv=2).fit(X, y)
        search, n_tasks = _on_cluster(
            client, lambda: GridSearchCV(est, grid, cv=2, n_jobs=2).fit(X, y)
        )
    assert n_tasks >= 4
    np.testing.assert_allclose(
        search.cv_results_["mean_test_score"], ref.cv_results_["mean_test_score"]
    )


def test_compare(client):
    kwargs = dict(
        seeds=2,
        methods=["FO", "Occam"],
        posteriors=["categorical"],
        max_epochs=2,
        n_estimators=6,
        n_jobs=2,
        progress=False,
    )
    ref = compare("iris", **{**kwargs, "n_jobs": 1})
    res, n_tasks = _on_cluster(client, lambda: compare("iris", **kwargs))
    assert n_tasks >= 4
    assert [r["bound"] for r in res.rows] == pytest.approx([r["bound"] for r in ref.rows])
