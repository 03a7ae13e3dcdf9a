#!/usr/bin/env python3
"""siconos-compare.py - nholo's propagative simultaneous impacts beside Siconos (issue 16,
point 7; docs/simultaneous-impacts.md, "Against Siconos").

Runs the same set-ups through Siconos (Debian's python3-siconos: Moreau-Jean time stepping
with an LCP per step, and the event-driven scheme with Lsodar and impact LCPs) and through the
nholo command-line tool (`nholo run FILE --json`), and prints the post-impact velocities,
kinetic energies before and after, and wall times side by side:

  * Newton's cradle of three equal balls, touching, A arriving at 1 (B, C at rest), with
    restitution 1, 0.7 and 0;
  * the cradle with masses (1, 2, 1), touching, outer balls arriving at +1 and -1;
  * the billiard break (three equal balls, radius 1, cue ball at 1 along the bisector) at
    theta = 60, 90 and 120 degrees.

Not part of `make check`. python3-siconos is an optional extra (apt-get install
python3-siconos); without it the script says so and exits 2.

usage: scripts/siconos-compare.py [--nholo PATH] [--h STEP]
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    import siconos.kernel as sk
except ImportError:
    # Debian's python3-siconos lives in the system interpreter's dist-packages
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath(
            "/usr/bin/python3") and not os.environ.get("NHOLO_SICONOS_REEXEC"):
        os.environ["NHOLO_SICONOS_REEXEC"] = "1"
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.stderr.write("siconos-compare: python3-siconos is not installed (an optional extra: "
                     "apt-get install python3-siconos)\n")
    sys.exit(2)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the simulated interval around the impact (s): long enough for every scheme to pass it
T_END = 0.05


# ---- Siconos ------------------------------------------------------------------------------

def siconos_run(M, q0, v0, normals, gaps0, e, scheme, h):
    """One dynamical system (mass matrix M, no forces) with linear unilateral relations
    g_i(q) = n_i (q - q0) + gaps0[i] >= 0 (the exact gradients at the contact configuration;
    the outcome of an impact depends on them only), Newton impact law with coefficient e.
    Returns the velocity at T_END and the wall time."""
    ds = sk.LagrangianLinearTIDS(np.array(q0, float), np.array(v0, float), np.array(M, float))
    nsds = sk.NonSmoothDynamicalSystem(0.0, T_END)
    nsds.insertDynamicalSystem(ds)
    for n, g0 in zip(normals, gaps0):
        n = np.array([n], float)
        rel = sk.LagrangianLinearTIR(n, np.array([g0 - float(n @ np.array(q0, float))]))
        nsds.link(sk.Interaction(sk.NewtonImpactNSL(e), rel), ds)
    td = sk.TimeDiscretisation(0.0, h)
    if scheme == "moreau-jean":
        sim = sk.TimeStepping(nsds, td, sk.MoreauJeanOSI(0.5), sk.LCP())
        step = lambda: (sim.computeOneStep(), sim.nextStep())
    else:
        sim = sk.EventDriven(nsds, td)
        sim.insertIntegrator(sk.LsodarOSI())
        sim.insertNonSmoothProblem(sk.LCP(), sk.SICONOS_OSNSP_ED_IMPACT)
        sim.insertNonSmoothProblem(sk.LCP(), sk.SICONOS_OSNSP_ED_SMOOTH_ACC)
        step = lambda: (sim.advanceToEvent(), sim.processEvents())
    t0 = time.perf_counter()
    while sim.hasNextEvent():
        step()
    return np.array(ds.velocity()), time.perf_counter() - t0


# ---- nholo --------------------------------------------------------------------------------

def nholo_run(nholo, path, sets, impact, order):
    cmd = [nholo, "run", path, "--t-end", str(T_END), "--order", order, "--json", "--impact", impact]
    for s in sets:
        cmd += ["--set", s]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("nholo failed: %s %s" % (" ".join(cmd), out.stderr.strip()))
    d = json.loads(out.stdout)
    wall = d["wall_seconds"]  # the run itself, as Siconos's loop is timed (no start-up, no compile)
    v = np.array(list(d["final_velocity"].values()), float)
    rec = next((r for r in d.get("impact_log", []) if "contacts" in r), None)
    return v, d, rec, wall


def ke(M, v):
    return 0.5 * float(v @ np.array(M, float) @ v)


def fmt(v):
    return "(" + ", ".join("%+.4f" % x for x in v) + ")"


ROWS = []


def SCHEMES(h):
    """Moreau-Jean at h and h/10 (its outcome can depend on which step each contact closes
    in), the event-driven scheme at h"""
    return (("moreau-jean", h), ("moreau-jean", h / 10), ("event-driven", h))


def row(case, engine, v, e0, e1, wall, note=""):
    ROWS.append((case, engine, fmt(v), e0, e1, wall, note))


# ---- the set-ups --------------------------------------------------------------------------

def cradle_cases(nholo, h):
    path = os.path.join(ROOT, "examples", "cradle3.nh")
    d = 1.0
    normals = [[-1.0, 1.0, 0.0], [0.0, -1.0, 1.0]]
    for masses, v0, label in (((1, 1, 1), (1, 0, 0), "cradle (1,1,1), v- = (1,0,0)"),
                              ((1, 2, 1), (1, 0, -1), "cradle (1,2,1), v- = (1,0,-1)")):
        M = np.diag(masses)
        for e in ((1.0, 0.7, 0.0) if masses == (1, 1, 1) else (1.0,)):
            case = "%s, e = %g" % (label, e)
            # Siconos starts A (and C) a little away so that the schemes see the contact close
            lead = 0.0105
            q0 = [-lead * v0[0], d, 2 * d - lead * v0[2]]
            e0 = ke(M, np.array(v0, float))
            gaps0 = [float(np.dot(n, q0)) - d for n in normals]
            for scheme, hh in SCHEMES(h):
                v, wall = siconos_run(M, q0, v0, normals, gaps0, e, scheme, hh)
                row(case, "siconos %s h=%g" % (scheme, hh), v, e0, ke(M, v), wall)
            sets = ["m1=%g" % masses[0], "m2=%g" % masses[1], "m3=%g" % masses[2],
                    "x1'=%g" % v0[0], "x2'=%g" % v0[1], "x3'=%g" % v0[2]]
            impact = "elastic" if e == 1.0 else "restitution=%g" % e
            for order in (("most-infeasible", "least") if masses != (1, 1, 1) else ("most-infeasible",)):
                v, dj, rec, wall = nholo_run(nholo, path, sets, impact, order)
                note = ""
                if rec and rec.get("law") == "elastic":
                    note = "sequence " + " ".join(rec.get("sequence", []))
                elif rec:
                    note = "%s law, R = %g" % (rec.get("law"), rec.get("restitution"))
                row(case, "nholo " + order, v, dj["energy_initial"], dj["energy_final"], wall, note)
            if e == 1.0:
                v, dj, rec, wall = nholo_run(nholo, path, sets, impact, "enumerate")
                row(case, "nholo enumerate", v, dj["energy_initial"], dj["energy_final"], wall,
                    "%d outcome(s), xi %.4g" % (rec["outcomes"], rec["xi"]))


BILLIARD = """# billiard break (scripts/siconos-compare.py): balls a, b at rest, the cue ball c arriving
# along the bisector of the angle theta between c->a and c->b; radius r, equal masses
model billiard
coordinates xa ya xb yb xc yc
parameter r = 1
parameter th = pi/2
kinetic 1/2*(xa'^2 + ya'^2 + xb'^2 + yb'^2 + xc'^2 + yc'^2)
gap ca: sqrt((xa - xc)^2 + (ya - yc)^2) - 2*r   impact elastic
gap cb: sqrt((xb - xc)^2 + (yb - yc)^2) - 2*r   impact elastic
initial xa = 2*r*cos(th/2), ya = 2*r*sin(th/2), xb = 2*r*cos(th/2), yb = -2*r*sin(th/2)
initial xc = 0, yc = 0, xc' = 1
"""


def billiard_cases(nholo, h):
    fd, path = tempfile.mkstemp(suffix=".nh")
    with os.fdopen(fd, "w") as f:
        f.write(BILLIARD)
    try:
        M = np.eye(6)
        for deg in (60, 90, 120):
            th = math.radians(deg)
            case = "billiard break, theta = %d deg" % deg
            a = np.array([2 * math.cos(th / 2), 2 * math.sin(th / 2)])
            b = np.array([2 * math.cos(th / 2), -2 * math.sin(th / 2)])
            lead = 0.0105
            q0 = [a[0], a[1], b[0], b[1], -lead, 0.0]
            na, nb = a / 2, b / 2  # unit directions c -> a, c -> b
            normals = [[na[0], na[1], 0, 0, -na[0], -na[1]], [0, 0, nb[0], nb[1], -nb[0], -nb[1]]]
            gaps0 = [lead * na[0], lead * nb[0]]
            v0 = [0, 0, 0, 0, 1, 0]
            e0 = 0.5
            for scheme, hh in SCHEMES(h):
                v, wall = siconos_run(M, q0, v0, normals, gaps0, 1.0, scheme, hh)
                row(case, "siconos %s h=%g" % (scheme, hh), v, e0, ke(M, v), wall)
            sets = ["th=%.17g" % th]
            for order in ("most-infeasible", "least", "enumerate"):
                v, dj, rec, wall = nholo_run(nholo, path, sets, "elastic", order)
                note = "sequence " + " ".join(rec.get("sequence", [])) if rec else ""
                if order == "enumerate" and rec:
                    note = "%d outcome(s), xi %.4g" % (rec["outcomes"], rec["xi"])
                row(case, "nholo " + order, v, dj["energy_initial"], dj["energy_final"], wall, note)
    finally:
        os.unlink(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nholo", default=os.path.join(ROOT, "build", "nholo"), help="the nholo executable")
    ap.add_argument("--h", type=float, default=1e-3, help="Siconos time step (s)")
    a = ap.parse_args()
    if not os.access(a.nholo, os.X_OK):
        sys.stderr.write("siconos-compare: no nholo executable at %s (--nholo PATH)\n" % a.nholo)
        return 2
    cradle_cases(a.nholo, a.h)
    billiard_cases(a.nholo, a.h)
    print("| set-up | engine | v+ | KE before | KE after | wall (s) | note |")
    print("|---|---|---|---|---|---|---|")
    for case, eng, v, e0, e1, wall, note in ROWS:
        print("| %s | %s | %s | %.6f | %.6f | %.2e | %s |" % (case, eng, v, e0, e1, wall, note))
    return 0


if __name__ == "__main__":
    sys.exit(main())
