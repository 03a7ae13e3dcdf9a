"""The sleigh and the penny the way they are often written today: equations of motion derived
with sympy.physics.mechanics (Lagrange's method with nonholonomic constraints), integrated with
SciPy's solve_ivp, impacts located by solve_ivp's events and applied by hand. Used by
sympy_sleigh.py (beside the nholo model file) and by bench/bench_python.py.

Each system gives rhs(t, x) for x = (q, q') and, for the penny, gaps(q) and the elastic
nonholonomic impact map (Clark & Bloch): v+ = v- - 2 (dg.v-) / (dg P dg) P dg, with
P = M^-1 - M^-1 A^T (A M^-1 A^T)^-1 A M^-1 (the reflection inside the constraint distribution).
"""
import numpy as np
import sympy as sp
from scipy.integrate import solve_ivp
from sympy.physics.mechanics import LagrangesMethod, dynamicsymbols


def _lagrange(q, L, constraints):
    """lambdified (M_full, forcing_full) of Lagrange's equations with multipliers: the unknowns
    are (q', q'', lambda) and M_full [q'; q''; lambda] = forcing_full."""
    lm = LagrangesMethod(L, q, nonhol_coneqs=constraints)
    lm.form_lagranges_equations()
    qd = [sp.diff(c, dynamicsymbols._t) for c in q]
    args = list(q) + qd
    M = sp.lambdify(args, lm.mass_matrix_full, "numpy")
    F = sp.lambdify(args, lm.forcing_full, "numpy")
    return M, F, len(q)


def _rhs(M, F, n):
    def rhs(t, x):
        sol = np.linalg.solve(np.asarray(M(*x), float), np.asarray(F(*x), float).ravel())
        return sol[:2 * n]
    return rhs


def sleigh(I=1.0, m=1.0, a=1.0):
    """The Chaplygin sleigh of examples/chaplygin_sleigh.nh: q = (theta, x, y)."""
    th, x, y = dynamicsymbols("theta x y")
    t = dynamicsymbols._t
    thd, xd, yd = (sp.diff(c, t) for c in (th, x, y))
    L = sp.Rational(1, 2) * I * thd**2 + sp.Rational(1, 2) * m * (xd**2 + yd**2)
    skate = a * thd + sp.sin(th) * xd - sp.cos(th) * yd
    return _rhs(*_lagrange([th, x, y], L, [skate]))


def penny(m=0.0025, R=0.01, a=0.2, b=0.2):
    """The penny of examples/penny.nh (circular table by default): q = (x, y, theta, phi);
    returns rhs, gaps(q) -> (2), their gradients (2 x 4), and the impact map."""
    I, J = m * R**2 / 2, m * R**2 / 4
    x, y, th, ph = dynamicsymbols("x y theta phi")
    t = dynamicsymbols._t
    xd, yd, thd, phd = (sp.diff(c, t) for c in (x, y, th, ph))
    L = sp.Rational(1, 2) * (m * (xd**2 + yd**2) + I * thd**2 + J * phd**2)
    cons = [xd - R * sp.cos(ph) * thd, yd - R * sp.sin(ph) * thd]
    rhs = _rhs(*_lagrange([x, y, th, ph], L, cons))
    X, Y, T, P = sp.symbols("X Y T P")
    g = [1 - (X + s * R * sp.cos(P))**2 / a**2 - (Y + s * R * sp.sin(P))**2 / b**2 for s in (1, -1)]
    gaps = sp.lambdify([X, Y, T, P], g, "numpy")
    grads = sp.lambdify([X, Y, T, P], sp.Matrix(g).jacobian([X, Y, T, P]), "numpy")
    Mq = np.diag([m, m, I, J])
    Minv = np.linalg.inv(Mq)

    def impact(q, v, k):
        A = np.array([[1, 0, -R * np.cos(q[3]), 0], [0, 1, -R * np.sin(q[3]), 0]])
        Pm = Minv - Minv @ A.T @ np.linalg.solve(A @ Minv @ A.T, A @ Minv)
        dg = np.asarray(grads(*q), float)[k]
        u = Pm @ dg
        return v - 2 * (dg @ v) / (dg @ u) * u

    return rhs, gaps, impact


def run_sleigh(rhs, t_end, x0, rtol=1e-10, atol=1e-12):
    return solve_ivp(rhs, (0, t_end), x0, method="RK45", rtol=rtol, atol=atol, dense_output=False)


def run_penny(system, x0, impacts, rtol=1e-10, atol=1e-12, t_max=1e3):
    """Integrate to the given number of impacts: each leg ends at the first gap crossing
    (a terminal event of solve_ivp), where the impact map is applied. Returns the impact
    times and the final state."""
    rhs, gaps, impact = system
    events = []
    for k in range(2):
        def ev(t, x, k=k):
            return gaps(*x[:4])[k]
        ev.terminal, ev.direction = True, -1
        events.append(ev)
    t, x, times = 0.0, np.array(x0, float), []
    while len(times) < impacts:
        sol = solve_ivp(rhs, (t, t_max), x, method="RK45", rtol=rtol, atol=atol, events=events)
        hit = [k for k in range(2) if len(sol.t_events[k])]
        if not hit:
            break
        k = min(hit, key=lambda k: sol.t_events[k][0])
        t, x = sol.t_events[k][0], sol.y_events[k][0].copy()
        x[4:] = impact(x[:4], x[4:], k)
        times.append(t)
    return np.array(times), x
