"""nholo from Python: nonholonomic mechanics with impacts (docs/python.md).

    import nholo
    penny = nholo.builtin("penny", impact="plastic")
    res = nholo.run(penny, t_end=10, max_impacts=20)
    res.t, res.q, res.v, res.lam      # numpy arrays: samples, coordinates, velocities, multipliers
    res.impacts                       # structured array: t, gap, status, energy_before, ...
    res.summary                       # the dict `nholo run --json` prints

A thin layer over the C extension nholo._nholo, itself a client of the public C API.
"""
import math as _math
import os as _os
import warnings as _warnings
import weakref as _weakref

import numpy as _np

from . import _nholo
from ._nholo import ModelError, SimulationError

__all__ = ["ModelError", "SimulationError", "Model", "Simulation", "Result", "EnsembleResult",
           "load_model", "load_model_file", "load_model_string", "builtin", "check", "run", "ensemble", "lyapunov",
           "methods", "builtins", "impact_laws", "status_name", "components"]

__version__ = _nholo.version

# what an observer is shown (nh_sample_kind)
START, STEP, OUTPUT, IMPACT_BEFORE, IMPACT_AFTER, END, EVENT = range(7)
SAMPLE_KINDS = ("start", "step", "output", "impact_before", "impact_after", "end", "event")

# statuses (nholo/status.h): NH_OK, NH_ZENO, NH_ERR_STEP_UNDERFLOW, ...
for _k in dir(_nholo):
    if _k.startswith("NH_"):
        globals()[_k] = getattr(_nholo, _k)


def status_name(status):
    """(identifier, description) of a status code: (\"NH_ZENO\", \"Zeno guard: ...\")."""
    return _nholo.status_name(status)


def components():
    """{name: (available, info)} of nholo's components, each opened now if it can be: "plot"
    (PLplot), "hdf5" (HDF5 ensemble files), "cholmod" (the sparse solve's order); info is the
    library and the module's file, or why it is unavailable. The core needs none of them."""
    return {name: tuple((rc == 1, info)) for name in _nholo.component_names()
            for rc, info in [_nholo.component_load(name)]}


def methods():
    """The integrators: a list of dicts (name, order, preserves, summary, adaptive, ...)."""
    return _nholo.methods()


def builtins():
    """The built-in models: {name: one-line summary}."""
    return dict(_nholo.builtins())


def impact_laws():
    """The impact laws a model or a run takes."""
    return ["elastic", "plastic", "restitution=E"]


# ---- models --------------------------------------------------------------------------------

class Model:
    """A constant model: built once, shared by any number of simulations.

    Attributes: name, form ("mechanical" or "ode"), nq, nc, ngap, nx, coords, constraints,
    gaps, state_names, params (dict), monitors, q0, v0, x0, impact_laws, backend,
    backend_note (why a model file runs on the tape although a compiler was tried: its budget
    passed; "" otherwise), default_method, has_flow."""

    def __init__(self, cmodel):
        self._c = cmodel
        self.__dict__.update(cmodel._info())

    def __repr__(self):
        return "<nholo.Model %r: %s, nq=%d nc=%d ngap=%d nx=%d>" % (
            self.name, self.form, self.nq, self.nc, self.ngap, self.nx)

    def energy(self, q, v):
        """E = 1/2 v.M(q).v + V(q) (mechanical form)."""
        return self._c.energy(q, v)

    def energy_x(self, x, t=0.0):
        """The energy at a first-order state x (either form)."""
        return self._c.energy_x(x, t)

    def accel(self, t, q, v):
        """(a, lambda): accelerations and constraint multipliers at (t, q, v); q and v may be
        (n, nq) arrays of samples with t of length n (rows computed one by one)."""
        return self._c.accel(t, q, v)

    def multipliers(self, t, q, v):
        """The constraint multipliers lambda at (t, q, v), batched like accel."""
        return self._c.accel(t, q, v)[1]

    def coord_index(self, name):
        return self._c._index("coord", name)

    def gap_index(self, name):
        return self._c._index("gap", name)

    def with_force(self, f):
        """This model with a Python force: f(t, q, v) -> array (nq) added to its generalized
        forces (controls). Slower: one Python call per evaluation of the force; a closed-form
        flow is dropped (the default method becomes dopri5) and force Jacobians are finite
        differences."""
        return Model(self._c.with_force(f))

    def supports(self, method):
        """None when the method can run this model, else the library's reason."""
        return _nholo.method_check(method, self._c)


def _noted(model):
    """the model, with a RuntimeWarning when the compiler passed its budget (the CLI's note)"""
    if model.backend_note:
        _warnings.warn("nholo: %s; using the tape back end (compile_limit= and compile_memory= change the budget)"
                       % model.backend_note, RuntimeWarning, stacklevel=3)
    return model


def load_model_file(path, set=None, backend="auto", project_initial=False, impact=None, compile_limit=None,
                    compile_memory=None):
    """A model file (docs/model-language.md). set: {name: value} overrides of parameters and
    initial values (NAME' for a velocity); impact: a law for every gap; compile_limit (s) and
    compile_memory (MiB): the C compiler's budget (None: 60 s and 2048 MiB; 0: no limit), past
    which backend "auto" runs the tape with a RuntimeWarning (Model.backend_note says why) and
    "codegen" raises. A faulty file raises ModelError with the command line's diagnostic and
    .file, .line, .column, .error."""
    return _noted(Model(_nholo.load_file(_os.fspath(path), None, set, backend, project_initial, impact,
                                         compile_limit, compile_memory)))


def load_model_string(text, filename=None, set=None, backend="auto", project_initial=False, impact=None,
                      compile_limit=None, compile_memory=None):
    """A model from its text; filename (optional) names it in diagnostics."""
    return _noted(Model(_nholo.load_string(text, filename, set, backend, project_initial, impact,
                                           compile_limit, compile_memory)))


def builtin(name, set=None, impact=None, table=None):
    """A built-in model (see builtins()) with overrides, an impact law and the penny's table
    ("circle" or "ellipse")."""
    return Model(_nholo.builtin(name, set, impact, table))


def load_model(name, **kw):
    """A model file when name ends in .nh or contains a '/', else a built-in (as `nholo run`)."""
    name = _os.fspath(name)
    if name.endswith(".nh") or "/" in name:
        return load_model_file(name, **kw)
    return builtin(name, **kw)


def check(path, set=None, backend="auto", project_initial=False, compile_limit=None, compile_memory=None):
    """The report of `nholo check FILE` (derived quantities, symbolically and at the initial
    state; its evaluation line says why the tape when the compiler passed its budget); a
    faulty file raises ModelError."""
    return _nholo.describe(_os.fspath(path), set, backend, project_initial, compile_limit, compile_memory)


# ---- results -------------------------------------------------------------------------------

_DTYPES = {}


def _dtype(kind, nq, nc, nx):
    """The structured dtype of a log (cached per sizes)."""
    key = (kind, nq, nc, nx)
    dt = _DTYPES.get(key)
    if dt is None:
        fields = {
            "impacts": [("t", "f8"), ("gap", "i4"), ("status", "i4"), ("alpha", "f8"), ("energy_before", "f8"),
                        ("energy_after", "f8"), ("vn_before", "f8"), ("vn_after", "f8"), ("contacts", "i4"),
                        # (an almost-Poisson model, nq = 0: v_before, v_after are its states x)
                        ("q", "f8", (nq,)), ("v_before", "f8", (nq or nx,)), ("v_after", "f8", (nq or nx,)),
                        ("lambda", "f8", (nc,))],
            "events": [("t", "f8"), ("monitor", "i4"), ("direction", "i4"), ("stopped", "i4"), ("value", "f8"),
                       ("x", "f8", (nx,))],
            "contacts": [("t", "f8"), ("gap", "i4"), ("kind", "i4"), ("reason", "i4"), ("t_limit", "f8"),
                         ("ratio", "f8"), ("lambda", "f8"), ("energy_before", "f8"), ("energy_after", "f8"),
                         ("x", "f8", (nx,))]}[kind]
        dt = _DTYPES[key] = _np.dtype(fields)
    return dt


def _structured(cols, dt):
    a = _np.zeros(len(cols["t"]), dtype=dt)
    for f in dt.names:
        a[f] = cols[f]
    return a


class Result:
    """One run: the samples (t, q, v, kind; x = (q, v), or the state of an ODE-form model),
    the impact, event and contact logs as structured arrays, the simultaneous impacts (one
    entry per impact record: None for one gap's impact, else a dict of its contacts,
    impulses, sequence, law, and with simul_order='enumerate' its outcomes, each with its
    velocity, sequence and impulses; see Simulation.simultaneous), the statistics, the status
    and the summary of `nholo run --json` (summary, a dict). lam: the constraint multipliers at
    the samples. The logs, statistics and summary are read from the simulation on first use
    (or, at the latest, before the simulation changes again).

    summary: the same dict as `nholo run --json` for the same run, key for key and in the same
    order (numbers as floats, None where the JSON has null; counts as ints); its "outputs" (the
    files written) is {} (a run from Python writes none)."""

    _LAZY = ("impacts", "simultaneous", "events", "contacts", "stats")

    def __init__(self, sim, status, wall, traj):
        m = sim.model
        self.model, self.method, self.status, self.wall = m, sim.method, status, wall
        self.method_reason = sim.method_reason
        self.status_name, self.status_text = _nholo.status_name(status)
        self.message = sim.message
        self.t, self.q, self.v, self.kind = traj
        self._x = self.q if m.form == "ode" else None
        self._sim = sim
        self._summary = None
        self._lam = None

    def _read(self, name):
        sim, m = self._sim._c, self.model
        if name == "stats":
            return sim.stats()
        if name == "simultaneous":
            return sim._simultaneous()
        cols = getattr(sim, "_" + name)()
        return _structured(cols, _dtype(name, m.nq, m.nc, m.nx))

    def _freeze(self):
        """Read everything still lazy from the simulation (called before it changes)."""
        for name in self._LAZY:
            if name not in self.__dict__:
                self.__dict__[name] = self._read(name)
        self.summary
        self._sim = None

    def __getattr__(self, name):  # only for attributes not yet set: the lazy ones
        if name in Result._LAZY and self.__dict__.get("_sim") is not None:
            value = self.__dict__[name] = self._read(name)
            return value
        raise AttributeError(name)

    @property
    def x(self):
        """The first-order state at the samples: (q, v), or an ODE-form model's state."""
        return self._x if self._x is not None else _np.hstack([self.q, self.v])

    @property
    def summary(self):
        """The dict of `nholo run --json` for this run (built by the library's summary writer,
        about 3 us; a property rather than a lazy attribute: the miss that calls __getattr__
        costs as much)."""
        if self._summary is None:
            self._summary = self._sim._c._summary(self.status, self.wall)
        return self._summary

    @property
    def lam(self):
        """Constraint multipliers (n, nc) at the samples (the free dynamics: closed contacts
        not included); None for an ODE-form model."""
        if self._lam is None and self.model.form == "mechanical":
            self._lam = self.model.multipliers(self.t, self.q, self.v)
        return self._lam

    @property
    def ok(self):
        return self.status >= 0

    def __repr__(self):
        return "<nholo.Result %s: %d samples, %d impacts, t = %.6g, %s>" % (
            self.model.name, len(self.t), len(self.impacts), self.t[-1] if len(self.t) else _math.nan,
            self.status_name)


def _failure(res, where="run"):
    msg = "%s ended with %s: %s" % (where, res.status_name, res.message or res.status_text)
    e = SimulationError(msg)
    e.status, e.status_name, e.result = res.status, res.status_name, res
    return e


class Simulation:
    """A simulation of a model: Simulation(model, method=None, record=True, **options).

    method None or 'auto': chosen from the model, its impact laws, the option horizon (the run's
    length; run() passes its t_end) and rtol; method_reason says why ('' when given).

    Options (nholo/sim.h, nh_sim_def): h, h_max, h_min, rtol, atol, max_steps, out_dt (default
    as the command line: 0.01 s on an exact flow, else every step), event_samples, event_tol,
    vn_tol, zeno_interval, zeno_count, contact, constraint_tol, project_initial, log_limit,
    simul_tol, simul_order, simul_max_outcomes, impact_step ('variational', 'restart' or 'auto'), and the methods' retraction, variant ('symmetric' or 'paper'), start, midpoint_ld, alpha,
    dexp_order, newton_tol, newton_max_iter. record=False keeps no samples (an observer may)."""

    def __init__(self, model, method=None, record=True, **options):
        if not isinstance(model, Model):
            raise TypeError("Simulation: expected an nholo.Model")
        self.model = model
        self._c = _nholo.Simulation(model._c, record, method=method, **options)
        info = self._c._info()
        self.method, self.method_reason = info[0], info[3]
        self._last = None

    def _changing(self):
        """The simulation is about to change: the last result reads its lazy parts now."""
        last = self._last() if self._last is not None else None
        if last is not None and last.__dict__.get("_sim") is not None:
            last._freeze()
        self._last = None

    @property
    def message(self):
        return self._c._info()[1]

    @property
    def t(self):
        return self._c._state()[0]

    @property
    def q(self):
        return self._c._state()[1]

    @property
    def v(self):
        return self._c._state()[2]

    @property
    def x(self):
        return self._c._state()[3]

    def stats(self):
        return self._c.stats()

    def set_state(self, t, q, v=None):
        """Set the state (an ODE-form model: q is the whole state x); resets statistics and logs."""
        self._changing()
        return self._c._set_state(t, q, v)

    def run(self, t_end, max_impacts=0, observer=None, breaks=None):
        """Run to t_end or max_impacts impacts; returns a Result. observer(kind, t, q, v) is
        called at every sample (a true return value stops the run: NH_STOPPED). A numerical
        failure raises SimulationError with .result holding what was computed."""
        self._changing()
        status, wall = self._c._run(t_end, max_impacts, observer, breaks)
        traj = self._c._trajectory()
        self._c.clear()
        res = Result(self, status, wall, traj)
        self._last = _weakref.ref(res)
        if status < 0:
            raise _failure(res)
        return res

    def step(self, t_max=None):
        """One accepted step (not past t_max; None: no bound), stopping at the first impact;
        True when the step ended with an impact. Raises SimulationError on failure."""
        self._changing()
        status, impacted = self._c._step(1e300 if t_max is None else t_max)
        if status < 0:
            name, text = _nholo.status_name(status)
            e = SimulationError("step ended with %s: %s" % (name, self.message or text))
            e.status, e.status_name, e.result = status, name, None
            raise e
        return impacted

    def impacts(self):
        """The impact log so far (structured array), as Result.impacts."""
        m = self.model
        return _structured(self._c._impacts(), _dtype("impacts", m.nq, m.nc, m.nx))

    def simultaneous(self):
        """Per record of the impact log (as Result.simultaneous): None for one gap's impact;
        for a simultaneous one a dict: contacts (gap names), impulse, vn_before, vn_after
        (arrays, per contact), sequence (gap names), law, restitution, order, outcomes (with
        simul_order='enumerate': a list of dicts velocity (array nq), sequence, impulses
        (array, per contact), followed (True for outcome 0, the one the run follows); else []),
        outcomes_truncated, xi, fallback (None, 'opposing-contacts' or
        'constrained-plastic-law': the plastic map resolved the impact instead of its law) and
        note (why, or that the enumeration was truncated; '' when neither)."""
        return self._c._simultaneous()


def run(model, t_end, max_impacts=0, observer=None, method=None, **options):
    """Simulation(model, method, horizon=t_end, **options).run(t_end, max_impacts, observer)."""
    if not isinstance(t_end, float) or _math.isfinite(t_end):
        options.setdefault("horizon", t_end)  # (run() refuses a t_end that is not finite)
    return Simulation(model, method=method, **options).run(t_end, max_impacts, observer)


# ---- ensembles -----------------------------------------------------------------------------

class EnsembleResult:
    """members: a structured array, one row per member (member, the variables, status,
    impacts, t_end, final_<state>), None with an HDF5 output (read the file with h5py);
    stats: mean, var, min, max of the final states over the members that completed (arrays),
    members, ok (completed: NH_OK, a stop monitor or NH_DRIFT), drifted (of those, the ones
    that ended with NH_DRIFT: the method left its regime, a warning), failed, threads, and
    with a sample grid t (its times), stat_names and t_n, t_mean, t_var, t_min, t_max
    (nt, nstat), t_q (nt, nstat, 5: the quantiles at quantile_levels); path: the output file (None without)."""

    quantile_levels = (0.05, 0.25, 0.5, 0.75, 0.95)

    def __init__(self, members, stats, path=None):
        self.members, self.stats, self.path = members, stats, path

    def __repr__(self):
        s = self.stats
        drift = " (%d drifted: NH_DRIFT)" % s["drifted"] if s["drifted"] else ""
        return "<nholo.EnsembleResult: %d members, %d ok%s>" % (s["members"], s["ok"], drift)


def _read_members(path):
    with open(path, newline="") as f:
        import csv as _csv  # (on first use: importing nholo stays cheap)
        rows = list(_csv.reader(f))
    head, body = rows[0], rows[1:]
    fields = []
    for name in head:
        t = "i8" if name in ("member", "impacts") else "U32" if name == "status" else "f8"
        fields.append((name, t))
    a = _np.zeros(len(body), dtype=_np.dtype(fields))
    for j, (name, t) in enumerate(fields):
        col = [r[j] for r in body]
        a[name] = col if t == "U32" else _np.array(col, dtype=float if t == "f8" else _np.int64)
    return a


def _is_h5(path):
    return str(path).endswith((".h5", ".hdf5"))


def _member_table(members):
    """Explicit members: (names, values (rows, columns)) from a dict of columns, a structured
    array, or a member file as `nholo ensemble --members` reads (FILE.csv: a header of names,
    a row of numbers per member; FILE.h5: an ensemble's HDF5 file)."""
    if isinstance(members, (str, _os.PathLike)):
        path = _os.fspath(members)
        if _is_h5(path):
            return _nholo.read_members_h5(path)
        with open(path, newline="") as f:
            import csv as _csv
            rows = [[c.strip() for c in r] for r in _csv.reader(f) if any(c.strip() for c in r)]
        if not rows or not rows[0] or not rows[0][0]:
            raise ValueError("--members: '%s' has no header line of names" % path)
        head = rows[0]
        for i, r in enumerate(rows[1:]):
            if len(r) != len(head):
                raise ValueError("--members: '%s' row %d has %d values, the header %d columns"
                                 % (path, i + 1, len(r), len(head)))
        try:
            values = _np.array([[float(c) for c in r] for r in rows[1:]], dtype=float).reshape(-1, len(head))
        except ValueError as e:
            raise ValueError("--members: '%s': %s" % (path, e)) from None
        return head, values
    if isinstance(members, _np.ndarray) and members.dtype.names:
        names = list(members.dtype.names)
        return names, _np.column_stack([_np.asarray(members[n], dtype=float) for n in names])
    names = list(members)
    return names, _np.column_stack([_np.asarray(members[n], dtype=float).ravel() for n in names])


def _state_index(model, name):
    if name in model.state_names:
        return model.state_names.index(name)
    if model.form != "ode" and name.endswith("'") and name[:-1] in model.coords:
        return model.nq + model.coords.index(name[:-1])
    return -1


def _stat_specs(model, stats):
    """--stat NAME[=LO:HI[:BINS]] as (index, lo, hi, bins), with the command line's messages."""
    out = []
    for text in stats:
        name, eq, rng = str(text).partition("=")
        i = _state_index(model, name)
        if i < 0:
            raise ValueError("--stat: model '%s' has no state component '%s' (a coordinate or a velocity NAME')"
                             % (model.name, name))
        lo = hi = 0.0
        bins = 0
        if eq:
            parts = rng.split(":")
            try:
                lo, hi = float(parts[0]), float(parts[1])
                b = float(parts[2]) if len(parts) == 3 else 100.0
                good = len(parts) in (2, 3) and hi > lo and 1 <= b <= 100000 and b == int(b) \
                    and _np.isfinite(lo) and _np.isfinite(hi)
            except (ValueError, IndexError):
                good = False
            if not good:
                raise ValueError("--stat: '%s=%s': expected NAME=LO:HI or NAME=LO:HI:BINS (HI > LO, BINS 1..100000)"
                                 % (name, rng))
            bins = int(b)
        out.append((i, lo, hi, bins))
    return out


def ensemble(model, t_end, vary=(), replicas=1, seed=0, threads=0, max_impacts=0, method=None, members=None,
             out=None, sample=0.0, stats=None, trajectories=False, no_impact_log=False, chunk=0, **options):
    """Many runs of a model that differ in initial values and parameters, as `nholo ensemble`
    (docs/ensembles.md): vary is a list of "NAME=uniform:A:B", "NAME=normal:MU:SIGMA" or
    "NAME=grid:A:B:K"; or members gives them explicitly (a dict of columns, a structured
    array, or a member file FILE.csv / FILE.h5). Members run in parallel on `threads` threads (0:
    OMP_NUM_THREADS when set, else all cores) with results independent of their number. Every option of Simulation (method, h, retraction,
    variant, start, midpoint_ld, alpha, dexp_order, newton_tol, newton_max_iter, impact_step, ...)
    applies to every member. out: a path, FILE.csv (one row per member) or FILE.h5 (the HDF5
    file of the command line; needs the hdf5 component), replaced when it exists. sample: the time
    grid k sample of the time statistics (stats: the state components followed, as --stat;
    default all) and, in an HDF5 file, of trajectories. Returns an EnsembleResult."""
    h5 = out is not None and _is_h5(out)
    if out is not None and not h5 and not _os.fspath(out).endswith(".csv"):  # (the members are read back)
        raise ValueError("--out: '%s': the name says the format, FILE.csv (one row per member) or FILE.h5 (HDF5)"
                         % _os.fspath(out))
    if members is not None and len(vary):
        raise ValueError("--members: a member file and --vary cannot be combined")
    if h5:  # the hdf5 component (nholo-hdf5.so), opened now: why it is unavailable, as the CLI says
        loaded, why = _nholo.component_load("hdf5")
        if loaded != 1:
            raise ValueError("--out: '%s': %s" % (_os.fspath(out), why))
    if trajectories and not (sample > 0 and h5):
        raise ValueError("--trajectories: needs --sample DT and an HDF5 output (--out FILE.h5)")
    if no_impact_log and not h5:
        raise ValueError("--no-impact-log: the impact log is written only to an HDF5 file (--out FILE.h5)")
    if stats and not sample > 0:
        raise ValueError("--stat: needs --sample DT (the time grid)")
    if not (sample >= 0 and _math.isfinite(sample)):
        raise ValueError("--sample: %r must be positive and finite" % (sample,))
    specs = _stat_specs(model, stats if stats else
                        (model.state_names[:64] if sample > 0 else ()))
    extra = {"sample": float(sample), "stats": specs, "trajectories": bool(trajectories),
             "no_impact_log": bool(no_impact_log), "chunk": int(chunk)}
    names = list(vary)
    if members is not None:
        names, extra["table"] = _member_table(members)
        names = list(names)
        if len(extra["table"]) == 0:
            raise ValueError("--members: no members (rows)")
        if not _np.all(_np.isfinite(extra["table"])):
            raise ValueError("--members: a value that is not a finite number")
    path = _os.fspath(out) if out is not None else None
    tmp = None
    if path is None:
        import tempfile as _tempfile
        fd, tmp = _tempfile.mkstemp(suffix=".csv", prefix="nholo-ensemble-")
        _os.close(fd)
    try:
        st = _nholo.ensemble(model._c, path or tmp, 1 if h5 else 0, t_end, names, replicas, seed, threads,
                             max_impacts, extra, method=method, **options)
        if sample > 0:
            st["t"] = _np.arange(len(st["t_n"])) * float(sample)
            st["stat_names"] = [model.state_names[i] for i, _, _, _ in specs]
        return EnsembleResult(None if h5 else _read_members(path or tmp), st, path)
    finally:
        if tmp:
            _os.unlink(tmp)


# ---- Lyapunov exponents --------------------------------------------------------------------

_LYAP_HISTORY = _np.dtype([("t", "f8"), ("windows", "i8"), ("lambda", "f8"), ("half_width", "f8"),
                           ("log_growth", "f8"), ("impacts", "i8")])


def lyapunov(model, t_end=1000.0, window=1.0, transient=0.0, **options):
    """The largest Lyapunov exponent of a model from its initial state (or x0), as
    `nholo lyapunov` (docs/lyapunov.md): the tangent equations from the model's derivatives,
    the saltation matrix at every impact, Benettin's renormalisation every `window` seconds
    over `t_end` seconds after a `transient`, and a 95% batch-means interval.

    options (defaults as the command line): batches (10), method ('dop853'), rtol (1e-11),
    atol (1e-13), h_max (0: none), seed (1), x0, dx0 (arrays of nx), contact (True:
    persistent contacts close, are held and open as in `run`, the tangent following the
    constrained flow; False: impacts only, `--no-contact`). An impact law for every gap is the
    model's: load it with impact=.

    Returns a dict with the keys of `nholo lyapunov --json` (model, lambda, half_width (NaN
    before `batches` windows), t, windows, window, batches, impacts, grazing, contacts (closed),
    max_saltation_gain, status (its name), message) and t_stop, status_code and history: a
    structured array of the estimate after every window (t, windows, lambda, half_width,
    log_growth, impacts; the rows of --csv). Bad input raises ValueError; a numerical failure
    raises SimulationError with .result."""
    status, message, res = _nholo.lyapunov(model._c, t_end, window, transient, **options)
    hist = res.pop("history")
    history = _np.zeros(len(hist["t"]), dtype=_LYAP_HISTORY)
    for name in _LYAP_HISTORY.names:
        history[name] = hist[name]
    out = {"model": model.name}
    out.update(res)
    out.update(status=_nholo.status_name(status)[0], message=message, status_code=status, history=history)
    if status < 0:
        e = SimulationError("lyapunov ended with %s: %s" % (out["status"], message))
        e.status, e.status_name, e.result = status, out["status"], out
        raise e
    return out
