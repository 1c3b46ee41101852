"""Loaders for the reference datasets and the embedded scikit-learn defaults.

Twelve reference datasets are read from raw files in their original formats.
:func:`load_dataset` reads files already on disk and never downloads anything;
:func:`fetch_dataset` downloads the missing ones first (from their public sources, or from a
mirror named by the environment variable ``SKPACBAYES_DATA_MIRROR``) and verifies their
checksums. They live in one folder, ``data_home``, with one sub-folder per dataset::

    data_home/
        adult/a9a.txt
        haberman/haberman.data
        mnist/train-images.idx3-ubyte.gz  ...
        ...

``data_home`` is resolved by :func:`get_data_home`: the ``data_home`` argument if given, else the
environment variable ``SKPACBAYES_DATA`` if set, else ``~/skpacbayes_data``. :func:`dataset_info`
lists, for every dataset, the task, the expected shape and the exact file names.

Four small datasets bundled with scikit-learn (``breast_cancer``, ``digits``, ``wine``, ``iris``)
need no files and are the right defaults for examples and quick starts.

Conventions of the returned arrays
----------------------------------
- ``data`` is a dense, C-contiguous ``float64`` array, except for ``mnist`` and ``fashion_mnist``,
  where it is ``float32`` (pixels divided by 255, so in [0, 1]) to halve the memory of the
  70000 x 784 matrix (220 MB instead of 440 MB). The largest LIBSVM matrix, ``protein``
  (24387 x 357, about 70 MB), is still returned dense.
- ``target`` keeps the labels of the source file, as clean class labels: ``int64`` for the LIBSVM,
  IDX and scikit-learn datasets and for ``haberman`` (1/2); ``str`` (NumPy unicode) for
  ``mushroom`` ("e"/"p") and ``tictactoe`` ("negative"/"positive").
- Files that hold an original train/test split are concatenated, train rows first; the Bunch's
  ``n_train`` says how many leading rows came from the training part (``None`` if not split).
"""

from ._catalogue import (
    DATA_HOME_ENV,
    DATASET_NAMES,
    EMBEDDED_DATASETS,
    MIRROR_ENV,
    DatasetInfo,
    available_datasets,
    dataset_info,
    get_data_home,
)
from ._fetch import fetch_dataset
from ._readers import load_dataset

# Layout: _catalogue (names, sources, checksums, layouts), _readers (load_dataset),
# _fetch (fetch_dataset).

__all__ = [
    "DATASET_NAMES",
    "DATA_HOME_ENV",
    "EMBEDDED_DATASETS",
    "MIRROR_ENV",
    "DatasetInfo",
    "available_datasets",
    "dataset_info",
    "fetch_dataset",
    "get_data_home",
    "load_dataset",
]
