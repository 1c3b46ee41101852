"""Tests for skpacbayes.datasets (real files from the ``data_home`` fixture, synthetic in tmp)."""

import functools
import gzip
import hashlib
import http.server
import shutil
import socket
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

from skpacbayes.datasets import (
    DATA_HOME_ENV,
    DATASET_NAMES,
    EMBEDDED_DATASETS,
    MIRROR_ENV,
    _catalogue,
    _fetch,
    available_datasets,
    dataset_info,
    fetch_dataset,
    get_data_home,
    load_dataset,
)

AVAILABLE = (
    "adult",
    "haberman",
    "mushroom",
    "phishing",
    "svmguide1",
    "tictactoe",
    "pendigits",
    "mnist",
    "fashion_mnist",
)

# name -> (shape, class counts, X dtype, y dtype kind), as published in MANIFEST.md.
EXPECTED = {
    "adult": ((32561, 123), {-1: 24720, 1: 7841}, np.float64, "i"),
    "haberman": ((306, 3), {1: 225, 2: 81}, np.float64, "i"),
    "mushroom": ((8124, 117), {"e": 4208, "p": 3916}, np.float64, "U"),
    "phishing": ((11055, 68), {0: 4898, 1: 6157}, np.float64, "i"),
    "svmguide1": ((7089, 4), {0: 3089, 1: 4000}, np.float64, "i"),
    "tictactoe": ((958, 27), {"positive": 626, "negative": 332}, np.float64, "U"),
    "pendigits": ((10992, 16), None, np.float64, "i"),
    "mnist": ((70000, 784), None, np.float32, "i"),
    "fashion_mnist": ((70000, 784), dict.fromkeys(range(10), 7000), np.float32, "i"),
}

N_CLASSES = {"pendigits": 10, "mnist": 10, "fashion_mnist": 10}


@pytest.fixture(scope="module")
def loaded(data_home):
    """Load each real dataset once per module."""
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = load_dataset(name, data_home=data_home)
        return cache[name]

    return get


def _counts(y):
    labels, counts = np.unique(y, return_counts=True)
    return {lab.item(): int(c) for lab, c in zip(labels, counts, strict=True)}


# ----------------------------------------------------------------------------- real files


@pytest.mark.parametrize("name", AVAILABLE)
def test_real_dataset_matches_manifest(name, loaded):
    shape, counts, x_dtype, y_kind = EXPECTED[name]
    data = loaded(name)
    X, y = data.data, data.target
    info = dataset_info(name)

    assert X.shape == shape == info.shape
    assert X.dtype == x_dtype
    assert X.flags.c_contiguous
    assert y.shape == (shape[0],)
    assert y.dtype.kind == y_kind
    assert np.isfinite(X).all()
    n_classes = N_CLASSES.get(name, 2)
    assert data.n_classes == n_classes == info.n_classes
    assert isinstance(data.n_classes, int)
    assert data.task == ("binary" if n_classes == 2 else "multiclass") == info.task
    if counts is not None:
        assert _counts(y) == counts
    assert _counts(y) == info.class_counts
    assert data.name == name
    assert name in data.DESCR
    if data.feature_names is not None:
        assert len(data.feature_names) == X.shape[1]
    if data.target_names is not None:
        assert len(data.target_names) == n_classes
    assert data.filenames and all(Path(f).is_file() for f in data.filenames)


def test_return_X_y(data_home, loaded):
    X, y = load_dataset("haberman", data_home=data_home, return_X_y=True)
    np.testing.assert_array_equal(X, loaded("haberman").data)
    np.testing.assert_array_equal(y, loaded("haberman").target)


def test_haberman_values(loaded):
    data = loaded("haberman")
    assert data.feature_names == ["age", "year", "nodes"]
    np.testing.assert_array_equal(data.data[0], [30, 64, 1])
    np.testing.assert_array_equal(data.data[-1], [83, 58, 2])
    assert (data.data == np.round(data.data)).all()


def test_mushroom_one_hot(loaded):
    data = loaded("mushroom")
    X = data.data
    assert set(np.unique(X)) == {0.0, 1.0}
    np.testing.assert_array_equal(X.sum(axis=1), 22)  # one active category per attribute
    names = data.feature_names
    assert "stalk-root_?" in names  # missing value kept as its own category
    assert X[:, names.index("stalk-root_?")].sum() == 2480
    assert X[:, names.index("veil-type_p")].sum() == X.shape[0]
    assert data.target_names == ["edible", "poisonous"]


def test_tictactoe_one_hot(data_home, loaded):
    data = loaded("tictactoe")
    X = data.data
    np.testing.assert_array_equal(X.sum(axis=1), 9)
    assert len(data.feature_names) == 27
    assert data.feature_names[:3] == [
        "top-left-square_b",
        "top-left-square_o",
        "top-left-square_x",
    ]
    # rows decode back to the file's lines
    lines = (data_home / "tictactoe" / "tic-tac-toe.data").read_text().split()
    for i in (0, 1, len(lines) - 1):
        decoded = [n.rsplit("_", 1)[1] for n, v in zip(data.feature_names, X[i], strict=True) if v]
        assert decoded == lines[i].split(",")[:9]
        assert data.target[i] == lines[i].split(",")[9]


def test_adult_binary_features(loaded):
    X = loaded("adult").data
    assert set(np.unique(X)) == {0.0, 1.0}
    assert loaded("adult").feature_names is None


@pytest.mark.parametrize("name", ["mnist", "fashion_mnist"])
def test_idx_images(name, loaded):
    data = loaded(name)
    X = data.data
    assert X.min() == 0.0 and X.max() == 1.0
    # pixels are multiples of 1/255
    np.testing.assert_allclose(X[:100] * 255, np.round(X[:100] * 255), atol=1e-4)
    assert data.n_train == 60000
    assert len(data.feature_names) == 784
    assert data.feature_names[29] == "pixel_1_1"
    first_label = {"mnist": 5, "fashion_mnist": 9}[name]  # well-known first training labels
    assert data.target[0] == first_label
    assert len(data.target_names) == 10


def test_svmguide1_split(loaded):
    data = loaded("svmguide1")
    assert data.n_train == 3089


def test_pendigits_matches_uci_originals(data_home, loaded):
    uci = data_home / "pendigits" / "uci"
    if not uci.is_dir():
        pytest.skip("UCI originals of pendigits not present")
    train = np.loadtxt(uci / "pendigits.tra", delimiter=",")
    test = np.loadtxt(uci / "pendigits.tes", delimiter=",")
    data = loaded("pendigits")
    assert data.n_train == train.shape[0] == 7494
    expected = np.vstack([train, test])
    np.testing.assert_array_equal(data.data, expected[:, :16])
    np.testing.assert_array_equal(data.target, expected[:, 16])


def test_available_datasets(data_home):
    assert set(available_datasets(data_home)) == set(AVAILABLE)
    assert available_datasets(data_home) == tuple(n for n in DATASET_NAMES if n in AVAILABLE)
    assert available_datasets(data_home, include_embedded=True)[-4:] == EMBEDDED_DATASETS


@pytest.mark.parametrize("name", ["haberman", "tictactoe", "svmguide1"])
def test_verify_checksums(name, data_home):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_dataset(name, data_home=data_home, verify=True)


def test_verify_detects_corruption(data_home, tmp_path):
    folder = tmp_path / "haberman"
    folder.mkdir()
    content = (data_home / "haberman" / "haberman.data").read_bytes()
    (folder / "haberman.data").write_bytes(content.replace(b"30,64,1,1", b"31,64,1,1", 1))
    with pytest.raises(ValueError, match="sha256 mismatch"):
        load_dataset("haberman", data_home=tmp_path, verify=True)
    # without verification the modified file still loads
    assert load_dataset("haberman", data_home=tmp_path).data[0, 0] == 31


def test_data_home_from_env(data_home, monkeypatch):
    monkeypatch.setenv(DATA_HOME_ENV, str(data_home))
    assert get_data_home() == data_home
    X, _ = load_dataset("haberman", return_X_y=True)
    assert X.shape == (306, 3)
    # an explicit data_home wins over the environment variable
    monkeypatch.setenv(DATA_HOME_ENV, "/nonexistent/skpacbayes")
    X, _ = load_dataset("haberman", data_home=str(data_home), return_X_y=True)
    assert X.shape == (306, 3)


def test_no_network(data_home, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    for name in ("haberman", "mushroom", "phishing", "iris"):
        load_dataset(name, data_home=data_home)


def test_split_libsvm_layout(data_home, tmp_path, loaded):
    """svmguide1 + svmguide1.t (the LIBSVM names) give the same rows as the combined file."""
    lines = (data_home / "svmguide1" / "svmguide1_all.libsvm").read_text().splitlines(True)
    folder = tmp_path / "svmguide1"
    folder.mkdir()
    (folder / "svmguide1").write_text("".join(lines[:3089]))
    (folder / "svmguide1.t").write_text("".join(lines[3089:]))
    data = load_dataset("svmguide1", data_home=tmp_path)
    np.testing.assert_array_equal(data.data, loaded("svmguide1").data)
    np.testing.assert_array_equal(data.target, loaded("svmguide1").target)
    assert data.n_train == 3089


def test_mnist_accepts_fashion_style_names(data_home, tmp_path):
    folder = tmp_path / "mnist"
    folder.mkdir()
    for name in dataset_info("mnist").files:
        shutil.copy(data_home / "mnist" / name, folder / name.replace(".idx", "-idx"))
    X, y = load_dataset("mnist", data_home=tmp_path, return_X_y=True)
    assert X.shape == (70000, 784) and y.shape == (70000,)


# ----------------------------------------------------------------------------- embedded


@pytest.mark.parametrize("name", EMBEDDED_DATASETS)
def test_embedded(name, tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_HOME_ENV, str(tmp_path / "empty"))
    data = load_dataset(name)
    info = dataset_info(name)
    assert info.embedded
    assert data.data.shape == info.shape
    assert data.data.dtype == np.float64 and data.target.dtype == np.int64
    assert data.n_classes == info.n_classes
    assert data.task == info.task
    assert _counts(data.target) == info.class_counts
    assert len(data.feature_names) == info.n_features
    assert len(data.target_names) == info.n_classes
    assert data.filenames == [] and data.n_train is None
    X, y = load_dataset(name, return_X_y=True, verify=True)
    np.testing.assert_array_equal(X, data.data)


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize("name", DATASET_NAMES)
def test_missing_files_message(name, tmp_path):
    with pytest.raises(FileNotFoundError) as excinfo:
        load_dataset(name, data_home=tmp_path)
    message = str(excinfo.value)
    assert repr(name) in message
    assert str(tmp_path / name) in message
    assert "does not exist" in message
    for filename in dataset_info(name).files:
        assert repr(filename) in message


def test_missing_files_message_partial(tmp_path):
    folder = tmp_path / "protein"
    folder.mkdir()
    (folder / "protein").write_text("0 1:1\n")
    with pytest.raises(FileNotFoundError, match=r"'protein\.t' \(missing\)") as excinfo:
        load_dataset("protein", data_home=tmp_path)
    assert "does not exist" not in str(excinfo.value)


def test_default_data_home(tmp_path, monkeypatch):
    monkeypatch.delenv(DATA_HOME_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert get_data_home() == tmp_path / "skpacbayes_data"
    with pytest.raises(FileNotFoundError, match="skpacbayes_data"):
        load_dataset("adult")
    monkeypatch.setenv(DATA_HOME_ENV, "")  # empty means unset
    assert get_data_home() == tmp_path / "skpacbayes_data"
    assert get_data_home("~/elsewhere") == tmp_path / "elsewhere"


def test_unknown_name():
    with pytest.raises(ValueError, match="Unknown dataset 'nope'") as excinfo:
        load_dataset("nope")
    for name in DATASET_NAMES + EMBEDDED_DATASETS:
        assert name in str(excinfo.value)
    with pytest.raises(ValueError, match="Valid names"):
        dataset_info("imagenet")
    with pytest.raises(TypeError):
        load_dataset(3)


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("HABER", "haberman"),
        ("ttt", "tictactoe"),
        ("Fashion-MNIST", "fashion_mnist"),
        ("cod-rna", "codrna"),
        ("sensor", "sensorless"),
        ("Iris", "iris"),
    ],
)
def test_aliases(alias, name):
    assert dataset_info(alias).name == name


def test_dataset_info_consistent():
    for name in DATASET_NAMES + EMBEDDED_DATASETS:
        info = dataset_info(name)
        assert info.name == name
        assert info.task == ("binary" if info.n_classes == 2 else "multiclass")
        assert info.embedded == (name in EMBEDDED_DATASETS)
        assert bool(info.files) != info.embedded
        if info.class_counts is not None:
            assert len(info.class_counts) == info.n_classes
            assert sum(info.class_counts.values()) == info.n_samples
    assert dataset_info("codrna").shape == (59535, 8)
    assert dataset_info("protein").files == ("protein", "protein.t")
    assert dataset_info("sensorless").files == ("Sensorless",)
    assert dataset_info("codrna").files == ("cod-rna",)


# ----------------------------------------------------------------------------- synthetic files


def _write_libsvm(path, labels, n_features, rng):
    with open(path, "w") as fh:
        for label in labels:
            cols = np.sort(rng.choice(n_features, size=3, replace=False)) + 1
            fh.write(f"{label} " + " ".join(f"{c}:{rng.random():.4f}" for c in cols) + "\n")


def test_unavailable_libsvm_datasets(tmp_path):
    """codrna, protein and sensorless load from user-supplied files with the LIBSVM names."""
    rng = np.random.default_rng(0)
    for name, files, labels in [
        ("codrna", ("cod-rna",), ([-1, 1, -1, -1],)),
        ("protein", ("protein", "protein.t"), ([0, 1, 2], [2, 0])),
        ("sensorless", ("Sensorless",), (list(range(1, 12)),)),
    ]:
        folder = tmp_path / name
        folder.mkdir()
        n_features = dataset_info(name).n_features
        for filename, file_labels in zip(files, labels, strict=True):
            _write_libsvm(folder / filename, file_labels, n_features, rng)
        assert name in available_datasets(tmp_path)
        with pytest.warns(UserWarning, match="differs from the expected"):
            data = load_dataset(name, data_home=tmp_path)
        all_labels = np.concatenate(labels)
        assert data.data.shape == (all_labels.size, n_features)
        assert data.data.dtype == np.float64
        np.testing.assert_array_equal(data.target, all_labels)
        assert data.target.dtype == np.int64
        assert data.n_train == (len(labels[0]) if len(files) > 1 else None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            load_dataset(name, data_home=tmp_path, verify=True)
        assert any("no recorded sha256" in str(w.message) for w in caught)


def _idx_bytes(array, code=0x08):
    header = bytes([0, 0, code, array.ndim]) + np.asarray(array.shape, dtype=">u4").tobytes()
    return header + array.astype(">u1").tobytes()


def test_synthetic_idx(tmp_path):
    rng = np.random.default_rng(0)
    folder = tmp_path / "fashion_mnist"
    folder.mkdir()
    train = rng.integers(0, 256, size=(5, 28, 28), dtype=np.uint8)
    test = rng.integers(0, 256, size=(3, 28, 28), dtype=np.uint8)
    train[0, 0, 1] = 255
    contents = [train, np.array([9, 0, 1, 2, 3]), test, np.array([4, 5, 6])]
    for filename, array in zip(dataset_info("fashion_mnist").files, contents, strict=True):
        with gzip.open(folder / filename, "wb") as fh:
            fh.write(_idx_bytes(array))
    with pytest.warns(UserWarning, match="differs from the expected"):
        data = load_dataset("fashion_mnist", data_home=tmp_path)
    assert data.data.shape == (8, 784) and data.data.dtype == np.float32
    np.testing.assert_allclose(
        data.data, np.vstack([train, test]).reshape(8, -1) / 255.0, rtol=1e-6
    )
    assert data.data[0, 1] == 1.0
    np.testing.assert_array_equal(data.target, [9, 0, 1, 2, 3, 4, 5, 6])
    assert data.n_train == 5

    # a bad magic number and a truncated file are reported, not misread
    with gzip.open(folder / "t10k-labels-idx1-ubyte.gz", "wb") as fh:
        fh.write(b"\x01\x02" + _idx_bytes(np.array([4, 5, 6]))[2:])
    with pytest.raises(ValueError, match="bad magic number"):
        load_dataset("fashion_mnist", data_home=tmp_path)
    with gzip.open(folder / "t10k-labels-idx1-ubyte.gz", "wb") as fh:
        fh.write(_idx_bytes(np.array([4, 5, 6]))[:-1])
    with pytest.raises(ValueError, match="IDX header announces"):
        load_dataset("fashion_mnist", data_home=tmp_path)
    with gzip.open(folder / "t10k-labels-idx1-ubyte.gz", "wb") as fh:
        fh.write(_idx_bytes(np.array([4, 5])))
    with pytest.raises(ValueError, match="expected"):
        load_dataset("fashion_mnist", data_home=tmp_path)


def test_malformed_csv(tmp_path):
    folder = tmp_path / "tictactoe"
    folder.mkdir()
    (folder / "tic-tac-toe.data").write_text("x,x,x,o,o,b,b,b,b,positive\n\nx,o,negative\n")
    with pytest.raises(ValueError, match="line 3"):
        load_dataset("tictactoe", data_home=tmp_path)


# ----------------------------------------------------------------------------- downloads


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        type(self).requests.append(self.path)


@pytest.fixture
def serve():
    """Serve a folder on 127.0.0.1 (ephemeral port) from a thread; return its URL."""
    servers = []

    def start(folder):
        handler = type("Handler", (_QuietHandler,), {"requests": []})
        server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(handler, directory=str(folder))
        )
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        servers.append((server, thread))
        return f"http://127.0.0.1:{server.server_address[1]}/", handler.requests

    yield start
    for server, thread in servers:
        server.shutdown()
        server.server_close()
        thread.join()


def _closed_port_url():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/"


def _leftovers(folder):
    return [p.name for p in folder.iterdir() if p.name.startswith(".download-")]


@pytest.mark.parametrize("name", ["haberman", "tictactoe", "svmguide1"])
def test_fetch_from_mirror(name, data_home, tmp_path, serve, monkeypatch, loaded):
    url, requests = serve(data_home)
    monkeypatch.setenv(MIRROR_ENV, url)
    cache = tmp_path / "cache"
    bunch = fetch_dataset(name, data_home=cache)
    reference = loaded(name)
    np.testing.assert_array_equal(bunch.data, reference.data)
    np.testing.assert_array_equal(bunch.target, reference.target)
    assert sorted(requests) == sorted(f"/{name}/{f}" for f in dataset_info(name).files)
    assert sorted(p.name for p in (cache / name).iterdir()) == sorted(dataset_info(name).files)
    load_dataset(name, data_home=cache, verify=True)  # the cached files are the reference copies

    # cache hit: no request, even with the mirror unreachable and the network refused
    monkeypatch.setenv(MIRROR_ENV, _closed_port_url())
    X, y = fetch_dataset(name, data_home=cache, return_X_y=True)
    np.testing.assert_array_equal(X, reference.data)
    assert len(requests) == len(dataset_info(name).files)


def test_fetch_from_file_mirror(data_home, tmp_path, monkeypatch, loaded):
    """A ``file://`` mirror is copied through the same checks (pooch reads no local URL)."""
    monkeypatch.setenv(MIRROR_ENV, data_home.as_uri())
    bunch = fetch_dataset("haberman", data_home=tmp_path)
    np.testing.assert_array_equal(bunch.data, loaded("haberman").data)
    assert [p.name for p in (tmp_path / "haberman").iterdir()] == ["haberman.data"]


def test_fetch_unknown_protocol(tmp_path, monkeypatch):
    monkeypatch.setenv(MIRROR_ENV, "gopher://127.0.0.1/data/")
    with pytest.raises(ValueError, match="'haberman': cannot download gopher://") as excinfo:
        fetch_dataset("haberman", data_home=tmp_path)
    assert "file:// URL" in str(excinfo.value)
    assert list((tmp_path / "haberman").iterdir()) == []


def test_fetch_uses_data_home_env(data_home, tmp_path, serve, monkeypatch):
    url, _ = serve(data_home)
    monkeypatch.setenv(MIRROR_ENV, url)
    monkeypatch.setenv(DATA_HOME_ENV, str(tmp_path / "env_home"))
    fetch_dataset("haberman")
    assert (tmp_path / "env_home" / "haberman" / "haberman.data").is_file()


def test_fetch_checksum_mismatch(data_home, tmp_path, serve, monkeypatch):
    mirror = tmp_path / "mirror" / "haberman"
    mirror.mkdir(parents=True)
    raw = bytearray((data_home / "haberman" / "haberman.data").read_bytes())
    raw[10] = ord("9") if raw[10] != ord("9") else ord("8")  # one digit changed: still parses
    (mirror / "haberman.data").write_bytes(bytes(raw))
    url, _ = serve(tmp_path / "mirror")
    monkeypatch.setenv(MIRROR_ENV, url)
    cache = tmp_path / "cache"
    with pytest.raises(ValueError, match="sha256 mismatch") as excinfo:
        fetch_dataset("haberman", data_home=cache)
    message = str(excinfo.value)
    assert "haberman" in message
    assert hashlib.sha256(bytes(raw)).hexdigest() in message  # got
    assert "18569865605a0d34727ff489c6b08aa8d1a430edd3ca944a57c4c03fbc403fae" in message
    assert list((cache / "haberman").iterdir()) == []  # nothing kept, no temporary folder


def _split_svmguide1(data_home, folder):
    lines = (data_home / "svmguide1" / "svmguide1_all.libsvm").read_bytes().splitlines(True)
    folder.mkdir(parents=True)
    (folder / "svmguide1").write_bytes(b"".join(lines[:3089]))
    (folder / "svmguide1.t").write_bytes(b"".join(lines[3089:]))


def test_fetch_public_layout_verified_on_data(data_home, tmp_path, serve, monkeypatch, loaded):
    """Public sources with other file layouts are verified on the parsed data."""
    _split_svmguide1(data_home, tmp_path / "public")
    url, _ = serve(tmp_path / "public")
    monkeypatch.delenv(MIRROR_ENV, raising=False)
    public = (("svmguide1", url + "svmguide1"), ("svmguide1.t", url + "svmguide1.t"))
    monkeypatch.setitem(_catalogue._SOURCES, "svmguide1", public)
    bunch = fetch_dataset("svmguide1", data_home=tmp_path / "cache")
    np.testing.assert_array_equal(bunch.data, loaded("svmguide1").data)
    assert bunch.n_train == 3089
    assert sorted(p.name for p in (tmp_path / "cache" / "svmguide1").iterdir()) == [
        "svmguide1",
        "svmguide1.t",
    ]

    # one label flipped in the served test file: the parsed data no longer match
    corrupted = (tmp_path / "public" / "svmguide1.t").read_bytes().replace(b"0 ", b"1 ", 1)
    (tmp_path / "public" / "svmguide1.t").write_bytes(corrupted)
    with pytest.raises(ValueError, match="sha256 mismatch for the parsed data") as excinfo:
        fetch_dataset("svmguide1", data_home=tmp_path / "cache2")
    assert _catalogue._DATA_SHA256["svmguide1"] in str(excinfo.value)
    assert list((tmp_path / "cache2" / "svmguide1").iterdir()) == []


def test_fetch_offline_error(tmp_path, monkeypatch):
    url = _closed_port_url()
    monkeypatch.setenv(MIRROR_ENV, url)
    with pytest.raises(OSError, match="could not download") as excinfo:
        fetch_dataset("tictactoe", data_home=tmp_path)
    message = str(excinfo.value)
    assert "'tictactoe'" in message
    assert f"{url}tictactoe/tic-tac-toe.data" in message
    assert MIRROR_ENV in message and "data_home" in message
    assert list((tmp_path / "tictactoe").iterdir()) == []


def test_fetch_download_if_missing_false(tmp_path, monkeypatch):
    monkeypatch.setenv(MIRROR_ENV, _closed_port_url())
    with pytest.raises(FileNotFoundError, match="download_if_missing=False"):
        fetch_dataset("haberman", data_home=tmp_path, download_if_missing=False)
    assert not (tmp_path / "haberman").exists()


def test_fetch_embedded_needs_no_network(tmp_path, monkeypatch):
    monkeypatch.setenv(MIRROR_ENV, _closed_port_url())
    assert fetch_dataset("iris", data_home=tmp_path).data.shape == (150, 4)


def test_public_sources_are_accepted_layouts():
    for name in DATASET_NAMES:
        files = tuple(f for f, _ in _catalogue._SOURCES[name])
        assert files in dataset_info(name).layouts, name
        for _, url in _catalogue._SOURCES[name]:
            assert url.startswith(("https://", "http://")), url


@pytest.mark.parametrize("name", sorted(_catalogue._DATA_SHA256))
def test_data_checksums_match_reference_copies(name, loaded):
    bunch = loaded(name)
    assert _fetch._data_sha256(bunch.data, bunch.target) == _catalogue._DATA_SHA256[name]


def test_test_data_folder_is_set_by_environment(tmp_path):
    """SKPACBAYES_TEST_DATA points the tests at the datasets; unset or empty: the default."""
    from conftest import DEFAULT_DATA_HOME, TEST_DATA_ENV, resolve_data_home

    assert resolve_data_home({TEST_DATA_ENV: str(tmp_path)}) == tmp_path
    assert resolve_data_home({TEST_DATA_ENV: ""}) == DEFAULT_DATA_HOME
    assert resolve_data_home({}) == DEFAULT_DATA_HOME
