"""The C compiler's budget from Python (docs/model-language.md, "The compiler's budget"):
compile_limit / compile_memory reach the loader; past the limit backend "auto" runs the tape
with a RuntimeWarning and Model.backend_note saying why, "codegen" raises; bad limits are
refused before any work."""
import shutil
import subprocess

import pytest

import nholo

# the compiler's time limit of the test (s): a chain of 32 pendulums takes a compiler a minute
LIMIT = 1


@pytest.fixture()
def chain(src, tmp_path, monkeypatch):
    if not shutil.which("cc") and not shutil.which("gcc"):
        pytest.skip("no C compiler")
    monkeypatch.setenv("NHOLO_CACHE_DIR", str(tmp_path / "cache"))
    # compiled evaluation must work in this process at all: not under a preloaded sanitizer
    # runtime (the sanitizer build's tests preload libasan, which the compiler child inherits)
    try:
        nholo.load_model_string("model small\ncoordinates x\nkinetic 1/2*x'^2\n", backend="codegen")
    except nholo.ModelError as e:
        pytest.skip("compiled evaluation is not available here: %s" % e)
    text = subprocess.run(["sh", str(src / "scripts" / "pendulum-chain.sh"), "32"], check=True,
                          capture_output=True, text=True).stdout
    path = tmp_path / "chain32.nh"
    path.write_text(text)
    return path


def test_budget_past_the_limit(chain):
    with pytest.warns(RuntimeWarning, match="exceeded its time limit"):
        m = nholo.load_model_file(chain, compile_limit=LIMIT)
    assert m.backend == "tape" and "the C compiler exceeded its time limit (1 s)" in m.backend_note
    assert "evaluation: tape (the C compiler exceeded its time limit (1 s)" in nholo.check(chain, compile_limit=LIMIT)
    with pytest.raises(nholo.ModelError, match="compiled evaluation is not available"):
        nholo.load_model_file(chain, backend="codegen", compile_limit=LIMIT)


def test_budget_defaults_and_refusals(src):
    m = nholo.load_model_file(src / "examples" / "penny.nh", backend="tape")
    assert m.backend_note == ""
    for bad in (-1, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="compile_limit"):
            nholo.load_model_file(src / "examples" / "penny.nh", compile_limit=bad)
        with pytest.raises(ValueError, match="compile_memory"):
            nholo.load_model_string("coordinates x\nkinetic 1/2*x'^2\n", compile_memory=bad)
