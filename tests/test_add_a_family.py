"""The contributor's guide's worked example: adding a posterior family is one class.

The family below is the Gaussian posterior ``N(p, I)`` against a wider prior, ``N(mu0, s^2 I)``
with ``s = 10`` fixed before the data: the same stochastic losses, vote and partition terms as
:class:`~skpacbayes.posteriors.Gaussian` (whose declarations it inherits), another KL,

``KL(N(p, I) || N(mu0, s^2 I)) = (||p - mu0||^2 / s^2 + n (1 / s^2 - 1 + ln s^2)) / 2``.

Registered under its name, it is accepted by every estimator's ``posterior`` parameter, trained
and certified by the engine on the rows and on split voters, and offered by the bounds whose
requirements it meets, without a line elsewhere in the package.
"""

import math

import numpy as np
import pytest
import torch
from sklearn.datasets import load_breast_cancer
from sklearn.utils._param_validation import InvalidParameterError

from skpacbayes import (
    FirstOrderBoundClassifier,
    MarginBoundClassifier,
    OccamBoundClassifier,
    PartitionBoundClassifier,
)
from skpacbayes.posteriors import FAMILIES, Gaussian, _registry, get_family, register_family
from skpacbayes.voters import SplitForest


# -- the family
class WideGaussian(Gaussian):
    """``N(p, I)`` against the prior ``N(mu0, s^2 I)``, ``s = 10``."""

    name = "gaussian-wide"
    prior_scale = 10.0

    def kl(self, nat):
        """``(||p - mu0||^2 / s^2 + n (1 / s^2 - 1 + ln s^2)) / 2``."""
        nat = self._checked(nat)
        d = nat - self._prior_like(nat)
        s2 = self.prior_scale**2
        return 0.5 * ((d * d).sum() / s2 + self.n_voters * (1.0 / s2 - 1.0 + math.log(s2)))


# -- end


@pytest.fixture
def wide():
    """The family registered for one test (``register_family(WideGaussian)``), then removed:
    the other tests of the session see the package's own families only."""
    register_family(WideGaussian)
    yield WideGaussian
    _registry._FAMILIES.pop(WideGaussian.name)


@pytest.fixture(scope="module")
def cancer():
    return load_breast_cancer(return_X_y=True)


def test_the_family_is_registered_by_its_name(wide):
    assert get_family("gaussian-wide") is wide and list(FAMILIES)[-1] == "gaussian-wide"
    assert get_family(wide) is wide
    with pytest.raises(ValueError, match="name of its own"):
        register_family(wide)
    # its docstrings are completed from the base's: the sections it does not write itself
    assert "Parameters" in wide.kl.__doc__ and "Returns" in wide.kl.__doc__


def test_the_bounds_offer_it_where_its_declarations_meet_their_requirements(wide):
    assert "gaussian-wide" in FirstOrderBoundClassifier()._valid_posteriors(2, False)
    assert "gaussian-wide" in FirstOrderBoundClassifier()._valid_posteriors(2, True)  # B_Q
    assert "gaussian-wide" in PartitionBoundClassifier()._valid_posteriors(2, False)
    assert "gaussian-wide" not in PartitionBoundClassifier()._valid_posteriors(3, False)
    assert "gaussian-wide" not in MarginBoundClassifier()._valid_posteriors(2, False)
    assert "gaussian-wide" not in OccamBoundClassifier()._valid_posteriors(2, False)


def test_an_estimator_fits_and_certifies_it_end_to_end(wide, cancer):
    X, y = cancer
    params = dict(max_epochs=10, random_state=0)
    clf = FirstOrderBoundClassifier(posterior="gaussian-wide", **params).fit(X, y)
    cert = clf.certificate_
    assert cert.posterior == "gaussian-wide" and clf.solver_ == "lbfgs"
    assert 0 < cert.train_error <= clf.bound_ == cert.value <= 1
    assert clf.recompute_bound(clf.delta) == clf.bound_
    # the certificate's KL is the new family's, at the deployed mean (raised by 1e-12)
    post = wide(len(clf.weights_))
    kl = float(post.kl(torch.from_numpy(clf.posterior_params_[0])))
    assert cert.kl[0] == pytest.approx(kl, rel=1e-11) and cert.kl[0] >= kl
    plain = FirstOrderBoundClassifier(posterior="gaussian", **params).fit(X, y)
    assert cert.kl[0] != plain.certificate_.kl[0]
    assert np.array_equal(clf.predict(X), clf.classes_[np.argmax(clf.predict_proba(X), axis=1)])
    # a float prior within the inherited range moves the prior mean
    shifted = FirstOrderBoundClassifier(posterior="gaussian-wide", prior=0.5, **params)
    assert 0 < shifted.fit(X, y).bound_ <= 1


def test_split_voters_deploy_the_inherited_bayes_classifier(wide, cancer):
    X, y = cancer
    clf = FirstOrderBoundClassifier(
        posterior="gaussian-wide", voters=SplitForest(n_estimators=6), max_epochs=5, random_state=0
    ).fit(X, y)
    assert clf.deployed_ == "mixture_bayes" and len(clf.certificate_.m) == 2
    assert np.array_equal(clf.predict(X), clf.classes_[np.argmax(clf.predict_proba(X), axis=1)])


def test_the_partition_bound_reads_its_inherited_terms(wide, cancer):
    X, y = cancer
    clf = PartitionBoundClassifier(posterior="gaussian-wide", max_epochs=5, random_state=0)
    cert = clf.fit(X, y).certificate_
    assert cert.b_tilde is not None and cert.c_tilde is not None and 0 < clf.bound_ <= 1
    assert clf.recompute_bound(clf.delta) == clf.bound_


def test_parameter_validation_reads_the_registry(cancer):
    X, y = cancer
    assert "gaussian-wide" not in FAMILIES  # outside the fixture
    with pytest.raises(InvalidParameterError, match="'posterior' parameter"):
        FirstOrderBoundClassifier(posterior="gaussian-wide").fit(X, y)
