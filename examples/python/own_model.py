"""Your own model from Python: a knife edge on a tilted plane, written in nholo's model language
as a string, steered by a controller written in Python (a force callable), bouncing off a
wall. The trajectory, the wall impacts and the blade's constraint force (the multiplier)
plotted with matplotlib.

    python3 examples/python/own_model.py [--out own_model.png]
"""
import argparse
import os

import numpy as np

import nholo

MODEL = """
model steered_skate
coordinates x y phi
parameter m = 1
parameter J = 0.2
parameter g = 9.81
parameter alpha = pi/12
kinetic 1/2*m*(x'^2 + y'^2) + 1/2*J*phi'^2
potential -m*g*sin(alpha)*x          # downhill is +x
constraint blade: -sin(phi)*x' + cos(phi)*y' = 0
gap wall: 3 - x   impact restitution 0.8
initial phi = 0.3, x' = 1*cos(0.3), y' = 1*sin(0.3)
"""


def steer(t, q, v):
    """A steering torque that turns the blade towards the heading pi/2 across the slope."""
    return np.array([0.0, 0.0, -2.0 * (q[2] - np.pi / 2) - 1.0 * v[2]])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="own_model.png", help="the figure (PNG)")
    args = ap.parse_args()

    import matplotlib
    matplotlib.use(os.environ.get("MPLBACKEND", "Agg"))
    import matplotlib.pyplot as plt

    skate = nholo.load_model_string(MODEL, filename="steered_skate")
    free = nholo.run(skate, t_end=8, method="dopri5", out_dt=0.01)
    steered = nholo.run(skate.with_force(steer), t_end=8, method="dopri5", out_dt=0.01)
    for name, r in (("free", free), ("steered", steered)):
        print("%-8s %d impacts on the wall, final (x, y, phi) = %s" % (
            name, len(r.impacts), np.array2string(r.q[-1], precision=4)))

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
    for name, r in (("free", free), ("steered", steered)):
        ax1.plot(r.q[:, 0], r.q[:, 1], label=name)
        ax1.plot(r.impacts["q"][:, 0], r.impacts["q"][:, 1], "o", ms=4, color="C3")
        ax2.plot(r.t, r.lam[:, 0], label=name)
    ax1.axvline(3, color="k", lw=2)
    ax1.set(xlabel="x (m, downhill)", ylabel="y (m)", title="knife edge on a slope, wall at x = 3")
    ax1.legend()
    ax2.set(xlabel="t (s)", ylabel="blade force lambda (N)", title="constraint multiplier")
    ax2.legend()
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print("figure: %s" % args.out)


if __name__ == "__main__":
    main()
