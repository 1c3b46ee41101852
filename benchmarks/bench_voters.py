"""Speed and memory of the voter banks.

1. StumpBank: votes for m = 1,000,000 rows, d = 20 features, 10 thresholds
   (400 binary stumps). Target: <= 10 s and <= 1 GiB peak.
2. SplitForest on MNIST: 200 trees grown on the two halves of 56,000 training rows
   with n_jobs=2 (target: <= 6 minutes), then the votes on the training rows and
   on the 14,000 held-out rows.

Peak memory is measured with ``tracemalloc`` around the call (NumPy reports its
allocations to it; the input matrix, allocated before, is not counted) and the
process's maximum resident set size is printed at the end.

Usage::

    python benchmarks/bench_voters.py [--data-home ../shared/datasets] [--skip-mnist]
"""

import argparse
import gzip
import resource
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

from skpacbayes.voters import SplitForest, StumpBank

MiB = 2**20


def _measure(fn, *args, **kwargs):
    """Run ``fn`` once; return (result, seconds, traced peak in MiB)."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    t0 = time.perf_counter()
    result = fn(*args, **kwargs)
    seconds = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] / MiB
    tracemalloc.stop()
    return result, seconds, peak


def _read_idx_gz(path):
    """Read a gzipped IDX file (MNIST format) into a NumPy array."""
    with gzip.open(path, "rb") as fh:
        data = fh.read()
    if data[0] != 0 or data[1] != 0:
        raise ValueError(f"{path}: not an IDX file")
    type_code, ndim = data[2], data[3]
    dtypes = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
    shape = tuple(int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim))
    arr = np.frombuffer(data, dtype=dtypes[type_code], offset=4 + 4 * ndim)
    return arr.reshape(shape)


def load_mnist(data_home):
    folder = Path(data_home) / "mnist"
    X = [_read_idx_gz(folder / f"{part}-images.idx3-ubyte.gz") for part in ("train", "t10k")]
    y = [_read_idx_gz(folder / f"{part}-labels.idx1-ubyte.gz") for part in ("train", "t10k")]
    X = np.concatenate(X).reshape(-1, 28 * 28).astype(np.float32) / 255.0
    return X, np.concatenate(y).astype(np.int64)


def bench_stumps(m, d, n_thresholds, repeats, seed=0):
    print(f"== StumpBank: m={m:,}, d={d}, n_thresholds={n_thresholds}")
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, d))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int64)
    bank, t_fit, _ = _measure(StumpBank(n_thresholds=n_thresholds).fit, X, y)
    print(f"fit: {t_fit:.2f} s, n_voters_={bank.n_voters_}")
    for r in range(repeats):
        V, seconds, peak = _measure(bank.votes, X)
        print(
            f"votes run {r + 1}: {seconds:.2f} s, traced peak {peak:.0f} MiB "
            f"(output {V.nbytes / MiB:.0f} MiB, {V.dtype}, {V.shape})"
        )
        del V
    print(f"input X: {X.nbytes / MiB:.0f} MiB (float64)")


def bench_mnist(data_home, n_trees, n_jobs, n_train, seed=0):
    print(f"== SplitForest on MNIST: {n_trees} trees, n_jobs={n_jobs}")
    X, y = load_mnist(data_home)
    perm = np.random.default_rng(seed).permutation(len(y))
    train, test = perm[:n_train], perm[n_train:]
    X_train, y_train, X_test, y_test = X[train], y[train], X[test], y[test]
    print(f"train {X_train.shape}, test {X_test.shape}")
    t0 = time.perf_counter()
    forest = SplitForest(n_estimators=n_trees, n_jobs=n_jobs, random_state=seed)
    forest.fit(X_train, y_train)
    t_fit = time.perf_counter() - t0
    print(f"fit: {t_fit:.1f} s ({t_fit / 60:.2f} min), halves {[len(h) for h in forest.halves_]}")
    V_train, s_train, p_train = _measure(forest.votes, X_train)
    print(f"votes on train {V_train.shape}: {s_train:.2f} s, traced peak {p_train:.0f} MiB")
    V_test, s_test, p_test = _measure(forest.votes, X_test)
    print(f"votes on test {V_test.shape}: {s_test:.2f} s, traced peak {p_test:.0f} MiB")
    # sanity: plain (unweighted) majority vote of all trees on the test rows
    counts = np.zeros((len(V_test), forest.n_classes_), dtype=np.int32)
    for c in range(forest.n_classes_):
        counts[:, c] = (V_test == c).sum(axis=1)
    err = np.mean(forest.classes_[counts.argmax(axis=1)] != y_test)
    print(f"uniform majority vote test error: {err:.4f}")
    mask = forest.evaluation_mask()
    print(f"evaluation mask: {mask.mean():.3f} of (example, voter) pairs usable by the bound")


def main(argv=None):
    default_home = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=str(default_home))
    parser.add_argument("--m", type=int, default=1_000_000)
    parser.add_argument("--d", type=int, default=20)
    parser.add_argument("--n-thresholds", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-trees", type=int, default=200)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--n-train", type=int, default=56_000)
    parser.add_argument("--skip-stumps", action="store_true")
    parser.add_argument("--skip-mnist", action="store_true")
    args = parser.parse_args(argv)

    if not args.skip_stumps:
        bench_stumps(args.m, args.d, args.n_thresholds, args.repeats)
    if not args.skip_mnist:
        if not (Path(args.data_home) / "mnist").exists():
            print(f"MNIST not found under {args.data_home}; skipped")
        else:
            bench_mnist(args.data_home, args.n_trees, args.n_jobs, args.n_train)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process max RSS: {rss:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
