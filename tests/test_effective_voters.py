"""Certificate.n_effective_voters: how many voters the deployed classifier really uses."""

import numpy as np
import pytest

from skpacbayes.classifiers import effective_voters


@pytest.mark.parametrize(
    ("weights", "expected"),
    [
        ([0.5, -0.3, 0.195, 0.005], 3),  # 99.5 % in three voters, 99 % not in two
        ([1.0, 0.0, 0.0], 1),
        ([0.25, 0.25, 0.25, 0.25], 4),  # exactly 99 % needs all four (0.75 < 0.99)
        ([0.0, 0.0], 0),
        ([-2.0, 2.0], 2),  # signs do not matter
        ([0.99, 0.01], 1),  # exactly 99 %
        ([0.6, 0.1, 0.1, 0.1, 0.1], 1),  # one voter outweighs the others: the vote is it
        ([0.5, 0.25, 0.25], 3),  # a tie with the others together is not dominance
        ([-0.6, 0.1, 0.1, 0.1, 0.1], 5),  # a dominant negative weight decides nothing alone
    ],
)
def test_effective_voters(weights, expected):
    assert effective_voters(np.asarray(weights)) == expected


def test_a_dominant_voter_is_the_vote():
    """When one voter outweighs all the others, the weighted vote predicts its class."""
    from skpacbayes.engine.vote import weighted_vote_scores

    rng = np.random.default_rng(0)
    votes = rng.integers(0, 4, size=(500, 9))
    weights = np.r_[0.52, rng.dirichlet(np.ones(8)) * 0.48]
    weights[3] = -weights[3]
    assert effective_voters(weights) == 1
    predicted = weighted_vote_scores(votes, weights, 4).argmax(axis=1)
    np.testing.assert_array_equal(predicted, votes[:, 0])


def test_share_only_for_a_mixture():
    assert effective_voters([0.6, 0.1, 0.1, 0.1, 0.1], vote=False) == 5


def test_certificates_report_the_effective_voters():
    from sklearn.datasets import load_breast_cancer

    from skpacbayes import FirstOrderBoundClassifier, OccamBoundClassifier
    from skpacbayes.voters import StumpBank

    X, y = load_breast_cancer(return_X_y=True)
    voters = StumpBank(n_thresholds=2)
    occam = OccamBoundClassifier(voters=voters).fit(X, y)
    assert occam.certificate_.n_effective_voters == 1
    vote = FirstOrderBoundClassifier(
        voters=voters, posterior="gaussian", max_epochs=3, random_state=0
    ).fit(X, y)
    assert vote.certificate_.n_effective_voters == effective_voters(vote.weights_)
    assert 1 < vote.certificate_.n_effective_voters <= vote.certificate_.n_voters
