"""nholo.ensemble with the method options of `nholo run`, explicit members, the time
statistics and the outputs of `nholo ensemble` (CSV and HDF5), against the command line."""
import csv
import subprocess

import numpy as np
import pytest

import nholo

S = ["--dt", "0.05", "--t-end", "5"]
CASES = [  # (command-line options, the same as Python options), each against the method's defaults
    (["--method", "rdp", "--retraction", "cay"], dict(method="rdp", retraction="cay")),
    (["--method", "rdp", "--dexp-order", "1", "--alpha", "0.3"], dict(method="rdp", dexp_order=1, alpha=0.3)),
    (["--method", "gni", "--variant", "paper", "--start", "paper"], dict(method="gni", variant="paper", start="paper")),
    (["--method", "del", "--ld", "midpoint", "--newton-tol", "1e-10"], dict(method="del", midpoint_ld=1, newton_tol=1e-10)),
]


def final_row(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return [float(v) for v in rows[1][4:]], rows[1][1]


@pytest.mark.parametrize("args,opts", CASES)
def test_method_options_reach_each_member_as_the_cli(cli, tmp_path, args, opts):
    """A one-member ensemble ends where `nholo run` and `nholo ensemble` with the same options
    end, bit for bit, and the option changes the result (it reaches the member)."""
    m = nholo.builtin("sleigh")
    out = tmp_path / "e.csv"
    p = subprocess.run([cli, "ensemble", "sleigh", "--members", "1", "--out", str(out)] + args + S,
                       capture_output=True, text=True)
    want, status = final_row(out)
    assert p.returncode == (4 if status == "NH_DRIFT" else 0), p.stderr  # gni's paper start drifts
    ens = nholo.ensemble(m, 5.0, members={"omega": [1.0]}, h=0.05, **opts)
    row = ens.members[0]
    got = [row["final_" + n] for n in m.state_names]
    assert got == want and row["status"] == status
    res = nholo.run(m, 5.0, h=0.05, **opts)
    assert list(res.x[-1]) == want
    plain = nholo.ensemble(m, 5.0, members={"omega": [1.0]}, h=0.05, method=opts["method"])
    assert [plain.members[0]["final_" + n] for n in m.state_names] != want


def test_drifted_members_complete(cli, tmp_path):
    """Members that end with NH_DRIFT (gni's paper variant and start on the sleigh at h = 0.05 leaves its
    regime for omega >= 0.9) completed: ok, counted as drifted, their final states in the
    statistics; the command line agrees (its JSON, exit status 4 as `nholo run` for NH_DRIFT)."""
    m = nholo.builtin("sleigh")
    ens = nholo.ensemble(m, 5.0, ["omega=grid:0.1:2:8"], replicas=1, method="gni", variant="paper", start="paper", h=0.05)
    st = ens.stats
    assert list(ens.members["status"]) == ["NH_OK"] * 3 + ["NH_DRIFT"] * 5
    assert (st["members"], st["ok"], st["failed"], st["drifted"]) == (8, 8, 0, 5)
    final = np.array([[r["final_" + n] for n in m.state_names] for r in ens.members])
    assert np.array_equal(st["min"], final.min(axis=0)) and np.array_equal(st["max"], final.max(axis=0))
    assert st["max"][m.state_names.index("x_dot")] > 2  # a drifted member's
    assert "(5 drifted: NH_DRIFT)" in repr(ens)
    p = subprocess.run([cli, "ensemble", "sleigh", "--method", "gni", "--variant", "paper", "--start", "paper", "--vary", "omega=grid:0.1:2:8",
                        "--json"] + S, capture_output=True, text=True)
    assert p.returncode == 4 and '"members": 8, "ok": 8, "failed": 0, "drifted": 5,' in p.stdout, p.stderr
    plain = nholo.ensemble(m, 5.0, ["omega=grid:0.1:2:8"], replicas=1, method="rk4", h=0.05)
    assert (plain.stats["ok"], plain.stats["drifted"]) == (8, 0) and "drifted" not in repr(plain)


def test_csv_output_is_the_cli_file(cli, tmp_path):
    """out=FILE.csv: the file `nholo ensemble --out` writes, byte for byte."""
    a, b = tmp_path / "cli.csv", tmp_path / "py.csv"
    p = subprocess.run([cli, "ensemble", "sleigh", "--vary", "omega=uniform:0.5:1.5", "--members", "5", "--seed", "4",
                        "--method", "rdp", "--retraction", "ccsk", "--out", str(a)] + S, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    ens = nholo.ensemble(nholo.builtin("sleigh"), 5.0, ["omega=uniform:0.5:1.5"], replicas=5, seed=4, method="rdp",
                         retraction="ccsk", h=0.05, out=str(b))
    assert a.read_bytes() == b.read_bytes() and ens.path == str(b) and len(ens.members) == 5


def test_member_files_and_tables(tmp_path):
    """members= a CSV file, a dict or a structured array: the same members, in order."""
    m = nholo.builtin("penny")
    f = tmp_path / "m.csv"
    f.write_text("x, theta\n0.01,0\n\n-0.02,1\n")
    a = nholo.ensemble(m, 5.0, members=str(f), method="exact", max_impacts=3)
    b = nholo.ensemble(m, 5.0, members={"x": [0.01, -0.02], "theta": [0, 1]}, method="exact", max_impacts=3)
    c = nholo.ensemble(m, 5.0, members=a.members[["x", "theta"]], method="exact", max_impacts=3)
    assert list(a.members["x"]) == [0.01, -0.02] and list(a.members["theta"]) == [0.0, 1.0]
    assert np.array_equal(a.members["final_x"], b.members["final_x"])
    assert np.array_equal(a.members["final_phi"], c.members["final_phi"])
    assert a.members["final_x"][0] != a.members["final_x"][1]


def test_time_statistics_without_a_file():
    """sample= gives the time statistics in memory: at t = 0 the varied state's mean is its
    members' mean, every member counts, and no quantile leaves its histogram's range."""
    m = nholo.builtin("penny")
    ens = nholo.ensemble(m, 10.0, ["x=uniform:-0.05:0.05"], replicas=40, seed=2, method="exact", max_impacts=10,
                         sample=0.5, stats=["x=-0.3:0.3:60", "theta'"])
    st = ens.stats
    assert st["stat_names"] == ["x", "theta_dot"] and st["t_mean"].shape == (21, 2) and st["t_q"].shape == (21, 2, 5)
    assert np.allclose(st["t"], 0.5 * np.arange(21))
    assert st["t_n"][0] == 40
    assert abs(st["t_mean"][0, 0] - ens.members["x"].mean()) < 1e-15
    assert st["t_min"][0, 0] == ens.members["x"].min() and st["t_max"][0, 0] == ens.members["x"].max()
    q = st["t_q"][:, 0, :]
    assert np.all(np.isnan(q) | ((q >= -0.3) & (q <= 0.3)))
    assert np.all(np.isnan(st["t_q"][:, 1, :]))  # theta' has no histogram


@pytest.mark.skipif(not nholo._nholo.hdf5, reason="a build without HDF5")
def test_hdf5_output_replays_as_the_cli(cli, tmp_path):
    """out=FILE.h5 writes the command line's HDF5 file: its members, read back by both
    `nholo ensemble --members FILE.h5` and members=FILE.h5, run again to the same bits."""
    m = nholo.builtin("penny")
    h5 = tmp_path / "a.h5"
    ens = nholo.ensemble(m, 20.0, ["phi=uniform:0:6.28"], replicas=6, seed=5, method="exact", max_impacts=5,
                         out=str(h5), sample=1.0, trajectories=True)
    assert ens.members is None and h5.stat().st_size > 0 and ens.stats["t_mean"].shape == (21, m.nx)
    again = tmp_path / "again.csv"
    p = subprocess.run([cli, "ensemble", "penny", "--members", str(h5), "--method", "exact", "--impacts", "5",
                        "--t-end", "20", "--out", str(again)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    py = nholo.ensemble(m, 20.0, members=str(h5), method="exact", max_impacts=5, out=str(tmp_path / "py.csv"))
    assert (tmp_path / "py.csv").read_bytes() == again.read_bytes()
    assert np.array_equal(py.stats["mean"], ens.stats["mean"])


@pytest.mark.parametrize("kw,message", [
    (dict(trajectories=True, sample=1.0), "--trajectories: needs --sample DT and an HDF5 output (--out FILE.h5)"),
    (dict(no_impact_log=True), "--no-impact-log: the impact log is written only to an HDF5 file (--out FILE.h5)"),
    (dict(stats=["x"]), "--stat: needs --sample DT (the time grid)"),
    (dict(sample=1.0, stats=["zz"]), "--stat: model 'penny' has no state component 'zz' (a coordinate or a velocity NAME')"),
    (dict(sample=1.0, stats=["x=1:0"]), "--stat: 'x=1:0': expected NAME=LO:HI or NAME=LO:HI:BINS (HI > LO, BINS 1..100000)"),
    (dict(members={"x": [0.0]}), "--members: a member file and --vary cannot be combined"),
    (dict(retraction="bogus"), "--retraction: unknown retraction 'bogus' (expected exp, ccsk or cay)"),
    (dict(start="sometimes"), "--start: unknown start 'sometimes' (expected paper, consistent or midpoint)"),
])
def test_bad_options_raise_the_cli_message(kw, message):
    with pytest.raises(ValueError) as e:
        nholo.ensemble(nholo.builtin("penny"), 1.0, ["x=uniform:0:0.01"], replicas=2, method="exact", **kw)
    assert str(e.value) == message
