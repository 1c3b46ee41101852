"""Subset-sum search on exact integers: the two sides of the partition value.

Upper side (a feasible subset): Karmarkar-Karp differencing and the complete Karmarkar-Karp
search with a node budget. Lower side (certified): the floor-scaled bitset dynamic programme,
the decimal-grid dynamic programme and the exact meet-in-the-middle enumeration. :func:`_solve`
runs this portfolio until both sides meet or are close enough.
"""

import bisect
import heapq

import numpy as np

_CAND_CAP = 1 << 18  # meet-in-the-middle: window candidates before the exact-pair search
_CKK_MAX_N = 2000  # complete KK is skipped beyond this support (KK only)


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
