"""The ``>>>`` examples of the documentation pages run, and print what the pages say."""

import doctest
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = ["getting_started.rst", "user_guide.rst"]


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
