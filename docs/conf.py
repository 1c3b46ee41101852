"""Sphinx configuration of the skpacbayes documentation.

Build with ``make -C docs html`` (or ``docs/build.sh``): warnings are errors. The build is
offline: no intersphinx inventory is fetched, the examples run on data bundled with
scikit-learn, and nothing is downloaded. MathJax is referenced by URL and only loaded by the
browser that displays the pages.
"""

import os
import sys
from datetime import date
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))  # the checkout's package, even without `pip install -e .`
sys.path.insert(0, str(DOCS / "_ext"))

# The examples draw figures without a display.
os.environ.setdefault("MPLBACKEND", "Agg")

import skpacbayes

# -- Project ------------------------------------------------------------------------------
project = "skpacbayes"
author = "The skpacbayes developers"
copyright = f"{date.today().year}, {author}"
release = skpacbayes.__version__
version = ".".join(release.split(".")[:2])

# -- General ------------------------------------------------------------------------------
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    # Ships MathJax (from PyPI, not vendored here) into _static/mathjax: the maths renders
    # offline, with no CDN request.
    "sphinx-mathjax-offline",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "skpacbayes_docs",  # docs/_ext: the table of valid combinations, generated from the code
]
# No sphinx.ext.intersphinx: the build must not fetch inventories over the network.

templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints"]
root_doc = "index"
source_suffix = {".rst": "restructuredtext"}
# ``text`` in single backquotes is code, as in scikit-learn.
default_role = "literal"
pygments_style = "sphinx"
# LaTeX macros shared by the theory page and the docstrings.
mathjax3_config = {
    "tex": {
        "macros": {
            "E": r"\mathbb{E}",
            "D": r"\mathcal{D}",
            "KL": r"\operatorname{KL}",
            "kl": r"\operatorname{kl}",
            "klup": r"\operatorname{kl}^{-1}_{+}",
            "kllow": r"\operatorname{kl}^{-1}_{-}",
            "ind": r"\mathbf{1}",
        }
    }
}

# -- autodoc / autosummary / numpydoc -----------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True}
autodoc_member_order = "groupwise"
autodoc_typehints = "none"  # the numpydoc sections carry the types
autoclass_content = "class"

numpydoc_show_class_members = False  # the class template lists the members itself
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# -- sphinx-gallery -----------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": ["../examples"],
    "gallery_dirs": ["auto_examples"],
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py",
    "within_subsection_order": "FileNameSortKey",
    "backreferences_dir": "gen_modules/backreferences",
    "doc_module": ("skpacbayes",),
    "reference_url": {"skpacbayes": None},  # local links only; nothing is fetched
    "remove_config_comments": True,
    "min_reported_time": 0,
    "show_memory": False,
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "download_all_examples": False,
    "show_signature": False,
    "write_computation_times": False,  # times are printed in the build log instead
}

# -- HTML ---------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"skpacbayes {release}"
html_static_path = ["_static"]
html_css_files = ["skpacbayes.css"]
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc", "sourcelink"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version", "theme-version"],
    "use_edit_page_button": False,
}
html_sidebars = {
    "index": [],
    "getting_started": [],
    "theory": [],
    "user_guide": [],
    "reproduction": [],
    "changelog": [],
    "auto_examples/*": [],  # wider code cells; the gallery index links every example
}
html_show_sourcelink = True
html_copy_source = True
