"""Downloading data sets with pooch: verified, atomic downloads into ``data_home``."""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request
import warnings
from pathlib import Path

import numpy as np
import pooch
from pooch.downloaders import choose_downloader

from ._catalogue import (
    _DATA_SHA256,
    _INFOS,
    _SHA256,
    _SOURCES,
    DATA_HOME_ENV,
    MIRROR_ENV,
    _canonical_name,
    _find_layout,
    _missing_files_error,
    get_data_home,
)
from ._readers import _LOADERS, load_dataset

# ---------------------------------------------------------------------------------------------
# Download


def _data_sha256(X, y):
    """sha256 of parsed data: shape and dtype, ``X`` little-endian in C order, then ``y``.

    Independent of the files' layout, compression and line ends, so one value verifies a
    download from any source.
    """
    X, y = np.asarray(X), np.asarray(y)
    digest = hashlib.sha256(f"{X.shape}|{X.dtype.str}|".encode())
    digest.update(np.ascontiguousarray(X, dtype=X.dtype.newbyteorder("<")).tobytes())
    if y.dtype.kind == "U":
        digest.update("\n".join(y.tolist()).encode())
    else:
        digest.update(np.ascontiguousarray(y, dtype="<i8").tobytes())
    return digest.hexdigest()


def _sources(info):
    """``[(file name, URL, sha256 of the file or None), ...]`` to download, mirror first."""
    mirror = os.environ.get(MIRROR_ENV)
    if mirror:
        base = mirror.rstrip("/") + "/"
        return [
            (
                f,
                urllib.parse.urljoin(base, f"{info.name}/{urllib.parse.quote(f)}"),
                _SHA256.get(f"{info.name}/{f}"),
            )
            for f in info.files
        ]
    return [(f, url, None) for f, url in _SOURCES[info.name]]


def _copy_local(url, output_file, pooch_instance):
    """Pooch downloader for a ``file://`` mirror (pooch itself reads HTTP(S), FTP and DOIs)."""
    source = urllib.request.url2pathname(urllib.parse.urlparse(url).path)
    shutil.copyfile(source, output_file)


def _retrieve(name, fname, url, expected, folder, progress):
    """Download ``url`` into ``folder/fname`` with pooch, checked against sha256 ``expected``.

    Pooch writes to a temporary file and keeps it only if its hash matches; its errors become
    messages that name the dataset and the ways around a failing source.
    """
    if url.startswith("file:"):
        downloader = _copy_local
    else:
        try:
            downloader = choose_downloader(url, progressbar=progress and sys.stderr.isatty())
        except ValueError as exc:
            raise ValueError(
                f"Dataset {name!r}: cannot download {url} ({exc}); a mirror is an HTTP(S), "
                "FTP or file:// URL."
            ) from exc
    known_hash = None if expected is None else f"sha256:{expected}"
    try:
        path = pooch.retrieve(url, known_hash, fname=fname, path=folder, downloader=downloader)
    except ValueError as exc:  # the only ValueError left in retrieve: the hash check
        raise ValueError(
            f"Dataset {name!r}: sha256 mismatch for {fname!r} downloaded from {url}: {exc} "
            f"Set {MIRROR_ENV} to use another source."
        ) from exc
    except OSError as exc:  # requests' errors are OSErrors too
        raise OSError(
            f"Dataset {name!r}: could not download {url} ({exc}). Check the network "
            f"connection, or set the environment variable {MIRROR_ENV} to the URL of a "
            f"mirror folder laid out as <mirror>/{name}/<file>, or put the files in "
            f"'<data_home>/{name}/' yourself (data_home=... or {DATA_HOME_ENV})."
        ) from exc
    return Path(path)


def _download(info, folder, progress):
    """Download every file of ``info``'s source into ``folder``, verified, atomically.

    Pooch downloads each file into a temporary folder inside ``folder`` (same file system) and
    checks it against its recorded sha256 where one is known for that source (the mirror's
    files are the reference copies); the parsed data are checked against ``_DATA_SHA256``, and
    only then is each file moved into place with :func:`os.replace`. On any error nothing is
    left behind. Pooch's log lines (which name the temporary folder) are silenced.
    """
    files = _sources(info)
    folder.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".download-", dir=folder))
    logger = pooch.get_logger()
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        paths = [_retrieve(info.name, *source, tmp, progress) for source in files]
        expected = _DATA_SHA256.get(info.name)
        source = os.path.dirname(files[0][1]) + "/"
        if expected is None:
            warnings.warn(
                f"Dataset {info.name!r}: no recorded checksum; the download from {source} is "
                "not verified.",
                UserWarning,
                stacklevel=3,
            )
        else:
            try:
                X, y, _, _ = _LOADERS[info.name](info.name, tuple(paths))
            except ValueError as exc:
                raise ValueError(
                    f"Dataset {info.name!r}: the files downloaded from {source} could not be "
                    f"parsed ({exc}). The download was removed."
                ) from exc
            if (actual := _data_sha256(X, y)) != expected:
                raise ValueError(
                    f"Dataset {info.name!r}: sha256 mismatch for the parsed data downloaded "
                    f"from {source}: expected {expected}, got {actual}. The download was "
                    f"removed; the source serves a corrupted or different version (set "
                    f"{MIRROR_ENV} to use another source)."
                )
        for path in paths:
            os.replace(path, folder / path.name)
    finally:
        logger.setLevel(level)
        shutil.rmtree(tmp, ignore_errors=True)


def fetch_dataset(
    name, data_home=None, *, download_if_missing=True, return_X_y=False, progress=False
):
    """Load a dataset, downloading its files into ``data_home`` first if they are missing.

    The files are taken from the dataset's public source (UCI, LIBSVM, the MNIST and
    Fashion-MNIST servers), or from the mirror named by the environment variable
    ``SKPACBAYES_DATA_MIRROR`` when it is set, and downloaded with `pooch
    <https://www.fatiando.org/pooch/>`_. Each download is verified (the mirror's files against
    the sha256 of the reference copies, every source on the sha256 of the parsed data) before
    it is moved into place, so an interrupted or corrupted download never reaches the cache.
    Files already present are read without any network access.

    Parameters
    ----------
    name : str
        A name accepted by :func:`load_dataset`. The embedded scikit-learn datasets need no
        download.
    data_home : str or path-like, default=None
        Cache folder, one sub-folder per dataset; see :func:`get_data_home` (the environment
        variable ``SKPACBAYES_DATA``, else ``~/skpacbayes_data``). Created if needed.
    download_if_missing : bool, default=True
        If False, raise a ``FileNotFoundError`` instead of downloading missing files.
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.
    progress : bool, default=False
        Show a progress bar per file (pooch's, drawn by tqdm) on stderr, only when stderr is
        a terminal.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch` or tuple
        As returned by :func:`load_dataset`.

    Raises
    ------
    OSError
        If a download fails (offline, unknown host, HTTP error); the message names the
        dataset, the URL and how to use a mirror or local files.
    ValueError
        If a downloaded file or the parsed data does not match its recorded sha256 (the
        message gives the expected and the actual value; nothing is kept), or the name is
        unknown.
    FileNotFoundError
        If files are missing and ``download_if_missing`` is False.

    Warns
    -----
    UserWarning
        For ``codrna``, ``protein`` and ``sensorless``, which have no recorded checksum: their
        download is not verified.

    See Also
    --------
    load_dataset : Read files already on disk, never download.

    Notes
    -----
    A mirror is any folder served over HTTP(S) or FTP (or a ``file://`` URL) laid out like
    ``data_home``: ``<mirror>/<name>/<file>`` with the file names of
    ``dataset_info(name).files``, for instance a copy of a ``data_home`` filled by this function
    on another machine (then the layout must be the preferred one, ``files``)::

        export SKPACBAYES_DATA_MIRROR=https://example.org/skpacbayes_data/

    Examples
    --------
    >>> from skpacbayes.datasets import fetch_dataset
    >>> fetch_dataset("wine").data.shape  # embedded: nothing to download
    (178, 13)

    A reference dataset is downloaded once, then read from the cache::

        data = fetch_dataset("haberman", data_home="~/skpacbayes_data")
    """
    key = _canonical_name(name)
    info = _INFOS[key]
    if not info.embedded:
        folder = get_data_home(data_home) / key
        if _find_layout(info, folder) is None:
            if not download_if_missing:
                raise FileNotFoundError(
                    f"{_missing_files_error(info, folder)} (download_if_missing=False)"
                )
            _download(info, folder, progress)
    return load_dataset(key, data_home=data_home, return_X_y=return_X_y)
