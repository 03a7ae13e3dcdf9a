"""The Chaplygin sleigh two ways: derived with sympy.physics.mechanics and integrated with
SciPy's solve_ivp, and read by nholo from examples/chaplygin_sleigh.nh. Both agree to the
tolerance asked of them, and the script measures how much faster nholo is.

    python3 examples/python/sympy_sleigh.py [--plot sleigh_sympy.png]
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nholo  # noqa: E402
import sympy_models  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
T_END, RTOL, ATOL = 10.0, 1e-10, 1e-12


def timed(f, repeat=5):
    """The median wall time of f() over repeat calls, and its last value."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plot", help="draw both solutions into this PNG (matplotlib)")
    args = ap.parse_args()

    # nholo: the model file, the adaptive dopri5 at the same tolerances as solve_ivp
    model = nholo.load_model_file(os.path.join(HERE, "..", "chaplygin_sleigh.nh"))
    t_nh, res = timed(lambda: nholo.run(model, T_END, method="dopri5", rtol=RTOL, atol=ATOL))

    # SymPy + SciPy: derive (once), then integrate
    t0 = time.perf_counter()
    rhs = sympy_models.sleigh(I=model.params["I"], m=model.params["m"], a=model.params["a"])
    t_derive = time.perf_counter() - t0
    x0 = np.concatenate([model.q0, model.v0])
    t_sp, sol = timed(lambda: sympy_models.run_sleigh(rhs, T_END, x0, RTOL, ATOL))

    # agreement: the final states, and the energy each keeps
    dx = np.max(np.abs(sol.y[:, -1] - res.x[-1]))
    E = 0.5 * (model.params["I"] * sol.y[3] ** 2 + model.params["m"] * (sol.y[4] ** 2 + sol.y[5] ** 2))
    print("Chaplygin sleigh to t = %g s, rtol %g, atol %g" % (T_END, RTOL, ATOL))
    print("  final state, nholo (dopri5):      %s" % np.array2string(res.x[-1], precision=10))
    print("  final state, SymPy + solve_ivp:   %s" % np.array2string(sol.y[:, -1], precision=10))
    print("  largest difference: %.3g (both within their tolerance of the exact flow)" % dx)
    print("  energy drift: nholo %.2g, SymPy+SciPy %.2g" % (
        res.stats["max_energy_rel_error"], np.max(np.abs(E - E[0])) / E[0]))
    print("  time: nholo %.3f ms (%d steps), solve_ivp %.3f ms (%d evaluations), SymPy derivation %.0f ms"
          % (1e3 * t_nh, res.stats["steps"], 1e3 * t_sp, sol.nfev, 1e3 * t_derive))
    print("  nholo is %.0f times faster per run" % (t_sp / t_nh))
    assert dx < 1e-6, "the two solutions disagree"

    if args.plot:
        import matplotlib
        matplotlib.use(os.environ.get("MPLBACKEND", "Agg"))
        import matplotlib.pyplot as plt
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
        ax1.plot(res.q[:, 1], res.q[:, 2], label="nholo")
        ax1.plot(sol.y[1], sol.y[2], "--", label="SymPy + solve_ivp")
        ax1.set(xlabel="x (m)", ylabel="y (m)", title="centre of mass", aspect="equal")
        ax1.legend()
        ax2.plot(res.t, res.q[:, 0], label="nholo")
        ax2.plot(sol.t, sol.y[0], "--", label="SymPy + solve_ivp")
        ax2.set(xlabel="t (s)", ylabel="heading theta (rad)", title="heading -> pi sqrt(2)")
        ax2.axhline(np.pi * np.sqrt(2), color="gray", lw=0.5)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=100)
        print("  plot: %s" % args.plot)


if __name__ == "__main__":
    main()
