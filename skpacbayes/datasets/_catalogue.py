"""The catalogue of data sets: names, sources, checksums, file layouts, ``data_home``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

#: Reference datasets read from files under ``data_home/<name>/``.
DATASET_NAMES = (
    "adult",
    "codrna",
    "haberman",
    "mushroom",
    "phishing",
    "svmguide1",
    "tictactoe",
    "fashion_mnist",
    "mnist",
    "pendigits",
    "protein",
    "sensorless",
)

#: Datasets bundled with scikit-learn: always available, no ``data_home`` needed.
EMBEDDED_DATASETS = ("breast_cancer", "digits", "wine", "iris")

#: Environment variable that sets the default ``data_home``.
DATA_HOME_ENV = "SKPACBAYES_DATA"

_DEFAULT_DATA_HOME = "~/skpacbayes_data"

#: Environment variable naming a mirror for :func:`fetch_dataset`: the URL of a folder laid out
#: like ``data_home`` (``<mirror>/<name>/<file>``, the file names of ``dataset_info(name).files``).
MIRROR_ENV = "SKPACBAYES_DATA_MIRROR"

_LIBSVM = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/"
_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases/"
_MNIST_URL = "https://ossci-datasets.s3.amazonaws.com/mnist/"
_FASHION_URL = "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"

# Public sources: dataset -> ((file name in data_home/<name>/, URL), ...). The file names form
# one of the dataset's accepted layouts (``DatasetInfo.layouts``), so the loaders read them as
# they are. Several public files differ byte for byte from the reference copies (MNIST and
# Fashion-MNIST gzipped anew, svmguide1 and pendigits split in train and test files, a9a with
# other line ends), so a download from them is verified on the parsed data (_DATA_SHA256).
_SOURCES = {
    "adult": (("a9a", _LIBSVM + "binary/a9a"),),
    "codrna": (("cod-rna", _LIBSVM + "binary/cod-rna"),),
    "haberman": (("haberman.data", _UCI + "haberman/haberman.data"),),
    "mushroom": (("agaricus-lepiota.data", _UCI + "mushroom/agaricus-lepiota.data"),),
    "phishing": (("phishing", _LIBSVM + "binary/phishing"),),
    "svmguide1": (
        ("svmguide1", _LIBSVM + "binary/svmguide1"),
        ("svmguide1.t", _LIBSVM + "binary/svmguide1.t"),
    ),
    "tictactoe": (("tic-tac-toe.data", _UCI + "tic-tac-toe/tic-tac-toe.data"),),
    "fashion_mnist": tuple(
        (f, _FASHION_URL + f)
        for f in (
            "train-images-idx3-ubyte.gz",
            "train-labels-idx1-ubyte.gz",
            "t10k-images-idx3-ubyte.gz",
            "t10k-labels-idx1-ubyte.gz",
        )
    ),
    "mnist": tuple(
        (f, _MNIST_URL + f)
        for f in (
            "train-images-idx3-ubyte.gz",
            "train-labels-idx1-ubyte.gz",
            "t10k-images-idx3-ubyte.gz",
            "t10k-labels-idx1-ubyte.gz",
        )
    ),
    "pendigits": (
        ("pendigits", _LIBSVM + "multiclass/pendigits"),
        ("pendigits.t", _LIBSVM + "multiclass/pendigits.t"),
    ),
    "protein": (
        ("protein.bz2", _LIBSVM + "multiclass/protein.bz2"),
        ("protein.t.bz2", _LIBSVM + "multiclass/protein.t.bz2"),
    ),
    "sensorless": (("Sensorless", _LIBSVM + "multiclass/Sensorless"),),
}

# sha256 of the parsed data (see _data_sha256), whatever the layout or source of the files:
# computed from the reference copies with the loaders of this module. None recorded for the
# three datasets without a reference copy (codrna, protein, sensorless).
_DATA_SHA256 = {
    "adult": "e65df0ba4345274c26f5a3cd654d3d98ab386250bc90d16d45ff04f30c634169",
    "haberman": "65275ae91b52fcc23aa6385ac2be975cd763d90feb2297e6d5f5d8da40cfe342",
    "mushroom": "42967d86d56d58dd5044573fc5c90c541e7140a003f5fec41331264546c61c3c",
    "phishing": "2d19d8611226fdf0a91c6975f6e8d853b7bc21d22bb9f21ce1a41d016edc4e0c",
    "svmguide1": "63337d657382c8a8d813c64868773c66da961b8cdda4a3e475d4157893ad2a9f",
    "tictactoe": "4736709a43ab932936abc50cc1bfeb773ed35cd2c63135e06d7e8d20e2b8e9d8",
    "pendigits": "ee6276c54e247ed46d41a79977e6a81c440e28381ce768828ce631ae65d998cd",
    "mnist": "15e2bbfb5325c0dedddf490da5a8da0f0ef1cab9bf76e616e38393bf98f87c0a",
    "fashion_mnist": "e1be61a52dac96c099723fa3bf9549479d5397de8f618439e087ed7037e02484",
}

# Short names used in the reference paper's tables and common spellings.
_ALIASES = {
    "a9a": "adult",
    "cod-rna": "codrna",
    "cod_rna": "codrna",
    "haber": "haberman",
    "mush": "mushroom",
    "mushrooms": "mushroom",
    "phis": "phishing",
    "svmg": "svmguide1",
    "ttt": "tictactoe",
    "tic-tac-toe": "tictactoe",
    "tic_tac_toe": "tictactoe",
    "fashion": "fashion_mnist",
    "fashion-mnist": "fashion_mnist",
    "fashionmnist": "fashion_mnist",
    "pend": "pendigits",
    "sensor": "sensorless",
    "breast-cancer": "breast_cancer",
    "breastcancer": "breast_cancer",
}

# sha256 of the raw files, as published with the reference copies (path relative to data_home).
_SHA256 = {
    "adult/a9a.txt": "35b6bafa772838b1eb3000a6550ff48505ad79aaa381cfd28960e68679f4453b",
    "fashion_mnist/t10k-images-idx3-ubyte.gz": (
        "cc1d090a38ace84dfa1aa66e3ada7c336ef481a96936906477e6dd344da56eaa"
    ),
    "fashion_mnist/t10k-labels-idx1-ubyte.gz": (
        "8d3605d196f4be44669e46906da9733c8131fef761fdbfec72c424d5222f1a05"
    ),
    "fashion_mnist/train-images-idx3-ubyte.gz": (
        "b0564c3eedabfbf835052cff8503ea422014ce006caf5b757f851416ee8300c7"
    ),
    "fashion_mnist/train-labels-idx1-ubyte.gz": (
        "0ae29f65d86684f32d1b9c85147786c547b9c6aebcaf235f0400a0cce308b056"
    ),
    "haberman/haberman.data": "18569865605a0d34727ff489c6b08aa8d1a430edd3ca944a57c4c03fbc403fae",
    "mnist/t10k-images.idx3-ubyte.gz": (
        "5442b4a2947dfbbe4c4ea113ec267df5c7bb0b81b83c2063050aa6fe73972e59"
    ),
    "mnist/t10k-labels.idx1-ubyte.gz": (
        "f7a378deab1a09adfd1664567617fa13660bb43ae376efec2832980a88f7b735"
    ),
    "mnist/train-images.idx3-ubyte.gz": (
        "9fca430ec429019aa326f1c28995afe87dd52ed034d7f60309fc6b115c807d6e"
    ),
    "mnist/train-labels.idx1-ubyte.gz": (
        "6b797bfc8bfec75af4f0c7aec2e2f74637f2380eca5175be5382d02a8fd6c847"
    ),
    "mushroom/agaricus-lepiota.data": (
        "e65d082030501a3ebcbcd7c9f7c71aa9d28fdfff463bf4cf4716a3fe13ac360e"
    ),
    "pendigits/pendigits_all.libsvm": (
        "e8e3572d9c5196a5fbf2c759e10ca83d5b6511bfdb75edd7291d9d719fa14eb8"
    ),
    "phishing/phishing": "0b0ca40e17bc95e909bfa587c408bf69904571ace01dea26e34cafc464f2da93",
    "svmguide1/svmguide1_all.libsvm": (
        "2854b5882f2db29f0c34bcf73c69be7654364a46aab5b803d2ff5b5c8765d666"
    ),
    "tictactoe/tic-tac-toe.data": (
        "8329548796d0ffdc9401af68324db5aa3e51134c5dad05705cebf3581e493d57"
    ),
}


@dataclass(frozen=True)
class DatasetInfo:
    """What is known about a dataset before loading it.

    Attributes
    ----------
    name : str
        Canonical name, as accepted by :func:`load_dataset`.
    task : {"binary", "multiclass"}
        Classification task.
    n_samples, n_features : int
        Expected shape of ``data`` (after one-hot encoding for the UCI categorical datasets).
    n_classes : int
        Number of classes.
    class_counts : dict or None
        Expected number of examples per label, or ``None`` where it was not checked offline.
    files : tuple of str
        File names expected in ``data_home/<name>/`` (empty for embedded datasets).
    alternative_files : tuple of tuple of str
        Other accepted layouts (for instance the split LIBSVM files), tried in order when
        ``files`` are not all present.
    embedded : bool
        Whether the dataset ships with scikit-learn (no files needed).
    format : str
        Format of the raw files.
    description : str
        One-paragraph description: source, labels, preprocessing.

    Examples
    --------
    >>> from skpacbayes.datasets import dataset_info
    >>> info = dataset_info("breast_cancer")
    >>> info.task, info.n_classes, info.embedded, info.shape
    ('binary', 2, True, (569, 30))
    """

    name: str
    task: str
    n_samples: int
    n_features: int
    n_classes: int
    class_counts: Mapping | None = field(default=None, hash=False)
    files: tuple[str, ...] = ()
    alternative_files: tuple[tuple[str, ...], ...] = ()
    embedded: bool = False
    format: str = ""
    description: str = ""

    @property
    def shape(self):
        """Expected shape ``(n_samples, n_features)`` of ``data``.

        Examples
        --------
        >>> from skpacbayes.datasets import dataset_info
        >>> dataset_info("mnist").shape
        (70000, 784)
        """
        return (self.n_samples, self.n_features)

    @property
    def layouts(self):
        """All accepted file layouts, the preferred one first.

        Examples
        --------
        >>> from skpacbayes.datasets import dataset_info
        >>> dataset_info("breast_cancer").layouts  # embedded: no files
        ((),)
        """
        return (self.files, *self.alternative_files)


_DIGIT_NAMES = tuple(str(d) for d in range(10))
_FASHION_NAMES = (
    "T-shirt/top",
    "Trouser",
    "Pullover",
    "Dress",
    "Coat",
    "Sandal",
    "Shirt",
    "Sneaker",
    "Bag",
    "Ankle boot",
)
_MNIST_FILES = (
    "train-images.idx3-ubyte.gz",
    "train-labels.idx1-ubyte.gz",
    "t10k-images.idx3-ubyte.gz",
    "t10k-labels.idx1-ubyte.gz",
)
_FASHION_FILES = tuple(f.replace(".idx", "-idx") for f in _MNIST_FILES)

_HABERMAN_FEATURES = ("age", "year", "nodes")
_MUSHROOM_FEATURES = (
    "cap-shape",
    "cap-surface",
    "cap-color",
    "bruises",
    "odor",
    "gill-attachment",
    "gill-spacing",
    "gill-size",
    "gill-color",
    "stalk-shape",
    "stalk-root",
    "stalk-surface-above-ring",
    "stalk-surface-below-ring",
    "stalk-color-above-ring",
    "stalk-color-below-ring",
    "veil-type",
    "veil-color",
    "ring-number",
    "ring-type",
    "spore-print-color",
    "population",
    "habitat",
)
_TICTACTOE_FEATURES = tuple(
    f"{row}-{col}-square"
    for row in ("top", "middle", "bottom")
    for col in ("left", "middle", "right")
)

# Human-readable class names, in the order of the sorted labels (None: no documented meaning).
_TARGET_NAMES = {
    "adult": ("income <=50K", "income >50K"),
    "haberman": ("survived 5 years or longer", "died within 5 years"),
    "mushroom": ("edible", "poisonous"),
    "phishing": ("phishing", "legitimate"),
    "tictactoe": ("x does not win", "x wins"),
    "pendigits": _DIGIT_NAMES,
    "mnist": _DIGIT_NAMES,
    "fashion_mnist": _FASHION_NAMES,
}

# Rows of the training part at the top of the single-file layouts that hold train + test.
_N_TRAIN_COMBINED = {
    "svmguide1/svmguide1_all.libsvm": 3089,
    "pendigits/pendigits_all.libsvm": 7494,
}

# LIBSVM datasets: number of features (passed to load_svmlight_file).
_LIBSVM_N_FEATURES = {
    "adult": 123,
    "codrna": 8,
    "phishing": 68,
    "svmguide1": 4,
    "pendigits": 16,
    "protein": 357,
    "sensorless": 48,
}

# The catalogue, one dataset a row: name -> (task, n_samples, n_features, n_classes, format).
_SHAPES = {
    "adult": ("binary", 32561, 123, 2, "LIBSVM"),
    "codrna": ("binary", 59535, 8, 2, "LIBSVM"),
    "haberman": ("binary", 306, 3, 2, "UCI CSV"),
    "mushroom": ("binary", 8124, 117, 2, "UCI CSV"),
    "phishing": ("binary", 11055, 68, 2, "LIBSVM"),
    "svmguide1": ("binary", 7089, 4, 2, "LIBSVM"),
    "tictactoe": ("binary", 958, 27, 2, "UCI CSV"),
    "fashion_mnist": ("multiclass", 70000, 784, 10, "gzipped IDX"),
    "mnist": ("multiclass", 70000, 784, 10, "gzipped IDX"),
    "pendigits": ("multiclass", 10992, 16, 10, "LIBSVM"),
    "protein": ("multiclass", 24387, 357, 3, "LIBSVM"),
    "sensorless": ("multiclass", 58509, 48, 11, "LIBSVM"),
    "breast_cancer": ("binary", 569, 30, 2, "scikit-learn"),
    "digits": ("multiclass", 1797, 64, 10, "scikit-learn"),
    "wine": ("multiclass", 178, 13, 3, "scikit-learn"),
    "iris": ("multiclass", 150, 4, 3, "scikit-learn"),
}

# Expected number of examples per label, where it was checked offline.
_CLASS_COUNTS = {
    "adult": {-1: 24720, 1: 7841},
    "haberman": {1: 225, 2: 81},
    "mushroom": {"e": 4208, "p": 3916},
    "phishing": {0: 4898, 1: 6157},
    "svmguide1": {0: 3089, 1: 4000},
    "tictactoe": {"negative": 332, "positive": 626},
    "fashion_mnist": dict.fromkeys(range(10), 7000),
    "mnist": dict(enumerate((6903, 7877, 6990, 7141, 6824, 6313, 6876, 7293, 6825, 6958))),
    "pendigits": dict(enumerate((1143, 1143, 1144, 1055, 1144, 1055, 1056, 1142, 1055, 1055))),
    "breast_cancer": {0: 212, 1: 357},
    "digits": dict(enumerate((178, 182, 177, 183, 181, 182, 181, 179, 174, 180))),
    "wine": {0: 59, 1: 71, 2: 48},
    "iris": {0: 50, 1: 50, 2: 50},
}

# File layouts in data_home/<name>/, the preferred one first (none: an embedded dataset).
_LAYOUTS = {
    "adult": (("a9a.txt",), ("a9a",)),
    "codrna": (("cod-rna",),),
    "haberman": (("haberman.data",),),
    "mushroom": (("agaricus-lepiota.data",),),
    "phishing": (("phishing",),),
    "svmguide1": (("svmguide1_all.libsvm",), ("svmguide1", "svmguide1.t")),
    "tictactoe": (("tic-tac-toe.data",),),
    "fashion_mnist": (_FASHION_FILES, _MNIST_FILES),
    "mnist": (_MNIST_FILES, _FASHION_FILES),
    "pendigits": (("pendigits_all.libsvm",), ("pendigits", "pendigits.t")),
    "protein": (("protein", "protein.t"), ("protein.bz2", "protein.t.bz2")),
    "sensorless": (("Sensorless",),),
}

# One-paragraph descriptions: source, labels, preprocessing.
_DESCRIPTIONS = {
    "adult": (
        "UCI Adult census income, LIBSVM a9a version (binarized features, sparse 0/1, "
        "returned dense). Labels: -1 (income <=50K), +1 (income >50K)."
    ),
    "codrna": (
        "Detection of non-coding RNAs (LIBSVM cod-rna training file only, as in the "
        "reference papers; the test file cod-rna.t is not read). Labels: -1, +1."
    ),
    "haberman": (
        "UCI Haberman's survival after breast cancer surgery: age, year of operation "
        "(minus 1900), number of positive axillary nodes. Labels: 1 (survived 5 years or "
        "longer), 2 (died within 5 years)."
    ),
    "mushroom": (
        "UCI Mushroom (Agaricus and Lepiota): 22 categorical attributes one-hot encoded "
        "over the categories present in the file (117 columns); the missing value '?' of "
        "stalk-root is its own category. Labels: 'e' (edible), 'p' (poisonous)."
    ),
    "phishing": (
        "UCI Phishing Websites, LIBSVM version (binarized, row-normalized features). "
        "Labels: 0 (phishing), 1 (legitimate)."
    ),
    "svmguide1": (
        "LIBSVM svmguide1 (astroparticle application), training rows (3089) followed by "
        "test rows (4000). Labels: 0, 1."
    ),
    "tictactoe": (
        "UCI Tic-Tac-Toe endgame: 9 squares (x/o/b) one-hot encoded (27 columns). "
        "Labels: 'positive' (x wins), 'negative'."
    ),
    "fashion_mnist": (
        "Fashion-MNIST (Zalando), 28x28 grey images flattened row by row, pixels divided "
        "by 255 (float32 in [0, 1]); 60000 training then 10000 test rows. Labels: 0-9 "
        "(T-shirt/top, Trouser, Pullover, Dress, Coat, Sandal, Shirt, Sneaker, Bag, "
        "Ankle boot)."
    ),
    "mnist": (
        "MNIST handwritten digits (LeCun and Cortes), 28x28 grey images flattened row by "
        "row, pixels divided by 255 (float32 in [0, 1]); 60000 training then 10000 test "
        "rows. Labels: the digits 0-9."
    ),
    "pendigits": (
        "UCI Pen-Based Recognition of Handwritten Digits (16 resampled pen coordinates in "
        "0-100), training rows (7494) followed by test rows (3498). Labels: the digits 0-9."
    ),
    "protein": (
        "Protein secondary structure (LIBSVM protein), training file (17766 rows) "
        "followed by protein.t (6621 rows). Labels: 0, 1, 2."
    ),
    "sensorless": (
        "Sensorless drive diagnosis (UCI, LIBSVM unscaled version 'Sensorless'): 48 "
        "features of the motor current. Labels: 1-11 (motor conditions)."
    ),
    "breast_cancer": (
        "Breast cancer Wisconsin (diagnostic), from sklearn.datasets.load_breast_cancer. "
        "Labels: 0 (malignant), 1 (benign)."
    ),
    "digits": (
        "Optical recognition of handwritten digits (8x8 images, values 0-16), from "
        "sklearn.datasets.load_digits. Labels: the digits 0-9."
    ),
    "wine": (
        "Wine recognition (13 chemical measurements), from sklearn.datasets.load_wine. "
        "Labels: 0, 1, 2 (cultivars)."
    ),
    "iris": (
        "Fisher's iris (4 measurements), from sklearn.datasets.load_iris. Labels: 0, 1, 2 "
        "(setosa, versicolor, virginica)."
    ),
}

_INFOS = {
    name: DatasetInfo(
        name,
        task,
        n_samples,
        n_features,
        n_classes,
        class_counts=_CLASS_COUNTS.get(name),
        files=layouts[0],
        alternative_files=layouts[1:],
        embedded=name in EMBEDDED_DATASETS,
        format=file_format,
        description=_DESCRIPTIONS[name],
    )
    for name, (task, n_samples, n_features, n_classes, file_format) in _SHAPES.items()
    for layouts in [_LAYOUTS.get(name, ((),))]
}


# ---------------------------------------------------------------------------------------------
# Names and folders


def _canonical_name(name):
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in _INFOS:
        raise ValueError(
            f"Unknown dataset {name!r}. Valid names: {', '.join(DATASET_NAMES)} (read from "
            f"data_home) and {', '.join(EMBEDDED_DATASETS)} (embedded in scikit-learn)."
        )
    return key


def get_data_home(data_home=None):
    """Return the folder that holds one sub-folder per dataset.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder to use. If None, the environment variable ``SKPACBAYES_DATA`` is used when it is
        set and not empty, else ``~/skpacbayes_data``. ``~`` is expanded. The folder is neither
        created nor checked.

    Returns
    -------
    path : pathlib.Path
        The resolved folder.

    Examples
    --------
    >>> from pathlib import Path
    >>> from skpacbayes.datasets import get_data_home
    >>> get_data_home("/data/pacbayes") == Path("/data/pacbayes")
    True
    """
    if data_home is None:
        data_home = os.environ.get(DATA_HOME_ENV) or _DEFAULT_DATA_HOME
    return Path(os.fspath(data_home)).expanduser()


def dataset_info(name):
    """Describe a dataset without loading it.

    Parameters
    ----------
    name : str
        A name from :data:`DATASET_NAMES` or :data:`EMBEDDED_DATASETS` (case-insensitive; the
        reference tables' short names such as ``"haber"`` or ``"ttt"`` are accepted too).

    Returns
    -------
    info : DatasetInfo
        Task, expected shape and class counts, file names, format and description.

    Raises
    ------
    ValueError
        If the name is unknown; the message lists the valid names.

    Examples
    --------
    >>> from skpacbayes.datasets import dataset_info
    >>> info = dataset_info("mnist")
    >>> info.task, info.shape, info.n_classes
    ('multiclass', (70000, 784), 10)
    >>> info.files[0]
    'train-images.idx3-ubyte.gz'
    >>> dataset_info("iris").embedded
    True
    """
    return _INFOS[_canonical_name(name)]


def _find_layout(info, folder):
    """Return the paths of the first layout whose files all exist, or None."""
    for layout in info.layouts:
        paths = tuple(folder / f for f in layout)
        if all(p.is_file() for p in paths):
            return paths
    return None


def available_datasets(data_home=None, *, include_embedded=False):
    """List the reference datasets whose files are present under ``data_home``.

    Only the presence of the files is checked, not their content.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder holding one sub-folder per dataset; see :func:`get_data_home`.
    include_embedded : bool, default=False
        Whether to append the embedded scikit-learn datasets (always available).

    Returns
    -------
    names : tuple of str
        Available names, in the order of :data:`DATASET_NAMES` (then
        :data:`EMBEDDED_DATASETS`).

    Examples
    --------
    >>> from skpacbayes.datasets import available_datasets
    >>> available_datasets("/nonexistent/folder")
    ()
    >>> available_datasets("/nonexistent/folder", include_embedded=True)
    ('breast_cancer', 'digits', 'wine', 'iris')
    """
    home = get_data_home(data_home)
    names = tuple(n for n in DATASET_NAMES if _find_layout(_INFOS[n], home / n) is not None)
    if include_embedded:
        names += EMBEDDED_DATASETS
    return names


def _missing_files_error(info, folder):
    def describe(layout):
        present = ", ".join(
            f"{f!r}" + ("" if (folder / f).is_file() else " (missing)") for f in layout
        )
        return f"[{present}]"

    where = f"folder {str(folder)!r}"
    if not folder.is_dir():
        where += " (which does not exist)"
    layouts = " or ".join(describe(layout) for layout in info.layouts)
    return FileNotFoundError(
        f"Dataset {info.name!r}: files not found in {where}. Expected file(s): {layouts}. "
        f"Put them in '<data_home>/{info.name}/' and pass data_home=... or set the "
        f"{DATA_HOME_ENV} environment variable, or download them with "
        f"skpacbayes.datasets.fetch_dataset({info.name!r})."
    )
