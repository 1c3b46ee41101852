"""Reading data sets from files on disk: checksums, the format readers, :func:`load_dataset`."""

from __future__ import annotations

import csv
import gzip
import hashlib
import os
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from ._catalogue import (
    _HABERMAN_FEATURES,
    _INFOS,
    _LIBSVM_N_FEATURES,
    _MUSHROOM_FEATURES,
    _N_TRAIN_COMBINED,
    _SHA256,
    _TARGET_NAMES,
    _TICTACTOE_FEATURES,
    _canonical_name,
    _find_layout,
    _missing_files_error,
    get_data_home,
)

# ---------------------------------------------------------------------------------------------
# Checksums


def _sha256(path, chunk_size=1 << 20):
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()


def _verify(info, paths):
    for path in paths:
        key = f"{info.name}/{path.name}"
        expected = _SHA256.get(key)
        if expected is None:
            warnings.warn(
                f"Dataset {info.name!r}: no recorded sha256 for {path.name!r}; not verified.",
                UserWarning,
                stacklevel=3,
            )
            continue
        actual = _sha256(path)
        if actual != expected:
            raise ValueError(
                f"Dataset {info.name!r}: sha256 mismatch for {str(path)!r}: expected "
                f"{expected}, got {actual}. The file is corrupted or a different version."
            )


# ---------------------------------------------------------------------------------------------
# Readers


def _integer_labels(y, name):
    y = np.asarray(y)
    if not np.all(np.isfinite(y)) or not np.array_equal(y, np.round(y)):
        raise ValueError(f"Dataset {name!r}: labels are not integers.")
    return y.astype(np.int64)


def _load_libsvm(name, paths):
    from sklearn.datasets import load_svmlight_files

    loaded = load_svmlight_files(
        [os.fspath(p) for p in paths],
        n_features=_LIBSVM_N_FEATURES[name],
        dtype=np.float64,
        zero_based=False,
    )
    blocks_X, blocks_y = loaded[0::2], loaded[1::2]
    X = np.vstack([b.toarray() for b in blocks_X]) if len(paths) > 1 else blocks_X[0].toarray()
    y = _integer_labels(np.concatenate(blocks_y), name)
    if len(paths) > 1:
        n_train = blocks_X[0].shape[0]
    else:
        n_train = _N_TRAIN_COMBINED.get(f"{name}/{paths[0].name}")
    return X, y, None, n_train


def _read_csv(path, n_columns, name):
    """Rows of a comma-separated UCI file as a (n, n_columns) str array; blank lines skipped."""
    rows = []
    with open(path, newline="", encoding="ascii") as fh:
        for lineno, row in enumerate(csv.reader(fh), start=1):
            fields = [v.strip() for v in row]
            if not any(fields):
                continue
            if len(fields) != n_columns:
                raise ValueError(
                    f"Dataset {name!r}: line {lineno} of {str(path)!r} has {len(fields)} "
                    f"fields, expected {n_columns}."
                )
            rows.append(fields)
    return np.array(rows, dtype=str).reshape(-1, n_columns)


def _one_hot(values, feature_names):
    from sklearn.preprocessing import OneHotEncoder

    encoder = OneHotEncoder(sparse_output=False, dtype=np.float64, categories="auto")
    X = encoder.fit_transform(values)
    return X, [str(f) for f in encoder.get_feature_names_out(list(feature_names))]


def _load_haberman(name, paths):
    raw = _read_csv(paths[0], 4, name)
    try:
        values = raw.astype(np.float64)
    except ValueError as exc:
        raise ValueError(f"Dataset {name!r}: non-numeric value in {str(paths[0])!r}.") from exc
    return values[:, :3].copy(), _integer_labels(values[:, 3], name), list(_HABERMAN_FEATURES), None


def _load_mushroom(name, paths):
    raw = _read_csv(paths[0], 23, name)
    X, feature_names = _one_hot(raw[:, 1:], _MUSHROOM_FEATURES)
    return X, raw[:, 0].copy(), feature_names, None


def _load_tictactoe(name, paths):
    raw = _read_csv(paths[0], 10, name)
    X, feature_names = _one_hot(raw[:, :9], _TICTACTOE_FEATURES)
    return X, raw[:, 9].copy(), feature_names, None


# IDX type codes (third byte of the magic number) -> big-endian NumPy dtype.
_IDX_DTYPES = {
    0x08: np.dtype(">u1"),
    0x09: np.dtype(">i1"),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}


def _read_idx(path):
    """Read a (possibly gzipped) IDX file into an array of its declared shape.

    The header is two zero bytes, one type code, the number of dimensions ``d``, then ``d``
    big-endian uint32 sizes; the data follow in C order.
    """
    path = Path(path)
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as fh:
        content = fh.read()
    if len(content) < 4 or content[0] != 0 or content[1] != 0:
        raise ValueError(f"{str(path)!r} is not an IDX file (bad magic number).")
    code, ndim = content[2], content[3]
    if code not in _IDX_DTYPES:
        raise ValueError(f"{str(path)!r}: unknown IDX type code 0x{code:02x}.")
    header_size = 4 + 4 * ndim
    if len(content) < header_size:
        raise ValueError(f"{str(path)!r}: truncated IDX header.")
    shape = tuple(int(s) for s in np.frombuffer(content, dtype=">u4", count=ndim, offset=4))
    dtype = _IDX_DTYPES[code]
    expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if len(content) - header_size != expected:
        raise ValueError(
            f"{str(path)!r}: IDX header announces shape {shape} ({expected} bytes of data) "
            f"but the file holds {len(content) - header_size} bytes."
        )
    return np.frombuffer(content, dtype=dtype, offset=header_size).reshape(shape)


def _load_idx_images(name, paths):
    train_images, train_labels, test_images, test_labels = paths
    parts = []
    for images_path, labels_path in ((train_images, train_labels), (test_images, test_labels)):
        images, labels = _read_idx(images_path), _read_idx(labels_path)
        if images.ndim != 3 or labels.ndim != 1 or images.shape[0] != labels.shape[0]:
            raise ValueError(
                f"Dataset {name!r}: {images_path.name} has shape {images.shape} and "
                f"{labels_path.name} shape {labels.shape}; expected (n, rows, cols) and (n,)."
            )
        parts.append((images, labels))
    n_features = parts[0][0].shape[1] * parts[0][0].shape[2]
    if parts[1][0].shape[1:] != parts[0][0].shape[1:]:
        raise ValueError(f"Dataset {name!r}: training and test images differ in size.")
    n_total = sum(p[0].shape[0] for p in parts)
    X = np.empty((n_total, n_features), dtype=np.float32)
    start = 0
    for images, _ in parts:
        stop = start + images.shape[0]
        np.divide(images.reshape(images.shape[0], -1), np.float32(255), out=X[start:stop])
        start = stop
    y = np.concatenate([p[1] for p in parts]).astype(np.int64)
    rows, cols = parts[0][0].shape[1:]
    feature_names = [f"pixel_{r}_{c}" for r in range(rows) for c in range(cols)]
    return X, y, feature_names, parts[0][0].shape[0]


_LOADERS: dict[str, Callable] = {
    "adult": _load_libsvm,
    "codrna": _load_libsvm,
    "haberman": _load_haberman,
    "mushroom": _load_mushroom,
    "phishing": _load_libsvm,
    "svmguide1": _load_libsvm,
    "tictactoe": _load_tictactoe,
    "fashion_mnist": _load_idx_images,
    "mnist": _load_idx_images,
    "pendigits": _load_libsvm,
    "protein": _load_libsvm,
    "sensorless": _load_libsvm,
}


def _load_embedded(name):
    from sklearn import datasets as skdatasets

    bunch = getattr(skdatasets, f"load_{name}")()
    X = np.ascontiguousarray(bunch.data, dtype=np.float64)
    y = np.asarray(bunch.target, dtype=np.int64)
    return X, y, [str(f) for f in bunch.feature_names], [str(t) for t in bunch.target_names]


# ---------------------------------------------------------------------------------------------
# Public loader


def load_dataset(name, *, data_home=None, return_X_y=False, verify=False):
    """Load a reference dataset from local files, or an embedded scikit-learn dataset.

    Nothing is ever downloaded. The reference datasets are read from
    ``data_home/<name>/`` in their original formats (LIBSVM, UCI CSV, gzipped IDX); see
    :func:`dataset_info` for the exact file names of each.

    Parameters
    ----------
    name : str
        One of :data:`DATASET_NAMES` (``"adult"``, ``"codrna"``, ``"haberman"``,
        ``"mushroom"``, ``"phishing"``, ``"svmguide1"``, ``"tictactoe"``, ``"fashion_mnist"``,
        ``"mnist"``, ``"pendigits"``, ``"protein"``, ``"sensorless"``) or of
        :data:`EMBEDDED_DATASETS` (``"breast_cancer"``, ``"digits"``, ``"wine"``, ``"iris"``).
        Case-insensitive; the reference tables' short names (``"haber"``, ``"ttt"``,
        ``"svmg"``, ``"mush"``, ``"phis"``, ``"pend"``, ``"sensor"``, ``"fashion"``) work too.
    data_home : str or path-like, default=None
        Folder holding one sub-folder per dataset. If None, the environment variable
        ``SKPACBAYES_DATA`` is used when set, else ``~/skpacbayes_data``. Ignored for the
        embedded datasets.
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.
    verify : bool, default=False
        If True, check the sha256 of each file against the recorded value of the reference
        copy before parsing it (files without a recorded value are reported with a
        ``UserWarning``). Ignored for the embedded datasets.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with the keys:

        data : ndarray of shape (n_samples, n_features)
            Dense features: float64, or float32 in [0, 1] for ``mnist`` and ``fashion_mnist``.
            The UCI categorical datasets (``mushroom``, ``tictactoe``) are one-hot encoded.
        target : ndarray of shape (n_samples,)
            Class labels as in the source: int64, or str for ``mushroom`` and ``tictactoe``.
        feature_names : list of str or None
            Column names where known (None for the LIBSVM datasets).
        target_names : list of str or None
            Readable class names, aligned with the sorted labels ``np.unique(target)``; None
            where the source documents no meaning.
        DESCR : str
            Short description: source, shape, labels and preprocessing.
        task : {"binary", "multiclass"}
            Learning task.
        n_classes : int
            Number of classes.
        name : str
            Canonical dataset name.
        n_train : int or None
            Number of leading rows that form the original training part, when the returned rows
            concatenate an original train/test split (``svmguide1``, ``pendigits``, ``mnist``,
            ``fashion_mnist``, ``protein``); None otherwise.
        filenames : list of str
            Files read (empty for embedded datasets).

    (data, target) : tuple
        If ``return_X_y`` is True.

    Raises
    ------
    ValueError
        If the name is unknown (the message lists the valid names), a file is malformed, or a
        checksum does not match.
    FileNotFoundError
        If the files are missing; the message names the dataset, the folder searched and the
        expected file names.

    Warns
    -----
    UserWarning
        If the loaded shape differs from the expected one (:func:`dataset_info`), which usually
        means a truncated or different version of the files.

    Notes
    -----
    Per-dataset choices:

    - ``adult`` (LIBSVM a9a, 123 binary features), ``phishing`` (68), ``svmguide1`` (4),
      ``pendigits`` (16), ``codrna`` (8), ``protein`` (357) and ``sensorless`` (48) are read
      with :func:`sklearn.datasets.load_svmlight_file` (one-based indices, fixed number of
      features) and densified; labels are cast to int64 unchanged (-1/+1 for adult and codrna,
      0/1 for phishing and svmguide1, 0-9 for pendigits, 0-2 for protein, 1-11 for sensorless).
    - ``svmguide1`` and ``pendigits`` come as one file holding train then test rows; all rows
      are returned. The split LIBSVM files (``svmguide1`` + ``svmguide1.t``,
      ``pendigits`` + ``pendigits.t``) are accepted instead and concatenated in that order.
    - ``codrna`` reads only the training file ``cod-rna`` (59535 rows, as in the reference
      papers). ``protein`` concatenates ``protein`` and ``protein.t`` (24387 rows).
    - ``haberman`` keeps its 3 numeric attributes and labels 1/2.
    - ``mushroom`` and ``tictactoe`` are one-hot encoded with
      :class:`~sklearn.preprocessing.OneHotEncoder` over the categories present in the file,
      sorted (``mushroom``: 117 columns, ``?`` in stalk-root is a category of its own and the
      constant veil-type column is kept; ``tictactoe``: 27 columns).
    - ``mnist`` and ``fashion_mnist`` parse the gzipped IDX files (magic number and dimensions
      checked), flatten the 28x28 images row by row and divide by 255 into float32; the 60000
      training images come first, then the 10000 test images. MNIST's files are named
      ``train-images.idx3-ubyte.gz``, Fashion-MNIST's ``train-images-idx3-ubyte.gz``; either
      spelling is accepted for both.

    Examples
    --------
    >>> from skpacbayes.datasets import load_dataset
    >>> X, y = load_dataset("iris", return_X_y=True)
    >>> X.shape, X.dtype, y[:3]
    ((150, 4), dtype('float64'), array([0, 0, 0]))
    >>> data = load_dataset("breast_cancer")
    >>> data.task, data.n_classes, data.data.shape
    ('binary', 2, (569, 30))
    >>> data.target_names
    ['malignant', 'benign']

    A reference dataset reads its files from ``data_home`` (or ``$SKPACBAYES_DATA``)::

        data = load_dataset("haberman", data_home="/path/to/datasets")
    """
    key = _canonical_name(name)
    info = _INFOS[key]
    if info.embedded:
        X, y, feature_names, target_names = _load_embedded(key)
        filenames, n_train = [], None
    else:
        folder = get_data_home(data_home) / key
        paths = _find_layout(info, folder)
        if paths is None:
            raise _missing_files_error(info, folder)
        if verify:
            _verify(info, paths)
        X, y, feature_names, n_train = _LOADERS[key](key, paths)
        X = np.ascontiguousarray(X)
        target_names = _TARGET_NAMES.get(key)
        target_names = None if target_names is None else list(target_names)
        filenames = [os.fspath(p) for p in paths]
        if X.shape != info.shape:
            warnings.warn(
                f"Dataset {key!r}: loaded shape {X.shape} differs from the expected "
                f"{info.shape}; the files may be truncated or a different version.",
                UserWarning,
                stacklevel=2,
            )

    if return_X_y:
        return X, y
    n_classes = int(np.unique(y).size)
    descr = (
        f"{info.name}: {info.description}\n"
        f"Shape {X.shape[0]} x {X.shape[1]}, {n_classes} classes ({info.task}), "
        f"format: {info.format}."
    )
    return Bunch(
        data=X,
        target=y,
        feature_names=feature_names,
        target_names=target_names,
        DESCR=descr,
        task=info.task,
        n_classes=n_classes,
        name=info.name,
        n_train=n_train,
        filenames=filenames,
    )
