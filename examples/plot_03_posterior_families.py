"""
===============================
Posterior families side by side
===============================

The same bound (first order) and the same stumps, with the three posterior families:
Categorical, Dirichlet and Gaussian. Each family has its own prior, divergence and stochastic
loss, so each one trades the empirical loss against the complexity term differently.
"""

# %%
# Fit one classifier per family
# -----------------------------
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from skpacbayes import FirstOrderBoundClassifier
from skpacbayes.voters import StumpBank

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=0)

families = ("categorical", "dirichlet", "gaussian")
fitted = {}
for family in families:
    clf = FirstOrderBoundClassifier(
        voters=StumpBank(),
        posterior=family,
        delta=0.05,
        max_epochs=10,
        batch_size=128,
        random_state=0,
    )
    fitted[family] = clf.fit(X_train, y_train)

print(f"{'family':<12} {'bound':>7} {'Gibbs':>7} {'KL':>8} {'test':>7}")
for family, clf in fitted.items():
    cert = clf.certificate_
    test_error = 1 - clf.score(X_test, y_test)
    print(
        f"{family:<12} {clf.bound_:7.3f} {cert.gibbs_bound:7.3f} {cert.kl[0]:8.2f} "
        f"{test_error:7.3f}"
    )

# %%
# The first-order bound is twice a bound on the Gibbs risk (the error of a random vote drawn
# from the posterior), itself a function of the empirical Gibbs risk and of
# ``KL(Q || P)``. The Categorical divergence is at most ``ln(600)`` = 6.4 whatever the
# weights; the Dirichlet and Gaussian ones grow with the concentration or the norm of the
# parameters, which the training keeps in check.
#
# The deployed weights
# --------------------
# ``weights_`` are the weights of the majority vote that ``predict`` uses (the mean of the
# posterior). Categorical and Dirichlet weights are non-negative and sum to one; Gaussian
# weights have any sign and scale. The vote only depends on the weights relative to each
# other, so each panel shows the share of the total absolute weight held by the heaviest
# voters, on the same axes: a curve that jumps to 1 at the first voter is a vote of one
# stump. ``certificate_.n_effective_voters`` is 1 when the heaviest voter outweighs all the
# others together (the curve starts above one half: the vote is then that voter), otherwise
# the rank where the curve reaches 99 % (dotted).
fig, axes = plt.subplots(1, 3, figsize=(10, 3.2), sharex=True, sharey=True)
for ax, (family, clf) in zip(axes, fitted.items(), strict=True):
    w = np.sort(np.abs(clf.weights_))[::-1]
    ranks = np.arange(1, w.size + 1)
    ax.plot(ranks, np.cumsum(w) / w.sum(), lw=1.5)
    ax.axhline(0.99, color="0.6", ls=":", lw=1, label="99 % of the weight")
    n_eff = clf.certificate_.n_effective_voters
    ax.set_title(f"{family}: bound {clf.bound_:.3f}\neffective voters: {n_eff}", fontsize=10)
    ax.set_xlabel("voters, heaviest first")
    ax.yaxis.set_tick_params(labelleft=True)  # every panel keeps its labels
    ax.grid(True, color="0.9")
ax.set_ylim(0, 1.02)
axes[0].set_ylabel("share of the total |weight|")
axes[0].legend(loc="lower right", fontsize=8)
fig.suptitle(f"first-order bound on breast cancer, delta = {clf.delta}", fontsize=11)
fig.tight_layout()

# %%
# To report the best of the three families as one certificate, the confidence budget has to
# be split between them: :class:`~skpacbayes.model_selection.BoundSelectionClassifier` does
# it (see :ref:`sphx_glr_auto_examples_plot_05_model_selection.py`).
