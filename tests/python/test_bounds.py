"""What the binding refuses before any work, with ValueError naming the option: a horizon, step
or sample interval that is not finite or too small for the run (the library's NH_MAX_STEPS and
NH_MAX_SAMPLES, the bounds the command line refuses with), and negative counts. A refused run
leaves the simulation as it was; a run just inside a bound starts (an observer stops it at
once)."""
import math
import re
import subprocess

import pytest

import nholo

NH_MAX_STEPS = 1e11   # nholo/sim.h (the messages name and print them: compared with the CLI's below)
NH_MAX_SAMPLES = 1e8
# how far inside or outside a bound the probes sit (relative)
MARGIN = 1e-3


def sleigh():
    return nholo.builtin("sleigh")


def stop_at_start(kind, t, q, v):
    return True  # the run ends with NH_STOPPED at its first sample: it started


def bound_in(message, name):
    """The bound a message names ("more than the 1e+11 allowed (NH_MAX_STEPS)") as a number."""
    m = re.search(r"more than the ([0-9.e+]+) (?:samples )?allowed \(%s\)" % name, message)
    assert m, message
    return float(m.group(1))


def cli_refusal(cli, *args):
    p = subprocess.run([cli, *args], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stdout == "", (p.returncode, p.stderr)
    return p.stderr


@pytest.mark.parametrize("t_end", [math.inf, -math.inf, math.nan])
def test_horizon_not_finite(t_end):
    sim = nholo.Simulation(sleigh(), method="dopri5")
    with pytest.raises(ValueError, match=r"t_end = [-a-z]+ must be finite"):
        sim.run(t_end)
    assert sim.t == 0.0 and sim.stats()["steps"] == 0  # nothing ran
    with pytest.raises(ValueError, match="t_end"):
        nholo.run(sleigh(), t_end)  # (not the automatic method's horizon)
    with pytest.raises(ValueError, match="t_end"):
        nholo.ensemble(sleigh(), t_end, ["theta=uniform:0:1"])
    with pytest.raises(ValueError, match="t_end"):
        nholo.lyapunov(sleigh(), t_end=t_end)


def test_fixed_step_bound_is_the_command_lines(cli, tmp_path):
    """rk4 with h = 1e-300 to t = 1: refused by both with the same named bound."""
    with pytest.raises(ValueError) as e:
        nholo.Simulation(sleigh(), method="rk4", h=1e-300).run(t_end=1)
    mine = bound_in(str(e.value), "NH_MAX_STEPS")
    theirs = bound_in(cli_refusal(cli, "run", "sleigh", "--method", "rk4", "--dt", "1e-300", "--t-end", "1"),
                      "NH_MAX_STEPS")
    assert mine == theirs == NH_MAX_STEPS
    # the ensemble's members, before any of them runs (no output written)
    out = tmp_path / "e.csv"
    with pytest.raises(ValueError, match="NH_MAX_STEPS"):
        nholo.ensemble(sleigh(), 1.0, ["theta=uniform:0:1"], method="rk4", h=1e-300, out=str(out))
    assert not out.exists()


def test_fixed_step_bound_edges():
    """Just outside the bound refused, just inside it started; max_steps bounds a run instead."""
    t_end = 2.0
    h_in, h_out = t_end / NH_MAX_STEPS * (1 + MARGIN), t_end / NH_MAX_STEPS * (1 - MARGIN)
    with pytest.raises(ValueError, match="NH_MAX_STEPS"):
        nholo.Simulation(sleigh(), method="rk4", h=h_out, record=False).run(t_end)
    r = nholo.Simulation(sleigh(), method="rk4", h=h_in, record=False, out_dt=1.0).run(t_end, observer=stop_at_start)
    assert r.status_name == "NH_STOPPED"
    # max_steps: the run stops after that many steps, whatever h (and records a sample each)
    with pytest.raises(nholo.SimulationError) as e:
        nholo.Simulation(sleigh(), method="rk4", h=1e-300, max_steps=10).run(t_end)
    assert e.value.status_name == "NH_ERR_MAX_STEPS" and e.value.result.stats["steps"] == 10
    assert len(e.value.result.t) == 12  # START, 10 steps, END


def test_sample_bound_is_the_command_lines(cli, tmp_path):
    """Every out_dt = 1e-300 s to t = 1: refused by both with the same named bound."""
    sim = nholo.Simulation(sleigh(), out_dt=1e-300)
    with pytest.raises(ValueError) as e:
        sim.run(t_end=1)
    assert "out_dt" in str(e.value) and sim.t == 0.0
    mine = bound_in(str(e.value), "NH_MAX_SAMPLES")
    msg = cli_refusal(cli, "run", "sleigh", "--sample", "1e-300", "--t-end", "1", "--out", str(tmp_path / "x.csv"))
    assert mine == float(re.search(r"more than the ([0-9.e+]+) allowed", msg).group(1)) == NH_MAX_SAMPLES


def test_sample_bound_edges():
    """out_dt just outside refused, just inside started; without an observer or a record the
    samples are not computed and not bounded; a fixed step recorded at every step counts its
    steps as samples (the command line's --out without --sample)."""
    t_end = 3.0
    dt_in, dt_out = t_end / NH_MAX_SAMPLES * (1 + MARGIN), t_end / NH_MAX_SAMPLES * (1 - MARGIN)
    with pytest.raises(ValueError, match="NH_MAX_SAMPLES"):
        nholo.Simulation(sleigh(), method="dopri5", out_dt=dt_out, record=False).run(t_end, observer=stop_at_start)
    r = nholo.Simulation(sleigh(), method="dopri5", out_dt=dt_in).run(t_end, observer=stop_at_start)
    assert r.status_name == "NH_STOPPED" and len(r.t) == 1
    r = nholo.Simulation(sleigh(), method="dopri5", out_dt=dt_out, record=False).run(t_end)
    assert r.status_name == "NH_OK" and len(r.t) == 0
    h = t_end / NH_MAX_SAMPLES * (1 - MARGIN)
    with pytest.raises(ValueError, match="a sample each"):
        nholo.Simulation(sleigh(), method="rk4", h=h).run(t_end)


INT_OPTIONS = ["max_steps", "event_samples", "zeno_count", "contact", "project_initial", "log_limit",
               "simul_max_outcomes", "midpoint_ld", "dexp_order", "newton_max_iter"]
DOUBLE_OPTIONS = ["h", "h_max", "h_min", "rtol", "atol", "out_dt", "event_tol", "vn_tol", "zeno_interval",
                  "constraint_tol", "simul_tol", "alpha", "newton_tol", "horizon"]


@pytest.mark.parametrize("name", INT_OPTIONS)
def test_negative_count(name):
    with pytest.raises(ValueError, match=r"^%s: -1 must be >= 0$" % name):
        nholo.Simulation(sleigh(), method="rk4", **{name: -1})


@pytest.mark.parametrize("name", DOUBLE_OPTIONS)
@pytest.mark.parametrize("value", [math.inf, math.nan])
def test_option_not_finite(name, value):
    with pytest.raises(ValueError, match=r"^%s: [a-z]+ must be a finite number$" % name):
        nholo.Simulation(sleigh(), method="rk4", **{name: value})


@pytest.mark.parametrize("name", ["threads", "seed", "max_impacts"])
def test_ensemble_negative_count(name, tmp_path):
    out = tmp_path / "e.csv"
    with pytest.raises(ValueError, match=r"^%s: -5 must be >= 0$" % name):
        nholo.ensemble(sleigh(), 1.0, ["theta=uniform:0:1"], out=str(out), **{name: -5})
    assert not out.exists()


def test_run_and_lyapunov_counts():
    with pytest.raises(ValueError, match=r"^max_impacts: -1 must be >= 0$"):
        nholo.run(sleigh(), 1.0, max_impacts=-1)
    for name in ("seed", "batches"):
        with pytest.raises(ValueError, match=r"^%s: -1 must be >= 0$" % name):
            nholo.lyapunov(sleigh(), t_end=10, **{name: -1})
    for name in ("window", "transient", "rtol", "atol", "h_max"):
        with pytest.raises(ValueError, match=r"^%s: inf must be a finite number$" % name):
            nholo.lyapunov(sleigh(), t_end=10, **{name: math.inf})
