"""The VC-dimension baseline: a bound on the deployed vote's training errors (binary tasks).

Trains the vote's cross-entropy (not the bound: L-BFGS searches the logits and its runs are
judged by the training errors of their points), then chooses by cross-validation between the
trained vote and the best single voter (``cv``); certifies the deployed vote's training error
with the VC bound of linear separators of the voters' outputs.
"""

import numpy as np

from skpacbayes.objectives._base import Bound, Capabilities, CertifiedValue

__all__ = ["VCDim"]


class VCDim(Bound, name="VC", estimator="VCDimBoundClassifier", example="cv=None"):
    """VC bound of a weighted vote of ``n`` fixed voters (VC dimension ``n + 1``).

    Parameters
    ----------
    cv : int or None
        Folds of the cross-validation between the trained vote and the best single voter
        (None: the trained vote).

    {estimator}
    """

    # the kept point has the fewest training errors: counts that jump with the weights
    capabilities = Capabilities(binary_only=True, trains_vote=True, follows_last_bits=True)

    def __init__(self, cv=5):
        self.cv = cv

    def valid_posteriors(self, n_classes, split):
        return () if split else super().valid_posteriors(n_classes, split)

    def certify(self, inputs):
        from skpacbayes import bounds

        g = inputs.groups[0]
        value = bounds.vc_bound(inputs.train_error, g.voters.size, g.samples.size, inputs.delta)
        return CertifiedValue(value, details={"n_voters": int(g.voters.size)})

    def recompute(self, certificate, delta):
        from skpacbayes import bounds

        n_voters, m = certificate.details["n_voters"], certificate.m[0]
        return float(bounds.vc_bound(certificate.train_error, n_voters, m, delta))

    def after_training(self, context, natural):
        """The choice between the trained vote and the best single voter.

        A stratified ``cv``-fold cross-validation on the rows the certificate uses (fewer
        folds when a class has fewer rows; none below two): each fold trains the vote as the
        fit does on the other folds, from the start whose run the fit kept on all the rows
        (one run instead of one per start), and takes the voter with the fewest errors there.
        The trained vote is kept only when its held-out errors, summed over the folds, are
        fewer than the single voters' by more than one standard error of that paired
        difference (the one-standard-error rule, which prefers the simpler model); otherwise
        the voter with the fewest errors on all the rows is deployed. Both are weighted votes
        of the same fixed voters, and the VC bound holds for every weight vector at once, so
        the choice keeps the certificate.

        Returns the natural parameters of the deployed weights and the counts behind the
        choice (``Certificate.details``).
        """
        if self.cv is None:
            return natural, None
        from sklearn.model_selection import StratifiedKFold

        from skpacbayes.engine.vote import vote_errors

        group = context.groups[0]
        samples, voters, votes = group.samples, group.voters, context.votes
        y = context.y_idx[samples]
        n_splits = min(int(self.cv), int(np.bincount(y, minlength=2).min()))
        if n_splits < 2:
            return natural, {"cv_folds": 0, "cv_choice": "vote"}
        errors = votes[np.ix_(samples, voters)] != y[:, None]
        vote_wrong = np.zeros(samples.size, dtype=bool)
        single_wrong = np.zeros(samples.size, dtype=bool)
        folds = StratifiedKFold(n_splits, shuffle=True, random_state=context.seed)
        for fit_rows, test in folds.split(samples, y):
            w = context.vote_weights_trained_on(voters, samples[fit_rows])
            test_votes = votes[np.ix_(samples[test], voters)]
            vote_wrong[test] = vote_errors(test_votes, y[test], w, context.n_classes)
            single_wrong[test] = errors[test, np.argmin(errors[fit_rows].sum(axis=0))]
        # one-standard-error rule: the vote must beat the single voter by more than the
        # standard error of the summed paired differences
        gain = int(single_wrong.sum()) - int(vote_wrong.sum())
        diff = single_wrong.astype(np.float64) - vote_wrong
        std_error = float(np.sqrt(np.sum((diff - diff.mean()) ** 2)))
        details = {
            "cv_folds": n_splits,
            "cv_errors_vote": int(vote_wrong.sum()),
            "cv_errors_single_voter": int(single_wrong.sum()),
            "cv_standard_error": std_error,
            "cv_choice": "vote",
        }
        if gain > std_error:
            return natural, details
        details["cv_choice"] = "single voter"
        best = int(np.argmin(errors.sum(axis=0)))
        return [context.family.one_voter_natural(voters.size, best)], details
