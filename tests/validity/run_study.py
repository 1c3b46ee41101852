"""Run the coverage study and write its figures as a markdown table (and the raw records).

Usage (from the repository root)::

    python tests/validity/run_study.py --reps 200 --n-jobs 2 --output validity.md

The slow test ``tests/validity/test_coverage.py::test_coverage_full`` runs the same study.
See :mod:`validity_study` for the distributions, the exact / Monte-Carlo true risk and the
violation rule. Exit status 1 if a row has more violations than ``delta * reps`` or a fit failed.
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import validity_study as vs  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--m", type=int, default=500, help="training sample size")
    parser.add_argument("--max-epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--n-test", type=int, default=200_000, help="Monte-Carlo test size")
    parser.add_argument("--deltas", type=float, nargs="+", default=[0.05, 0.5])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--ci", action="store_true", help="only the CI-sized subset of rows")
    parser.add_argument(
        "--only",
        nargs="+",
        default=None,
        help="keep rows whose label (with posterior, task and "
        "voters) contains any of these substrings",
    )
    parser.add_argument("--output", default="validity_study.md")
    parser.add_argument("--json", default=None, help="also write the raw records here")
    args = parser.parse_args(argv)

    configs = vs.ci_configs() if args.ci else list(vs.CONFIGS)
    if args.only:
        configs = [
            c
            for c in configs
            if any(s in f"{c.label} {c.posterior} {c.task} {c.voters}" for s in args.only)
        ]
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    records = vs.run_study(
        configs,
        args.reps,
        deltas=tuple(args.deltas),
        m=args.m,
        seed=args.seed,
        max_epochs=args.max_epochs,
        batch_size=args.batch_size,
        n_test=args.n_test,
        n_jobs=args.n_jobs,
        progress=lambda i, n: print(f"\r{i}/{n}", end="", file=sys.stderr, flush=True),
    )
    elapsed = time.perf_counter() - start
    rows = vs.summarize(records, tuple(args.deltas))
    header = (
        f"Coverage study: m = {args.m}, reps = {args.reps} (fewer where marked in the code), "
        f"max_epochs = {args.max_epochs}, batch_size = {args.batch_size}, "
        f"Monte-Carlo n_test = {args.n_test} (forest rows), seed = {args.seed}; "
        f"wall time {elapsed / 60:.1f} min with n_jobs = {args.n_jobs}.\n"
        "violations = repetitions with bound_ < true risk (stumps: exact risk; forests: "
        "risk_hat - 3 stderr); min gap = min over repetitions of bound_ - that risk.\n"
    )
    table = vs.markdown_table(rows, header)
    problems = vs.check_table(rows)
    if problems:
        table += "\nPROBLEMS:\n" + "\n".join(f"- {p}" for p in problems) + "\n"
    print(file=sys.stderr)
    print(table)
    Path(args.output).write_text(table)
    if args.json:
        Path(args.json).write_text(vs.records_to_json(records))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
