"""The default method (method None or 'auto') chosen for the run and saying why, as the command
line does, and gni/rattle/shake's variants (issue 28)."""
import json
import subprocess

import nholo
from conftest import SRC


def test_auto_picks_gni_for_a_long_conservative_run(cli):
    """The car to T = 1000: gni (symmetric), its reason, the energy kept; the CLI agrees."""
    car = nholo.load_model_file(str(SRC / "examples" / "car.nh"))
    res = nholo.run(car, 1000.0, h=0.01)
    assert res.method == "gni" and "long run" in res.method_reason
    assert res.stats["max_energy_rel_error"] < 1e-9 and res.status_name == "NH_OK"
    p = subprocess.run([cli, "run", str(SRC / "examples" / "car.nh"), "--t-end", "1000", "--dt", "0.01", "--json"],
                       capture_output=True, text=True)
    j = json.loads(p.stdout)
    assert p.returncode == 0 and j["method"] == "gni" and j["method_reason"] == res.method_reason
    assert p.stderr == "nholo: method gni (auto): %s\n" % res.method_reason


def test_auto_short_run_and_given_method():
    """A short run: dopri5 (method='auto' as None); a given method has no reason."""
    sl = nholo.builtin("sleigh")
    assert nholo.run(sl, 10.0, method="auto").method == "dopri5"
    assert nholo.run(sl, 10.0, rtol=1e-12).method == "dop853"
    res = nholo.run(sl, 1.0, method="rk4")
    assert res.method == "rk4" and res.method_reason == ""


def test_variants():
    """The symmetric default keeps the sleigh's energy to T = 100; the paper's variant loses it
    to its period-2 mode (NH_DRIFT); an unknown variant is refused."""
    sl = nholo.builtin("sleigh")
    sym = nholo.run(sl, 100.0, method="gni", h=0.05)
    paper = nholo.run(sl, 100.0, method="gni", variant="paper", h=0.05)
    assert sym.status_name == "NH_OK" and sym.stats["max_energy_rel_error"] < 1e-11
    assert paper.status_name == "NH_DRIFT" and paper.stats["max_energy_rel_error"] > 0.5
    try:
        nholo.run(sl, 1.0, method="gni", variant="twostep")
        assert False, "an unknown variant ran"
    except ValueError as e:
        assert "--variant: unknown variant 'twostep' (expected symmetric or paper)" in str(e)


def test_start_needs_the_paper_variant():
    """start= is the paper's variant's option: without variant='paper' it is refused, saying so."""
    sl = nholo.builtin("sleigh")
    try:
        nholo.run(sl, 1.0, method="gni", start="paper")
        assert False, "start without the paper variant ran"
    except ValueError as e:
        assert "add variant='paper'" in str(e)
    assert nholo.run(sl, 1.0, method="gni", variant="paper", start="paper", h=0.05).status_name == "NH_OK"
