"""The Chaplygin sleigh from Python: the Lie-group method rdp against rk4 at a coarse step and
the adaptive dopri5, over a long time: the energy each keeps (rdp's error stays bounded, rk4's
grows), the constraint residual (rdp keeps it to round-off), and the skate's path.

    python3 examples/python/sleigh.py [--out sleigh.png]
"""
import argparse
import os

import numpy as np

import nholo


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="sleigh.png", help="the figure (PNG)")
    args = ap.parse_args()

    import matplotlib
    matplotlib.use(os.environ.get("MPLBACKEND", "Agg"))
    import matplotlib.pyplot as plt

    sleigh = nholo.builtin("sleigh")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
    for method in ("rk4", "rdp", "dopri5"):
        res = nholo.run(sleigh, t_end=50, method=method, h=0.2)
        E = np.array([sleigh.energy(q, v) for q, v in zip(res.q, res.v)])
        err = np.abs(E - E[0]) / E[0]
        print("%-7s %5d steps, max relative energy error %.2e, constraint residual %.1e (%s)" % (
            method, res.stats["steps"], err.max(), res.stats["max_constraint_residual"], res.status_name))
        ax1.semilogy(res.t, np.maximum(err, 1e-17), label=method)
        a = sleigh.params["a"]
        ax2.plot(res.q[:, 1] - a * np.cos(res.q[:, 0]), res.q[:, 2] - a * np.sin(res.q[:, 0]), label=method)
    ax1.set(xlabel="t (s)", ylabel="|E - E0| / E0", title="energy, h = 0.2 s")
    ax1.legend()
    ax2.set(xlabel="x (m)", ylabel="y (m)", title="skate path", aspect="equal")
    ax2.legend()
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print("figure: %s" % args.out)


if __name__ == "__main__":
    main()
