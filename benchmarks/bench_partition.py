"""Speed and tightness of the certified partition solver (``skpacbayes.partition``).

For n in {10, 20, 40, 60, 100, 200, 1000} and three families of weight vectors

* ``dense``   : uniform(0, 1) weights normalised to sum 1,
* ``sparse``  : the same with 90 % zeros (exactly ``max(1, n // 10)`` non-zero weights),
* ``rounded`` : uniform(0, 1) weights rounded to 3 decimals (``np.round(u, 3)``),

prints the median wall time of :func:`certified_cstar` (bits = 24), the median and the
maximum relative gap ``(upper - lower) / total`` and how many results are proven exact.

Targets: exact for every input with at most 40 non-zero weights; n = 200 dense: gap at
most 1e-6 of the total and median <= 50 ms; n = 200 sparse: exact, median <= 5 ms;
n = 1000 dense: at most 1 s.

``--validate N`` additionally runs N random cases (n <= 14, adversarial families, several
solver settings) against an exact brute force and reports the violations (target: 0).

Usage::

    python benchmarks/bench_partition.py [--reps 9] [--sizes 10 20 40 ...] [--validate 10000]
"""

import argparse
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

try:
    from skpacbayes.partition import categorical_partition_terms, certified_cstar
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from skpacbayes.partition import categorical_partition_terms, certified_cstar


def family(name, n, rng):
    u = rng.random(n)
    if name == "dense":
        return u / u.sum()
    if name == "sparse":
        a = np.zeros(n)
        idx = rng.choice(n, size=max(1, n // 10), replace=False)
        a[idx] = u[idx]
        return a / a.sum()
    if name == "rounded":
        return np.round(u, 3)
    raise ValueError(name)


def bench(sizes, reps, seed, bits):
    rng = np.random.default_rng(seed)
    print(f"certified_cstar, bits={bits}, {reps} inputs per cell (median time over inputs)")
    header = (
        f"{'family':8s} {'n':>5s} {'nnz':>5s} {'median ms':>10s} {'max ms':>9s} "
        f"{'median gap':>11s} {'max gap':>10s} {'exact':>6s}  methods"
    )
    print(header)
    print("-" * len(header))
    rows = []
    for fam in ("dense", "sparse", "rounded"):
        for n in sizes:
            times, gaps, exact, nnz, methods = [], [], 0, [], set()
            for _ in range(reps):
                a = family(fam, n, rng)
                certified_cstar(a[:3], bits)  # warm caches
                t0 = time.perf_counter()
                res = certified_cstar(a, bits)
                times.append(time.perf_counter() - t0)
                tot = res.total_exact
                gaps.append(float(res.gap / tot) if tot else 0.0)
                exact += res.exact
                nnz.append(res.n_nonzero)
                methods.add(res.method)
            row = (
                fam,
                n,
                int(np.median(nnz)),
                1e3 * statistics.median(times),
                1e3 * max(times),
                statistics.median(gaps),
                max(gaps),
                exact,
            )
            rows.append(row)
            print(
                f"{fam:8s} {n:5d} {row[2]:5d} {row[3]:10.2f} {row[4]:9.2f} "
                f"{row[5]:11.2e} {row[6]:10.2e} {exact:3d}/{reps:<2d}  {','.join(sorted(methods))}"
            )
            sys.stdout.flush()
    return rows


def _brute(a):
    vals = [Fraction(float(x)) for x in a if x > 0]
    total = sum(vals)
    sums = {Fraction(0)}
    for v in vals:
        sums |= {s + v for s in sums}
    return min(s for s in sums if 2 * s >= total)


def _adversarial(rng):
    n = int(rng.integers(1, 15))
    kind = int(rng.integers(0, 8))
    if kind == 0:
        a = rng.random(n)
    elif kind == 1:
        a = np.full(n, rng.random())
    elif kind == 2:
        a = rng.random(n)
        a[0] = a[1:].sum() * rng.choice([1.0, 1.0 + 1e-12, 0.999])
    elif kind == 3:
        a = rng.random(n) * 10.0 ** rng.integers(-40, 40, n)
    elif kind == 4:
        a = rng.random(n)
        a[rng.random(n) < 0.6] = 0.0
    elif kind == 5:
        a = rng.choice(rng.random(3), n)
    elif kind == 6:
        a = rng.random(n).astype(np.float32).astype(np.float64)
    else:
        a = rng.integers(0, 6, n).astype(np.float64)
    return a


def validate(cases, seed):
    """Random cases against the exact brute force: lower <= cstar <= upper, flags, subsets."""
    rng = np.random.default_rng(seed)
    violations = 0
    t0 = time.perf_counter()
    settings = (
        {},
        {"bits": 16},
        {"max_exact_log2": 0, "rtol": 0.0},
        {"max_exact_log2": 0, "bits": 8, "max_nodes": 0, "rtol": 0.0},
    )
    for i in range(cases):
        a = _adversarial(rng)
        exact = _brute(a)
        for kw in settings:
            res = certified_cstar(a, **kw)
            sub = sum((Fraction(float(a[j])) for j in res.subset), Fraction(0))
            ok = (
                res.lower_exact <= exact <= res.upper_exact
                and Fraction(res.lower) <= res.lower_exact
                and Fraction(res.upper) >= res.upper_exact
                and sub == res.upper_exact
                and (not res.exact or res.lower_exact == exact)
            )
            if not ok:
                violations += 1
                print("VIOLATION", a.tolist(), kw, res)
        if a.sum() > 0:
            _, c = categorical_partition_terms(a)
            if Fraction(c) > exact / sum(Fraction(float(x)) for x in a):
                violations += 1
                print("VIOLATION c~", a.tolist(), c)
        if (i + 1) % 2000 == 0:
            print(f"  {i + 1} cases, {violations} violations, {time.perf_counter() - t0:.0f} s")
    print(f"validation: {cases} cases x {len(settings)} settings, {violations} violations")
    return violations


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 20, 40, 60, 100, 200, 1000])
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--bits", type=int, default=24)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--validate", type=int, default=0, metavar="N")
    args = parser.parse_args(argv)
    bench(args.sizes, args.reps, args.seed, args.bits)
    if args.validate:
        return 1 if validate(args.validate, args.seed + 1) else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
