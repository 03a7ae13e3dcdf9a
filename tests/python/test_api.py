"""The binding's own behaviour: lists, model queries, multipliers, stepping, observers,
Python forces, set_state, logs of events and contacts, the ODE form, zero-copy inputs."""
import math

import numpy as np
import pytest

import nholo


def test_lists():
    names = [m["name"] for m in nholo.methods()]
    assert names[:3] == ["exact", "rk4", "rkmk4"] and "dopri5" in names
    assert "penny" in nholo.builtins() and nholo.impact_laws()[0] == "elastic"
    assert nholo.status_name(nholo.NH_ZENO)[0] == "NH_ZENO"


def test_model_attributes_and_energy():
    p = nholo.builtin("penny", table="ellipse", set={"theta'": 12})
    assert (p.nq, p.nc, p.ngap, p.nx) == (4, 2, 2, 8) and p.coords == ["x", "y", "theta", "phi"]
    assert p.params["a"] == 0.15 and p.v0[2] == 12 and p.default_method == "exact" and p.has_flow
    m, R, I, J = (p.params[k] for k in "mRIJ")
    E = 0.5 * (m * R * R + I) * 12 ** 2 + 0.5 * J * 0.2 ** 2
    assert abs(p.energy(p.q0, p.v0) - E) <= 1e-15 * E


def test_multipliers_solve_the_equations(src):
    """M a = -dV + A^T lambda and A a = -Adot v: the knife edge's blade force keeps A v = 0."""
    m = nholo.load_model_file(str(src / "examples/knife_edge.nh"), backend="tape")
    r = nholo.run(m, 2.0, method="rk4", h=0.01)
    lam = r.lam
    assert lam.shape == (len(r.t), 1)
    g, alpha = m.params["g"], m.params["alpha"]
    a, lam2 = m.accel(r.t, r.q, r.v)
    assert np.array_equal(lam, lam2)
    phi = r.q[:, 2]
    # x, y equations: m a = (m g sin(alpha), 0) + lambda (-sin phi, cos phi)
    assert np.allclose(a[:, 0], g * math.sin(alpha) - lam[:, 0] * np.sin(phi), atol=1e-12)
    assert np.allclose(a[:, 1], lam[:, 0] * np.cos(phi), atol=1e-12)
    # the multiplier of the blade: the force normal to it; the blade's rate equation holds
    resid = -np.sin(phi) * a[:, 0] + np.cos(phi) * a[:, 1] - r.v[:, 2] * (np.cos(phi) * r.v[:, 0] + np.sin(phi) * r.v[:, 1])
    assert np.max(np.abs(resid)) < 1e-12


def test_step_by_step_equals_run():
    m = nholo.builtin("sleigh")
    s = nholo.Simulation(m, method="rk4", h=0.01)
    ts = [s.t]
    while s.t < 0.5 - 1e-12:
        assert s.step(0.5) is False
        ts.append(s.t)
    r = nholo.Simulation(m, method="rk4", h=0.01).run(0.5)
    assert np.array_equal(s.q, r.q[-1]) and np.array_equal(np.array(ts), r.t[:len(ts)])


def test_step_stops_at_impacts():
    p = nholo.builtin("penny")
    s = nholo.Simulation(p)
    n = 0
    while n < 3:
        n += s.step()
    imp = s.impacts()
    assert len(imp) == 3 and s.t == imp["t"][-1]


def test_set_state_and_record():
    m = nholo.builtin("sleigh")
    s = nholo.Simulation(m, method="rk4", h=0.01)
    s.set_state(1.0, [0.1, 0.0, 0.0], [1.0, -1.0 * math.sin(0.1), 1.0 * math.cos(0.1)])
    r = s.run(1.1)
    assert r.t[0] == 1.0 and abs(r.t[-1] - 1.1) < 1e-12
    with pytest.raises(ValueError):
        s.set_state(0.0, [0.0, 0.0, 0.0], [1.0, 0.0, 0.0])  # violates the skate constraint
    r2 = nholo.Simulation(m, record=False, method="rk4").run(0.1)
    assert len(r2.t) == 0 and r2.stats["steps"] == 100


def test_python_force_equals_model_force(src):
    """A constant Python force on the projectile is the model's own gravity: the same bits."""
    text = (src / "examples/projectile.nh").read_text()
    m = nholo.load_model_string(text, backend="tape")
    assert m.nq == 2
    g_free = nholo.load_model_string(text, backend="tape", set={"g": 0})
    gy = m.params["g"] * m.params.get("m", 1.0)
    forced = g_free.with_force(lambda t, q, v: np.array([0.0, -gy]))
    r1 = nholo.run(m, 1.0, method="rk4", h=0.01)
    r2 = nholo.run(forced, 1.0, method="rk4", h=0.01)
    assert np.allclose(r1.q, r2.q, rtol=0, atol=1e-12)
    # a zero Python force changes nothing at all
    r3 = nholo.run(m.with_force(lambda t, q, v: np.zeros(2)), 1.0, method="rk4", h=0.01)
    assert np.array_equal(r1.q, r3.q)
    with pytest.raises(ValueError):
        nholo.ensemble(forced, 1.0, ["x=uniform:0:1"])


def test_events_and_contacts(src):
    ball = nholo.load_model_file(str(src / "examples/bouncing_ball.nh"), backend="tape")
    r = nholo.run(ball, 3.0, method="dopri5")
    assert r.impacts["status"][-1] == nholo.NH_CONTACT and abs(r.impacts["t"][-1] - 1.3545701) < 1e-6
    assert len(r.contacts) >= 1 and r.contacts["kind"][0] == 1 and r.contacts["x"].shape == (len(r.contacts), 4)
    assert abs(r.q[-1, 1]) < 1e-9 and abs(r.summary["energy_final"] - 0.045) < 1e-9


def test_impact_step():
    """del splits its step at an impact and keeps the grid (spec 003 T13); restart steps h from it."""
    text = ("model gapcradle\ncoordinates xa xb xc\nkinetic 1/2*(xa'^2 + xb'^2 + xc'^2)\n"
            "gap ab: xb - xa - 1  impact elastic\ngap bc: xc - xb - 1  impact elastic\n"
            "initial xa = -1.0537, xb = 0, xc = 1, xa' = 1\n")
    m = nholo.load_model_string(text, backend="tape")
    after = {}
    for mode in ("variational", "restart"):
        r = nholo.run(m, 0.2, method="del", h=0.01, impact_step=mode)
        assert len(r.impacts) == 1 and abs(r.impacts["t"][0] - 0.0537) < 1e-13
        assert abs(r.q[-1, 2] - 1.1463) < 1e-13 and abs(r.v[-1, 2] - 1.0) < 1e-14
        after[mode] = r.t[r.t > 0.0538][0]
    assert abs(after["variational"] - 0.06) < 1e-13 and abs(after["restart"] - 0.0637) < 1e-13


def test_ode_form_model():
    m = nholo.builtin("suslov")
    assert m.form == "ode" and m.nq == 0
    r = nholo.run(m, 1.0, method="avf", h=0.01)
    assert r.v is None and r.q.shape == (len(r.t), m.nx) and r.x is r.q and r.lam is None
    E = [m.energy_x(x) for x in r.x]
    assert max(E) - min(E) < 1e-12 * abs(E[0])


def test_almost_poisson_impacts():
    m = nholo.load_model_string("model ball_ap\nstate x y px py\nhamiltonian 1/2*(px^2 + py^2) + 9.81*y\n"
                                "poisson x px: 1\npoisson y py: 1\ngap floor: y\ninitial y = 1, px = 0.3\n")
    assert m.form == "ode" and m.ngap == 1
    r = nholo.run(m, 1.0, method="gonzalez", h=1e-3)
    imp = r.impacts
    assert len(imp) == 1 and imp["v_after"].shape == (1, 4) and imp["q"].shape == (1, 0)
    assert imp["v_after"][0][3] == pytest.approx(-imp["v_before"][0][3], rel=1e-12)
    assert imp["energy_after"][0] == pytest.approx(imp["energy_before"][0], rel=1e-14)


def test_energy_witness():
    """The energy as a witness of every method (NH_WITNESS_TOL): rk2 at h = 0.5 multiplies the
    oscillator's energy by 1 + h^4/4 a step, 22 in 200 steps: the run completes with NH_DRIFT,
    the witness named in the statistics and the summary (what `nholo run --json` prints); rk4 at
    h = 0.01 stays within the bound; with a force the energy is not judged."""
    text = "model osc\ncoordinates x\nkinetic 1/2*x'^2\npotential 1/2*x^2\ninitial x = 1\n"
    m = nholo.load_model_string(text, backend="tape")
    r = nholo.run(m, 100.0, method="rk2", h=0.5)
    st, s = r.stats, r.summary
    assert r.status_name == "NH_DRIFT" and r.t[-1] == 100.0 and st["steps"] == 200
    assert st["drift"] == "witness" and st["energy_witness"] and st["conserved_quantity"] == "none"
    assert st["energy"] / st["energy_initial"] == pytest.approx((1 + 0.5 ** 4 / 4) ** 200, rel=1e-12)
    assert st["max_energy_drift"] * st["energy_scale"] == pytest.approx(st["energy"] - st["energy_initial"], rel=1e-12)
    assert st["max_energy_drift"] > s["witness_tol"] and s["drift"] == "witness" and s["status"] == "NH_DRIFT"
    assert s["max_energy_drift"] == st["max_energy_drift"] and "conserved_initial" not in s
    r = nholo.run(m, 100.0, method="rk4", h=0.01)
    assert r.status_name == "NH_OK" and r.stats["drift"] == "none" and r.stats["max_energy_drift"] < 1e-9
    f = nholo.load_model_string(text.replace("initial", "force x: 0.1*x'\ninitial"), backend="tape")
    r = nholo.run(f, 100.0, method="rk2", h=0.5)
    assert r.status_name == "NH_OK" and not r.stats["energy_witness"] and not r.summary["energy_witness"]


def test_no_copy_input_and_vector_checks():
    p = nholo.builtin("penny")
    q = np.ascontiguousarray(p.q0)
    assert p.energy(q, p.v0) == p.energy(list(q), list(p.v0))
    with pytest.raises(ValueError):
        p.energy(q[:3], p.v0)


def test_breaks_land_exactly():
    m = nholo.builtin("sleigh")
    r = nholo.Simulation(m, method="dopri5").run(1.0, breaks=[0.123456789, 0.5])
    assert 0.123456789 in r.t and 0.5 in r.t


def test_ensemble_threads_do_not_change_results():
    m = nholo.builtin("sleigh")
    a = nholo.ensemble(m, 1.0, ["omega=uniform:0.5:1.5", "v=normal:-1:0.1"], replicas=8, seed=3, threads=1, method="rk4")
    b = nholo.ensemble(m, 1.0, ["omega=uniform:0.5:1.5", "v=normal:-1:0.1"], replicas=8, seed=3, threads=2, method="rk4")
    assert np.array_equal(a.members, b.members) and a.stats["ok"] == 8
    assert len(set(a.members["omega"])) == 8


def test_result_keeps_its_run_when_the_simulation_goes_on():
    """A result's logs and summary are read lazily, but frozen before the simulation changes."""
    sim = nholo.Simulation(nholo.builtin("penny"))
    r1 = sim.run(2.0)
    r2 = sim.run(3.0)
    assert r1.summary["t_end"] == 2.0 and r1.summary["impacts"] == 1 and len(r1.impacts) == 1
    assert r2.summary["t_end"] == 3.0 and len(r2.impacts) == 2  # the log runs since set_state
    assert r1.stats["impacts"] == 1 and r2.stats["impacts"] == 2
    assert r2.t[0] == r1.t[-1]


COUNTS = ("impacts", "steps", "rejected_steps", "evaluations", "grazing", "solver_iterations", "solver_solves",
          "solver_max_iterations")


def test_summary_types_and_values(cli):
    """The summary's counts are ints, its other numbers floats (None where the JSON has null):
    the same values as the command line's JSON (test_agree.py compares every method's) and as
    the statistics they come from."""
    import json
    import subprocess
    r = nholo.run(nholo.builtin("penny"), 100.0, max_impacts=3, out_dt=0)  # (the CLI samples only for --out)
    s = r.summary
    assert r.summary is s  # built once
    js = json.loads(subprocess.run([cli, "run", "penny", "--impacts", "3", "--t-end", "100", "--json"],
                                   capture_output=True, text=True, check=True).stdout)
    s, js = dict(s), dict(js)
    s.pop("wall_seconds"), js.pop("wall_seconds")
    assert s == js and list(s) == list(js)
    for k in COUNTS:
        assert type(s[k]) is int, k
    for k, v in s.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in COUNTS:
            assert type(v) is float, k
    st = r.stats
    assert (s["steps"], s["evaluations"], s["impacts"]) == (st["steps"], st["evals"], st["impacts"]) == \
        (js["steps"], js["evaluations"], 3)
    assert s["energy_final"] == st["energy"] and [i["t"] for i in s["impact_log"]] == list(r.impacts["t"])
    assert r.summary["wall_seconds"] == r.wall  # the run's clock
    assert nholo.run(nholo.builtin("sleigh"), 0.1, method="rk4", h=0.01, out_dt=0).summary["max_event_gap"] == 0.0
