"""Shared fixtures of the Python binding's tests: the command-line tool of the same build
(NHOLO_CLI, set by CTest) and the source tree."""
import os
import pathlib
import shutil

import pytest

SRC = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("NHOLO_CLI") or shutil.which("nholo")
    if not path:
        pytest.skip("the nholo command-line tool is not known (set NHOLO_CLI)")
    return path


@pytest.fixture(scope="session")
def src():
    return SRC
