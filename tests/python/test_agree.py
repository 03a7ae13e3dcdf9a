"""The binding against the C library through the command-line tool: every method on a small
model gives the same trajectory bit for bit (the CLI's CSV is written with %.17g, which
round-trips doubles exactly), the same impact log and the same --json summary."""
import csv
import json
import subprocess

import numpy as np
import pytest

import nholo
from conftest import SRC

# a model each method can run, the first of these that it accepts; (source, step, t_end)
CANDIDATES = [
    ("skate", 0.01, 2.0),
    ("penny", 0.01, 3.0),
    ("sleigh", 0.01, 1.0),
    ("examples/pendulum_wall.nh", 0.001, 2.0),
    ("sleigh-dg", 0.01, 1.0),
]


def load(src, name):
    if name == "skate":
        path = str(src / "tests/python/skate_wall.nh")
        return nholo.load_model_file(path, backend="tape"), path
    if name.endswith(".nh"):
        path = str(src / name)
        return nholo.load_model_file(path, backend="tape"), path
    return nholo.builtin(name), name


def test_methods_without_model_refused_alike(cli, src):
    """A method none of the candidates can run (rkmk4: a rotation part, which no model the
    binding builds has) is refused by each of them with the same reason in the binding and the
    command-line tool (exit 2)."""
    missing = [m["name"] for m in nholo.methods() if not runnable(m["name"])]
    assert missing == ["rkmk4"]
    for method in missing:
        for name, _, _ in CANDIDATES:
            model, arg = load(src, name)
            why = model.supports(method)
            assert why and ("method '%s' cannot run model" % method) in why
            args = [cli, "run", arg, "--method", method, "--t-end", "1"] + (["--backend", "tape"] if arg.endswith(".nh") else [])
            p = subprocess.run(args, capture_output=True, text=True)
            assert p.returncode == 2 and p.stderr.strip() == "nholo: " + why, p.stderr


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], np.array([[float(x) for x in r] for r in rows[1:]]).reshape(len(rows) - 1, len(rows[0]))


def cli_run(cli, model_arg, method, h, t_end, tmp_path):
    out, ev = tmp_path / "traj.csv", tmp_path / "impacts.csv"
    args = [cli, "run", model_arg, "--method", method, "--dt", repr(h), "--t-end", repr(t_end), "--out", str(out),
            "--events", str(ev), "--json"]
    if model_arg.endswith(".nh"):
        args += ["--backend", "tape"]
    p = subprocess.run(args, capture_output=True, text=True)
    assert p.returncode in (0, 4), p.stderr
    return json.loads(p.stdout), read_csv(out), ev


def pick(src, method):
    for name, h, t_end in CANDIDATES:
        model, arg = load(src, name)
        if model.supports(method) is None:
            return model, arg, h, t_end
    return None


def runnable(method):
    return pick(SRC, method) is not None


@pytest.mark.parametrize("method", [m["name"] for m in nholo.methods() if runnable(m["name"])])
def test_method_agrees_bit_for_bit(cli, src, tmp_path, method):
    model, arg, h, t_end = pick(src, method)
    js, (head, rows), ev = cli_run(cli, arg, method, h, t_end, tmp_path)
    res = nholo.Simulation(model, method=method, h=h, log_limit=10000).run(t_end)
    # the CSV drops an END sample that repeats the last row
    x = res.x
    keep = np.ones(len(res.t), bool)
    if len(res.t) > 1 and res.kind[-1] == nholo.END and res.t[-1] == res.t[-2] and np.array_equal(x[-1], x[-2]):
        keep[-1] = False
    mine = np.column_stack([res.t[keep], x[keep]])
    assert head[0] == "t" and head[1:] == model.state_names
    assert mine.shape == rows.shape
    assert np.array_equal(mine, rows), "largest difference %g" % np.max(np.abs(mine - rows))
    # the summary: the same dict but for the wall time and the files the CLI wrote
    s = dict(res.summary)
    assert s["outputs"] == {} and js["outputs"] == {"trajectory": str(tmp_path / "traj.csv"),
                                                    "events": str(tmp_path / "impacts.csv")}
    for d in (s, js):
        d.pop("wall_seconds"), d.pop("outputs")
    assert s == js
    # the impact log: the CSV's rows, every value bit for bit
    if model.ngap:
        ehead, erows = read_csv_impacts(ev)
        assert len(erows) == len(res.impacts) == js["impacts"]
        for r, imp in zip(erows, res.impacts):
            assert float(r["t"]) == imp["t"]
            assert r["surface"] == model.gaps[imp["gap"]]
            for k in ("energy_before", "energy_after", "vn_before", "vn_after", "alpha"):
                assert float(r[k]) == imp[k], k
            assert [float(r[c + "_dot_after"]) for c in model.coords] == list(imp["v_after"])


def read_csv_impacts(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return (rows[0].keys() if rows else []), rows


def test_every_method_has_a_model_or_a_reason(src):
    """Only rkmk4 (models with a rotation part) lacks a test model here."""
    missing = [m["name"] for m in nholo.methods() if pick(src, m["name"]) is None]
    assert missing == ["rkmk4"]


def test_ensemble_agrees_with_cli(cli, src, tmp_path):
    path = str(src / "tests/python/skate_wall.nh")
    out = tmp_path / "ens.csv"
    p = subprocess.run([cli, "ensemble", path, "--vary", "x'=uniform:0.5:1.5", "--vary", "k=grid:0.2:0.8:3",
                        "--members", "2", "--seed", "7", "--t-end", "1", "--method", "rk4", "--dt", "0.01",
                        "--out", str(out), "--backend", "tape", "--threads", "2"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    model = nholo.load_model_file(path, backend="tape")
    ens = nholo.ensemble(model, 1.0, ["x'=uniform:0.5:1.5", "k=grid:0.2:0.8:3"], replicas=2, seed=7, threads=1,
                         method="rk4", h=0.01)
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(ens.members) == 6 and ens.stats["ok"] == 6
    for r, m in zip(rows, ens.members):
        for k, v in r.items():
            assert (m[k] == v) if k == "status" else (float(v) == float(m[k])), k
    final = np.array([[m["final_" + n] for n in model.state_names] for m in ens.members])
    assert np.array_equal(ens.stats["min"], final.min(axis=0))


def test_file_overrides_and_law_agree(cli, src, tmp_path):
    """--set and --impact on a model file: the same bits as set= and impact=."""
    path = str(src / "examples/penny.nh")
    out = tmp_path / "p.csv"
    p = subprocess.run([cli, "run", path, "--set", "a=0.2", "--set", "w0=12", "--impact", "restitution=0.7",
                        "--method", "dopri5", "--impacts", "4", "--out", str(out), "--json", "--backend", "tape"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    m = nholo.load_model_file(path, set={"a": 0.2, "w0": 12}, impact="restitution=0.7", backend="tape")
    assert m.impact_laws == ["restitution=0.69999999999999996"] * 2
    r = nholo.run(m, 100, max_impacts=4, method="dopri5")
    head, rows = read_csv(out)
    x = r.x[:-1] if r.kind[-1] == nholo.END and r.t[-1] == r.t[-2] else r.x
    t = r.t[:len(x)]
    assert np.array_equal(np.column_stack([t, x]), rows)
    js = json.loads(p.stdout)
    assert [i["energy_after"] for i in js["impact_log"]] == list(r.impacts["energy_after"])


@pytest.mark.parametrize("method,step", [("del", "auto"), ("del", "restart"), ("rk4", "auto")])
def test_summary_is_the_cli_json(cli, src, method, step):
    """Without output files the CLI's --json and Result.summary are the same dict, key for key
    and in the same order (the wall time apart), with "outputs": {} and the impact stepping
    in force (del: variational unless restart is asked for)."""
    path = str(src / "examples/pendulum_wall.nh")
    args = [cli, "run", path, "--method", method, "--dt", "0.001", "--impacts", "3", "--t-end", "50", "--json",
            "--backend", "tape"]
    if step != "auto":
        args += ["--impact-step", step]
    p = subprocess.run(args, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    js = json.loads(p.stdout)
    model = nholo.load_model_file(path, backend="tape")
    res = nholo.run(model, 50, max_impacts=3, method=method, h=0.001, impact_step=step)
    s = dict(res.summary)
    assert s["impacts"] == js["impacts"] == 3
    assert s["impact_step"] == js["impact_step"] == ("variational" if (method, step) == ("del", "auto") else "restart")
    assert s["outputs"] == js["outputs"] == {}
    s.pop("wall_seconds"), js.pop("wall_seconds")
    assert list(s.items()) == list(js.items())


def test_lyapunov_agrees_with_cli(cli, src, tmp_path):
    """nholo.lyapunov gives the numbers of `nholo lyapunov --json` and the rows of its --csv,
    bit for bit (the Sinai table's period-2 orbit: lambda = log(3 + 2 sqrt 2) / 0.5)."""
    path = str(src / "examples/sinai.nh")
    sets = {"R": 0.25, "x": 0.4, "y": 0.0, "x'": -1.0, "y'": 0.0}
    args = [cli, "lyapunov", path, "--backend", "tape", "--window", "0.5", "--transient", "5", "--t-end", "20",
            "--h-max", "0.02", "--json", "--csv", str(tmp_path / "ly.csv")]
    for k, v in sets.items():
        args += ["--set", "%s=%r" % (k, v)]
    p = subprocess.run(args, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    js = json.loads(p.stdout)
    m = nholo.load_model_file(path, backend="tape", set=sets)
    r = nholo.lyapunov(m, t_end=20, window=0.5, transient=5, h_max=0.02)
    assert {k: r[k] for k in js} == js
    assert abs(r["lambda"] - np.log(3 + 2 * np.sqrt(2)) / 0.5) < 1e-12
    head, rows = read_csv(tmp_path / "ly.csv")
    h = r["history"]
    assert head == list(h.dtype.names) and len(h) == r["windows"] == 40
    assert np.array_equal(np.column_stack([h[n].astype(float) for n in head]), rows, equal_nan=True)  # NaN: no interval yet


def test_lyapunov_contacts_as_run(src):
    """The tangent run closes contacts as a run does (issue 27): on the bouncing ball, the
    impacts (the accumulation's included) and the closing of nholo.lyapunov are those of a
    Simulation with the same method and tolerances; without contacts the impacts accumulate
    and the run stalls at the Zeno point."""
    m = nholo.load_model_file(str(src / "examples/bouncing_ball.nh"), backend="tape")
    r = nholo.lyapunov(m, t_end=100)
    s = nholo.Simulation(m, method="dop853", record=False, rtol=1e-11, atol=1e-13, h=0.0).run(t_end=100)
    closes = int(np.sum(s.contacts["kind"] == 1))  # NH_CONTACT_CLOSE
    assert r["status"] == "NH_OK" and r["impacts"] == s.stats["impacts"] == 21
    assert r["contacts"] == closes == 1
    n = nholo.lyapunov(m, t_end=3, contact=False)
    assert n["contacts"] == 0 and n["status"] == "NH_STALL" and abs(n["t_stop"] - 1.354570923) < 1e-8


def test_lyapunov_bad_input(cli, src):
    m = nholo.load_model_file(str(src / "examples/sinai.nh"), backend="tape")
    p = subprocess.run([cli, "lyapunov", str(src / "examples/sinai.nh"), "--method", "nope"], capture_output=True,
                       text=True)
    with pytest.raises(ValueError) as ei:
        nholo.lyapunov(m, method="nope")
    assert p.returncode == 2 and p.stderr == "nholo: %s\n" % ei.value
    for bad in ({"batches": 1}, {"window": 0.0}, {"x0": [0.0]}):
        with pytest.raises(ValueError):
            nholo.lyapunov(m, t_end=1, **bad)
    with pytest.raises(ValueError):
        nholo.lyapunov(m.with_force(lambda t, q, v: 0 * q), t_end=1)
