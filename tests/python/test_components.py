"""The hdf5 component (nholo-hdf5.so: HDF5 and MPI) from Python: importing nholo opens
neither HDF5 nor MPI (the loader's LD_DEBUG=files); nholo._nholo.hdf5 is read when first
used and agrees with component_load; without the component (NHOLO_MODULE_PATH naming no
directory of modules) an HDF5 output or member file raises ValueError with the reason."""
import os
import subprocess
import sys

import nholo


def _python(code, **env):
    """code run by a fresh interpreter with this one's environment and env added"""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, **env))


def test_import_loads_no_hdf5_or_mpi():
    p = _python("import nholo; import nholo._nholo as c; print(c.__file__)", LD_DEBUG="files")
    assert p.returncode == 0, p.stderr
    files = [line for line in p.stderr.splitlines() if "file=" in line]
    assert files, "LD_DEBUG=files listed no file: cannot tell what was loaded"
    assert not [f for f in files if "hdf5" in f or "libmpi" in f], files


def test_hdf5_attribute_is_the_component():
    loaded, info = nholo._nholo.component_load("hdf5")
    assert nholo._nholo.hdf5 == (1 if loaded == 1 else 0), info
    assert vars(nholo._nholo)["hdf5"] == nholo._nholo.hdf5  # read once, then an attribute like any other
    assert nholo._nholo.component_load("nope")[0] == -1


def test_missing_component_raises_the_reason(tmp_path):
    code = """
import nholo
m = nholo.builtin("penny")
assert nholo._nholo.hdf5 == 0
for kw in ({"out": %r}, {"members": %r}):
    try:
        nholo.ensemble(m, 1.0, ["x=uniform:0:0.01"] if "out" in kw else (), replicas=3, method="exact", **kw)
    except ValueError as e:
        print(e)
    else:
        raise SystemExit("no error for %%s" %% kw)
ens = nholo.ensemble(m, 1.0, ["x=uniform:0:0.01"], replicas=3, method="exact")
assert len(ens.members) == 3
""" % (str(tmp_path / "x.h5"), str(tmp_path / "m.h5"))
    p = _python(code, NHOLO_MODULE_PATH="/nonexistent")
    assert p.returncode == 0, p.stdout + p.stderr
    out, members = p.stdout.splitlines()
    why = "HDF5 is unavailable: the hdf5 module nholo-hdf5.so was not found (NHOLO_MODULE_PATH=/nonexistent)"
    assert out == "--out: '%s': %s" % (tmp_path / "x.h5", why), out
    assert members.startswith("--members: '%s': %s" % (tmp_path / "m.h5", why)), members
    assert not os.listdir(tmp_path)
