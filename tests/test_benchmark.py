"""Smoke tests of the comparison benchmark and the command line."""

import json

import pytest

from skpacbayes.__main__ import main
from skpacbayes.benchmark import METHODS, compare, format_table


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


def test_compare_rejects_unknown_method():
    with pytest.raises(ValueError, match="Unknown methods"):
        compare("iris", methods=["XYZ"], progress=False)


def test_cli_missing_files(tmp_path, capsys):
    code = main(["compare", "--dataset", "mnist", "--data-home", str(tmp_path), "--quiet"])
    assert code == 1
    assert "mnist" in capsys.readouterr().err


def test_cli_help_lists_every_method():
    from skpacbayes.__main__ import _METHOD_NAMES

    assert tuple(METHODS) == _METHOD_NAMES
