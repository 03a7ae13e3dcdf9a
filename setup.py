"""Build of the Python package nholo for pip: the C extension (the list of python/CMakeLists.txt)
compiled with the core library's sources (the list NHOLO_SOURCES of CMakeLists.txt; both read
from there); ensembles run on POSIX threads (libc). CMake builds the same extension against
its static library (python/CMakeLists.txt). The components (nholo_add_module in CMakeLists.txt:
plot, hdf5, cholmod) are built beside it, in nholo/nholo-modules/, each linked with a private
copy of the core objects, when their libraries are found; the package opens them on first use
and says which one is missing when it is needed."""
import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


def cmake_list(path, name, prefix=""):
    """The files of set(NAME ...) in a CMakeLists.txt (the build's one list of sources)."""
    text = open(os.path.join(HERE, path)).read()
    block = re.search(r"set\(%s(.*?)\)" % name, text, re.S).group(1)
    return [prefix + f for f in block.split()]


def library_sources():
    return cmake_list("CMakeLists.txt", "NHOLO_SOURCES")


def extension_sources():
    return cmake_list("python/CMakeLists.txt", "_nholo_py_sources", "python/")


def modules():
    """(name, sources, include dirs) of each nholo_add_module(NAME SOURCES ... [LIBS ...]
    [INCLUDES ...]) call of CMakeLists.txt"""
    text = open(os.path.join(HERE, "CMakeLists.txt")).read()
    out = []
    for m in re.finditer(r"^\s*nholo_add_module\((\w+)(.*?)\)\s*$", text, re.S | re.M):
        words, key, parts = m.group(2).split(), None, {"SOURCES": [], "INCLUDES": [], "LIBS": []}
        for w in words:
            if w in parts:
                key = w
            elif key:
                parts[key].append(w)
        incs = [i.replace("${PROJECT_SOURCE_DIR}/", "") for i in parts["INCLUDES"] if i.startswith("${PROJECT_SOURCE_DIR}/")]
        out.append((m.group(1), parts["SOURCES"], incs))
    return out


def kernel_text():
    """build-python/generated/gni_kernel_text.h: the bytes of src/lang/gni_kernel.h (gni's kernel,
    whose text src/lang/codegen_gni.c writes into a model file's C) as the array
    gni_kernel_text[], as CMakeLists.txt writes it into its build tree (rewritten only when it
    changes); returns its directory, for the include path"""
    data = open(os.path.join(HERE, "src", "lang", "gni_kernel.h"), "rb").read()
    text = ("/* src/lang/gni_kernel.h as text (setup.py): do not edit */\nstatic const char gni_kernel_text[] = {\n"
            + "".join("0x%02x,%s" % (b, "\n" if b == 10 else "") for b in data) + "0x00};\n")
    where = os.path.join(HERE, "build-python", "generated")
    path = os.path.join(where, "gni_kernel_text.h")
    os.makedirs(where, exist_ok=True)
    if not os.path.exists(path) or open(path).read() != text:
        with open(path, "w") as f:
            f.write(text)
    return where


def pkg_config(pkgs, *args):
    """the flags of the first of pkgs pkg-config knows, or None"""
    for pkg in pkgs:
        try:
            return shlex.split(subprocess.check_output(["pkg-config", *args, pkg], text=True,
                                                       stderr=subprocess.DEVNULL))
        except (OSError, subprocess.CalledProcessError):
            continue
    return None


def module_flags(name):
    """(compile flags, link flags) of a component's library, or None when it is not found"""
    if name == "plot":
        c, l = pkg_config(["plplot"], "--cflags"), pkg_config(["plplot"], "--libs")
    elif name == "hdf5":  # serial HDF5 (MPI is for CMake builds)
        c, l = pkg_config(["hdf5-serial", "hdf5"], "--cflags"), pkg_config(["hdf5-serial", "hdf5"], "--libs")
    elif name == "cholmod":
        inc = next((d for d in ("/usr/include/suitesparse", "/usr/include")
                    if os.path.exists(os.path.join(d, "cholmod.h"))), None)
        c, l = (["-I" + inc], ["-lcholmod"]) if inc else (None, None)
    else:
        c = l = None
    return (c, l) if c is not None and l is not None else None


def parallel_compile(compiler, jobs):
    """The compiler's compile() with its sources compiled by `jobs` processes at once
    (setuptools compiles one extension's sources one after the other)."""
    def compile(sources, output_dir=None, macros=None, include_dirs=None, debug=0, extra_preargs=None,
                extra_postargs=None, depends=None):
        macros, objects, extra_postargs, pp_opts, build = compiler._setup_compile(
            output_dir, macros, include_dirs, sources, depends, extra_postargs)
        cc_args = compiler._get_cc_args(pp_opts, debug, extra_preargs)

        def one(obj):
            src, ext = build[obj]
            compiler._compile(obj, src, ext, cc_args, extra_postargs, pp_opts)

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            list(pool.map(one, objects))  # (re-raises a failed compile)
        return objects

    compiler.compile = compile


class BuildExt(build_ext):
    """The sources compiled on all cores (NHOLO_BUILD_JOBS=N for N at once)."""

    def build_extensions(self):
        jobs = int(os.environ.get("NHOLO_BUILD_JOBS") or os.cpu_count() or 1)
        if jobs > 1:
            parallel_compile(self.compiler, jobs)
        super().build_extensions()
        self.build_modules()

    def build_modules(self):
        """the components, from the core objects just compiled for the extension (as an archive
        whose symbols stay local to each module)"""
        core = self.compiler.object_filenames(library_sources(), output_dir=self.build_temp)
        self.compiler.create_static_lib(core, "nholo_core", output_dir=self.build_temp)
        where = os.path.join(os.path.dirname(self.get_ext_fullpath("nholo._nholo")), "nholo-modules")
        os.makedirs(where, exist_ok=True)
        cargs = [a for a in ext.extra_compile_args if a != "-fopenmp"]
        for name, sources, incs in modules():
            flags = module_flags(name)
            if flags is None:
                print("nholo: component %s not built (its library's development files are not found)" % name)
                continue
            objs = self.compiler.compile(sources, output_dir=self.build_temp, macros=ext.define_macros,
                                         include_dirs=["include", "src"] + incs, extra_postargs=cargs + flags[0])
            self.compiler.link_shared_object(
                objs, os.path.join(where, "nholo-%s.so" % name), libraries=["nholo_core"],
                library_dirs=[self.build_temp],
                extra_postargs=["-Wl,--exclude-libs,ALL", "-Wl,--no-undefined"] + flags[1] + ["-lm"])


ext = Extension(
    "nholo._nholo",
    sources=extension_sources() + library_sources(),
    include_dirs=["include", "src", kernel_text(), numpy.get_include()],
    define_macros=[("NHOLO_STATIC", None), ("NHOLO_BUILDING", None)],
    extra_compile_args=["-std=c17", "-ffp-contract=off", "-fvisibility=hidden"],
    libraries=["m"],
)

setup(package_dir={"": "python"}, packages=["nholo"], ext_modules=[ext], cmdclass={"build_ext": BuildExt},
      options={"build": {"build_base": "build-python"}})  # not the CMake build directory
