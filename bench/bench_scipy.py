"""bench_scipy.py - the work-precision line of issue 18 against SciPy, in one process:

The Chaplygin sleigh of examples/chaplygin_sleigh.nh to T = 10. For each solver the loosest
tolerance of rtol = 10^(-6 - k/2) (atol = rtol / 100) whose final error (largest of |q - q_ref|,
|q' - q'_ref|) is at most 1e-10, and the time of one solve there (best of several): nholo's
dop853 and dopri5 through the Python binding (create, run, destroy: nholo.run on the loaded
model), SciPy's solve_ivp with DOP853 and LSODA on the same equations (multiplier form:
M a = A^T lam, A a = -Adot v; M = diag(I, m, m), A = (a, sin th, -cos th)). The reference is
nholo's dop853 at rtol 1e-14 (its error against the closed form is about 2e-14: bench_dop853).
SciPy missing: the nholo lines only, with a note.
Usage: PYTHONPATH=build/python /usr/bin/python3 bench/bench_scipy.py
"""
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
import nholo  # noqa: E402

T = 10.0
TARGET = 1e-10
NTOL = 17  # rtol = 10^(-6 - k/2), k < NTOL
REPS = 5


def best(f, reps=REPS):
    """Seconds per call of f: the best of reps calls."""
    out = math.inf
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        out = min(out, time.perf_counter() - t0)
    return out


def err(x, ref):
    return max(abs(a - b) for a, b in zip(x, ref))


def sleigh_rhs(I, m, a):
    """x' = F(x) of the sleigh in multiplier form, x = (th, x, y, th', x', y')."""
    def f(t, s):
        th, _, _, w, vx, vy = s
        sn, cs = math.sin(th), math.cos(th)
        adv = w * (vx * cs + vy * sn)                # Adot v
        g = a * a / I + sn * sn / m + cs * cs / m    # A M^-1 A^T
        lam = -adv / g
        return [w, vx, vy, a * lam / I, sn * lam / m, -cs * lam / m]
    return f


def scan(name, solve, ref):
    """The loosest tolerance reaching TARGET: (rtol, error, seconds) or None."""
    for k in range(NTOL):
        rtol = 10.0 ** (-6.0 - 0.5 * k)
        x = solve(rtol)
        if x is not None and err(x, ref) <= TARGET:
            return rtol, err(x, ref), best(lambda: solve(rtol))
    return None


def main():
    path = os.path.join(HERE, "..", "examples", "chaplygin_sleigh.nh")
    model = nholo.load_model_file(path)
    par = model.params
    I, m, a = par.get("I", 1.0), par.get("m", 1.0), par.get("a", 1.0)
    r = nholo.run(model, T, method="dop853", rtol=1e-14, atol=1e-16)
    ref = list(r.x[-1])
    x0 = list(model.q0) + list(model.v0)
    print("sleigh (examples/chaplygin_sleigh.nh) to T = %g, final error <= %.0e, atol = rtol/100" % (T, TARGET))
    print("%-26s %9s %10s %12s" % ("solver", "rtol", "error", "time per solve"))
    rows = []

    def nh(method):
        return lambda rtol: list(nholo.run(model, T, method=method, rtol=rtol, atol=rtol * 1e-2).x[-1])
    rows.append(("nholo dop853 (Python)", scan("dop853", nh("dop853"), ref)))
    rows.append(("nholo dopri5 (Python)", scan("dopri5", nh("dopri5"), ref)))
    try:
        from scipy.integrate import solve_ivp
    except ImportError:
        solve_ivp = None
    if solve_ivp is not None:
        f = sleigh_rhs(I, m, a)
        for meth in ("DOP853", "LSODA"):
            def sp(rtol, meth=meth):
                s = solve_ivp(f, (0.0, T), x0, method=meth, rtol=rtol, atol=rtol * 1e-2)
                return list(s.y[:, -1]) if s.success else None
            rows.append(("SciPy %s" % meth, scan(meth, sp, ref)))
    base = rows[0][1][2] if rows[0][1] else None
    for name, res in rows:
        if res is None:
            print("%-26s %9s" % (name, "does not reach the target"))
            continue
        rel = "  (%.0fx nholo dop853)" % (res[2] / base) if base and name != rows[0][0] else ""
        print("%-26s %9.1e %10.2e %9.1f us%s" % (name, res[0], res[1], 1e6 * res[2], rel))
    if solve_ivp is None:
        print("SciPy is not installed (python3-scipy): its DOP853 and LSODA lines are skipped")
    print("(the nholo lines include the Python binding's call; bench_dop853 times the C API alone)")


if __name__ == "__main__":
    sys.exit(main())
