"""More rows than memory: fits and certificates on dask arrays, on a 2-worker LocalCluster.

Rows are generated block by block on the workers (``dask.array.random``, float64, 20
features; labels from a fixed noisy rule), so no process ever holds the whole array:

* **the bound families** on ``StumpBank(feature_range=(-5, 5))`` (400 stumps), each fitted on
  3, 10 and 30 million rows (``--sizes``; ``--kinds`` picks them): FO and SO categorical (the
  count path), and FO, SO, C-bound and binomial with the Dirichlet and Gaussian posteriors
  (the per-row families: trained on ``max_train_rows`` rows, default 262,144, held in
  memory, certified on every row by float64 sums from the workers). Wall time of ``fit``,
  the client's peak resident memory, the bound, the rows it certifies and the error of
  ``predict`` on fresh rows; with ``--in-memory``, also the bound of the same estimator
  fitted in memory on the same rows with ``max_train_rows=None`` (every row trains: the
  fit the sample replaces) and its difference;
* **HoldOut on a prefit forest** (``HoldOutBoundClassifier(voters=PrefitVoters(forest))``): a
  random forest grown beforehand on in-memory rows, certified on a 20-million-row dask
  hold-out; the bound against the forest's (plain vote's) error on fresh rows;
* **HoldOut, sample protocol** (``HoldOutBoundClassifier(voters=forest, train_size=...)``): the
  forest grown on a sample drawn from the dask array and held in memory, certified on every
  other row.

Each run is a separate client process, which starts its own ``LocalCluster`` (worker
processes): its peak resident memory (``resource.getrusage``, the client and the scheduler
that lives in it, not the workers) is that run's alone. The fresh rows come from another
seed and are scored lazily on the cluster (``predict`` on a dask array).

Usage::

    python benchmarks/bench_dask.py [--sizes 3e6,1e7,3e7] [--kinds fo,fo-dirichlet,...]
        [--holdout-rows 2e7] [--sample-rows 2e7] [--chunk-rows 1e6] [--fresh-rows 5e6]
        [--in-memory] [--out benchmarks/results/dask]
"""

import argparse
import contextlib
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np
from provenance import head_commit, write_results

N_FEATURES = 20
# labels: a noisy rule on a few features (a linear part and an interaction)
_WEIGHTS = np.zeros(N_FEATURES)
_WEIGHTS[:5] = (1.0, -0.8, 0.6, 0.5, -0.4)
SEEDS = {"train": 1, "fresh": 2, "forest": 3}


def _labels(X, noise):
    score = X @ _WEIGHTS + 0.8 * X[:, 5] * X[:, 6] + 0.6 * noise[:, 0]
    return (score > 0).astype(np.int8)


def rows(n_rows, chunk_rows, seed):
    """``n_rows`` x 20 float64 rows and their labels, generated block by block (lazy)."""
    import dask.array as da

    rng = da.random.default_rng(seed)
    X = rng.standard_normal((n_rows, N_FEATURES), chunks=(chunk_rows, N_FEATURES))
    noise = rng.standard_normal((n_rows, 1), chunks=(chunk_rows, 1))
    return X, da.map_blocks(_labels, X, noise, drop_axis=1, dtype=np.int8)


def _peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


#: the bound families: (estimator, posterior), on StumpBank(feature_range=(-5, 5))
FAMILIES = {
    "fo": ("FirstOrderBoundClassifier", "categorical"),
    "so": ("SecondOrderBoundClassifier", "categorical"),
    "fo-dirichlet": ("FirstOrderBoundClassifier", "dirichlet"),
    "fo-gaussian": ("FirstOrderBoundClassifier", "gaussian"),
    "so-dirichlet": ("SecondOrderBoundClassifier", "dirichlet"),
    "so-gaussian": ("SecondOrderBoundClassifier", "gaussian"),
    "cbound-dirichlet": ("CBoundClassifier", "dirichlet"),
    "cbound-gaussian": ("CBoundClassifier", "gaussian"),
    "bin-dirichlet": ("BinomialBoundClassifier", "dirichlet"),
    "bin-gaussian": ("BinomialBoundClassifier", "gaussian"),
}


def _estimator(kind, args, X, y):
    from sklearn.ensemble import RandomForestClassifier

    import skpacbayes
    from skpacbayes import HoldOutBoundClassifier
    from skpacbayes.voters import PrefitVoters, StumpBank

    forest = RandomForestClassifier(
        n_estimators=args.trees, max_depth=args.depth, n_jobs=args.workers, random_state=0
    )
    if kind in FAMILIES:
        name, posterior = FAMILIES[kind]
        return getattr(skpacbayes, name)(
            voters=StumpBank(feature_range=(-5, 5)), posterior=posterior, random_state=0
        )
    if kind == "holdout-prefit":
        Xf, yf = rows(args.forest_rows, args.chunk_rows, SEEDS["forest"])
        import dask

        Xf, yf = dask.compute(Xf, yf)
        return HoldOutBoundClassifier(voters=PrefitVoters(forest.fit(Xf, yf)))
    return HoldOutBoundClassifier(voters=forest, train_size=args.forest_rows, random_state=0)


@contextlib.contextmanager
def local_cluster(args):
    """A fresh ``LocalCluster`` of ``args.workers`` one-thread process workers, with its client."""
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            processes=True,
            memory_limit=args.memory_limit,
            dashboard_address=":0",
            silence_logs=40,
        ) as cluster,
        Client(cluster),
    ):
        yield


def fresh_error(est, args):
    """``est``'s error rate on ``args.fresh_rows`` rows it never saw, counted on the workers."""
    import dask

    Xf, yf = rows(args.fresh_rows, args.chunk_rows, SEEDS["fresh"])
    (error,) = dask.compute((est.predict(Xf) != yf).mean())
    return float(error), Xf, yf


def run_one(kind, n_rows, args):
    """One fit in this process (a fresh cluster); returns its figures."""
    import dask

    with local_cluster(args):
        X, y = rows(n_rows, args.chunk_rows, SEEDS["train"])
        est = _estimator(kind, args, X, y)
        before = _peak_mib()
        start = time.perf_counter()
        est.fit(X, y)
        wall = time.perf_counter() - start
        peak = _peak_mib()
        fresh, Xf, yf = fresh_error(est, args)
        out = {
            "kind": kind,
            "n_rows": n_rows,
            "gib_float64": n_rows * N_FEATURES * 8 / 2**30,
            "fit_s": wall,
            "rows_per_s": n_rows / wall,
            "client_peak_mib": peak,
            "client_peak_before_fit_mib": before,
            "bound": est.bound_,
            "certified_rows": int(est.certificate_.m[0]),
            "train_error": float(est.certificate_.train_error),
            "fresh_error": fresh,
            "fresh_rows": args.fresh_rows,
            "n_voters": int(est.voters_.n_voters_),
        }
        if args.in_memory and kind in FAMILIES:  # the every-row fit on the same rows
            from sklearn.base import clone

            Xm, ym = dask.compute(X, y)
            start = time.perf_counter()
            ref = clone(est).set_params(max_train_rows=None).fit(Xm, ym)
            out["in_memory_fit_s"] = time.perf_counter() - start
            out["in_memory_bound"] = ref.bound_
        if kind not in FAMILIES:  # the forest's own predict (soft vote), for reference
            model = est.voters_.estimators  # the forest, or [forest] (the prefit model deployed)
            model = model[0] if isinstance(model, list | tuple) else model
            model = dask.delayed(model, pure=False)
            wrong = Xf.map_blocks(
                _errors_of, model, yf[:, None], drop_axis=1, meta=np.empty(0, bool)
            )
            (out["forest_predict_fresh_error"],) = dask.compute(wrong.mean())
    return out


def _errors_of(X, model, y):
    return model.predict(X) != y[:, 0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="3e6,1e7,3e7")
    parser.add_argument("--kinds", default=",".join(FAMILIES), help="families run at --sizes")
    parser.add_argument(
        "--in-memory", action="store_true", help="also fit every row in memory (small sizes)"
    )
    parser.add_argument("--holdout-rows", type=float, default=2e7)
    parser.add_argument("--sample-rows", type=float, default=2e7)
    parser.add_argument("--chunk-rows", type=float, default=1e6)
    parser.add_argument("--fresh-rows", type=float, default=5e6)
    parser.add_argument("--forest-rows", type=float, default=1e5)
    parser.add_argument("--trees", type=int, default=51)
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-limit", default="5GiB")
    parser.add_argument("--out", default=None, help="write OUT.json and OUT.txt")
    parser.add_argument("--one", nargs=2, metavar=("KIND", "ROWS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    for name in ("holdout_rows", "sample_rows", "chunk_rows", "fresh_rows", "forest_rows"):
        setattr(args, name, int(getattr(args, name)))
    if args.one:
        print("RESULT " + json.dumps(run_one(args.one[0], int(float(args.one[1])), args)))
        return
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = sorted(set(kinds) - set(FAMILIES))
    if unknown:
        sys.exit(f"unknown --kinds {unknown}; known: {', '.join(FAMILIES)}")
    sizes = [int(float(n)) for n in args.sizes.split(",") if n]
    runs = [(kind, n) for n in sizes for kind in kinds]
    runs += [("holdout-prefit", args.holdout_rows)] if args.holdout_rows else []
    runs += [("holdout-sample", args.sample_rows)] if args.sample_rows else []
    results, lines = [], []
    passed = []
    for name in ("chunk_rows", "fresh_rows", "forest_rows", "trees", "depth", "workers"):
        passed += ["--" + name.replace("_", "-"), str(getattr(args, name))]
    passed += ["--memory-limit", args.memory_limit]
    passed += ["--in-memory"] if args.in_memory else []
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    for kind, n_rows in runs:
        command = [sys.executable, __file__, *passed, "--one", kind, str(n_rows)]
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        result = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
        if done.returncode or not result:
            sys.exit(f"{kind} on {n_rows} rows failed:\n{done.stdout}\n{done.stderr}")
        results.append(json.loads(result[0][len("RESULT ") :]))
        lines.append(_row(results[-1]))
        print(lines[-1], flush=True)
    header = [
        f"# command: python benchmarks/bench_dask.py {' '.join(sys.argv[1:])}   (commit "
        f"{head_commit()})",
        f"{args.workers}-worker LocalCluster (process workers, 1 thread each, "
        f"memory_limit={args.memory_limit}), blocks of {args.chunk_rows} rows x "
        f"{N_FEATURES} float64 generated on the workers; fresh rows: {args.fresh_rows}; "
        f"forests: {args.trees} trees of depth <= {args.depth} grown on {args.forest_rows} "
        "rows; delta = 0.05",
        "| run | rows | float64 GB | fit wall (s) | rows/s | client peak RSS (MiB) | "
        "bound (%) | error on fresh rows (%) | bound - fresh error (points) | rows certified "
        "| in-memory every-row bound (%) (fit s) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    text = "\n".join(header + lines)
    print(text)
    if args.out:
        write_results(args.out, results, text)


_NAMES = {
    **{kind: f"{kind.split('-')[0].upper()} {post}" for kind, (_, post) in FAMILIES.items()},
    "holdout-prefit": "HoldOut, PrefitVoters(forest)",
    "holdout-sample": "HoldOut, forest on train_size rows",
}


def _row(r):
    extra = ""
    if "forest_predict_fresh_error" in r:
        extra = f" (forest.predict: {100 * r['forest_predict_fresh_error']:.2f})"
    memory = ""
    if "in_memory_bound" in r:
        memory = (
            f"{100 * r['in_memory_bound']:.3f} ({r['in_memory_fit_s']:.0f} s; dask - memory: "
            f"{100 * (r['bound'] - r['in_memory_bound']):+.3f} points)"
        )
    return (
        f"| {_NAMES[r['kind']]} | {r['n_rows']:,} | {r['n_rows'] * N_FEATURES * 8 / 1e9:.1f} | "
        f"{r['fit_s']:.0f} | {r['rows_per_s']:,.0f} | {r['client_peak_mib']:.0f} | "
        f"{100 * r['bound']:.3f} | {100 * r['fresh_error']:.3f}{extra} | "
        f"{100 * (r['bound'] - r['fresh_error']):+.3f} | "
        f"{r['certified_rows']:,} ({100 * r['certified_rows'] / r['n_rows']:.0f} %) | {memory} |"
    )


if __name__ == "__main__":
    main()
