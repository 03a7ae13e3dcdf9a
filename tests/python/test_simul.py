"""Simultaneous impacts from Python (docs/simultaneous-impacts.md, issue 27 point 6): the
outcomes of an enumeration in Result.simultaneous and in the summary's impact log, the cap
simul_max_outcomes, the plastic fallbacks; the same numbers as `nholo run --json`."""
import json
import subprocess

import numpy as np
import pytest

import nholo

# five touching balls, every contact approaching: 96 elastic outcomes
MASSES = [2.9, 0.5, 3.7, 2.3, 0.8]
V0 = [0.4, 0.3, -0.6, -0.8, -1.0]
CHAIN5 = """model chain5
coordinates x1 x2 x3 x4 x5
kinetic 1/2*(%s)
gap g12: x2 - x1 - 1 impact elastic
gap g23: x3 - x2 - 1 impact elastic
gap g34: x4 - x3 - 1 impact elastic
gap g45: x5 - x4 - 1 impact elastic
initial x1 = 0, x2 = 1, x3 = 2, x4 = 3, x5 = 4, %s
""" % (" + ".join("%r*x%d'^2" % (m, i + 1) for i, m in enumerate(MASSES)),
       ", ".join("x%d' = %r" % (i + 1, v) for i, v in enumerate(V0)))
N_OUTCOMES = 96
TOL = 1e-12


@pytest.fixture()
def chain5(tmp_path):
    path = tmp_path / "chain5.nh"
    path.write_text(CHAIN5)
    return path


def test_outcomes_conserve_and_follow_the_default(chain5):
    m = nholo.load_model_file(str(chain5), backend="tape")
    mass, v0 = np.array(MASSES), np.array(V0)
    E0, P0 = 0.5 * mass @ v0 ** 2, mass @ v0
    d = nholo.run(m, 0.5)
    r = nholo.run(m, 0.5, simul_order="enumerate", simul_max_outcomes=200)
    s = r.simultaneous[0]
    assert len(r.simultaneous) == 1 and s["contacts"] == ["g12", "g23", "g34", "g45"]
    outs = s["outcomes"]
    assert len(outs) == N_OUTCOMES and not s["outcomes_truncated"] and s["fallback"] is None
    assert [o["followed"] for o in outs] == [True] + [False] * (N_OUTCOMES - 1)
    for o in outs:
        v, lam = o["velocity"], o["impulses"]
        assert abs(0.5 * mass @ v ** 2 - E0) <= TOL * E0 and abs(mass @ v - P0) <= TOL
        assert np.all(np.diff(v) >= -TOL) and np.all(lam >= 0)        # feasible, pushing
        f = np.zeros(5)                                                # M dv = sum Lambda_i dg_i
        f[:4] -= lam
        f[1:] += lam
        assert np.max(np.abs(mass * (v - v0) - f)) <= TOL
        assert set(o["sequence"]) <= set(s["contacts"])
    # outcome 0 is the default order's branch: its velocity, sequence, impulses, the run after it
    dd = d.simultaneous[0]
    assert d.simultaneous[0]["outcomes"] == [] and dd["order"] == "most-infeasible"
    assert outs[0]["sequence"] == dd["sequence"] == s["sequence"]
    assert np.array_equal(outs[0]["impulses"], dd["impulse"]) and np.array_equal(outs[0]["velocity"], d.v[-1])
    assert np.array_equal(r.q[-1], d.q[-1])
    # the summary holds the same outcomes (velocities by coordinate name, impulses by contact)
    js = r.summary["impact_log"][0]["outcomes"]
    assert len(js) == N_OUTCOMES
    for o, j in zip(outs, js):
        assert [j["velocity"][n] for n in m.coords] == list(o["velocity"])
        assert [j["impulses"][g] for g in s["contacts"]] == list(o["impulses"]) and j["sequence"] == o["sequence"]


def test_the_cap(chain5):
    m = nholo.load_model_file(str(chain5), backend="tape")
    full = nholo.run(m, 0.5, simul_order="enumerate", simul_max_outcomes=200)
    for cap in (None, 10):  # the default (64) and a smaller one
        r = nholo.run(m, 0.5, simul_order="enumerate", simul_max_outcomes=cap)
        n = cap or 64
        s = r.simultaneous[0]
        assert r.ok and s["outcomes_truncated"] and len(s["outcomes"]) == n and r.stats["simul_truncated"] == 1
        assert all(np.array_equal(a["velocity"], b["velocity"]) for a, b in zip(s["outcomes"], full.simultaneous[0]["outcomes"]))
        assert "the enumeration stopped at %d outcomes" % n in s["note"]
        assert r.summary["impact_log"][0]["outcomes_truncated"] is True
        assert np.array_equal(r.q[-1], full.q[-1])
    with pytest.raises(ValueError, match=r"simul_max_outcomes = 0 must be in \[1, 1000000\]"):
        nholo.Simulation(m, simul_max_outcomes=0)


WEDGED = """model wedged
coordinates x y
kinetic 1/2*(x'^2 + y'^2)
potential 9.81*y
gap left: x impact elastic
gap right: -x impact elastic
gap floor: y + 0.5*x impact elastic
initial x = 0, y = 1
"""


def test_opposing_contacts_fall_back(tmp_path):
    """A ball wedged between two walls lands on a tilted floor: the plastic map (spec 003 T17)
    with a note; no gap below -TOL at any sample, no energy gained, at rest in the corner."""
    path = tmp_path / "wedged.nh"
    path.write_text(WEDGED)
    m = nholo.load_model_file(str(path), backend="tape")
    r = nholo.run(m, 3.0, out_dt=1e-3)
    s = r.simultaneous[0]
    assert r.ok and s["fallback"] == "opposing-contacts" and s["law"] == "plastic" and "'left' and 'right' oppose" in s["note"]
    assert r.stats["simul_fallbacks"] >= 1
    x, y = r.q[:, 0], r.q[:, 1]
    assert min(x.min(), (-x).min(), (y + 0.5 * x).min()) >= -TOL
    E = 0.5 * (r.v ** 2).sum(axis=1) + 9.81 * y
    assert E.max() <= 9.81 * (1 + TOL) and np.abs(r.v[-1]).max() <= TOL


def test_agrees_with_the_cli(cli, chain5):
    m = nholo.load_model_file(str(chain5), backend="tape")
    r = nholo.run(m, 0.5, simul_order="enumerate", simul_max_outcomes=100)
    p = subprocess.run([cli, "run", str(chain5), "--backend", "tape", "--t-end", "0.5", "--order", "enumerate",
                        "--max-outcomes", "100", "--json"], capture_output=True, text=True, check=True)
    assert json.loads(p.stdout)["impact_log"] == r.summary["impact_log"]
