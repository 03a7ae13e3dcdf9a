"""CTest's entry to the Python binding's tests: pytest on this directory, or exit 77
(skipped) with a message when numpy, pytest or the built module is missing. A run in which a
test skipped itself (a prerequisite missing: matplotlib for the examples, the HDF5 build) and
none failed exits 77 too, so that CTest reports it skipped, not passed."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

for name, why in (("numpy", "numpy is not installed"), ("pytest", "pytest is not installed"),
                  ("nholo", "the module nholo was not built (NHOLO_PYTHON off: no Python development files or numpy)")):
    try:
        __import__(name)
    except ImportError as e:
        print("test_python skipped: %s (%s)" % (why, e))
        sys.exit(77)

import pytest  # noqa: E402


class Skips:
    """counts the tests that skipped themselves (not the expected failures)"""

    def __init__(self):
        self.names = []

    def pytest_runtest_logreport(self, report):
        if report.skipped and not hasattr(report, "wasxfail"):
            self.names.append(report.nodeid)


skips = Skips()
rc = pytest.main(["-q", "-p", "no:cacheprovider", "-rs", HERE] + sys.argv[1:], plugins=[skips])
if rc == 0 and skips.names:
    print("test_python skipped: %d test(s) could not run here: %s" % (len(skips.names), ", ".join(skips.names)))
    sys.exit(77)
sys.exit(rc)
