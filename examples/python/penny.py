"""The bouncing penny (Clark & Bloch) from Python: elastic and plastic impacts on the elliptical
table, the contact point's path with the impacts marked, and the energy through the impacts.

    python3 examples/python/penny.py [--out penny.png]
"""
import argparse
import os

import numpy as np

import nholo


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="penny.png", help="the figure (PNG)")
    ap.add_argument("--impacts", type=int, default=20)
    args = ap.parse_args()

    import matplotlib
    matplotlib.use(os.environ.get("MPLBACKEND", "Agg"))
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(10, 9))
    for row, law in enumerate(("elastic", "plastic")):
        penny = nholo.builtin("penny", table="ellipse", impact=law)
        res = nholo.run(penny, t_end=100, max_impacts=args.impacts)
        a, b = penny.params["a"], penny.params["b"]
        imp = res.impacts
        print("%s: %d impacts to t = %.4g s, the first at t = %.7f s, energy %.6g -> %.6g J (%s)" % (
            law, len(imp), res.t[-1], imp["t"][0], res.summary["energy_initial"], res.summary["energy_final"],
            res.status_name))
        ax = axes[row, 0]
        s = np.linspace(0, 2 * np.pi, 400)
        ax.plot(a * np.cos(s), b * np.sin(s), "k", lw=1)
        ax.plot(res.q[:, 0], res.q[:, 1], lw=0.8)
        ax.plot(imp["q"][:, 0], imp["q"][:, 1], "o", ms=3, color="C3", label="impacts")
        ax.set(aspect="equal", xlabel="x (m)", ylabel="y (m)", title="penny, %s impacts" % law)
        ax.legend(loc="upper right")
        ax = axes[row, 1]
        E = [penny.energy(q, v) for q, v in zip(res.q, res.v)]
        ax.plot(res.t, E)
        ax.plot(imp["t"], imp["energy_after"], "o", ms=3, color="C3")
        ax.set(xlabel="t (s)", ylabel="energy (J)", title="energy (%s)" % law)
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print("figure: %s" % args.out)


if __name__ == "__main__":
    main()
