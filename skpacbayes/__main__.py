"""Command line: ``skpacbayes compare ...`` (and ``python -m skpacbayes``).

With no arguments (or ``--quiet`` alone), a fast demo of ``compare`` on scikit-learn's
embedded breast cancer data. Every argument is checked before any work starts. The methods,
their descriptions, the posterior families, the data sets and the version are read from the
library (``skpacbayes.benchmark.REGISTRY``, ``skpacbayes.datasets``).
"""

import argparse
import importlib.util
import math
import shlex
import sys
from pathlib import Path

from skpacbayes import __version__
from skpacbayes.benchmark import FAMILIES, REGISTRY
from skpacbayes.datasets import DATASET_NAMES, EMBEDDED_DATASETS

__all__ = ["main"]

#: the no-argument demo: every argument of ``compare`` that sets its numbers
_DEMO = {
    "dataset": "breast_cancer",
    "seeds": 1,
    "posteriors": ("categorical",),
    "max_epochs": 10,
    "n_estimators": 50,
    "delta": 0.05,
    "n_jobs": 1,
}
_DEMO_TEXT = (
    "With no arguments (or --quiet alone), skpacbayes runs a fast demo: `compare` on the "
    "embedded breast cancer data, {seeds} seed (one stratified 80/20 split), every method "
    "with the {posterior} posterior, at most {max_epochs} epochs, decision stumps for the "
    "bounds and forests of {n_estimators} trees for the votes of trees, delta = {delta}, "
    "{n_jobs} process (--posteriors {families} for every family); the Certified column is "
    "CertifiedVoteClassifier, the recommended estimator."
).format(posterior=" and ".join(_DEMO["posteriors"]), families=" ".join(FAMILIES), **_DEMO)


def _argument(convert, expected, accepts, refusal=None):
    """An argparse ``type``: ``convert(text)``, refused (``expected ...``, or ``refusal``)
    where it fails or where ``accepts`` refuses the value."""

    def parse(text):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
        if not accepts(value):
            raise argparse.ArgumentTypeError(refusal or f"expected {expected}, got {value}")
        return value

    return parse


_positive_int = _argument(int, "a positive integer", lambda value: value >= 1)
_n_jobs = _argument(
    int,
    "an integer",
    lambda value: value != 0,
    refusal="0 is not valid: use a positive number or -1 (all CPUs)",
)
_delta = _argument(
    float, "a number in (0, 1)", lambda value: math.isfinite(value) and 0 < value < 1
)


def _dataset(text):
    from skpacbayes.datasets._catalogue import _canonical_name

    try:
        return _canonical_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _output(suffixes):
    def check(text):
        path = Path(text)
        if path.suffix.lower() not in suffixes:
            raise argparse.ArgumentTypeError(
                f"{text!r}: the file name must end with {' or '.join(suffixes)}"
            )
        if not path.parent.is_dir():
            raise argparse.ArgumentTypeError(
                f"{text!r}: folder {str(path.parent)!r} does not exist"
            )
        return path

    return check


class _Formatter(argparse.HelpFormatter):
    """argparse's help layout, except that the lines of the method list (indented) are kept
    as they are: one line per method."""

    def _fill_text(self, text, width, indent):
        fill = super()._fill_text
        return "\n".join(
            line if line.startswith("  ") else fill(line, width, indent)
            for line in text.split("\n")
        )


def _method_lines():
    """The methods of the registry, one line each (the name, then its description)."""
    width = max(map(len, REGISTRY))
    return "\n".join(f"  {name:<{width}}  {m.description}" for name, m in REGISTRY.items())


_METHODS_TEXT = "Methods (--methods; default: all):\n" + _method_lines()


def _parser():
    parser = argparse.ArgumentParser(
        prog="skpacbayes",
        description="Certified PAC-Bayes majority votes: compare bounds on a dataset.",
        epilog=(
            f"{_DEMO_TEXT}\n\n{_METHODS_TEXT}\n\nRun `skpacbayes compare --help` for the options."
        ),
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    quiet = (
        "no progress report on stderr (by default: a bar on a terminal, one line per "
        "finished fit in a log or a pipe)"
    )
    parser.add_argument("--quiet", dest="demo_quiet", action="store_true", help=quiet)
    sub = parser.add_subparsers(dest="command")
    cmp = sub.add_parser(
        "compare",
        help="train and certify every valid (bound, posterior) pair",
        description=(
            "Train and certify every valid (bound, posterior) pair on random stratified 80/20 "
            "splits of one dataset and print certified bound / test error tables."
        ),
        epilog=(
            f"{_METHODS_TEXT}\n\n"
            f"Data sets: {', '.join(EMBEDDED_DATASETS)} (embedded in scikit-learn) and "
            f"{', '.join(DATASET_NAMES)} (read from --data-home; missing files are "
            "downloaded, or taken from the mirror named by $SKPACBAYES_DATA_MIRROR).\n\n"
            + _DEMO_TEXT
        ),
        formatter_class=_Formatter,
    )
    cmp.add_argument(
        "--dataset",
        type=_dataset,
        default="breast_cancer",
        metavar="NAME",
        help="dataset name (default: breast_cancer; the names are listed below)",
    )
    cmp.add_argument(
        "--data-home",
        default=None,
        help="folder with one sub-folder per dataset (default: $SKPACBAYES_DATA or "
        "~/skpacbayes_data)",
    )
    cmp.add_argument(
        "--seeds", type=_positive_int, default=5, help="number of random 80/20 splits (default: 5)"
    )
    cmp.add_argument(
        "--methods",
        nargs="+",
        choices=tuple(REGISTRY),
        default=None,
        metavar="METHOD",
        help="methods to run, among those listed below (default: all)",
    )
    cmp.add_argument(
        "--posteriors",
        nargs="+",
        choices=FAMILIES,
        default=None,
        metavar="FAMILY",
        help=f"{' '.join(FAMILIES)} (default: all; each method runs with those it certifies)",
    )
    cmp.add_argument(
        "--skip-invalid",
        action="store_true",
        help="run the valid (method, posterior) pairs of --methods x --posteriors and name the "
        "others (by default a pair that cannot run on the dataset is refused: exit status 2, "
        "naming each pair and why)",
    )
    cmp.add_argument(
        "--delta", type=_delta, default=0.05, help="confidence parameter in (0, 1) (default: 0.05)"
    )
    cmp.add_argument("--max-epochs", type=_positive_int, default=100, help="(default: 100)")
    cmp.add_argument(
        "--n-estimators",
        type=_positive_int,
        default=200,
        help="trees of the split forest (default: 200)",
    )
    cmp.add_argument(
        "--out", type=_output((".json", ".csv")), default=None, help="write results (.json or .csv)"
    )
    cmp.add_argument(
        "--plot",
        type=_output((".png", ".pdf", ".svg")),
        default=None,
        help="write a bound vs test error plot (.png, .pdf or .svg; needs matplotlib)",
    )
    cmp.add_argument(
        "--n-jobs", type=_n_jobs, default=1, help="parallel fits, -1: all CPUs (default: 1)"
    )
    cmp.add_argument("--quiet", action="store_true", help=quiet)
    return parser


def _demo_argv():
    """The arguments of the demo, every setting of ``_DEMO`` spelt out."""
    argv = ["compare"]
    for key, value in _DEMO.items():
        values = value if isinstance(value, tuple) else (value,)
        argv += [f"--{key.replace('_', '-')}", *map(str, values)]
    return argv


def main(argv=None):
    """Entry point of the ``skpacbayes`` console script.

    Parameters
    ----------
    argv : list of str, optional
        Arguments (default: ``sys.argv[1:]``); none, or ``--quiet`` alone, runs the demo.

    Returns
    -------
    int
        Exit status: 0 on success, 1 on a data or run error, 2 on a usage error.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:  # the default job: a fast demo on embedded data
        argv = _demo_argv() + (["--quiet"] if args.demo_quiet else [])
        print(f"skpacbayes demo. {_DEMO_TEXT}", file=sys.stderr)
        print(f"The same table: skpacbayes {shlex.join(argv)}", file=sys.stderr)
        args = parser.parse_args(argv)
    quiet = args.quiet or args.demo_quiet
    if args.plot is not None and importlib.util.find_spec("matplotlib") is None:
        parser.error("argument --plot: needs matplotlib (pip install matplotlib)")
    from skpacbayes.benchmark import (
        UnsupportedRequestError,
        check_request,
        compare,
        format_table,
        invalid_pairs,
        plot_results,
    )

    try:
        if args.skip_invalid:  # say what is skipped before the fits (compare checks it again)
            check_request(args.dataset, args.methods, args.posteriors, skip_invalid=True)
            skipped = invalid_pairs(args.dataset, args.methods, args.posteriors)
            if skipped:
                pairs = "; ".join(f"{m}/{f} ({why})" for (m, f), why in skipped.items())
                print(f"skpacbayes compare: skipping {pairs}", file=sys.stderr)
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
            progress=not quiet,
            skip_invalid=args.skip_invalid,
        )
    except UnsupportedRequestError as exc:  # a usage error, found before any fit
        print(f"skpacbayes compare: error: {exc}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:
        print(f"skpacbayes: error: {exc}", file=sys.stderr)
        return 1
    print(format_table(result))
    if args.out:
        args.out.write_text(result.to_csv() if args.out.suffix == ".csv" else result.to_json())
    if args.plot:
        plot_results(result, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
