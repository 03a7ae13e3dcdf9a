"""bench_python.py - the Python binding's costs, each against a baseline in the same process:

  1. per-run overhead: one create/run/destroy cycle of a short run through nholo.run (and
     with its summary read) against the same cycle through the C API alone (nh_sim_create,
     nh_sim_run recording every sample, nh_sim_destroy; nholo._nholo._c_cycle); and the cost
     of reading Result.summary (the dict of `nholo run --json`) on its own, target <= 5 us;
  2. the Chaplygin sleigh to t = 10 at rtol 1e-10: nholo against the same equations derived
     with sympy.physics.mechanics and integrated by SciPy's solve_ivp (examples/python/
     sympy_models.py);
  3. the penny: time per impact of nholo (closed-form flow; and dopri5 on the model file)
     against SymPy + solve_ivp with events and the impact map applied by hand.

Every figure is the best of several repetitions (a shared machine reports what one core can
do). Usage: PYTHONPATH=build/python /usr/bin/python3 bench/bench_python.py
"""
import os
import sys
import time
import timeit

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "python"))
import nholo  # noqa: E402

REPS = 5


def best(f, number=1, reps=REPS):
    """Seconds per call of f: the best of reps batches of number calls."""
    return min(timeit.repeat(f, number=number, repeat=reps)) / number


def overhead():
    print("1. per-run overhead of the binding (create, run, destroy; best of %d)" % REPS)
    for name, model, method, t_end, h in (("sleigh, rk4, 10 steps", nholo.builtin("sleigh"), "rk4", 0.1, 0.01),
                                          ("penny, exact, 1 impact", nholo.builtin("penny"), "exact", 2.0, 1e-3)):
        c = nholo._nholo._c_cycle(model._c, method, t_end, h, 2000)
        py = best(lambda: nholo.run(model, t_end, method=method, h=h, out_dt=0), 500)
        full = best(lambda: nholo.run(model, t_end, method=method, h=h, out_dt=0).summary, 500)
        print("   %-24s C API %6.2f us   nholo.run %6.2f us (+%.2f us)   with summary %6.2f us (+%.2f us)"
              % (name, 1e6 * c, 1e6 * py, 1e6 * (py - c), 1e6 * full, 1e6 * (full - c)))
        print("   %-24s reading res.summary of a fresh result: %.2f us (target 5 us)"
              % ("", 1e6 * summary_read(model, method, t_end, h)))


def summary_read(model, method, t_end, h, n=500):
    """Seconds to read .summary of a result that has not read it yet: best of REPS batches of
    n results, made first (the run is not timed, the dicts are kept as a caller keeps them)."""
    times = []
    for _ in range(REPS):
        rs = [nholo.run(model, t_end, method=method, h=h, out_dt=0) for _ in range(n)]
        t0 = time.perf_counter()
        for r in rs:
            r.summary
        times.append((time.perf_counter() - t0) / n)
    return min(times)


def sleigh():
    import sympy_models as sm
    print("2. Chaplygin sleigh to t = 10, rtol 1e-10, atol 1e-12 (examples/chaplygin_sleigh.nh)")
    model = nholo.load_model_file(os.path.join(HERE, "..", "examples", "chaplygin_sleigh.nh"))
    t_nh = best(lambda: nholo.run(model, 10.0, method="dopri5", rtol=1e-10, atol=1e-12), 20)
    t0 = time.perf_counter()
    rhs = sm.sleigh()
    t_derive = time.perf_counter() - t0
    x0 = np.concatenate([model.q0, model.v0])
    t_sp = best(lambda: sm.run_sleigh(rhs, 10.0, x0))
    r = nholo.run(model, 10.0, method="dopri5", rtol=1e-10, atol=1e-12)
    d = np.max(np.abs(sm.run_sleigh(rhs, 10.0, x0).y[:, -1] - r.x[-1]))
    print("   nholo dopri5 %.3f ms   SymPy+solve_ivp %.2f ms (derivation %.0f ms once)   ratio %.0fx   |dx| %.1e"
          % (1e3 * t_nh, 1e3 * t_sp, 1e3 * t_derive, t_sp / t_nh, d))


def penny(n_sp=10, n_nh=10000):
    import sympy_models as sm
    print("3. penny on the circular table, elastic: time per impact")
    model = nholo.builtin("penny")
    t_exact = best(lambda: nholo.run(model, 1e9, max_impacts=n_nh, record=False, zeno_count=1 << 30), 1) / n_nh
    fmodel = nholo.load_model_file(os.path.join(HERE, "..", "examples", "penny.nh"), set={"a": 0.2})
    t_dp = best(lambda: nholo.run(fmodel, 1e9, max_impacts=n_sp * 10, method="dopri5", record=False), 1) / (n_sp * 10)
    system = sm.penny()
    x0 = np.concatenate([model.q0, model.v0])
    t_sp = best(lambda: sm.run_penny(system, x0, n_sp), 1, 3) / n_sp
    times, _ = sm.run_penny(system, x0, n_sp)
    r = nholo.run(model, 1e9, max_impacts=n_sp, record=False)
    print("   nholo exact %.3f us   nholo dopri5 (model file) %.1f us   SymPy+solve_ivp %.0f us   ratios %.0fx, %.0fx"
          % (1e6 * t_exact, 1e6 * t_dp, 1e6 * t_sp, t_sp / t_exact, t_sp / t_dp))
    print("   impact times agree to %.1e s over %d impacts" % (np.max(np.abs(times - r.impacts["t"])), n_sp))


if __name__ == "__main__":
    print("nholo %s, Python %s, numpy %s" % (nholo.__version__, sys.version.split()[0], np.__version__))
    overhead()
    sleigh()
    penny()
