"""Certified number partitioning: the weight-only terms of the partition bound.

The partition bound (SPEC 4.2) is a certificate only if the partition value it uses is
exact or a certified LOWER bound (SPEC 4.3-4.4): a heuristic partition (greedy,
Karmarkar-Karp, a truncated search) is an actual subset, hence an UPPER bound, and using
it silently breaks validity. Everything here is computed in exact arithmetic:

* every float is a dyadic rational (:meth:`float.as_integer_ratio`), so the non-zero
  weights are exact Python integers times one power-of-two unit; every rounding step
  (floor scaling of the dynamic programme, the final conversion back to float) has an
  exact, provable error term and nothing depends on floating-point luck;
* lower bounds are rounded DOWN and upper bounds UP when they are converted to float.

Portfolio of :func:`certified_cstar` (all sound; chosen by size and structure):

1. trivial cases: no non-zero weight, one weight at least half of the total (this covers
   one or two non-zero weights);
2. Karmarkar-Karp differencing (exact integers) for a feasible subset (upper side) and
   the trivial lower bound ``ceil(total / 2)``; stop when they meet;
3. exact meet-in-the-middle over the distinct values (equal weights are grouped, so
   ``k`` copies of a value cost ``k + 1`` sums, not ``2**k``) when the two halves hold at
   most ``2**(max_exact_log2 / 2)`` sums each (40 non-zero weights by default, more when
   values repeat): the result is proven exact;
4. otherwise, until ``upper - lower <= rtol * total``: a complete Karmarkar-Karp search
   with a node budget (upper side); an integer DP on a decimal grid ``10**-k`` when the
   weights lie on one up to tiny residuals (e.g. weights rounded to 3 decimals); a
   floor-scaled integer subset-sum bitset DP with the exact residual term (resolution
   ``bits``); "largest 32 items exactly, the rest as slack" (all three on the lower side).

The family terms (SPEC 4.3) and the Dirichlet two-set scan of split voters (SPEC 3.6)
are built on the same machinery.
"""

from __future__ import annotations

import bisect
import heapq
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import special

__all__ = [
    "CstarCertificate",
    "PbarCertificate",
    "DirichletSplitScan",
    "certified_cstar",
    "certified_pbar",
    "cstar_lower",
    "scaled_cstar_lower",
    "scaled_pbar_lower",
    "categorical_partition_terms",
    "dirichlet_partition_terms",
    "gaussian_partition_terms",
    "dirichlet_split_c_tilde",
]

_U = Fraction(1, 2**53)  # unit roundoff of float64
BETAINC_ALLOWANCE = 1e-12  # absolute allowance for the rounding of betainc / ndtr (SPEC 3.6)
_MIN_BITS, _MAX_BITS = 4, 30
_ENUM_MAX = 20  # two-set scan: exact enumeration of the subset sums up to this support
_CAND_CAP = 1 << 18  # meet-in-the-middle: window candidates before the exact-pair search
_CKK_MAX_N = 2000  # complete KK is skipped beyond this support (KK only)
_BLOCK_FAN = 64  # two-set scan: branching factor of the block search


# ----------------------------------------------------------------------------------------
# exact conversions
# ----------------------------------------------------------------------------------------
def _round_down(q):
    """Largest float ``<= q`` (``q`` a Fraction or int)."""
    q = Fraction(q)
    try:
        f = q.numerator / q.denominator  # correctly rounded in CPython
    except OverflowError:
        return -math.inf if q < 0 else float(np.finfo(np.float64).max)
    if math.isinf(f):
        return -math.inf if f < 0 else float(np.finfo(np.float64).max)
    if Fraction(f) > q:
        f = math.nextafter(f, -math.inf)
    return f


def _round_up(q):
    """Smallest float ``>= q`` (``q`` a Fraction or int)."""
    q = Fraction(q)
    try:
        f = q.numerator / q.denominator
    except OverflowError:
        return math.inf if q > 0 else -float(np.finfo(np.float64).max)
    if math.isinf(f):
        return math.inf if f > 0 else -float(np.finfo(np.float64).max)
    if Fraction(f) < q:
        f = math.nextafter(f, math.inf)
    return f


def _nearest(q):
    """``q`` rounded to nearest, ``+-inf`` on overflow."""
    try:
        return float(q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def _as_vector(a, name, *, signed=False):
    """Validate a 1-D real vector and return it as float64 (exact for float16/32/64)."""
    arr = np.asarray(a)
    if arr.dtype.kind == "c":  # numpy would drop the imaginary part with a mere warning
        raise ValueError(f"{name} must be a 1-D array of real numbers, got complex values")
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        try:
            arr = np.asarray(a, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must be a 1-D array of real numbers") from exc
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if not signed and np.any(arr < 0):
        raise ValueError(f"{name} must be non-negative")
    return arr


def _check_bits(bits):
    if isinstance(bits, bool) or not isinstance(bits, (int, np.integer)):
        raise ValueError(f"bits must be an integer in [{_MIN_BITS}, {_MAX_BITS}], got {bits!r}")
    bits = int(bits)
    if not _MIN_BITS <= bits <= _MAX_BITS:
        raise ValueError(f"bits must be an integer in [{_MIN_BITS}, {_MAX_BITS}], got {bits}")
    return bits


def _exact_ints(x):
    """Exact integers ``w`` and exponent ``e`` with ``x[i] == w[i] * 2**-e`` (x > 0)."""
    nums, exps = [], []
    for v in x.tolist():
        n, d = v.as_integer_ratio()
        nums.append(n)
        exps.append(d.bit_length() - 1)
    e = max(exps)
    return [n << (e - k) for n, k in zip(nums, exps, strict=True)], e


def _vote_slack(n_nonzero):
    """eta = 4 (n' + 2) u: allowance for the float evaluation of the deployed vote."""
    return 4 * (n_nonzero + 2) * _U


# ----------------------------------------------------------------------------------------
# upper side: Karmarkar-Karp and complete Karmarkar-Karp (exact integers)
# ----------------------------------------------------------------------------------------
def _sides(n, edges, root):
    """2-colour the differencing forest: ``edges`` = (child, parent, parity), in creation order."""
    side = [0] * n
    side[root] = 0
    for child, parent, parity in reversed(edges):
        side[child] = side[parent] ^ parity
    return side


def _kk(w):
    """Largest differencing method. Returns ``(D, side)``: side-0 sum minus side-1 sum = D >= 0."""
    heap = [(-x, i) for i, x in enumerate(w)]
    heapq.heapify(heap)
    edges = []
    while len(heap) > 1:
        xa, ia = heapq.heappop(heap)
        xb, ib = heapq.heappop(heap)
        edges.append((ib, ia, 1))
        heapq.heappush(heap, (xa - xb, ia))
    d, root = heap[0]
    return -d, _sides(len(w), edges, root)


def _ckk(w, total, d_stop, d_best, max_nodes):
    """Complete Karmarkar-Karp (depth first, differencing branch first) with a node budget.

    Returns ``(D, side)`` of the best partition found with ``D < d_best``, or None. Stops as
    soon as ``D <= d_stop`` (nothing better can exist).
    """
    n = len(w)
    stack = [(sorted((x, i) for i, x in enumerate(w)), total, None)]
    best = None
    nodes = 0
    while stack and nodes < max_nodes:
        items, rest, chain = stack.pop()
        nodes += 1
        a, ia = items[-1]
        others = rest - a
        if a >= others:  # leaf: every remaining item goes opposite to the largest
            d = a - others
            if d < d_best:
                d_best = d
                best = (chain, ia, items[:-1])
                if d <= d_stop:
                    break
            continue
        b, ib = items[-2]
        base = items[:-2]
        s = a + b
        if not (2 * s >= rest and 2 * s - rest >= d_best):  # sum branch may still improve
            alt = base.copy()
            bisect.insort(alt, (s, ia))
            stack.append((alt, rest, (ib, ia, 0, chain)))
        bisect.insort(base, (a - b, ia))
        stack.append((base, rest - 2 * b, (ib, ia, 1, chain)))
    if best is None:
        return None
    chain, root, opposite = best
    edges = []
    while chain is not None:
        child, parent, parity, chain = chain
        edges.append((child, parent, parity))
    edges.reverse()
    edges.extend((j, root, 1) for _, j in opposite)
    return d_best, _sides(n, edges, root)


# ----------------------------------------------------------------------------------------
# lower side: bitset DP, exact meet-in-the-middle
# ----------------------------------------------------------------------------------------
def _reachable_bitset(values, limit=None):
    """Bitset (Python int) of the subset sums of non-negative ints, truncated below ``limit``.

    ``k`` copies of a value are added as the binary chunks ``1, 2, 4, ..., rest`` times the
    value (the same reachable sums, ``log k`` shifts instead of ``k``).
    """
    counts = {}
    for v in values:
        if v:
            counts[v] = counts.get(v, 0) + 1
    chunks = []
    for v, k in counts.items():
        c = 1
        while k > 0:
            take = min(c, k)
            chunks.append(take * v)
            k -= take
            c *= 2
    chunks.sort(reverse=True)
    reach = 1
    if limit is None:
        for v in chunks:
            reach |= reach << v
        return reach
    mask = (1 << limit) - 1
    for v in chunks:
        reach = (reach | (reach << v)) & mask
    return reach


def _bitset_indices(reach, dtype):
    """Sorted positions of the set bits of a Python int, as a NumPy array."""
    nbytes = (reach.bit_length() + 7) // 8
    buf = np.frombuffer(reach.to_bytes(nbytes, "little"), dtype=np.uint8)
    chunk = 1 << 20
    parts = []
    for start in range(0, buf.size, chunk):
        bits = np.unpackbits(buf[start : start + chunk], bitorder="little")
        idx = np.flatnonzero(bits)
        if idx.size:
            parts.append((idx + 8 * start).astype(dtype))
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)


def _dp_lower(w, target, bits):
    """Floor-scaled subset-sum DP: a certified lower bound on min{sum_I w >= target}.

    With ``b_i = w_i >> s`` and ``r_i = w_i - (b_i << s)``, every subset with sum
    ``>= target`` has ``sum_I b >= ceil((target - sum r) / 2**s) = A_min``; the smallest
    reachable ``sigma >= A_min`` satisfies ``sigma << s <= sum_I b << s <= sum_I w``.
    Exact when ``s == 0``. Returns ``(lower, resolution)``.
    """
    total = sum(w)
    s = max(0, total.bit_length() - bits)
    mask = (1 << s) - 1
    b = [x >> s for x in w]
    res = sum(x & mask for x in w)
    a_min = -((res - target) >> s)  # ceil((target - res) / 2**s)
    if a_min <= 0:
        return 0, res
    reach = _reachable_bitset(b, a_min + max(b))
    hi = reach >> a_min
    # the full set has a b-sum >= a_min, so some reachable sum lies in [a_min, a_min + max b)
    sigma = a_min + (hi & -hi).bit_length() - 1
    return sigma << s, res


def _grid_lower(w, target, p, q, max_sum):
    """Rounded grid DP with signed residuals: a certified lower bound, or None.

    Grid ``g = p / q`` (in units of ``w``), ``b_i = round(w_i / g)``, ``q r_i = q w_i - p b_i``.
    Every subset with sum ``>= target`` has ``p sum_I b >= q target - (positive residuals)``,
    so ``sum_I b >= A_min``; the smallest reachable ``sigma >= A_min`` gives
    ``q cstar >= p sigma - (negative residuals)``. Returns None when ``sum(b) > max_sum``.
    """
    b = [(2 * x * q + p) // (2 * p) for x in w]
    if sum(b) > max_sum:
        return None
    res = [x * q - bi * p for x, bi in zip(w, b, strict=True)]
    rpos = sum(r for r in res if r > 0)
    rneg = -sum(r for r in res if r < 0)
    a_min = -((rpos - target * q) // p)  # ceil((q target - rpos) / p)
    if a_min <= 0:
        return 0
    reach = _reachable_bitset(b, a_min + max(b))
    hi = reach >> a_min
    sigma = a_min + (hi & -hi).bit_length() - 1
    return -((rneg - p * sigma) // q)  # ceil((p sigma - rneg) / q)


def _decimal_grid(w, unit_num, unit_exp, max_sum):
    """Smallest decimal grid ``10**-k`` (real units) on which the weights nearly lie.

    ``w * unit_num / 2**unit_exp`` are the real weights. Returns ``(p, q)`` of the grid in
    units of ``w`` when the total rounding residual is below a quarter of the grid, else None.
    """
    p = 1 << unit_exp
    for k in range(0, 19):
        q = 10**k * unit_num
        b = [(2 * x * q + p) // (2 * p) for x in w]
        if sum(b) > max_sum:
            return None
        if sum(abs(x * q - bi * p) for x, bi in zip(w, b, strict=True)) * 4 < p:
            return p, q
    return None


def _groups(w):
    """Distinct values (descending) with the positions holding them."""
    pos = {}
    for i, x in enumerate(w):
        pos.setdefault(x, []).append(i)
    return sorted(pos.items(), key=lambda kv: -kv[0])


def _split_groups(groups, cap=None):
    """Assign groups to two halves so that the numbers of sums are balanced.

    Returns ``(None, None)`` as soon as both halves exceed ``cap`` sums.
    """
    halves = ([], [])
    sizes = [1, 1]
    for g in sorted(groups, key=lambda kv: -len(kv[1])):
        h = 0 if sizes[0] <= sizes[1] else 1
        halves[h].append(g)
        sizes[h] *= len(g[1]) + 1
        if cap is not None and min(sizes) > cap:
            return None, None
    return halves, sizes


def _decode(code, half):
    """Mixed-radix code of a half sum -> chosen positions."""
    chosen = []
    for _, members in half:
        code, j = divmod(code, len(members) + 1)
        chosen.extend(members[:j])
    return chosen


def _half_arrays(half, s, mask, pbits):
    """High sums of one half, sorted, with their positions and (when ``s > 0``) low sums.

    Positions are mixed-radix codes of the subsets. With ``pbits > 0`` the position rides
    in the low bits of the key (a plain sort, no argsort); this needs the high sums to fit
    in ``62 - pbits`` bits. Returns ``(hi, pos, lo)`` with ``hi`` sorted and ``lo`` indexed
    by position.
    """
    hi = np.zeros(1, dtype=np.int64)
    lo = np.zeros(1, dtype=np.int64) if s else None
    for value, members in half:
        hv, lv = value >> s, value & mask
        k = len(members)
        hi = np.concatenate([hi + j * hv for j in range(k + 1)])
        if s:
            lo = np.concatenate([lo + j * lv for j in range(k + 1)])
    if pbits:
        key = (hi << pbits) | np.arange(hi.size, dtype=np.int64)
        key.sort()
        return key >> pbits, key & ((1 << pbits) - 1), lo
    pos = np.argsort(hi)
    return hi[pos], pos, lo


def _mitm_python(halves, target):
    """Exact meet-in-the-middle on Python integers (any magnitude)."""

    def sums(half):
        table = {0: 0}
        radix_prod = 1
        for value, members in half:
            k = len(members)
            new = {}
            for j in range(k + 1):
                add, off = j * value, j * radix_prod
                for sm, code in table.items():
                    new.setdefault(sm + add, code + off)
            table = new
            radix_prod *= k + 1
        return table

    ta, tb = sums(halves[0]), sums(halves[1])
    keys_b = sorted(tb)
    best = None
    for av, acode in ta.items():
        j = bisect.bisect_left(keys_b, target - av)
        if j < len(keys_b):
            v = av + keys_b[j]
            if best is None or v < best[0]:
                best = (v, acode, tb[keys_b[j]])
    v, ca, cb = best
    return v, _decode(ca, halves[0]) + _decode(cb, halves[1])


def _mitm_pairs(halves, target, total, nitems):
    """Exact meet-in-the-middle with each sum held as an exact pair ``(hi, lo)``.

    ``value = hi * 2**s + lo`` with ``0 <= lo < 2**s`` and ``hi < 2**52``; the pair is stored
    as the complex number ``hi + 1j * lo`` (both parts exact in float64), which NumPy sorts
    and searches lexicographically. Returns None when the values do not fit (over ~98 bits).
    """
    s = max(0, total.bit_length() - 52)
    if s + nitems.bit_length() > 52:
        return None
    mask = (1 << s) - 1
    parts = []
    for half in halves:
        hi = np.zeros(1, dtype=np.int64)
        lo = np.zeros(1, dtype=np.int64)
        for value, members in half:
            hv, lv = value >> s, value & mask
            k = len(members)
            hi = np.concatenate([hi + j * hv for j in range(k + 1)])
            lo = np.concatenate([lo + j * lv for j in range(k + 1)])
        hi += lo >> s
        lo &= mask
        parts.append((hi, lo, np.sort(hi.astype(np.float64) + 1j * lo.astype(np.float64))))
    (ha, la, za), (hb, lb, zb) = parts
    za_hi, za_lo = za.real.astype(np.int64), za.imag.astype(np.int64)
    t_hi, t_lo = target >> s, target & mask
    # needles target - a (normalised), descending in a -> search reversed
    n_hi, n_lo = t_hi - za_hi[::-1], t_lo - za_lo[::-1]
    borrow = n_lo < 0
    n_lo[borrow] += 1 << s
    n_hi[borrow] -= 1
    pos = np.searchsorted(zb, n_hi.astype(np.float64) + 1j * n_lo.astype(np.float64))[::-1]
    ok = np.flatnonzero(pos < zb.size)
    b_hi, b_lo = zb.real[pos[ok]].astype(np.int64), zb.imag[pos[ok]].astype(np.int64)
    s_lo = za_lo[ok] + b_lo
    s_hi = za_hi[ok] + b_hi + (s_lo >> s)
    s_lo &= mask
    k = int(np.argmin(s_hi.astype(np.float64) + 1j * s_lo.astype(np.float64)))
    value = (int(s_hi[k]) << s) + int(s_lo[k])
    ia = int(np.flatnonzero((ha == za_hi[ok[k]]) & (la == za_lo[ok[k]]))[0])
    ib = int(np.flatnonzero((hb == b_hi[k]) & (lb == b_lo[k]))[0])
    return value, _decode(ia, halves[0]) + _decode(ib, halves[1])


def _mitm(w, target, half_cap):
    """Exact ``min{sum_I w : sum_I w >= target}`` and a minimiser, or None if too large.

    Sums are generated per half over the distinct values (mixed radix, so duplicates are
    cheap). Values are split as ``hi << s | lo`` so that the sums of both parts fit in
    int64; candidate pairs are selected on ``hi`` within a window that provably contains
    the optimum, then compared exactly on ``(hi, lo)``. Falls back to Python integers for
    extreme magnitude spreads or when the window holds too many pairs.
    """
    groups = _groups(w)
    halves, sizes = _split_groups(groups, 2 * half_cap)
    if sizes is None or sizes[0] + sizes[1] > 2 * half_cap:
        return None
    if target <= 0:
        return 0, []
    total = sum(w)
    pbits = max(1, (max(sizes) - 1).bit_length())
    if total.bit_length() + pbits <= 61:
        s = 0  # exact in one limb, positions packed into the sort keys
    else:
        s, pbits = max(0, total.bit_length() - 61), 0

    def exact_fallback():
        res = _mitm_pairs(halves, target, total, len(w))
        return res if res is not None else _mitm_python(halves, target)

    if s + len(w).bit_length() > 61:
        return exact_fallback()
    mask = (1 << s) - 1
    ha, pa, la = _half_arrays(halves[0], s, mask, pbits)
    hb, pb, lb = _half_arrays(halves[1], s, mask, pbits)
    nb = hb.size
    if s == 0:
        # for a ascending the partner threshold descends: search reversed, sorted needles
        pos = np.searchsorted(hb, target - ha[::-1], side="left")[::-1]
        ok = np.flatnonzero(pos < nb)
        vals = ha[ok] + hb[pos[ok]]
        k = int(np.argmin(vals))
        ia, ib = int(pa[ok[k]]), int(pb[pos[ok[k]]])
        value = int(vals[k])
    else:
        rmax = sum(len(m) * (v & mask) for v, m in groups)
        h_sure = -((-target) >> s)  # ceil(target / 2**s): surely feasible
        h_low = -((rmax - target) >> s)  # ceil((target - rmax) / 2**s): possibly feasible
        pos = np.searchsorted(hb, h_sure - ha[::-1], side="left")[::-1]
        ok = np.flatnonzero(pos < nb)
        m1 = int(np.min(ha[ok] + hb[pos[ok]]))
        h_cap = m1 + (-((-rmax) >> s))  # the optimum has hi-sum <= m1 + rmax / 2**s
        pos = np.searchsorted(hb, h_low - ha[::-1], side="left")[::-1].copy()
        act = np.flatnonzero(pos < nb)
        cand_a, cand_b = [], []
        count = 0
        while act.size:
            p = pos[act]
            keep = ha[act] + hb[p] <= h_cap
            act, p = act[keep], p[keep]
            if not act.size:
                break
            cand_a.append(act)
            cand_b.append(p)
            count += act.size
            if count > _CAND_CAP:
                return exact_fallback()
            pos[act] = p + 1
            act = act[pos[act] < nb]
        sa, sb = np.concatenate(cand_a), np.concatenate(cand_b)
        ca, cb = pa[sa], pb[sb]  # positions (codes) in each half
        lsum = la[ca] + lb[cb]
        hn = ha[sa] + hb[sb] + (lsum >> s)
        ln = lsum & mask
        t_hi, t_lo = target >> s, target & mask
        feas = np.flatnonzero((hn > t_hi) | ((hn == t_hi) & (ln >= t_lo)))
        order = np.lexsort((ln[feas], hn[feas]))
        k = int(feas[order[0]])
        value = (int(hn[k]) << s) + int(ln[k])
        ia, ib = int(ca[k]), int(cb[k])
    chosen = _decode(ia, halves[0]) + _decode(ib, halves[1])
    return value, chosen


# ----------------------------------------------------------------------------------------
# the solver on exact integers
# ----------------------------------------------------------------------------------------
def _solve(w, target, *, bits, max_exact_log2, rtol, max_nodes, unit=(1, 0)):
    """Certified ``min{sum_I w >= target}`` for positive ints ``w`` sorted descending.

    ``target <= ceil(sum(w) / 2)``; ``unit = (num, exp)``: the real weights are
    ``w * num / 2**exp`` (used to detect decimal grids). Returns
    ``(lower, upper, chosen, method)`` with ``lower <= optimum <= upper == sum(w[chosen])``
    and ``sum(w[chosen]) >= target``.
    """
    total = sum(w)
    top = w[0]
    if 2 * top >= total and total - top < target:
        return top, top, [0], "dominant"
    # Karmarkar-Karp: the larger side is feasible, the smaller one too when >= target
    d, side = _kk(w)

    def from_sides(d, side):
        small = (total - d) // 2
        if small >= target:
            return small, [i for i, sd in enumerate(side) if sd == 1]
        return (total + d) // 2, [i for i, sd in enumerate(side) if sd == 0]

    upper, chosen = from_sides(d, side)
    lower = target
    method = "kk"
    if upper == lower:
        return lower, upper, chosen, method
    half_cap = 1 << (max_exact_log2 // 2) if max_exact_log2 > 0 else 0
    if half_cap:
        res = _mitm(w, target, half_cap)
        if res is not None:
            value, chosen = res
            return value, value, sorted(chosen), "mitm"

    def done():
        return upper == lower or (upper - lower) <= rtol * total

    if not done() and max_nodes > 0 and len(w) <= _CKK_MAX_N:
        # the best difference that could still improve; stop when the lower bound is met
        d_stop = max(2 * lower - total, 0) if lower * 2 >= total else 0
        d_cur = 2 * upper - total if 2 * upper >= total else total - 2 * upper
        res = _ckk(w, total, d_stop, d_cur, max_nodes)
        if res is not None:
            up2, ch2 = from_sides(*res)
            if up2 < upper:
                upper, chosen, method = up2, ch2, "ckk"
    if not done():
        # weights on a decimal grid (e.g. rounded to 3 decimals): integer DP, tiny residuals
        grid = _decimal_grid(w, unit[0], unit[1], 1 << bits)
        if grid is not None:
            low2 = _grid_lower(w, target, grid[0], grid[1], 1 << bits)
            if low2 is not None and low2 > lower:
                lower, method = low2, method + "+grid"
    if not done():
        # the DP cannot resolve differences below its residual term: skip it if the gap is smaller
        s = max(0, total.bit_length() - bits)
        resolution = sum(x & ((1 << s) - 1) for x in w)
        if upper - lower > resolution:
            low2, _ = _dp_lower(w, target, bits)
            if low2 > lower:
                lower, method = low2, method + "+dp"
    if not done() and len(w) > 2:
        k = min(len(w) - 1, 32)
        eps = sum(w[k:])
        if eps < upper - lower and target - eps > 0:
            res = _mitm(w[:k], target - eps, 1 << 16)
            if res is not None and res[0] > lower:
                lower, method = res[0], method + "+top"
    return lower, upper, sorted(chosen), method


# ----------------------------------------------------------------------------------------
# public API: cstar
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class CstarCertificate:
    """Certified bracket of the partition value ``cstar(a)`` (SPEC 4.3).

    Attributes
    ----------
    lower : float
        Certified lower bound on ``cstar(a)``, rounded DOWN to float.
    upper : float
        Exact sum of ``a[subset]`` rounded UP to float (an upper bound on ``cstar(a)``).
    subset : ndarray of int
        Indices into ``a`` of a subset whose sum is ``>= threshold``; its exact sum is
        ``upper_exact``.
    exact : bool
        True when ``lower_exact == upper_exact``: the value is proven optimal. Never True
        otherwise.
    total : float
        ``sum(a)`` rounded to nearest (``total_exact`` is exact).
    lower_exact, upper_exact, total_exact : Fraction
        The same quantities in exact rational arithmetic.
    threshold : Fraction
        The constraint level ``(1/2 - relax) * total_exact`` (``total_exact / 2`` by default).
    n_nonzero : int
        Number of non-zero weights.
    min_nonzero : float
        Smallest non-zero weight (0.0 if none).
    method : str
        Which part of the portfolio settled it ("empty", "dominant", "kk", "mitm", "ckk";
        "+grid", "+dp", "+top" suffixes when the decimal-grid DP, the floor-scaled DP or
        the largest-items bound raised the lower side).

    Examples
    --------
    >>> from skpacbayes.partition import certified_cstar
    >>> cert = certified_cstar([3, 1, 1, 2, 2, 1])  # total 10: a subset summing to 5
    >>> cert.lower, cert.upper, cert.exact, cert.total
    (5.0, 5.0, True, 10.0)
    """

    lower: float
    upper: float
    subset: np.ndarray
    exact: bool
    total: float
    lower_exact: Fraction
    upper_exact: Fraction
    total_exact: Fraction
    threshold: Fraction
    n_nonzero: int
    min_nonzero: float
    method: str

    @property
    def gap(self):
        """``upper_exact - lower_exact`` (a Fraction, 0 when exact).

        Examples
        --------
        >>> from skpacbayes.partition import certified_cstar
        >>> certified_cstar([0.4, 0.35, 0.25]).gap
        Fraction(0, 1)
        """
        return self.upper_exact - self.lower_exact


def certified_cstar(a, bits=24, *, relax=0.0, max_exact_log2=None, rtol=1e-9, max_nodes=None):
    """Certified lower bound, feasible upper bound and subset for the partition value.

    ``cstar(a) = min{ sum_{i in I} a_i : sum_{i in I} a_i >= sum(a) / 2 }`` (SPEC 4.3), the
    larger side of the most balanced partition of the non-negative weights ``a``.

    Parameters
    ----------
    a : array-like of shape (n,)
        Non-negative finite weights, taken as float64 (exact for float16/32/64 input).
        Zeros are ignored. An empty vector or all zeros gives ``cstar = 0`` (the empty
        subset), reported exact.
    bits : int, default=24
        Resolution of the floor-scaled DP (the scaled total has ``bits`` bits), used only
        when the exact enumeration does not apply; 16 is fine inside heuristics, 24 for
        reported values. Both give valid lower bounds. Must lie in [4, 30].
    relax : float, default=0.0
        Certify ``min{sum_I a : sum_I a >= (1/2 - relax) sum(a)}`` instead (``relax`` is
        taken as the exact rational value of the float, ``0 <= relax < 1/2``). The family
        terms use ``relax = 4 (n' + 2) 2**-53`` so that ``c~`` stays valid when the
        deployed vote is evaluated in floating point.
    max_exact_log2 : int or None, default=None
        Exact meet-in-the-middle when the two halves hold at most
        ``2**(max_exact_log2 // 2)`` sums each (about ``max_exact_log2`` distinct non-zero
        weights). None: 40 when ``bits >= 24``, else ``max(0, 2 * bits - 8)`` (cheap
        settings for heuristics). 0 disables it.
    rtol : float, default=1e-9
        Stop improving once ``upper - lower <= rtol * sum(a)`` (the lower bound is then
        within ``rtol`` of the optimum, relative to the total).
    max_nodes : int or None, default=None
        Node budget of the complete Karmarkar-Karp search (upper side) on large supports.
        None: ``min(20000, 2_000_000 // n')`` when ``bits >= 24``, else
        ``min(1000, 100_000 // n')``; 0 disables it.

    Returns
    -------
    CstarCertificate
        ``lower <= cstar(a) <= upper`` with a subset attaining ``upper_exact``.

    Raises
    ------
    ValueError
        If ``a`` is not 1-D, contains NaN, inf or negative values, or an argument is out
        of range.

    Notes
    -----
    The non-zero weights are written exactly as integers times a common power-of-two unit
    (divided by their gcd); all bounds are exact integer computations, and the float
    fields are rounded on the safe side. The result only depends on the multiset of
    weights (permutation invariant) and scales exactly with powers of two.

    Examples
    --------
    >>> from skpacbayes.partition import certified_cstar
    >>> res = certified_cstar([0.35, 0.25, 0.2, 0.12, 0.08])
    >>> res.exact, round(res.lower, 12), sorted(res.subset.tolist())
    (True, 0.53, [1, 2, 4])
    >>> certified_cstar([10, 3, 2]).lower
    10.0
    >>> certified_cstar([]).upper
    0.0
    """
    bits = _check_bits(bits)
    arr = _as_vector(a, "a")
    relax_q = _check_relax(relax)
    if max_exact_log2 is None:
        max_exact_log2 = 40 if bits >= 24 else max(0, 2 * bits - 8)
    if not isinstance(max_exact_log2, (int, np.integer)) or max_exact_log2 < 0:
        raise ValueError("max_exact_log2 must be a non-negative integer")
    if not (isinstance(rtol, (int, float)) and math.isfinite(rtol) and rtol >= 0):
        raise ValueError("rtol must be a finite non-negative number")
    nz = np.flatnonzero(arr > 0)
    if nz.size == 0:
        zero = Fraction(0)
        return CstarCertificate(
            0.0, 0.0, np.zeros(0, dtype=np.int64), True, 0.0, zero, zero, zero, zero, 0, 0.0,
            "empty",
        )
    if max_nodes is None:
        budget = 2_000_000 if bits >= 24 else 100_000
        max_nodes = min(budget // 100, budget // int(nz.size))
    order = nz[np.argsort(-arr[nz], kind="stable")]
    w, e = _exact_ints(arr[order])
    g = math.gcd(*w)
    w = [x // g for x in w]
    total = sum(w)
    threshold = Fraction(total) * (Fraction(1, 2) - relax_q)
    target = math.ceil(threshold)
    lower, upper, chosen, method = _solve(
        w,
        target,
        bits=bits,
        max_exact_log2=int(max_exact_log2),
        rtol=Fraction(rtol),
        max_nodes=int(max_nodes),
        unit=(g, e),
    )
    unit = Fraction(g, 1 << e)
    lo_q, up_q, tot_q = lower * unit, upper * unit, total * unit
    subset = np.sort(order[np.asarray(chosen, dtype=np.int64)]) if chosen else np.zeros(0, int)
    return CstarCertificate(
        lower=_round_down(lo_q),
        upper=_round_up(up_q),
        subset=subset.astype(np.int64),
        exact=lower == upper,
        total=_nearest(tot_q),
        lower_exact=lo_q,
        upper_exact=up_q,
        total_exact=tot_q,
        threshold=threshold * unit,
        n_nonzero=int(nz.size),
        min_nonzero=float(arr[order[-1]]),
        method=method,
    )


def _check_relax(relax):
    try:
        q = Fraction(relax)
    except (TypeError, ValueError) as exc:
        raise ValueError("relax must be a number in [0, 1/2)") from exc
    if not 0 <= q < Fraction(1, 2):
        raise ValueError("relax must be a number in [0, 1/2)")
    return q


def cstar_lower(a, bits=24):
    """Certified lower bound on ``cstar(a)`` (SPEC 4.4 ``cstar_lower``), rounded down.

    Parameters
    ----------
    a : array-like of shape (n,)
        Non-negative finite weights.
    bits : int, default=24
        DP resolution (see :func:`certified_cstar`).

    Returns
    -------
    float
        Certified lower bound on ``cstar(a)``: the ``lower`` field of
        :func:`certified_cstar` (rounded down to a float).

    Examples
    --------
    >>> from skpacbayes.partition import cstar_lower
    >>> cstar_lower([0.4, 0.35, 0.25]) <= 0.6
    True
    """
    return certified_cstar(a, bits).lower


def _scaled_lower(low, t, total, n_nonzero, min_nonzero, rounded, width):
    """Shared rule of the scaled reuse: ``t L`` or its float-rounding-safe version."""
    q = _scale_factor(t)
    if q == 0 or low <= 0:
        return 0.0
    if not rounded or (_is_pow2(q) and _nearest(q * Fraction(min_nonzero)) >= 2.0**-1022):
        return max(0.0, _round_down(q * low))
    tiny = Fraction(1, 2**1074)
    if width == "cstar":
        val = q * (1 - _U) * (low - 2 * _U * total) - 4 * n_nonzero * tiny
    else:
        val = q * low - 2 * _U * q * total - 4 * n_nonzero * tiny
    return max(0.0, _round_down(val))


def scaled_cstar_lower(certificate, t, *, rounded=True):
    """Lower bound on ``cstar(t * a)`` from a certificate of ``a`` (SPEC 4.4 step 4).

    Parameters
    ----------
    certificate : CstarCertificate
        Result of :func:`certified_cstar` on ``a`` (with ``relax = 0``).
    t : float
        Scale factor, finite and ``>= 0``.
    rounded : bool, default=True
        If True, the bound also holds for the float vector ``fl(t * a)`` actually deployed
        (each product rounded to nearest, no overflow):
        ``t (1 - u) (L - 2 u S) - 4 n' 2**-1074`` with ``u = 2**-53`` and ``S = sum(a)``.
        A perturbation of the weights by ``u t a_i`` (plus ``2**-1075`` at underflow) can
        only make a subset feasible if its exact sum lies within ``2 u S`` below ``S/2``;
        then ``cstar(a) <= S/2 + u S``, so the loss is at most ``2 u S``. If False, the
        exact rule ``t * L`` for the exact product vector. When ``t`` is a power of two and
        nothing underflows both coincide (``t * L``).

    Returns
    -------
    float
        Rounded down, clipped at 0.

    Examples
    --------
    >>> from skpacbayes.partition import certified_cstar, scaled_cstar_lower
    >>> cert = certified_cstar([0.4, 0.35, 0.25])
    >>> scaled_cstar_lower(cert, 4.0) == 4 * cert.lower
    True
    >>> scaled_cstar_lower(cert, 3.0) <= 3 * cert.lower_exact
    True
    """
    if certificate.threshold * 2 != certificate.total_exact:
        raise ValueError("scaled_cstar_lower needs a certificate computed with relax=0")
    return _scaled_lower(
        certificate.lower_exact,
        t,
        certificate.total_exact,
        certificate.n_nonzero,
        certificate.min_nonzero,
        rounded,
        "cstar",
    )


def _scale_factor(t):
    if isinstance(t, bool):
        raise ValueError("t must be a finite number >= 0")
    try:
        q = Fraction(t)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError("t must be a finite number >= 0") from exc
    if q < 0:
        raise ValueError("t must be a finite number >= 0")
    return q


def _is_pow2(q):
    num, den = q.numerator, q.denominator
    return q > 0 and num & (num - 1) == 0 and den & (den - 1) == 0


# ----------------------------------------------------------------------------------------
# public API: Gaussian form
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class PbarCertificate:
    """Certified bracket of ``pbar = Dstar(|p|) = 2 cstar(|p|) - ||p||_1`` (SPEC 4.3).

    Attributes
    ----------
    lower : float
        Certified lower bound on ``pbar`` (``>= 0``), rounded DOWN.
    upper : float
        Imbalance ``|sum p_I| - |sum p_rest|`` of the partition given by ``subset``,
        rounded UP.
    subset : ndarray of int
        One side (the heavier one) of a partition attaining ``upper_exact``.
    exact : bool
        True when the value is proven optimal.
    l1 : float
        ``||p||_1`` rounded UP (the safe side for ``b~``).
    lower_exact, upper_exact, l1_exact : Fraction
        Exact values.
    n_nonzero : int
        Number of non-zero weights.
    min_nonzero : float
        Smallest non-zero ``|p_i|`` (0.0 if none).

    Examples
    --------
    >>> from skpacbayes.partition import certified_pbar
    >>> cert = certified_pbar([2.0, -1.5, 1.0, 0.5, 0.3])  # 2 + 1 = 1.5 + 0.5 + 0.3 + 0.7
    >>> cert.exact, round(cert.lower, 12), cert.subset.tolist()
    (True, 0.3, [1, 2, 4])
    """

    lower: float
    upper: float
    subset: np.ndarray
    exact: bool
    l1: float
    lower_exact: Fraction
    upper_exact: Fraction
    l1_exact: Fraction
    n_nonzero: int
    min_nonzero: float


def certified_pbar(p, bits=24, **kwargs):
    """Certified lower bound on the minimum imbalance ``pbar = Dstar(|p|)`` (Gaussian form).

    Parameters
    ----------
    p : array-like of shape (n,)
        Finite weights of any sign (their absolute values are partitioned).
    bits : int, default=24
        DP resolution, see :func:`certified_cstar`.
    **kwargs
        Passed to :func:`certified_cstar` (``max_exact_log2``, ``rtol``, ``max_nodes``).

    Returns
    -------
    PbarCertificate
        ``lower <= pbar <= upper`` with a partition (``subset``) attaining ``upper_exact``.

    Examples
    --------
    >>> from skpacbayes.partition import certified_pbar
    >>> res = certified_pbar([2.0, -1.5, 1.0, 0.5, 0.3])
    >>> res.exact, round(res.lower, 12), round(res.l1, 12)
    (True, 0.3, 5.3)
    """
    arr = np.abs(_as_vector(p, "p", signed=True))
    cert = certified_cstar(arr, bits, **kwargs)
    tot = cert.total_exact
    lo = max(Fraction(0), 2 * cert.lower_exact - tot)
    up = 2 * cert.upper_exact - tot
    return PbarCertificate(
        lower=max(0.0, _round_down(lo)),
        upper=_round_up(up),
        subset=cert.subset,
        exact=cert.exact,
        l1=_round_up(tot),
        lower_exact=lo,
        upper_exact=up,
        l1_exact=tot,
        n_nonzero=cert.n_nonzero,
        min_nonzero=cert.min_nonzero,
    )


def scaled_pbar_lower(certificate, t, *, rounded=True):
    """Lower bound on ``pbar(t * p)`` from a certificate of ``p`` (SPEC 4.4 step 4).

    Parameters
    ----------
    certificate : PbarCertificate
        Result of :func:`certified_pbar` on ``p``.
    t : float
        Scale factor, finite and ``>= 0``.
    rounded : bool, default=True
        If True, also valid for the deployed float vector ``fl(t * p)``: ``pbar`` is the
        minimum of ``|sum_i s_i |p_i||`` over signs, and each product moves by at most
        ``u |t p_i|`` (plus ``2**-1075`` at underflow), so the bound is
        ``t L - 2 u t ||p||_1 - 4 n' 2**-1074``. If False, ``t * L`` (exact product).

    Returns
    -------
    float
        Rounded down, clipped at 0.

    Examples
    --------
    >>> from skpacbayes.partition import certified_pbar, scaled_pbar_lower
    >>> cert = certified_pbar([2.0, 1.5, 1.0, 0.5, 0.3])
    >>> scaled_pbar_lower(cert, 0.5) == 0.5 * cert.lower
    True
    """
    return _scaled_lower(
        certificate.lower_exact,
        t,
        certificate.l1_exact,
        certificate.n_nonzero,
        certificate.min_nonzero,
        rounded,
        "pbar",
    )


# ----------------------------------------------------------------------------------------
# family terms (SPEC 4.3)
# ----------------------------------------------------------------------------------------
def _relaxed_cstar(arr, bits):
    """Certificate of the vote-rounding relaxed partition value of a non-negative vector.

    Only the lower side matters for ``c~``: the upper-side search (complete KK) is skipped
    below 24 bits, where these terms are evaluated many times inside heuristics.
    """
    n_nz = int(np.count_nonzero(arr))
    nodes = None if bits >= 24 else 0
    return certified_cstar(arr, bits, relax=float(_vote_slack(n_nz)), max_nodes=nodes)


def categorical_partition_terms(p, bits=24):
    """``(b~, c~)`` of a Categorical posterior: ``(0, cstar(p / sum p))`` certified (SPEC 4.3).

    Parameters
    ----------
    p : array-like of shape (n,)
        The deployed (possibly unnormalised) non-negative vote weights, exactly as the
        classifier uses them. The certified value is computed on these exact floats and
        divided by their exact total.
    bits : int, default=24
        DP resolution (16 inside heuristics, 24 for reported values).

    Returns
    -------
    b_tilde : float
        0.0.
    c_tilde : float
        Certified lower bound on ``cstar(p) / sum(p)``, rounded down.

    Raises
    ------
    ValueError
        If ``p`` has NaN/inf/negative entries or sums to 0.

    Notes
    -----
    The partition problem is solved with the threshold ``(1/2 - eta) sum(p)``,
    ``eta = 4 (n' + 2) 2**-53`` (``n'`` non-zero weights): a pattern whose exact error mass
    lies a rounding error below one half may be counted as an error by the float vote, and
    then its loss is below ``cstar``. The relaxation changes ``c~`` only in that case (by
    at most ``2 eta``).

    Examples
    --------
    >>> from skpacbayes.partition import categorical_partition_terms
    >>> b, c = categorical_partition_terms([0.35, 0.25, 0.2, 0.12, 0.08])
    >>> b, round(c, 12)
    (0.0, 0.53)
    """
    arr = _as_vector(p, "p")
    if not np.any(arr > 0):
        raise ValueError("p must have a positive sum")
    cert = _relaxed_cstar(arr, bits)
    return 0.0, min(1.0, _round_down(cert.lower_exact / cert.total_exact))


def _betainc_lower(a_up, b_down):
    """``I_{1/2}(a, b)`` at safe-side arguments, with the SPEC conventions at 0.

    ``I_x(a, 0) = 0`` (point mass at 1) and ``I_x(0, b) = 1`` (point mass at 0).
    """
    a_b, b_b = np.broadcast_arrays(
        np.atleast_1d(np.asarray(a_up, dtype=np.float64)),
        np.atleast_1d(np.asarray(b_down, dtype=np.float64)),
    )
    out = np.zeros(a_b.shape)
    zero_b = b_b <= 0
    zero_a = (a_b <= 0) & ~zero_b
    mid = ~(zero_a | zero_b)
    out[zero_a] = 1.0
    if np.any(mid):
        out[mid] = special.betainc(a_b[mid], b_b[mid], 0.5)
    return out


def dirichlet_partition_terms(alpha, bits=24):
    """``(b~, c~)`` of a Dirichlet posterior: ``(0, I_{1/2}(A - cs, cs))`` (SPEC 4.3-4.4).

    Parameters
    ----------
    alpha : array-like of shape (n,)
        Concentration parameters (finite, non-negative, positive sum; zeros are ignored).
    bits : int, default=24
        DP resolution (16 inside heuristics, 24 for reported values).

    Returns
    -------
    b_tilde : float
        0.0.
    c_tilde : float
        ``max(0, I_{1/2}(A - cs, cs) - 1e-12)`` with ``A = sum(alpha)`` and
        ``cs = min(cstar_lower(alpha), A)``; the arguments are rounded on the safe side
        (``A - cs`` up, ``cs`` down; the function decreases in its first and increases in
        its second argument) and ``1e-12`` covers the rounding of ``betainc``.

    Notes
    -----
    ``cstar`` is computed with the vote-rounding threshold of
    :func:`categorical_partition_terms`. ``cs = A`` (a single non-zero weight) gives 1.

    Examples
    --------
    >>> from skpacbayes.partition import dirichlet_partition_terms
    >>> b, c = dirichlet_partition_terms([3.5, 2.5, 2.0, 1.2, 0.8])
    >>> b, abs(c - 0.57845586414799297) < 1e-9, c <= 0.57845586414799297
    (0.0, True, True)
    """
    arr = _as_vector(alpha, "alpha")
    if not np.any(arr > 0):
        raise ValueError("alpha must have a positive sum")
    cert = _relaxed_cstar(arr, bits)
    big_a = cert.total_exact
    cs = min(cert.lower_exact, big_a)
    first = _round_up(big_a - cs)
    second = _round_down(cs)
    if first == 0.0:
        return 0.0, 1.0
    val = float(_betainc_lower(first, second)[0])
    return 0.0, min(1.0, max(0.0, val - BETAINC_ALLOWANCE))


def _phi_arg(x_q, n, direction):
    """``x / sqrt(n)`` rounded in ``direction`` (+1 up, -1 down); ``x_q`` a Fraction."""
    x = _round_up(x_q) if direction > 0 else _round_down(x_q)
    if x == 0.0:
        return 0.0
    q = x / math.sqrt(n)  # two correctly rounded operations: within 3 ulps of x / sqrt(n)
    target = math.inf if direction > 0 else -math.inf
    for _ in range(3):
        q = math.nextafter(q, target)
    return q


def gaussian_partition_terms(mean, n_voters, bits=24):
    """``(b~, c~)`` of a binary Gaussian posterior ``N(p, I)`` (SPEC 4.3).

    Parameters
    ----------
    mean : array-like of shape (n,)
        Posterior mean ``p`` (any sign, zeros allowed).
    n_voters : int
        Number of voters of the Gaussian: ALL of them, zero weights included (using the
        number of non-zero weights is unsound, SPEC 4.3). Must be ``>= len(mean)``.
    bits : int, default=24
        DP resolution (16 inside heuristics, 24 for reported values).

    Returns
    -------
    b_tilde : float
        Lower bound on ``Phi_sf(||p||_1 / sqrt(n))``.
    c_tilde : float
        Lower bound on ``Phi_cdf(pbar / sqrt(n))``, ``pbar = Dstar(|p|)``.

    Notes
    -----
    Safe-side evaluation: the arguments are bounded with exact rationals and directed
    rounding (``||p||_1`` up for ``b~``, ``pbar`` down for ``c~``, then at most 3 ulps for
    the division by ``sqrt(n)``); ``b~`` is then multiplied by ``1 - 1e-12`` (0 below
    ``1e-300``, where subnormals lose relative accuracy) and ``1e-12`` is subtracted from
    ``c~`` (rounding of ``ndtr``). At ``p = 0`` both are exactly 1/2. The deployed vote
    ``sign(p . f)`` is assumed evaluated in float64 with an error at most
    ``eta ||p||_1``, ``eta = 4 (n' + 2) 2**-53``: if ``pbar`` cannot be certified above
    that margin, ``c~ = Phi_cdf(-eta ||p||_1 / sqrt(n))`` (a hair below 1/2).

    Examples
    --------
    >>> from skpacbayes.partition import gaussian_partition_terms
    >>> b, c = gaussian_partition_terms([2.0, 1.5, 1.0, 0.5, 0.3], 5)
    >>> abs(b - 0.0088884619212144614) < 1e-9, abs(c - 0.55336358492889409) < 1e-9
    (True, True)
    >>> gaussian_partition_terms([0.0, 0.0], 2)
    (0.5, 0.5)
    """
    arr = _as_vector(mean, "mean", signed=True)
    if isinstance(n_voters, bool) or not isinstance(n_voters, (int, np.integer)):
        raise ValueError("n_voters must be an integer")
    n = int(n_voters)
    if n < max(1, arr.size):
        raise ValueError(
            f"n_voters must count ALL voters (>= len(mean) = {arr.size} and >= 1), got {n}"
        )
    cert = certified_pbar(arr, bits, max_nodes=None if bits >= 24 else 0)
    eta = _vote_slack(int(np.count_nonzero(arr)))
    margin = eta * cert.l1_exact
    x_c = cert.lower_exact if cert.lower_exact > margin else -margin
    arg_c = _phi_arg(x_c, n, -1)
    arg_b = _phi_arg(cert.l1_exact, n, +1)
    c = 0.5 if arg_c == 0.0 else max(0.0, float(special.ndtr(arg_c)) - BETAINC_ALLOWANCE)
    if arg_b == 0.0:
        b = 0.5
    else:
        v = float(special.ndtr(-arg_b))
        b = v * (1.0 - BETAINC_ALLOWANCE) if v > 1e-300 else 0.0
    return b, min(1.0, c)


# ----------------------------------------------------------------------------------------
# Dirichlet on split voters: the two-set scan (SPEC 3.6)
# ----------------------------------------------------------------------------------------
class _ScanSet:
    """Reachable scaled subset sums of one half and safe-side evaluation of ``g``.

    Every subset sum ``x`` of the weights has a ``sigma`` in ``R`` with
    ``sigma * unit <= x <= (sigma + rho) * unit``.
    """

    def __init__(self, a, bits, name):
        arr = _as_vector(a, name)
        x = arr[arr > 0]
        if x.size == 0:
            raise ValueError(f"{name} must have a positive sum")
        w, e = _exact_ints(x)
        total = sum(w)
        self.n = len(w)
        self.total_exact = Fraction(total, 1 << e)
        if not Fraction(1, 2**900) <= self.total_exact <= 2**900:
            raise ValueError(f"sum({name}) is outside the supported range [2**-900, 2**900]")
        if self.n <= _ENUM_MAX:
            s = max(0, total.bit_length() - 61)
            b = [v >> s for v in w]
            sums = np.zeros(1, dtype=np.int64)
            for v in b:
                sums = np.concatenate((sums, sums + v))
            self.R = np.unique(sums)
        else:
            s = max(0, total.bit_length() - bits)
            b = [v >> s for v in w]
            reach = _reachable_bitset(b)
            dtype = np.int32 if reach.bit_length() < 2**31 - 2 else np.int64
            self.R = _bitset_indices(reach, dtype)
        self.rho = Fraction(sum(v & ((1 << s) - 1) for v in w), 1 << s)
        self.exp = s - e  # unit = 2**exp
        self.A_up = _round_up(self.total_exact)
        self.A = _nearest(self.total_exact)

    def t_down(self, sig):
        """``sigma * unit`` rounded down (float array)."""
        sig = np.asarray(sig)
        t = np.ldexp(sig.astype(np.float64), self.exp)
        fix = (sig >= 2**53) | ((t < 2.0**-1000) & (sig > 0))
        if np.any(fix):
            t[fix] = np.nextafter(t[fix], 0.0)
        return t

    def g(self, sig):
        """Lower bounds of ``g(sigma * unit) = I_{1/2}(A - t, t)``."""
        t = self.t_down(sig)
        a = np.nextafter(np.maximum(self.A_up - t, 0.0), np.inf)
        a = np.where(self.A_up - t <= 0, 0.0, a)
        return _betainc_lower(a, t)

    def single_min(self, h):
        """``min g`` over ``sigma`` with ``(sigma + rho) unit / A >= h`` (one-set case)."""
        scale = self.A / math.ldexp(1.0, self.exp)
        thr = h * scale - float(self.rho)
        thr -= 2e-12 * scale  # covers the float evaluation of the threshold
        needle = min(max(math.ceil(thr), -1), int(self.R[-1]))
        j = int(np.searchsorted(self.R, self.R.dtype.type(needle), side="left"))
        j = min(j, self.R.size - 1)
        return float(self.g(self.R[j : j + 1])[0])


class DirichletSplitScan:
    """Reusable two-set scan for Dirichlet posteriors on split voters (SPEC 3.6).

    Builds the reachable scaled subset sums ``R_i`` of both halves once; each call of
    :meth:`c_tilde` answers one mixture weight.

    Parameters
    ----------
    alpha1, alpha2 : array-like
        Concentration parameters of the two halves (finite, non-negative, positive sums).
    bits : int, default=24
        Resolution of the floor-scaled DP for halves with more than 20 non-zero weights
        (smaller halves are enumerated at 61-bit resolution).

    Notes
    -----
    The mixture-mean vote errs iff ``mix s1/A1 + (1 - mix) s2/A2 >= 1/2`` (``s_i`` the
    erring mass of half ``i``) and then ``r = mix g1(s1) + (1 - mix) g2(s2)`` with
    ``g_i(s) = I_{1/2}(A_i - s, s)`` increasing. The scan minimises the objective with
    ``g_i`` at the lower ends ``sigma_i unit_i`` (arguments rounded on the safe side) under
    the relaxed constraint ``mix (sigma1 + rho1) u1/A1 + (1 - mix) (sigma2 + rho2) u2/A2
    >= 1/2 - eta``, ``eta = 4 (n1 + n2 + 2) 2**-53`` (the float evaluation of the vote), with
    an extra ``1e-12`` relative margin for the float evaluation of the constraint. For each
    ``sigma1`` the best ``sigma2`` is the smallest feasible one; a branch and bound over
    blocks of consecutive ``sigma1`` (the objective on a block is at least ``mix g1(first) +
    (1 - mix) g2(sigma2*(last))``) returns the exact minimum of this relaxed, lowered
    problem up to ``1e-13``. Finally ``c~ = max(0, min - 1e-13 - 1e-12)``.

    Examples
    --------
    >>> from skpacbayes.partition import DirichletSplitScan
    >>> scan = DirichletSplitScan([0.1, 0.1, 0.1], [101.0, 100.0, 100.0])
    >>> c = scan.c_tilde(0.5)
    >>> 0.3352853 < c <= 0.335285400055168
    True
    """

    def __init__(self, alpha1, alpha2, bits=24):
        bits = _check_bits(bits)
        self.sets = (_ScanSet(alpha1, bits, "alpha1"), _ScanSet(alpha2, bits, "alpha2"))
        n = self.sets[0].n + self.sets[1].n
        self.h = 0.5 - float(_vote_slack(n)) * (1 + 2**-40)  # rounded down

    def c_tilde(self, mix):
        """Certified lower bound ``c~`` for the mixture-mean vote with weight ``mix``.

        Parameters
        ----------
        mix : float
            Probability of the first half, in [0, 1].

        Returns
        -------
        float
            Certified lower bound ``c~`` in [0, 1] (the scan minimum lowered by its
            allowances).

        Examples
        --------
        >>> from skpacbayes.partition import DirichletSplitScan
        >>> scan = DirichletSplitScan([1.0, 2.0, 3.0], [2.0, 2.0])
        >>> all(0.0 <= scan.c_tilde(mix) <= 1.0 for mix in (0.0, 0.3, 1.0))
        True
        """
        if isinstance(mix, bool) or not isinstance(mix, (int, float, np.floating, np.integer)):
            raise ValueError("mix must be a number in [0, 1]")
        mix = float(mix)
        if not (math.isfinite(mix) and 0.0 <= mix <= 1.0):
            raise ValueError("mix must be a number in [0, 1]")
        s1, s2 = self.sets
        if mix == 1.0:
            best = s1.single_min(self.h)
        elif mix == 0.0:
            best = s2.single_min(self.h)
        else:
            best = self._scan(mix) - 1e-13
        return min(1.0, max(0.0, best - BETAINC_ALLOWANCE))

    def _partner(self, mix, idx1):
        """Index in ``R2`` of the smallest feasible ``sigma2`` for ``R1[idx1]`` (N2 if none)."""
        s1, s2 = self.sets
        u1, u2 = math.ldexp(1.0, s1.exp), math.ldexp(1.0, s2.exp)
        sig1 = s1.R[idx1].astype(np.float64)
        x1 = (sig1 + float(s1.rho)) * (u1 / s1.A)
        scale = s2.A / ((1.0 - mix) * u2)
        thr = (self.h - mix * x1) * scale - float(s2.rho)
        thr = thr - 2e-12 * scale  # covers the float evaluation (terms are <= ~2 scale)
        # integer needles (exact int64 comparisons); R values are below 2**62
        thr = np.clip(np.ceil(thr), -1.0, 2.0**62).astype(np.int64)
        thr = np.minimum(thr, int(s2.R[-1]) + 1).astype(s2.R.dtype)
        return np.searchsorted(s2.R, thr, side="left")

    def _objective(self, mix, idx1, j):
        s1, s2 = self.sets
        return mix * s1.g(s1.R[idx1]) + (1.0 - mix) * s2.g(s2.R[j])

    def _scan(self, mix):
        s1, s2 = self.sets
        n1, n2 = s1.R.size, s2.R.size
        best = math.inf
        tol = 1e-13
        lo = np.array([0], dtype=np.int64)
        hi = np.array([n1 - 1], dtype=np.int64)
        while lo.size:
            size = hi - lo + 1
            small = size <= _BLOCK_FAN
            if np.any(small):
                pairs = zip(lo[small], hi[small], strict=True)
                idx = np.concatenate([np.arange(a, b + 1) for a, b in pairs])
                j = self._partner(mix, idx)
                ok = j < n2
                if np.any(ok):
                    best = min(best, float(np.min(self._objective(mix, idx[ok], j[ok]))))
            lo, hi = lo[~small], hi[~small]
            if not lo.size:
                break
            # split each large block into _BLOCK_FAN sub-blocks
            steps = np.linspace(0.0, 1.0, _BLOCK_FAN + 1)
            starts = (lo[:, None] + np.floor(steps[:-1] * (hi - lo + 1)[:, None])).astype(np.int64)
            ends = np.empty_like(starts)
            ends[:, :-1] = starts[:, 1:] - 1
            ends[:, -1] = hi
            starts, ends = starts.ravel(), ends.ravel()
            keep = ends >= starts
            starts, ends = starts[keep], ends[keep]
            j_end = self._partner(mix, ends)
            feas = j_end < n2
            starts, ends, j_end = starts[feas], ends[feas], j_end[feas]
            if not starts.size:
                break
            g1_first = s1.g(s1.R[starts])
            g2_end = s2.g(s2.R[j_end])
            lower = mix * g1_first + (1.0 - mix) * g2_end
            vals = mix * s1.g(s1.R[ends]) + (1.0 - mix) * g2_end  # feasible points
            best = min(best, float(np.min(vals)))
            keep = lower < best - tol
            lo, hi = starts[keep], ends[keep]
        return best


def dirichlet_split_c_tilde(alpha1, alpha2, mix, bits=24):
    """``c~`` of the mixture-mean vote of two Dirichlet halves (SPEC 3.6 two-set scan).

    Parameters
    ----------
    alpha1, alpha2 : array-like
        Concentration parameters of the two halves.
    mix : float
        Probability of the first half, in [0, 1].
    bits : int, default=24
        DP resolution (16 inside heuristics, 24 for reported values).

    Returns
    -------
    float
        Certified lower bound on ``c*_mix`` (``b~ = 0``); see :class:`DirichletSplitScan`.

    Examples
    --------
    >>> from skpacbayes.partition import dirichlet_split_c_tilde
    >>> c = dirichlet_split_c_tilde([3.5, 2.5, 2.0], [1.2, 0.8], 0.5)
    >>> 0.4956118 < c <= 0.49561186160384742
    True
    """
    return DirichletSplitScan(alpha1, alpha2, bits).c_tilde(mix)
