"""The contributor's guide's worked example: adding a bound is one module and one face.

The bound below is McAllester's relaxation of the first-order bound: Pinsker's inequality
gives ``kl^-1(r, eps) <= r + sqrt(eps / 2)``, hence ``R(MV) <= 2 (r + sqrt(eps / 2))``, a valid
and looser certificate than :class:`~skpacbayes.objectives.FirstOrder`'s. It is registered, an
estimator hands it to the engine, and it runs on both paths (the counts for a Categorical
posterior, the rows for the others) and out of bag, without a line elsewhere in the package.
"""

import numpy as np
import pytest
import torch
from sklearn.datasets import load_breast_cancer

from skpacbayes import FirstOrderBoundClassifier
from skpacbayes.classifiers import MajorityVoteClassifier
from skpacbayes.objectives import Bound, Capabilities, bound_class, register
from skpacbayes.objectives.first_order import FirstOrder
from skpacbayes.voters import OutOfBagVoters


# -- the bound
@register
class McAllesterFirstOrder(Bound):
    """``2 min(1, r + sqrt(eps / 2))``, eps the Seeger budget (Pinsker's relaxation)."""

    name = "FO-McAllester"
    # the Gibbs risk is a sum over rows: the count path, out of core, and out of bag
    capabilities = Capabilities(reads_counts=True, certifies_out_of_bag=True)

    def value(self, stats, kl, m, weights, delta):
        from skpacbayes.bounds import seeger_epsilon

        gibbs = stats["gibbs"]
        h = gibbs.shape[0] if gibbs.ndim else 1
        per_half = gibbs + (seeger_epsilon(kl, m, delta / h) / 2) ** 0.5
        mixed = per_half.mean() if weights is None else (weights * per_half).sum()
        minimum = torch.minimum if torch.is_tensor(mixed) else np.minimum
        return 2 * minimum(mixed, mixed * 0 + 1)


class McAllesterBoundClassifier(MajorityVoteClassifier):
    """Majority vote certified by McAllester's first-order bound."""

    _bound_class = McAllesterFirstOrder


# -- end


@pytest.fixture(scope="module")
def cancer():
    return load_breast_cancer(return_X_y=True)


def test_the_bound_is_registered_by_its_name():
    assert bound_class("FO-McAllester") is McAllesterFirstOrder
    with pytest.raises(ValueError, match="name of its own"):
        register(McAllesterFirstOrder)


@pytest.mark.parametrize(
    ("posterior", "solver"), [("categorical", "lbfgs"), ("dirichlet", "auto"), ("gaussian", "auto")]
)
def test_the_new_estimator_fits_certifies_and_recomputes(cancer, posterior, solver):
    X, y = cancer
    clf = McAllesterBoundClassifier(
        posterior=posterior, solver=solver, max_epochs=10, random_state=0
    ).fit(X, y)
    cert = clf.certificate_
    assert cert.bound == "FO-McAllester" and clf.bound_ == cert.value
    assert clf.solver_ == "lbfgs"
    assert clf.recompute_bound(clf.delta) == clf.bound_
    assert clf.recompute_bound(clf.delta / 10) >= clf.bound_
    # a relaxation of the first-order bound, at the same certified statistics
    stats = {k: np.asarray(v) for k, v in cert.statistics.items()}
    weights = np.asarray(cert.mixture_weights)
    first_order = FirstOrder().value(stats, np.asarray(cert.kl), list(cert.m), weights, clf.delta)
    assert first_order <= clf.bound_ <= 1
    assert cert.train_error <= clf.bound_
    assert np.array_equal(clf.predict(X), clf.classes_[np.argmax(clf.predict_proba(X), axis=1)])


def test_the_new_bound_runs_on_the_counts_and_out_of_bag(cancer):
    X, y = cancer
    counted = McAllesterBoundClassifier(random_state=0, max_epochs=20).fit(X, y)
    assert counted.solver_ == "lbfgs" and counted.certificate_.details == {}
    oob = McAllesterBoundClassifier(voters=OutOfBagVoters(n_estimators=10), random_state=0)
    oob.fit(X, y)
    assert oob.certificate_.details["scheme"] == "out_of_bag"
    reference = FirstOrderBoundClassifier(voters=OutOfBagVoters(n_estimators=10), random_state=0)
    assert oob.bound_ >= reference.fit(X, y).bound_ - 1e-12  # looser at its own optimum too
