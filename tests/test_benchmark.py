"""Smoke tests of the comparison benchmark and the command line."""

import json
import shlex
import socket
from pathlib import Path

import numpy as np
import pytest

import skpacbayes
from skpacbayes import __main__ as cli
from skpacbayes import benchmark
from skpacbayes.__main__ import main
from skpacbayes.benchmark import METHODS, CompareResult, _runner, compare, format_table
from skpacbayes.datasets import DATASET_NAMES, EMBEDDED_DATASETS


def test_compare_haberman_smoke(data_home, tmp_path, capsys):
    out = tmp_path / "results.json"
    code = main(
        [
            "compare",
            "--dataset",
            "haberman",
            "--data-home",
            str(data_home),
            "--seeds",
            "1",
            "--max-epochs",
            "3",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "haberman" in printed and "reference" in printed
    payload = json.loads(out.read_text())
    assert set(payload) == {"dataset", "settings", "wall_time", "rows", "summary"}
    assert payload["dataset"] == "haberman"
    methods = {row["method"] for row in payload["rows"]}
    assert methods == set(METHODS) | {"All"}
    for row in payload["rows"]:
        assert {"seed", "method", "posterior", "bound", "test_error", "train_error"} <= set(row)
        assert 0.0 <= row["bound"] <= 1.0
        assert 0.0 <= row["test_error"] <= 1.0
    best = [r for r in payload["rows"] if r["posterior"] == "best"]
    assert {r["method"] for r in best} == set(METHODS) | {"All"}
    singles = [r for r in payload["rows"] if r["posterior"] != "best"]
    for r in best:
        method, family = (
            r["chosen"].split("/") if r["method"] == "All" else (r["method"], r["chosen"])
        )
        same = [x["bound"] for x in singles if x["method"] == method and x["posterior"] == family]
        # best of families is re-certified at delta / K: never below that family's own bound
        assert r["bound"] >= min(same) - 1e-12
    (overall,) = [r for r in best if r["method"] == "All"]
    # the strategy row: split-forest voters, Gaussian posterior
    assert [r["posterior"] for r in singles if r["method"] == "Vote"] == ["gaussian"]
    # the overall choice pays for all its candidates but can only beat each method's best
    # by choosing it: it is at most the largest per-method best row
    assert overall["bound"] <= max(r["bound"] for r in best if r["method"] != "All") + 1e-12


def test_compare_embedded_multiclass_csv(tmp_path):
    result = compare(
        "iris",
        seeds=1,
        methods=["FO", "Occam"],
        posteriors=["categorical"],
        max_epochs=2,
        n_estimators=10,
        progress=False,
    )
    text = format_table(result)
    assert "FO" in text and "Occam" in text
    csv = result.to_csv().splitlines()
    assert csv[0].startswith("dataset,seed,method")
    assert len(csv) == 1 + len(result.rows)


def test_compare_runs_costly_fits_first_and_keeps_the_rows_in_order():
    """Tasks are submitted costliest first (a Gaussian fit before a Categorical one on the
    counts); the rows, fitted in two processes, come back in the order of the tasks, with the
    same values as a sequential run."""
    from skpacbayes.benchmark._runner import _cost_rank

    assert (
        _cost_rank("Vote", "gaussian")
        > _cost_rank("FO", "gaussian")
        > _cost_rank("Bin", "categorical")
        > _cost_rank("FO", "categorical")
    )
    kwargs = dict(
        seeds=2,
        methods=["FO", "Occam"],
        posteriors=["categorical", "gaussian"],
        max_epochs=2,
        n_estimators=6,
        progress=False,
        skip_invalid=True,
    )
    parallel = compare("iris", n_jobs=2, **kwargs)
    sequential = compare("iris", n_jobs=1, **kwargs)
    keys = [(r["seed"], r["method"], r["posterior"]) for r in parallel.rows]
    assert keys == [(r["seed"], r["method"], r["posterior"]) for r in sequential.rows]
    assert keys[:3] == [
        (0, "FO", "categorical"),
        (0, "FO", "gaussian"),
        (0, "Occam", "categorical"),
    ]
    for a, b in zip(parallel.rows, sequential.rows, strict=True):
        assert a["bound"] == pytest.approx(b["bound"], abs=1e-9)
        assert a["test_error"] == b["test_error"]


def test_blocks_cut_the_fits_of_a_seed_on_a_bank_into_one_block_per_worker():
    """The fits of one seed on one bank form at most one block per worker, of about equal
    cost (the costliest fit first, each to the lightest block); fits that grow their own
    voters are blocks of their own; the heaviest blocks come first."""
    bank_a, bank_b = object(), object()
    tasks = [
        (0, "FO", "gaussian", bank_a),
        (0, "FO", "categorical", bank_a),
        (0, "Vote", "gaussian", bank_a),
        (0, "Occam", "categorical", bank_a),
        (1, "FO", "categorical", bank_b),
        (0, "Certified", "categorical", None),
        (1, "SO", "categorical", bank_b),
    ]
    blocks = _runner._blocks(tasks, 2)
    assert sorted(map(sorted, blocks)) == [[0, 1, 3], [2], [4], [5], [6]]
    costs = [sum(4 ** _runner._cost_rank(*tasks[i][1:3]) for i in b) for b in blocks]
    assert costs == sorted(costs, reverse=True)
    assert sorted(map(sorted, _runner._blocks(tasks, 1))) == [[0, 1, 2, 3], [4, 6], [5]]


def test_compare_fits_of_a_seed_share_the_votes_of_their_bank(monkeypatch):
    """In a block, the bank's votes on the training and on the test rows are computed once
    for all its fits, and the rows are those of fits run one by one."""
    from skpacbayes.voters import SplitForest

    calls = []
    original = SplitForest.votes

    def counting(self, X, **kwargs):
        calls.append(X.shape[0])
        return original(self, X, **kwargs)

    monkeypatch.setattr(SplitForest, "votes", counting)
    kwargs = dict(
        seeds=2,
        methods=["FO", "SO", "Occam"],
        posteriors=["categorical"],
        n_estimators=6,
        progress=False,
    )
    blocks = compare("iris", n_jobs=1, **kwargs)
    assert calls.count(120) == 2 and calls.count(30) == 2  # one block per seed
    calls.clear()
    monkeypatch.setattr(_runner, "_blocks", lambda tasks, n: [[i] for i in range(len(tasks))])
    alone = compare("iris", n_jobs=1, **kwargs)
    assert calls.count(120) == 6 and calls.count(30) == 6  # one per fit
    assert [(r["bound"], r["test_error"]) for r in blocks.rows] == [
        (r["bound"], r["test_error"]) for r in alone.rows
    ]


def test_compare_rejects_unknown_method():
    with pytest.raises(ValueError, match="Unknown methods"):
        compare("iris", methods=["XYZ"], progress=False)


def test_cli_missing_files_offline(tmp_path, capsys, monkeypatch):
    with socket.socket() as sock:  # a port nobody listens on: the download fails at once
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("SKPACBAYES_DATA_MIRROR", f"http://127.0.0.1:{port}/")
    code = main(["compare", "--dataset", "mnist", "--data-home", str(tmp_path), "--quiet"])
    assert code == 1
    err = capsys.readouterr().err
    assert "'mnist'" in err and "SKPACBAYES_DATA_MIRROR" in err


def test_cli_help_lists_every_method_of_the_registry(capsys):
    """--help and compare --help: one line per method of the registry, with its description."""
    assert tuple(METHODS) == tuple(benchmark.REGISTRY)
    for argv in (["--help"], ["compare", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
        lines = capsys.readouterr().out.splitlines()
        for name, method in benchmark.REGISTRY.items():
            assert [line.split(None, 1) for line in lines].count([name, method.description]) == 1


def test_cli_takes_its_names_from_the_library():
    """The methods, families and data sets the command line accepts are the library's."""
    args = cli._parser().parse_args(
        ["compare", "--methods", *benchmark.REGISTRY, "--posteriors", *benchmark.FAMILIES]
    )
    assert args.methods == list(benchmark.REGISTRY) and args.posteriors == list(benchmark.FAMILIES)
    assert tuple(benchmark.FAMILIES) == ("categorical", "dirichlet", "gaussian")
    for name in (*DATASET_NAMES, *EMBEDDED_DATASETS):
        assert cli._parser().parse_args(["compare", "--dataset", name]).dataset == name


def test_version_is_the_installed_distribution_version():
    from importlib.metadata import version

    assert skpacbayes.__version__ == version("skpacbayes")


def test_method_names_are_the_certificate_names():
    """One name per bound: the CLI and the tables use ``certificate_.bound``."""
    from skpacbayes.classifiers import MajorityVoteClassifier

    for name, cls in METHODS.items():
        if issubclass(cls, MajorityVoteClassifier) and name not in benchmark.STRATEGIES:
            assert cls._bound_class.name == name


def test_cli_version(capsys):
    with pytest.raises(SystemExit) as excinfo:
        main(["--version"])
    assert excinfo.value.code == 0
    assert capsys.readouterr().out.strip() == f"skpacbayes {skpacbayes.__version__}"


def test_cli_help_names_datasets_and_demo(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    top = capsys.readouterr().out
    assert "no arguments" in top and "demo" in top
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for name in (*DATASET_NAMES, *EMBEDDED_DATASETS):
        assert name in text
    assert "no arguments" in text and "SKPACBAYES_DATA_MIRROR" in text


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--seeds", "0"], "--seeds"),
        (["--seeds", "two"], "--seeds"),
        (["--delta", "2"], "--delta"),
        (["--delta", "0"], "--delta"),
        (["--delta", "nan"], "--delta"),
        (["--max-epochs", "-1"], "--max-epochs"),
        (["--n-estimators", "0"], "--n-estimators"),
        (["--n-jobs", "0"], "--n-jobs"),
        (["--methods", "Part"], "--methods"),
        (["--posteriors", "laplace"], "--posteriors"),
        (["--dataset", "nope"], "--dataset"),
        (["--out", "results.txt"], "--out"),
        (["--out", "/nonexistent/folder/r.json"], "--out"),
        (["--plot", "plot.jpg2"], "--plot"),
    ],
)
def test_cli_rejects_bad_arguments_before_any_work(args, flag, capsys, monkeypatch):
    def forbidden(*a, **k):
        raise AssertionError("compare ran before the arguments were checked")

    monkeypatch.setattr(benchmark, "compare", forbidden)
    with pytest.raises(SystemExit) as excinfo:
        main(["compare", *args])
    assert excinfo.value.code == 2
    captured = capsys.readouterr()
    assert f"argument {flag}" in captured.err


@pytest.mark.parametrize("kwargs", [{"seeds": 0}, {"delta": 2.0}, {"max_epochs": 0}, {"n_jobs": 0}])
def test_compare_validates_arguments(kwargs):
    name = next(iter(kwargs))
    with pytest.raises(ValueError, match=name):
        compare("iris", progress=False, **kwargs)


class _Stream:
    def __init__(self, tty):
        self.tty, self.parts = tty, []

    def isatty(self):
        return self.tty

    def write(self, text):
        self.parts.append(text)

    def flush(self):
        pass


@pytest.mark.parametrize("tty", [False, True])
def test_progress_bar_on_a_terminal_and_lines_in_a_log(tty, monkeypatch):
    stream = _Stream(tty)
    monkeypatch.setattr("sys.stderr", stream)
    compare("iris", seeds=2, methods=["Occam"], n_estimators=5, progress=True)
    text = "".join(stream.parts)
    if tty:  # a tqdm bar, redrawn in place
        assert "\r" in text and "2/2" in text
    else:  # a log: one whole line per finished fit, no carriage return
        assert "\r" not in text
        lines = text.splitlines()
        assert [line for line in lines if "fits done" in line] == [
            line for line in lines if line.startswith("iris: ") and "fits done" in line
        ]
        assert any("1/2 fits done (seed 0 Occam/categorical)" in line for line in lines)
        assert any("2/2 fits done (seed 1 Occam/categorical)" in line for line in lines)
    quiet = _Stream(tty)
    monkeypatch.setattr("sys.stderr", quiet)
    compare("iris", seeds=1, methods=["Occam"], n_estimators=5, progress=False)
    assert quiet.parts == []


@pytest.mark.parametrize(
    ("methods", "refused"),
    [(["Vote"], "Vote needs gaussian"), (["Occam", "Vote"], "Vote needs gaussian")],
)
def test_cli_refuses_a_request_it_cannot_honour(methods, refused, capsys, monkeypatch):
    """A method no asked posterior can run: exit 2 before any fit, the valid pairs named."""

    def forbidden(*a, **k):
        raise AssertionError("fitted before the request was checked")

    monkeypatch.setattr(_runner, "_fit_one", forbidden)
    argv = ["compare", "--dataset", "iris", "--seeds", "1", "--methods", *methods]
    code = main([*argv, "--posteriors", "categorical", "--quiet"])
    assert code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert refused in captured.err and "Valid methods (posteriors) here:" in captured.err
    assert "Vote (gaussian)" in captured.err and "Occam (categorical)" in captured.err
    with pytest.raises(benchmark.UnsupportedRequestError, match="CBound runs on binary"):
        compare("iris", methods=["CBound"], progress=False)


ISSUE_REQUEST = ["--methods", "FO", "SO", "HoldOut", "Certified"]


def test_cli_refuses_every_pair_it_cannot_run(tmp_path, capsys, monkeypatch):
    """Named methods and posteriors: a pair that cannot run is refused (exit 2, before any fit,
    no CSV), every such pair named with its reason; the valid ones are not run silently."""

    def forbidden(*a, **k):
        raise AssertionError("fitted before the request was checked")

    monkeypatch.setattr(_runner, "_fit_one", forbidden)
    out = tmp_path / "rows.csv"
    argv = ["compare", "--dataset", "wine", "--posteriors", "categorical", "dirichlet"]
    assert main([*argv, *ISSUE_REQUEST, "--quiet", "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and not out.exists()
    err = " ".join(captured.err.split())
    for method in ("FO", "SO", "HoldOut", "Certified"):
        assert f"{method} with posterior dirichlet" in err
    assert "FO needs categorical or gaussian; SO needs categorical or gaussian" in err
    assert "HoldOut needs categorical; Certified needs categorical" in err
    assert "--skip-invalid" in err
    with pytest.raises(benchmark.UnsupportedRequestError, match="FO with posterior dirichlet"):
        compare("wine", methods=["FO"], posteriors=["categorical", "dirichlet"], progress=False)
    assert benchmark.invalid_pairs("wine", ["FO"], ["categorical", "dirichlet"]) == {
        ("FO", "dirichlet"): "needs categorical or gaussian"
    }
    # left to their defaults, the methods (or the families) run with what applies
    assert benchmark.invalid_pairs("wine", posteriors=["categorical", "dirichlet"]) == {}
    assert benchmark.invalid_pairs("wine", ["FO", "HoldOut"]) == {}


def test_cli_skip_invalid_runs_the_valid_pairs_and_names_the_others(tmp_path, capsys):
    """--skip-invalid: the valid pairs run (their CSV rows written), the others are named on
    stderr and in the table's notes; a request with no valid pair is still refused."""
    out = tmp_path / "rows.csv"
    argv = ["compare", "--dataset", "iris", "--seeds", "1", "--max-epochs", "2"]
    argv += ["--n-estimators", "6", "--quiet", "--out", str(out), "--skip-invalid"]
    methods = ["--methods", "FO", "Partition", "HoldOut"]
    assert main([*argv, *methods, "--posteriors", "categorical", "dirichlet"]) == 0
    captured = capsys.readouterr()
    skipped = "FO/dirichlet (needs categorical or gaussian); HoldOut/dirichlet (needs categorical)"
    assert f"skpacbayes compare: skipping {skipped}" in captured.err
    assert f"Skipped as asked (--skip-invalid), not valid here: {skipped}." in captured.out
    assert "| method | categorical | dirichlet |" in captured.out
    rows = [line.split(",")[2:4] for line in out.read_text().splitlines()[1:]]
    assert sorted(map(tuple, rows)) == sorted(
        [
            ("FO", "categorical"),
            ("Partition", "categorical"),
            ("Partition", "dirichlet"),
            ("HoldOut", "categorical"),
            *[(m, "best") for m in ("FO", "Partition", "HoldOut", "All")],
        ]
    )
    assert main([*argv, "--methods", "CBound"]) == 2
    assert "CBound runs on binary tasks only" in capsys.readouterr().err


def test_cli_quiet_without_a_subcommand_is_the_quiet_demo(monkeypatch, capsys):
    """``skpacbayes --quiet`` runs the demo as ``compare --quiet`` with the demo's settings."""
    seen = []

    def fake_compare(dataset, **kwargs):
        seen.append(dict(kwargs, dataset=dataset))
        row = dict(dataset=dataset, seed=0, method="Occam", posterior="categorical", bound=0.3)
        row.update(test_error=0.1, train_error=0.05, fit_time=1.0, n_iter=3, delta=0.05)
        rows = [row, dict(row, posterior="best", chosen="categorical")]
        return CompareResult(dataset, rows, {"seeds": 1, "delta": 0.05})

    monkeypatch.setattr(benchmark, "compare", fake_compare)
    assert main(["--quiet"]) == 0
    captured = capsys.readouterr()
    assert seen[0]["progress"] is False
    (command,) = [
        line.split(": ", 1)[1] for line in captured.err.splitlines() if "same table" in line
    ]
    assert command.endswith(" --quiet")
    assert main(shlex.split(command)[1:]) == 0
    assert seen[1] == seen[0] and capsys.readouterr().out == captured.out
    assert main(["--quiet", "compare", "--dataset", "iris"]) == 0
    assert seen[2]["progress"] is False and seen[2]["dataset"] == "iris"


def test_tables_explain_their_columns_and_one_seed_has_no_spread():
    result = compare(
        "iris",
        seeds=1,
        methods=None,
        posteriors=["categorical"],
        max_epochs=1,
        n_estimators=4,
        progress=False,
    )
    # every method was asked implicitly: those the posterior cannot run are named, not dropped
    assert result.settings["not_run"] == {"CBound": [], "VC": [], "Vote": ["gaussian"]}
    text = format_table(result)
    assert "±" not in text and "over 1 seeds" not in text and "one split" in text
    shown = text.splitlines()[2].strip("| ").split(" | ")[1:]
    for column in shown:
        assert f"  {column}: {benchmark.COLUMNS[column]}" in text
    assert "Not run with the posteriors asked: CBound (binary tasks only)" in text
    assert "Vote (needs gaussian)" in text
    two = CompareResult(
        "toy", [dict(r, seed=1) for r in result.rows] + result.rows, result.settings
    )
    two.settings = {**result.settings, "seeds": 2}
    assert "±" in format_table(two) and "over 2 seeds" in format_table(two)


def test_upgrade_legacy_results(monkeypatch):
    """Results written with the legacy names read back with the certificate's names
    (``benchmarks/legacy_results.py``, used by the reproduction scripts)."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from legacy_results import upgrade_result

    result = compare(
        "iris",
        seeds=1,
        methods=["Partition", "Occam"],
        posteriors=["categorical"],
        n_estimators=5,
        max_epochs=2,
        progress=False,
    )
    legacy = json.loads(result.to_json().replace('"Partition', '"Part'))
    assert "Part/best" in legacy["summary"]
    data = upgrade_result(legacy)
    assert data == json.loads(result.to_json())
    table = format_table(CompareResult(data["dataset"], data["rows"], data["settings"]))
    assert "| Partition |" in table and "| Part |" not in table


def test_plot_names_in_a_legend_without_overlap(tmp_path):
    """--plot: each method named once in the legend, no text drawn on the axes."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    rows = [
        {"method": m, "posterior": "best", "bound": 0.30 + 0.001 * i, "test_error": 0.10}
        for i, m in enumerate(METHODS)
    ]
    display = benchmark.plot_results(CompareResult("toy", rows, {}), tmp_path / "p.png")
    assert (tmp_path / "p.png").stat().st_size > 0
    ax = display.ax_
    assert len(ax.texts) == 0  # no annotations that could collide
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[: len(METHODS)] == list(METHODS)
    renderer = display.figure_.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.get_legend().get_texts()]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert not a.overlaps(b)
    np.testing.assert_allclose(ax.get_xlim(), ax.get_ylim())


def test_plot_legend_inside_the_figure():
    """The gallery saves figures without bbox_inches="tight": the legend must fit as drawn."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from skpacbayes.plotting import BoundDisplay

    names = ["Occam", "VC", "FO", "SO", "Bin", "C-bound", "Margin", "Partition"]
    display = BoundDisplay(names, np.linspace(0.2, 0.3, 8), np.full(8, 0.05)).plot()
    figure = display.figure_
    figure.canvas.draw()
    legend = display.ax_.get_legend().get_window_extent(figure.canvas.get_renderer())
    assert figure.bbox.x0 <= legend.x0 and legend.x1 <= figure.bbox.x1
    assert figure.bbox.y0 <= legend.y0 and legend.y1 <= figure.bbox.y1


def test_demo_arguments(monkeypatch, capsys):
    """The no-argument demo runs compare with the demo settings, the recommended row included."""
    seen = {}

    def fake_compare(dataset, **kwargs):
        seen.update(kwargs, dataset=dataset)
        rows = [
            dict(
                dataset=dataset,
                seed=0,
                method="Certified",
                posterior=p,
                bound=0.3,
                test_error=0.1,
                train_error=0.05,
                fit_time=1.0,
                n_iter=3,
                delta=0.05,
                chosen="categorical",
            )
            for p in ("categorical", "best")
        ]
        return CompareResult(dataset, rows, {"seeds": 1, "delta": 0.05})

    monkeypatch.setattr(benchmark, "compare", fake_compare)
    assert main([]) == 0
    assert seen["dataset"] == "breast_cancer" and seen["seeds"] == 1
    assert "categorical" in seen["posteriors"]  # the Certified row (CertifiedVoteClassifier)
    assert seen["methods"] is None  # every method
    captured = capsys.readouterr()
    assert "| Certified |" in captured.out and "CertifiedVoteClassifier" in captured.err
    # the banner states every setting, and the command it prints runs the same comparison
    banner = " ".join(captured.err.split())
    for text in ("1 seed", "categorical posterior", "at most 10 epochs", "50 trees"):
        assert text in banner
    assert "delta = 0.05" in banner and "1 process" in banner
    (command,) = [
        line.split(": ", 1)[1] for line in captured.err.splitlines() if "same table" in line
    ]
    assert command.startswith("skpacbayes compare ")
    demo = dict(seen)
    seen.clear()
    assert main(shlex.split(command)[1:]) == 0
    assert seen == demo
    assert capsys.readouterr().out == captured.out


def test_tables_print_no_empty_column():
    """A family no method ran has no column; a reference row with no figure is left out."""
    row = dict(seed=0, train_error=0.1, fit_time=1.0, n_iter=3, delta=0.05, test_error=0.2)
    rows = [
        dict(row, dataset="haberman", method=m, posterior=p, bound=0.3, chosen="categorical")
        for m in ("Partition", "HoldOut")
        for p in ("categorical", "best")
    ]
    text = format_table(CompareResult("haberman", rows, {"seeds": 1, "delta": 0.05}))
    assert "| method | categorical |" in text and "dirichlet" not in text
    assert "| reference | 37.8±0.5 / 26.5±1.8 | n/a |" in text
    assert "| Partition (reference) | 37.8±0.5 / 26.5±1.8 |" in text
    holdout = [r for r in rows if r["method"] == "HoldOut"]
    text = format_table(CompareResult("haberman", holdout, {"seeds": 1, "delta": 0.05}))
    assert "| HoldOut | 30.0 / 20.0 |" in text
    assert "reference" not in text  # no published figure for HoldOut, no Partition row


def test_plot_coinciding_points_stay_visible():
    """Points on earlier ones are drawn as larger hollow rings (none hidden); others as usual."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from skpacbayes.plotting import BoundDisplay

    names = ["Occam", "FO", "Partition", "Bin"]
    bounds, tests = [0.31, 0.45, 0.31, 0.311], [0.09, 0.05, 0.09, 0.0905]
    ax = BoundDisplay(names, bounds, tests).plot().ax_
    points = {c.get_label(): c for c in ax.collections if c.get_label() in names}
    sizes = {name: float(points[name].get_sizes()[0]) for name in names}
    assert sizes["Occam"] == sizes["FO"]  # the first of a pile, and a lone point: plain
    assert sizes["Occam"] < sizes["Partition"] < sizes["Bin"]  # rings, larger and larger
    for name in ("Partition", "Bin"):
        assert points[name].get_facecolors().size == 0 or points[name].get_facecolors()[0][3] == 0
    assert points["Occam"].get_facecolors()[0][3] > 0
