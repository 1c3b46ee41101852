#!/usr/bin/env bash
# Build the HTML documentation from a clean state, warnings treated as errors.
#
# Needs the package and the `docs` extra in the active environment:
#     pip install -e ".[docs]"
# Usage (from anywhere):  docs/build.sh [extra sphinx options]
# Output: docs/_build/html/index.html. The build is offline (no intersphinx, embedded data).
set -euo pipefail
cd "$(dirname "$0")"
export MPLBACKEND=Agg
# Keep torch (used by the examples) from oversubscribing small CI runners.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"
make clean
start=$(date +%s)
make html SPHINXOPTS="${*:-}"
echo "docs built in $(( $(date +%s) - start )) s"
# Offline reading: every script a page loads must be local (MathJax included).
if grep -rlE '<script[^>]+src="(https?:)?//' _build/html --include='*.html' | head -5 | grep .; then
    echo "pages above load a script from the network: the docs must read offline" >&2
    exit 1
fi
test -f _build/html/_static/mathjax/tex-chtml.js || { echo "MathJax was not copied into _static" >&2; exit 1; }
