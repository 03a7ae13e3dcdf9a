"""The scripts of examples/python run with this build's module: each ends with exit status 0,
writes its figure (a PNG) and prints what it promises; skipped when matplotlib (or, for the
SymPy comparison, sympy and scipy) is missing."""
import importlib.util
import os
import subprocess
import sys

import pytest

import nholo

PNG = b"\x89PNG\r\n\x1a\n"


def need(*modules):
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip("needs %s" % ", ".join(missing))


def run_example(src, tmp_path, name, *args):
    env = dict(os.environ, MPLBACKEND="Agg")
    here = os.path.dirname(os.path.dirname(os.path.abspath(nholo.__file__)))
    env["PYTHONPATH"] = here + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run([sys.executable, str(src / "examples/python" / name), *args], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.mark.parametrize("name,figure,says", [
    ("penny.py", "penny.png", "elastic: 20 impacts"),
    ("sleigh.py", "sleigh.png", "rdp       250 steps"),
    ("own_model.py", "own_model.png", "steered  0 impacts on the wall")])
def test_plotting_examples(src, tmp_path, name, figure, says):
    need("matplotlib")
    out = run_example(src, tmp_path, name)
    assert says in out, out
    assert (tmp_path / figure).read_bytes()[:8] == PNG


def test_sympy_example_agrees_and_measures(src, tmp_path):
    """The SymPy + solve_ivp sleigh and nholo's model file agree (the script asserts it) and the
    speed ratio is reported."""
    need("sympy", "scipy")
    out = run_example(src, tmp_path, "sympy_sleigh.py")
    assert "times faster per run" in out, out
