"""Build of the Python package nholo for pip: the C extension (the list of python/CMakeLists.txt)
compiled with the library's sources (the list NHOLO_SOURCES of CMakeLists.txt; both read from
there), linked with PLplot (pkg-config); ensembles run on POSIX threads (libc). CMake builds the
same extension against its static library (python/CMakeLists.txt)."""
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


def pkg_config(*args):
    try:
        return shlex.split(subprocess.check_output(["pkg-config", *args, "plplot"], text=True))
    except (OSError, subprocess.CalledProcessError):
        sys.exit("nholo: PLplot's development files are needed (pkg-config plplot failed)")


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


ext = Extension(
    "nholo._nholo",
    sources=extension_sources() + library_sources(),
    include_dirs=["include", "src", numpy.get_include()],
    define_macros=[("NHOLO_STATIC", None), ("NHOLO_BUILDING", None)],
    extra_compile_args=["-std=c17", "-ffp-contract=off", "-fvisibility=hidden"]
    + [a for a in pkg_config("--cflags")],
    extra_link_args=pkg_config("--libs"),
    libraries=["m", "dl"],
)

setup(package_dir={"": "python"}, packages=["nholo"], ext_modules=[ext], cmdclass={"build_ext": BuildExt},
      options={"build": {"build_base": "build-python"}})  # not the CMake build directory
