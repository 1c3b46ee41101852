"""CertifiedVoteClassifier on a dask array (its own forests out of core), on a 2-worker
LocalCluster, against HoldOut's sample protocol on the same rows and against the fit in
memory (``X.compute()``, what a dask array needed before).

The rows are those of ``bench_dask.py`` (20 float64 features, a noisy rule; generated block
by block on the workers). Runs, each in its own client process (its own cluster, so that
its peak resident memory is its own):

* ``certified-vote``: ``CertifiedVoteClassifier(voters=forest)`` on the dask array,
  ``train_size="auto"`` (``min(50000, n // 3)`` rows drawn into memory);
* ``holdout-sample``: ``HoldOutBoundClassifier(voters=forest, train_size=...)`` with the
  same number of rows (the same rows: same ``random_state``);
* ``certified-vote-default`` (not run unless named): ``certified-vote`` with the default
  forests (``voters=None``: fully grown trees, 140 on 80 % of the sample, 40 on 50 %);
* ``certified-vote-memory``: the array computed into memory and
  ``CertifiedVoteClassifier(voters=forest)`` fitted on it (``train_size`` left at
  ``"auto"``: every row in memory, the in-memory candidates).

For each: wall time of ``fit`` (the in-memory run: ``compute`` included), the client's peak
resident memory, the bound, the rows the deployed vote is certified on (and the fewest of
any candidate), and the error of ``predict`` on fresh rows (another seed, scored lazily on
the cluster).

Usage::

    python benchmarks/bench_dask_certified_vote.py [--rows 3e5] [--runs ...] [--out OUT]
"""

import argparse
import json
import math
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_dask import N_FEATURES, SEEDS, _peak_mib, fresh_error, local_cluster, rows  # noqa: E402
from provenance import head_commit, write_results  # noqa: E402

RUNS = ("certified-vote", "holdout-sample", "certified-vote-memory", "certified-vote-default")
_NAMES = {
    "certified-vote": "CertifiedVote, dask, train_size='auto'",
    "holdout-sample": "HoldOut, dask, same train_size",
    "certified-vote-memory": "CertifiedVote, X.compute() in memory",
    "certified-vote-default": "CertifiedVote, dask, voters=None (default forests)",
}


def run_one(kind, args):
    """One fit in this process (a fresh cluster); returns its figures."""
    import dask
    from sklearn.ensemble import RandomForestClassifier

    from skpacbayes import CertifiedVoteClassifier, HoldOutBoundClassifier
    from skpacbayes.engine.protocols.sample import resolve_train_size

    forest = RandomForestClassifier(
        n_estimators=args.trees, max_depth=args.depth, n_jobs=args.workers, random_state=0
    )
    with local_cluster(args):
        X, y = rows(args.rows, args.chunk_rows, SEEDS["train"])
        train_size = resolve_train_size("auto", args.rows, True)
        before = _peak_mib()
        start = time.perf_counter()
        if kind == "certified-vote":
            est = CertifiedVoteClassifier(voters=forest, random_state=0, n_jobs=1).fit(X, y)
        elif kind == "holdout-sample":
            est = HoldOutBoundClassifier(voters=forest, train_size=train_size, random_state=0)
            est.fit(X, y)
        elif kind == "certified-vote-default":
            est = CertifiedVoteClassifier(random_state=0, n_jobs=args.workers).fit(X, y)
        else:
            Xm, ym = dask.compute(X, y)
            est = CertifiedVoteClassifier(voters=forest, random_state=0, n_jobs=1).fit(Xm, ym)
        wall = time.perf_counter() - start
        peak = _peak_mib()
        fresh, _, _ = fresh_error(est, args)
        certified = int(est.certificate_.m[est.certificate_.details["statement"]])
        out = {
            "kind": kind,
            "n_rows": args.rows,
            "fit_s": wall,
            "client_peak_mib": peak,
            "client_peak_before_fit_mib": before,
            "bound": float(est.bound_),
            "certified_rows": certified,
            "fresh_error": fresh,
            "fresh_rows": args.fresh_rows,
        }
        if kind != "holdout-sample":
            out["deployed"] = est.best_candidate_
            out["fewest_certified_rows"] = min(
                c.get("held_out_rows", math.ceil(c["validation_fraction"] * args.rows))
                for c in est.candidates_
            )
        if kind != "certified-vote-memory":
            out["train_size"] = train_size
    return out


def _row(r):
    fewest = r.get("fewest_certified_rows")
    fewest = "" if fewest is None else f"{fewest:,} ({100 * fewest / r['n_rows']:.0f} %)"
    deployed = r.get("deployed")
    if deployed is not None:
        deployed = f"{deployed['validation_fraction']} fold {deployed['fold']}"
    return (
        f"| {_NAMES[r['kind']]} | {r['n_rows']:,} | {r['fit_s']:.0f} | "
        f"{r['client_peak_mib']:.0f} | {100 * r['bound']:.3f} | {100 * r['fresh_error']:.3f} | "
        f"{100 * (r['bound'] - r['fresh_error']):+.3f} | "
        f"{r['certified_rows']:,} ({100 * r['certified_rows'] / r['n_rows']:.0f} %) | "
        f"{fewest} | {deployed or ''} |"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=3e5)
    parser.add_argument("--runs", default=",".join(RUNS[:3]))
    parser.add_argument("--chunk-rows", type=float, default=5e4)
    parser.add_argument("--fresh-rows", type=float, default=1e6)
    parser.add_argument("--trees", type=int, default=51)
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-limit", default="4GiB")
    parser.add_argument("--out", default=None, help="write OUT.json and OUT.txt")
    parser.add_argument("--one", metavar="RUN", help=argparse.SUPPRESS)
    args = parser.parse_args()
    for name in ("rows", "chunk_rows", "fresh_rows"):
        setattr(args, name, int(getattr(args, name)))
    if args.one:
        print("RESULT " + json.dumps(run_one(args.one, args)))
        return
    runs = [r for r in args.runs.split(",") if r]
    unknown = sorted(set(runs) - set(RUNS))
    if unknown:
        sys.exit(f"unknown --runs {unknown}; known: {', '.join(RUNS)}")
    passed = ["--rows", str(args.rows), "--memory-limit", args.memory_limit]
    for name in ("chunk_rows", "fresh_rows", "trees", "depth", "workers"):
        passed += ["--" + name.replace("_", "-"), str(getattr(args, name))]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    results, lines = [], []
    for kind in runs:
        command = [sys.executable, __file__, *passed, "--one", kind]
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        result = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
        if done.returncode or not result:
            sys.exit(f"{kind} failed:\n{done.stdout}\n{done.stderr}")
        results.append(json.loads(result[0][len("RESULT ") :]))
        lines.append(_row(results[-1]))
        print(lines[-1], flush=True)
    commit = head_commit()
    load = os.getloadavg()
    header = [
        f"# command: python benchmarks/bench_dask_certified_vote.py {' '.join(sys.argv[1:])}"
        f"   (commit {commit}; load average before the runs ended: "
        f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on 2 cores shared with other jobs)",
        f"{args.workers}-worker LocalCluster (process workers, 1 thread each, "
        f"memory_limit={args.memory_limit}), blocks of {args.chunk_rows} rows x "
        f"{N_FEATURES} float64 generated on the workers; fresh rows: {args.fresh_rows}; "
        f"forests: voters=RandomForestClassifier({args.trees} trees, max_depth={args.depth}) "
        "(the default run: voters=None, the default forests, 140 or 40 fully grown trees); "
        "delta = 0.05; one fit each",
        "| run | rows | fit wall (s) | client peak RSS (MiB) | bound (%) | error on fresh "
        "rows (%) | bound - fresh error (points) | rows certified (deployed) | rows certified "
        "(fewest of any candidate) | deployed candidate |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    text = "\n".join(header + lines)
    print(text)
    if args.out:
        write_results(args.out, results, text)


if __name__ == "__main__":
    main()
