"""CTest's entry to the Python binding's tests: pytest on this directory, or exit 77
(skipped) with a message when numpy, pytest or the built module is missing."""
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

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", HERE] + sys.argv[1:]))
