"""Errors the Python way: a faulty model file raises nholo.ModelError (a ValueError) with the
message the command-line tool prints and its file, line and column; bad options raise
ValueError or TypeError; no input crashes the interpreter (the fuzz corpus)."""
import pathlib
import subprocess

import pytest

import nholo

HERE = pathlib.Path(__file__).resolve().parent
SRC = HERE.parents[1]
BAD = sorted((SRC / "tests/modelfiles/bad").glob("*.nh"))


def cli_message(cli, *args):
    p = subprocess.run([cli, *args], capture_output=True, text=True)
    assert p.returncode == 2, p.stdout
    err = p.stderr.rstrip("\n")
    return err[len("nholo: "):] if err.startswith("nholo: ") else err


@pytest.mark.parametrize("path", BAD, ids=[p.name for p in BAD])
def test_bad_model_file_message(cli, path):
    with pytest.raises(nholo.ModelError) as ei:
        nholo.load_model_file(str(path), backend="tape")
    e = ei.value
    assert isinstance(e, ValueError)
    assert str(e) == cli_message(cli, "run", str(path), "--t-end", "0.001", "--backend", "tape")
    if e.line is not None:
        assert str(e).startswith("%s:%d:%d: error: %s" % (e.file, e.line, e.column, e.error))
        assert e.file == str(path) and e.line >= 1 and e.column >= 1
    # the same diagnostic from the text, named as the file
    with pytest.raises(nholo.ModelError) as e2:
        nholo.load_model_string(path.read_text(), filename=str(path), backend="tape")
    assert str(e2.value) == str(e)


def test_check_report_and_error(cli, src):
    path = str(src / "examples/knife_edge.nh")
    p = subprocess.run([cli, "check", path, "--backend", "tape"], capture_output=True, text=True)
    assert p.returncode == 0
    assert nholo.check(path, backend="tape") in p.stdout
    bad = str(BAD[1])
    with pytest.raises(nholo.ModelError) as ei:
        nholo.check(bad)
    assert str(ei.value) == cli_message(cli, "check", bad)


def test_missing_file(cli, tmp_path):
    path = str(tmp_path / "none.nh")
    with pytest.raises(nholo.ModelError) as ei:
        nholo.load_model_file(path)
    assert str(ei.value) == cli_message(cli, "run", path)
    assert ei.value.file == path and ei.value.line is None


def test_bad_options(cli):
    with pytest.raises(ValueError) as ei:
        nholo.builtin("penny", impact="restitution=2")
    assert str(ei.value) == cli_message(cli, "run", "penny", "--impact", "restitution=2")
    with pytest.raises(ValueError) as ei:
        nholo.builtin("nosuch")
    assert str(ei.value) == cli_message(cli, "run", "nosuch")
    with pytest.raises(ValueError) as ei:
        nholo.builtin("penny", set={"nosuch": 1})
    assert str(ei.value) == cli_message(cli, "run", "penny", "--set", "nosuch=1")
    with pytest.raises(ValueError) as ei:
        nholo.Simulation(nholo.builtin("sleigh"), method="exact")
    assert str(ei.value) == cli_message(cli, "run", "sleigh", "--method", "exact")
    with pytest.raises(ValueError) as ei:
        nholo.Simulation(nholo.builtin("penny"), method="nosuch")
    assert str(ei.value) == cli_message(cli, "run", "penny", "--method", "nosuch")
    with pytest.raises(ValueError) as ei:
        nholo.Simulation(nholo.builtin("penny"), method="gni", impact_step="variational")
    assert str(ei.value) == cli_message(cli, "run", "penny", "--method", "gni", "--impact-step", "variational")
    with pytest.raises(ValueError) as ei:
        nholo.Simulation(nholo.builtin("penny"), impact_step="sometimes")
    assert str(ei.value) == cli_message(cli, "run", "penny", "--impact-step", "sometimes")
    with pytest.raises(TypeError):
        nholo.Simulation(nholo.builtin("penny"), nosuch=1)
    with pytest.raises(ValueError):
        nholo.builtin("penny").energy([0, 0, 0], [0, 0, 0, 0])


def test_simulation_error_carries_partial_result():
    m = nholo.builtin("sleigh")
    with pytest.raises(nholo.SimulationError) as ei:
        nholo.run(m, 10.0, method="dopri5", max_steps=5)
    e = ei.value
    assert e.status == nholo.NH_ERR_MAX_STEPS and e.status_name == "NH_ERR_MAX_STEPS"
    r = e.result
    assert r.status == e.status and r.stats["steps"] == 5 and len(r.t) == 7  # START, five steps, END
    assert r.kind[0] == nholo.START and r.kind[-1] == nholo.END
    assert 0 < r.t[-1] < 10 and r.summary["status"] == "NH_ERR_MAX_STEPS"
    assert str(e).startswith("run ended with NH_ERR_MAX_STEPS")


def test_observer_stops_and_raises():
    m = nholo.builtin("sleigh")
    seen = []

    def stop_after_three(kind, t, q, v):
        seen.append((kind, t))
        return len(seen) >= 3

    r = nholo.run(m, 1.0, method="rk4", observer=stop_after_three)
    assert r.status == nholo.NH_STOPPED and len(seen) == 3 and seen[0] == (nholo.START, 0.0)
    assert [k for k, _ in seen] == [nholo.START, nholo.STEP, nholo.STEP]

    def boom(kind, t, q, v):
        raise KeyError("observer failed")

    with pytest.raises(KeyError):
        nholo.run(m, 1.0, method="rk4", observer=boom)


def test_python_force_errors():
    m = nholo.load_model_file(str(SRC / "examples/projectile.nh"), backend="tape")
    with pytest.raises(ZeroDivisionError):
        nholo.run(m.with_force(lambda t, q, v: 1 / 0), 1.0, method="rk4")
    with pytest.raises(ValueError):
        nholo.run(m.with_force(lambda t, q, v: [1.0]), 1.0, method="rk4")


def test_fuzz_corpus_raises_only_exceptions():
    """Every input the fuzzer kept: a model or an exception, never a crash."""
    files = sorted((SRC / "tests/fuzz/corpus").iterdir())
    assert len(files) > 100
    built = failed = 0
    for f in files:
        data = f.read_bytes()
        for load in (lambda: nholo.load_model_string(data.decode("utf-8", "replace"), filename=f.name, backend="tape"),
                     lambda: nholo.load_model_file(str(f), backend="tape")):
            try:
                m = load()
                built += 1
                if m.form == "mechanical":
                    m.energy(m.q0, m.v0)
            except (ValueError, nholo.SimulationError):
                failed += 1
    assert failed > 0 and built + failed == 2 * len(files)


def test_reentrant_run_is_refused():
    """An observer that runs its own simulation again gets RuntimeError, not a crash."""
    sim = nholo.Simulation(nholo.builtin("sleigh"), method="rk4")

    def again(kind, t, q, v):
        sim.run(1.0)

    with pytest.raises(RuntimeError):
        sim.run(0.1, observer=again)
    assert sim.run(0.2).status == nholo.NH_OK  # usable afterwards


@pytest.mark.parametrize("model,vary", [
    ("penny", ["x=uniform:1"]), ("penny", ["x=beta:1:2"]), ("penny", ["x=normal:0:-1"]),
    ("penny", ["zz=uniform:0:1"]), ("sleigh", ["omega=uniform:0:1", "zz=grid:0:1:3"]),
    ("penny", ["x=uniform:0:1", "x=grid:0:1:2"]), ("tests/python/skate_wall.nh", ["nosuch=uniform:0:1"])])
def test_ensemble_bad_input(cli, src, model, vary):
    """A distribution that does not parse, a name the model does not have, a name varied twice:
    ValueError with the message `nholo ensemble` prints, before any member runs."""
    arg = str(src / model) if model.endswith(".nh") else model
    m = nholo.load_model(arg, backend="tape") if model.endswith(".nh") else nholo.builtin(model)
    args = ["ensemble", arg, "--t-end", "0.1", "--members", "2"]
    for v in vary:
        args += ["--vary", v]
    with pytest.raises(ValueError) as ei:
        nholo.ensemble(m, 0.1, vary, replicas=2)
    assert str(ei.value) == cli_message(cli, *args)


def test_input_edges(src, tmp_path):
    """As the command line (tests/test_cli_edges.sh): a byte-order mark is not text, a bad
    override is named as one, a force that is not finite at the initial state is refused where
    it is written, a NaN initial energy is said to be NaN, an ensemble's output name says its
    format."""
    text = (src / "examples/pendulum_wall.nh").read_text()
    plain = nholo.load_model_string(text, backend="tape")
    bom = nholo.load_model_string("\ufeff" + text, backend="tape")
    assert bom.params == plain.params and list(bom.q0) == list(plain.q0)
    (tmp_path / "bom.nh").write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert nholo.load_model_file(str(tmp_path / "bom.nh"), backend="tape").params == plain.params
    with pytest.raises(nholo.ModelError) as e:
        nholo.load_model_string(text, filename="w.nh", set={"e": 2}, backend="tape")
    assert e.value.error == "coefficient of restitution 2 is outside [0, 1] (from --set e=2)" and e.value.line == 18
    with pytest.raises(nholo.ModelError) as e:
        nholo.load_model_string("model f\ncoordinates x\nkinetic 0.5*x'^2\nforce x: 0/0\ninitial x = 0, x' = 1\n",
                                backend="tape")
    assert e.value.line == 4 and e.value.error.startswith("the force on 'x' is NaN at the initial state")
    m = nholo.load_model_string("model n\ncoordinates x\nkinetic 0.5*x'^2\npotential sqrt(x - 2)\n"
                                "initial x = 0, x' = 1\n", backend="tape")
    with pytest.raises(ValueError, match="the energy at the initial state is NaN"):
        nholo.Simulation(m)
    for name in ("e.txt", "e"):
        with pytest.raises(ValueError, match="the name says the format"):
            nholo.ensemble(nholo.builtin("sleigh"), 1.0, ["theta=uniform:0:1"], out=str(tmp_path / name))
        assert not (tmp_path / name).exists()
