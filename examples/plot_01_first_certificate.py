"""
============================
A first certified classifier
============================

Learn a weighted majority vote of decision stumps on the breast cancer data and read its
certificate: a number that, with probability at least 95 % over the draw of the training
sample, upper-bounds the error rate of the classifier on new data.
"""

# %%
# Data
# ----
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from skpacbayes import PartitionBoundClassifier
from skpacbayes.voters import StumpBank

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=0)
print(f"{X_train.shape[0]} training and {X_test.shape[0]} test examples, {X.shape[1]} features")

# %%
# The voters
# ----------
# :class:`~skpacbayes.voters.StumpBank` builds decision stumps on 10 thresholds per feature,
# in both orientations: 600 voters here. The bound assumes that the voters are fixed before
# the rows that certify them are seen. Without ``feature_range`` (used here) the thresholds
# are quantiles of a tenth of the training rows, drawn from the seed, and those rows are left
# out of the bound (``clf.certificate_.m`` counts the others); pass ``feature_range`` when
# the ranges are known in advance to certify on every row (see the user guide).
voters = StumpBank(n_thresholds=10)

# %%
# Fit and certify
# ---------------
# :class:`~skpacbayes.PartitionBoundClassifier` learns a Categorical posterior over the
# stumps and recomputes the partition bound of the deployed vote in float64. With this
# family the bound reads the sample only through each stump's error count, so ``fit``
# searches its optimum exactly on the counts (``solver_ == "exact"``, no gradient steps):
# here it is the best single stump, as ``certificate_.n_effective_voters`` shows. For a
# classifier that genuinely votes, use :class:`~skpacbayes.CertifiedVoteClassifier`.
clf = PartitionBoundClassifier(voters=voters, posterior="categorical", delta=0.05, random_state=0)
clf.fit(X_train, y_train)

test_error = 1 - clf.score(X_test, y_test)
print(f"certified bound on the true risk: {clf.bound_:.3f}")
print(f"test error (143 held-out points): {test_error:.3f}")
print(f"optimiser: {clf.solver_}, effective voters: {clf.certificate_.n_effective_voters}")

# %%
# What the bound is made of
# -------------------------
# The partition bound divides a bound on the *stochastic* risk (a random voter drawn from the
# posterior) by a certified lower bound ``c_tilde`` on how wrong the random voter is where
# the vote errs. ``c_tilde = 1/2`` would give the classical factor 2.
cert = clf.certificate_
print(f"bound            {cert.bound} ({cert.posterior}), delta = {cert.delta}")
print(f"sample size m    {cert.m}")
print(f"KL(Q || P)       {cert.kl[0]:.3f}")
print(f"Gibbs bound      {cert.gibbs_bound:.3f}")
print(f"b_tilde, c_tilde {cert.b_tilde:.3f}, {cert.c_tilde:.3f}")
print(f"train error      {cert.train_error:.3f}")
print(f"voters with non-zero weight: {np.count_nonzero(clf.weights_)} of {cert.n_voters}")

# %%
# When the weights are concentrated on few stumps, the heaviest side of their best partition
# is far above one half, ``c_tilde`` grows and the bound approaches the Gibbs bound (see
# :ref:`sphx_glr_auto_examples_plot_06_partition_heuristics.py`).
#
# The three numbers side by side. The bound holds for the *true* risk; the test error is a
# noisy estimate of it from 143 points.
fig, ax = plt.subplots(figsize=(5, 3))
names = ["train error", "test error", "certified bound"]
values = [cert.train_error, test_error, clf.bound_]
ax.barh(names, values, color=["0.7", "0.5", "tab:blue"])
for i, v in enumerate(values):
    ax.text(v + 0.005, i, f"{v:.3f}", va="center")
ax.set_xlim(0, max(values) * 1.25)
ax.set_xlabel("error rate")
ax.set_title("breast cancer, partition bound, delta = 0.05")
fig.tight_layout()
