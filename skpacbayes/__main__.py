"""Command line: ``skpacbayes compare ...`` (and ``python -m skpacbayes``).

With no arguments, a fast demo of ``compare`` on scikit-learn's embedded
breast cancer data.
"""

import argparse
import sys
from pathlib import Path

__all__ = ["main"]

# the keys of skpacbayes.benchmark.METHODS (not imported here: --help stays fast, no torch)
_METHOD_NAMES = (
    "FO", "SO", "Bin", "CBnd", "VC", "Part", "Occam", "Vote", "HoldOut", "HO10", "HO20", "HO50",
    "OOB-FO", "OOB-SO", "Certified",
)


def _parser():
    parser = argparse.ArgumentParser(
        prog="skpacbayes",
        description="Certified PAC-Bayes majority votes: compare bounds on a dataset.",
    )
    sub = parser.add_subparsers(dest="command")
    cmp = sub.add_parser("compare", help="train and certify every valid (bound, posterior) pair")
    cmp.add_argument(
        "--dataset", default="breast_cancer", help="dataset name (default: breast_cancer)"
    )
    cmp.add_argument("--data-home", default=None, help="folder with one sub-folder per dataset")
    cmp.add_argument("--seeds", type=int, default=5, help="number of random 80/20 splits")
    cmp.add_argument(
        "--methods", nargs="+", default=None, help=f"{' '.join(_METHOD_NAMES)} (default: all)"
    )
    cmp.add_argument(
        "--posteriors",
        nargs="+",
        default=None,
        help="categorical dirichlet gaussian (default: all)",
    )
    cmp.add_argument("--delta", type=float, default=0.05)
    cmp.add_argument("--max-epochs", type=int, default=100)
    cmp.add_argument("--n-estimators", type=int, default=200, help="trees of the split forest")
    cmp.add_argument("--out", default=None, help="write results (.json or .csv)")
    cmp.add_argument("--plot", default=None, help="write a bound vs test error plot (.png)")
    cmp.add_argument("--n-jobs", type=int, default=1)
    cmp.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def main(argv=None):
    """Entry point of the ``skpacbayes`` console script."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:  # fast demo on embedded data
        print(
            "skpacbayes demo: breast cancer (embedded), 2 seeds, 30 epochs. "
            "Run `skpacbayes compare --help` for the full benchmark.",
            file=sys.stderr,
        )
        argv = ["compare", "--dataset", "breast_cancer", "--seeds", "2", "--max-epochs", "30"]
    args = _parser().parse_args(argv)
    if args.command != "compare":
        _parser().print_help()
        return 2
    from skpacbayes.benchmark import compare, format_table, plot_results

    try:
        result = compare(
            args.dataset,
            data_home=args.data_home,
            seeds=args.seeds,
            methods=args.methods,
            posteriors=args.posteriors,
            delta=args.delta,
            max_epochs=args.max_epochs,
            n_estimators=args.n_estimators,
            n_jobs=args.n_jobs,
            progress=not args.quiet,
        )
    except (FileNotFoundError, ValueError) as exc:
        print(f"skpacbayes: error: {exc}", file=sys.stderr)
        return 1
    print(format_table(result))
    if args.out:
        out = Path(args.out)
        out.write_text(result.to_csv() if out.suffix == ".csv" else result.to_json())
    if args.plot:
        plot_results(result, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
