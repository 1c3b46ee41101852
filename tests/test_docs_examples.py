"""The documentation's code runs and says what the code does.

* the ``>>>`` examples of the pages run, and print what the pages say (doctest);
* every Python block of the README and of the pages (``docs/*.rst`` but the contributor's
  guide, the changelog and the theory page, whose formulas are not code) is executed: the
  README's as they are, in a fresh namespace, as a reader pastes them; the pages' with the
  names a page takes as given (``X``, ``model``, ``ranges``, ...) defined first, and what
  needs a cluster or a file (a scheduler's address, Parquet files) replaced by a local,
  in-process stand-in;
* every shell block (``bash`` blocks and ``::`` literal blocks) names commands that exist,
  with options they take; the docs' copies of the README's two commands are the README's,
  wrapped.
"""

import doctest
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = ["getting_started.rst", "user_guide.rst"]
#: pages whose blocks are not code to run: the maintainers' guide, the history, the proofs
NOT_CODE = {"contributing.rst", "changelog.rst", "theory.rst"}
CHECKED_PAGES = sorted(p.name for p in DOCS.glob("*.rst") if p.name not in NOT_CODE)


@pytest.mark.parametrize("page", PAGES)
def test_page_examples(page):
    """Every claim a page makes with ``>>>`` holds (a page without examples fails too)."""
    result = doctest.testfile(
        str(DOCS / page),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        verbose=False,
    )
    assert result.attempted > 0, f"{page} has no >>> example"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {page} failed"


def test_every_page_with_examples_is_run():
    with_examples = {p for p in CHECKED_PAGES if ">>> " in (DOCS / p).read_text()}
    assert with_examples <= set(PAGES), f"add {sorted(with_examples - set(PAGES))} to PAGES"


# --- the blocks ------------------------------------------------------------------------------
def _rst_blocks(path):
    """``(language, line, code)`` of each ``code-block`` and ``::`` literal block of a page."""
    lines = path.read_text().splitlines()
    blocks = []
    for i, line in enumerate(lines):
        directive = re.match(r"(\s*)\.\. code-block::\s*(\S+)", line)
        literal = not directive and line.rstrip().endswith("::") and ".. " not in line
        if not (directive or literal):
            continue
        indent = len(line) - len(line.lstrip())
        language = directive.group(2) if directive else "shell"
        body, j = [], i + 1
        while j < len(lines) and (not lines[j].strip() or lines[j].lstrip().startswith(":")):
            j += 1  # the blank line and the directive's options
        while j < len(lines) and (
            not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent
        ):
            body.append(lines[j])
            j += 1
        code = "\n".join(body).strip("\n")
        width = min(len(b) - len(b.lstrip()) for b in body if b.strip())
        blocks.append((language, i + 1, "\n".join(b[width:] for b in code.splitlines())))
    return blocks


def _markdown_blocks(path):
    """``(language, line, code)`` of each fenced block of the README."""
    blocks, language, start, body = [], None, 0, []
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if language is None and line.startswith("```"):
            language, start, body = line[3:].strip() or "text", i, []
        elif language is not None and line.startswith("```"):
            blocks.append((language, start, "\n".join(body)))
            language = None
        elif language is not None:
            body.append(line)
    return blocks


def _all_blocks():
    out = [("README.md", *b) for b in _markdown_blocks(ROOT / "README.md")]
    for page in CHECKED_PAGES:
        out += [(page, *b) for b in _rst_blocks(DOCS / page)]
    return out


BLOCKS = _all_blocks()
PYTHON = [b for b in BLOCKS if b[1] == "python"]
SHELL = [b for b in BLOCKS if b[1] in ("bash", "shell", "console")]
#: what a block may be besides code to run or commands to check: a drawing (the pipeline)
NOT_RUN = {"text", "none"}


def _id(block):
    return f"{block[0]}:{block[2]}"


def test_every_block_is_checked():
    kinds = {(b[0], b[1]) for b in BLOCKS}
    unknown = {k for k in kinds if k[1] not in {"python", "bash", "shell", "console"} | NOT_RUN}
    assert not unknown, f"blocks of a language no test runs: {sorted(unknown)}"
    assert len(PYTHON) >= 15 and len(SHELL) >= 7  # the parser still finds the blocks


# --- Python blocks: what the pages take as given, and the local stand-ins ---------------------
def _page_names(page):
    """The names a page's blocks use without defining them."""
    from sklearn.datasets import load_breast_cancer, make_classification
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.model_selection import train_test_split

    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=0)
    X_fit, X_cert, y_fit, y_cert = train_test_split(X_train, y_train, test_size=0.5, random_state=0)
    model = HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(X_fit, y_fit)
    from skpacbayes import HoldOutBoundClassifier
    from skpacbayes.voters import PrefitVoters

    names = dict(
        HoldOutBoundClassifier=HoldOutBoundClassifier,  # imported by an earlier block
        PrefitVoters=PrefitVoters,
        X=X,
        y=y,
        X_train=X_train,
        X_test=X_test,
        y_train=y_train,
        y_test=y_test,
        X_cert=X_cert,
        y_cert=y_cert,
        model=model,
        # feature ranges known before the data (here: the breast cancer data's own)
        ranges=np.column_stack([X.min(axis=0), X.max(axis=0)]),
        labelled_batches=[(X_cert[i : i + 50], y_cert[i : i + 50]) for i in range(0, 200, 50)],
        features=[f"f{j}" for j in range(X.shape[1])],
    )
    if page == "scaling_out.rst":  # X, y there are dask arrays of more rows than memory
        import dask.array as da

        X_big, y_big = make_classification(3000, n_features=5, random_state=0)
        model = HistGradientBoostingClassifier(max_iter=20).fit(X_big[:1000], y_big[:1000])
        names.update(
            X=da.from_array(X_big, chunks=500),
            y=da.from_array(y_big, chunks=500),
            X_hold=da.from_array(X_big[1000:], chunks=500),
            y_hold=da.from_array(y_big[1000:], chunks=500),
            model=model,
        )
        # a pipeline fitted on a DataFrame of the page's columns (other rows than its files')
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        columns = pd.DataFrame(X_fit, columns=names["features"])
        pipeline = make_pipeline(StandardScaler(), LogisticRegression()).fit(columns, y_fit)
        names.update(pipeline=pipeline)
    return names


#: a block's text as run: a stand-in for what needs hours, a cluster or a data set on disk
#: (each entry is used by some block: a stale one fails the test below)
SHRINK = {
    "train_size=200_000": "train_size=500",
    "RandomForestClassifier(n_estimators=101)": "RandomForestClassifier(n_estimators=11)",
    'compare("haberman", seeds=5, n_jobs=-1, progress=False)': (
        'compare("breast_cancer", seeds=1, methods=["Occam", "HO50"], n_estimators=10, '
        "n_jobs=-1, progress=False)"
    ),
}


def _shrunk(code):
    for old, new in SHRINK.items():
        code = code.replace(old, new)
    return code


def test_every_stand_in_is_used():
    text = "\n".join(b[3] for b in PYTHON)
    assert [old for old in SHRINK if old not in text] == []


@pytest.fixture
def local_cluster(monkeypatch, tmp_path):
    """``LocalCluster`` and ``Client(address)`` as one in-process worker; the pages' Parquet
    files as real ones, the breast cancer data with the page's column names."""
    distributed = pytest.importorskip("distributed")

    real_cluster, real_client = distributed.LocalCluster, distributed.Client
    opened = []

    class Cluster(real_cluster):  # what the pages ask for, as one in-process worker
        def __init__(self, *args, **kwargs):
            super().__init__(
                n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
            )
            opened.append(self)

    class Client(real_client):  # a scheduler's address: a local cluster instead
        def __init__(self, address=None, *args, **kwargs):
            super().__init__(Cluster() if isinstance(address, str) else address, *args, **kwargs)

    dd = pytest.importorskip("dask.dataframe")  # needs pyarrow
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    frame = pd.DataFrame({**{f"f{j}": X[:, j] for j in range(X.shape[1])}, "label": y})
    files = tmp_path / "rows"
    files.mkdir()
    for i, start in enumerate(range(0, len(frame), 200)):  # a Parquet file a partition
        frame[start : start + 200].to_parquet(files / f"part{i}.parquet")
    real_read = dd.read_parquet

    def read_parquet(path, *args, **kwargs):  # the page's path (S3, a glob): these files
        return real_read(str(files), *args, **kwargs)

    monkeypatch.setattr(dd, "read_parquet", read_parquet)
    monkeypatch.setattr(distributed, "LocalCluster", Cluster)
    monkeypatch.setattr(distributed, "Client", Client)
    yield
    for made in opened:
        made.close()


@pytest.mark.parametrize("block", PYTHON, ids=_id)
def test_python_block_runs(block, request):
    """Each Python block runs: the README's as pasted, a page's with the names it assumes."""
    source, _, line, code = block
    if source == "README.md":
        namespace = {"__name__": "__main__"}
    else:
        namespace = {**_page_names(source), "__name__": "__main__"}
        if "distributed" in code or "read_parquet" in code:
            request.getfixturevalue("local_cluster")
    exec(compile(_shrunk(code), f"{source}:{line}", "exec"), namespace)


# --- shell blocks ----------------------------------------------------------------------------
def _commands(code):
    """The commands of a shell block: lines joined at ``\\``, comments dropped, split at &&."""
    joined = re.sub(r"\\\n\s*", " ", code)
    for line in joined.splitlines():
        line = line.split(" #")[0].strip()
        yield from filter(None, (c.strip() for c in line.split("&&")))


_HELP = {}


def _help_options(*command):
    """The ``--options`` that ``command --help`` lists (run once per command)."""
    if command not in _HELP:
        out = subprocess.run(
            [sys.executable, *command, "--help"],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
            timeout=120,
        )
        _HELP[command] = set(re.findall(r"--[a-z][a-z0-9-]*", out.stdout))
    return _HELP[command]


def _options(words):
    return [w.split("=")[0] for w in words if w.startswith("--")]


def _check_command(command):
    """Raise AssertionError unless ``command`` runs a program that exists, with its options."""
    import tomllib

    words = shlex.split(command)
    while words and re.match(r"[A-Z_]+=", words[0]):  # an environment variable set for it
        words = words[1:]
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    match words:
        case ["python3", "-m", "venv", ".venv"] | [".", ".venv/bin/activate"]:
            pass
        case ["pip", "install", "torch==2.13.0"] | ["pip", "install", "-e", "."]:
            pass
        case ["pip", "install", "-e", spec] if m := re.fullmatch(r"\.\[(\w+)\]", spec):
            assert m.group(1) in extras, f"no extra {m.group(1)!r} in pyproject.toml"
        case ["python", "-m", "pytest", "-q"] | ["skpacbayes"]:
            pass
        case ["bash", script]:
            assert (ROOT / script).is_file(), script
        case ["skpacbayes", "compare", *rest]:
            unknown = set(_options(rest)) - _help_options("-m", "skpacbayes", "compare")
            assert not unknown, f"skpacbayes compare has no {sorted(unknown)}"
        case ["python", script, *rest] if script.startswith("benchmarks/"):
            unknown = set(_options(rest)) - _help_options(script)
            assert not unknown, f"{script} has no {sorted(unknown)}"
        case ["git", "worktree", "add", _, _]:
            pass
        case ["dask", "scheduler"]:
            pytest.importorskip("distributed.cli.dask_scheduler")
        case ["dask", "worker", _, *rest]:
            from distributed.cli.dask_worker import main

            known = {o for p in main.params for o in p.opts}
            assert not set(_options(rest)) - known, rest
        case _:
            raise AssertionError(f"a command the documentation tests do not know: {command}")


@pytest.mark.parametrize("block", SHELL, ids=_id)
def test_shell_block_names_what_exists(block):
    for command in _commands(block[3]):
        _check_command(command)


def test_the_docs_copies_of_the_two_commands_are_the_readmes():
    readme = [b[2] for b in _markdown_blocks(ROOT / "README.md") if b[0] == "bash"]
    assert len(readme) == 2 and all("\n" not in c for c in readme)  # one line each (.ci/run)
    assert [" && ".join(_commands(c)) for c in readme] == readme
    copies = [
        " && ".join(_commands(b[3]))
        for b in SHELL
        if b[0] != "README.md" and "python3 -m venv" in b[3]
    ]
    assert copies == readme
    for page, _, line, code in SHELL:
        if page != "README.md":
            assert "python3 -m venv" not in code or "\\\n" in code, f"{page}:{line} unwrapped"
