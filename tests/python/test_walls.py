"""Never through a wall, from Python (docs/contact.md "Never through a wall"): a stack of three
balls dropped on a floor, whose floor and middle contact cross in one step, ends at rest with
every gap >= -tol at every sample and impact; the status names of the guard exist; the summary's
max_event_gap is the deepest gap seen."""
import numpy as np
import pytest

import nholo

STACK3 = """model stack3
coordinates y1 y2 y3
parameter g = 9.81
parameter e = 0.5
kinetic 1/2*(y1'^2 + y2'^2 + y3'^2)
potential g*(y1 + y2 + y3)
gap floor: y1 - 0.5 impact restitution e
gap b12: y2 - y1 - 1 impact restitution e
gap b23: y3 - y2 - 1 impact restitution e
initial y1 = 0.6, y2 = 1.8, y3 = 3.2
"""
PEN_REL = 1e-9  # NH_PENETRATION_REL


def gaps(q):
    q = np.atleast_2d(q)
    return np.stack([q[:, 0] - 0.5, q[:, 1] - q[:, 0] - 1, q[:, 2] - q[:, 1] - 1], axis=1)


@pytest.mark.parametrize("method", ["dopri5", "dop853", "rk4", "gni", "rattle", "del"])
@pytest.mark.parametrize("e", [0.5, 1.0])
def test_stack_stays_stacked(method, e):
    m = nholo.load_model_string(STACK3, set={"e": e}, backend="tape")
    r = nholo.run(m, 10.0, method=method, h=1e-3)
    assert r.status_name == "NH_OK", r.message
    scale = np.maximum(1.0, np.abs(r.q).max(axis=1))
    assert (gaps(r.q).min(axis=1) >= -PEN_REL * scale * np.sqrt(2)).all()
    s = r.summary
    assert s["impacts"] > 0
    assert s["max_event_gap"] <= PEN_REL * np.abs(r.q).max() * np.sqrt(2)
    # no energy gained at any impact of a law with e <= 1
    for rec in s["impact_log"]:
        assert rec["energy_after"] <= rec["energy_before"] * (1 + 1e-9) + 1e-12
    if e < 1.0:  # at rest on the floor, touching
        assert np.allclose(r.q[-1], [0.5, 1.5, 2.5], atol=1e-6)


def test_status_names():
    assert nholo.status_name(-20)[0] == "NH_ERR_PENETRATION"
    assert nholo.status_name(-19)[0] == "NH_ERR_DEGENERATE_GAP"
