"""Reference vectors for skpacbayes.bounds (rel 1e-9, abs 1e-12).

The expected values are independent references computed with mpmath at 50 digits; the
reference vectors in ``tests/data/test_vectors.json`` hold the same values, and one test checks
the two copies against each other.
"""

import json
import math
from pathlib import Path

import pytest
import scipy.special

from skpacbayes.bounds import (
    binomial_bound,
    binomial_tail,
    cbound_bound,
    cbound_pb2,
    cross_bound,
    first_order_bound,
    kl_inv_lower,
    kl_inv_upper,
    pac_bayes_lower,
    pac_bayes_upper,
    partition_bound,
    second_order_bound,
    single_hypothesis_triple_bound,
    vc_bound,
)

VECTORS_JSON = Path(__file__).resolve().parent / "data" / "test_vectors.json"


def close(got, expected, rel=1e-9, abs_=1e-12):
    return got == pytest.approx(expected, rel=rel, abs=abs_)


# --- scalars (embedded copy of the shared reference vectors, so a clean clone runs them) ----
KL_INV_UPPER = [
    (0.0, 0.1, 0.095162581964040432),
    (0.1, 0.05, 0.22007860110692463),
    (0.5, 0.01, 0.57035859345745319),
    (0.9, 1.0, 0.99999824108585727),
    (1.0, 0.3, 1.0),
    (0.3, 0.0, 0.29999999999999999),
    (0.2, 10.0, 0.99999800626846319),
    (1e-06, 0.001, 0.001007408366891592),
    (0.02, 0.0123, 0.050248203725217105),
    (0.999, 0.5, 1.0),
]
KL_INV_LOWER = [
    (0.1, 0.05, 0.031278396272279367),
    (0.5, 0.01, 0.42964140654254681),
    (1.0, 0.3, 0.74081822068171787),
    (0.0, 0.3, 0.0),
    (0.3, 2.0, 0.00016617098953348462),
    (0.75, 0.0, 0.75),
]
SEEGER = [
    (0.1, 5.0, 1000, 0.05, 0.15310962819518742),
    (0.0, 0.0, 100, 0.05, 0.058155079116972268),
    (0.25, 12.3, 500, 0.01, 0.3859069952450592),
    (0.05, 100.0, 60000, 0.05, 0.064249207444832048),
]


@pytest.mark.parametrize(("q", "eps", "expected"), KL_INV_UPPER)
def test_kl_inv_upper_vectors(q, eps, expected):
    assert close(kl_inv_upper(q, eps), expected)


@pytest.mark.parametrize(("q", "eps", "expected"), KL_INV_LOWER)
def test_kl_inv_lower_vectors(q, eps, expected):
    assert close(kl_inv_lower(q, eps), expected)


@pytest.mark.parametrize(("emp", "kl", "m", "delta", "expected"), SEEGER)
def test_seeger_vectors(emp, kl, m, delta, expected):
    assert close(pac_bayes_upper(emp, kl, m, delta), expected)


# --- all bounds on a fixed error table (delta = 0.05, m = 1000, n = 5) -----------------------
M, DELTA, N_VOTERS = 1000, 0.05, 5
TABLE = {
    "categorical": {
        "emp_gibbs": 0.1682,
        "emp_tandem": 0.093063,
        "emp_disagreement": 0.150274,
        "det_emp_risk": 0.105,
        "KL": 0.11704908020409909,
        "FO": 0.43272290161228625,
        "SO": 0.52925765724660016,
        "Bin_N3_emp": 0.14754944,
        "Bin_N3": 0.38876070273855418,
        "Bin_N100_emp": 0.10967906653975367,
        "Bin_N100": 0.35970160693074741,
        "VC": 0.30334149684373614,
        "part_L_up": 0.21636145080614312,
        "part_b": 0.0,
        "part_c": 0.53,
        "partition_bound": 0.40822915246442099,
        "CBound_PB1": 0.59568045745537553,
        "CB_G_up": 0.21875209294318177,
        "CB_d_low": 0.10872341353566698,
    },
    "dirichlet": {
        "emp_gibbs": 0.12566718356696722,
        "emp_tandem": 0.0925520052273886,
        "emp_disagreement": 0.066230356679157236,
        "det_emp_risk": 0.105,
        "KL": 1.1832732748856333,
        "FO": 0.34499165910200085,
        "SO": 0.55049498024065045,
        "Bin_N3_emp": 0.11556135308755024,
        "Bin_N3": 0.33532546212609806,
        "Bin_N100_emp": 0.10513938773907553,
        "Bin_N100": 0.63346059462452085,
        "VC": 0.30334149684373614,
        "part_L_up": 0.17249582955100042,
        "part_b": 0.0,
        "part_c": 0.57845586414799297,
        "partition_bound": 0.29820050282499832,
    },
    "gauss_binary": {
        "emp_gibbs": 0.1524839013636861,
        "emp_tandem": 0.097250443284460912,
        "emp_disagreement": 0.11046691615845038,
        "det_emp_risk": 0.105,
        "KL": 3.795,
        "FO": 0.42103013135633333,
        "SO": 0.62347628232646808,
        "Bin_N3_emp": 0.13201287882605386,
        "Bin_N3": 0.41172777756608573,
        "Bin_N100_emp": 0.10913218311118744,
        "Bin_N100": 1.0,
        "VC": 0.30334149684373614,
        "part_L_up": 0.21051506567816666,
        "part_b": 0.0088884619212144614,
        "part_c": 0.55336358492889409,
        "partition_bound": 0.3703137117508091,
    },
}


def _bounds_from_stats(s):
    kl = s["KL"]
    out = {
        "FO": first_order_bound(s["emp_gibbs"], kl, M, DELTA),
        "SO": second_order_bound(s["emp_tandem"], kl, M, DELTA),
        "Bin_N3": binomial_bound(s["Bin_N3_emp"], kl, M, DELTA, 3),
        "Bin_N100": binomial_bound(s["Bin_N100_emp"], kl, M, DELTA, 100),
        "VC": vc_bound(s["det_emp_risk"], N_VOTERS, M, DELTA),
        "part_L_up": pac_bayes_upper(s["emp_gibbs"], kl, M, DELTA),
        "partition_bound": partition_bound(s["emp_gibbs"], kl, M, DELTA, s["part_b"], s["part_c"]),
        "CBound_PB1": cbound_bound(s["emp_gibbs"], s["emp_disagreement"], kl, M, DELTA),
        "CB_G_up": pac_bayes_upper(s["emp_gibbs"], kl, M, DELTA / 2),
        "CB_d_low": pac_bayes_lower(s["emp_disagreement"], 2 * kl, M, DELTA / 2),
    }
    return {k: v for k, v in out.items() if k in s}


@pytest.mark.parametrize("family", sorted(TABLE))
def test_error_table_bounds(family):
    s = TABLE[family]
    got = _bounds_from_stats(s)
    assert len(got) == (10 if "CBound_PB1" in s else 7)
    for name, value in got.items():
        assert close(value, s[name]), (family, name, value, s[name])


def test_error_table_json_copy():
    """Same check against the machine-readable reference vectors (``tests/data``)."""
    vectors = json.loads(VECTORS_JSON.read_text())["vectors"]
    families, checked = {}, 0
    for v in vectors:
        group, expected = v["group"], float(v["expected"])
        if group.startswith("bounds/"):
            families.setdefault(group[len("bounds/") :], {})[v["inputs"]] = expected
        elif group in ("kl_inv_upper", "kl_inv_lower"):
            fn = kl_inv_upper if group == "kl_inv_upper" else kl_inv_lower
            assert close(fn(**v["inputs"]), expected), v
            checked += 1
        elif group == "seeger":
            i = v["inputs"]
            assert close(pac_bayes_upper(i["emp"], i["KL"], i["m"], i["delta"]), expected), v
            checked += 1
    assert checked == 20
    for family, stats in families.items():
        for name, value in _bounds_from_stats(stats).items():
            assert close(value, stats[name]), (family, name)
            checked += 1
    assert checked == 20 + 3 * 7 + 3


# --- the cross bound of split voters (theory page, 'Split voters') ---------------------------
# (q1, q2, KL1, KL2, m, j, alpha, delta, expected); q1 is evaluated on m - j points.
CROSS_SAFE = [
    (0.12, 0.15, 3, 4, 2000, 1000, 0.5, 0.05, 0.191708398098),
    (0.12, 0.15, 3, 4, 2000, 600, 0.3, 0.05, 0.209454259539),
    (0.12, 0.15, 40, 0, 2000, 1000, 0.9, 0.05, 0.238540828697),
]


@pytest.mark.parametrize(
    ("q1", "q2", "kl1", "kl2", "m", "j", "alpha", "delta", "expected"), CROSS_SAFE
)
def test_cross_bound_safe_vectors(q1, q2, kl1, kl2, m, j, alpha, delta, expected):
    got = cross_bound(q1, q2, kl1, kl2, m - j, j, alpha, delta)
    assert close(got, expected, rel=1e-10, abs_=1e-11)
    # the same statement through the generic pac_bayes_upper
    same = pac_bayes_upper([q1, q2], [kl1, kl2], [m - j, j], delta, weights=[alpha, 1 - alpha])
    assert same == pytest.approx(got, rel=1e-15)


def test_cross_bound_paper_vector():
    got = cross_bound(0.12, 0.15, 3, 4, 1000, 1000, 0.5, 0.05, mode="paper")
    assert close(got, 0.185533086691, rel=1e-10, abs_=1e-11)


def test_single_hypothesis_vector():
    d = 0.05 / 3
    value = single_hypothesis_triple_bound(0.2, 0.1, 0.6, 2.0, 1000, 800, 200, (d, d, d))
    log_term = 2.0 + math.log(2 * math.sqrt(1000) / d)
    l_up = kl_inv_upper(0.2, log_term / 1000)
    b_t = kl_inv_lower(0.1, log_term / 800)
    c_t = kl_inv_lower(0.6, log_term / 200)
    assert close(l_up, 0.261097739516, rel=1e-10, abs_=1e-11)
    assert close(b_t, 0.058821928013, rel=1e-10, abs_=1e-11)
    assert close(c_t, 0.440458419401, rel=1e-10, abs_=1e-11)
    assert close(value, 0.530022196692, rel=1e-10, abs_=1e-11)
    assert value == pytest.approx((l_up - b_t) / (c_t - b_t), rel=1e-14)


@pytest.mark.parametrize(
    ("g", "d", "kl", "m", "expected"),
    [
        (0.2, 0.3, 2.0, 1000, 0.3606426842),
        (0.15, 0.2, 0.5, 5000, 0.2616092558),
    ],
)
def test_cbound_pb2_vectors(g, d, kl, m, expected):
    value = cbound_pb2(g, d, kl, m, 0.05, tol=1e-6)
    # never below the supremum (expected is given to 10 digits), within the tolerance
    assert expected - 1e-10 <= value <= expected + 1e-6
    assert value == pytest.approx(expected, rel=2e-6)


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (1, 0.5),
        (2, 0.75),
        (3, 0.5),
        (4, 0.6875),
        (10, 0.6230),
        (100, 0.5398),
    ],
)
def test_binomial_threshold_vector(n, expected):
    got = binomial_tail(0.5, n)
    assert got == pytest.approx(expected, abs=5e-5)
    assert got >= 0.5 - 1e-15  # the factor 2 needs P(Bin(N, 1/2) >= ceil(N/2)) >= 1/2
    k = math.ceil(n / 2)
    assert got == pytest.approx(scipy.special.betainc(k, n - k + 1, 0.5), rel=1e-12)
