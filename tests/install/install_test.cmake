# test_install: install the build tree into a temporary prefix and build a tiny program
# against it, once with pkg-config and once with the CMake package, and import the installed
# Python package (see run_install_test.sh).
# Included by tests/CMakeLists.txt; it needs the whole build done (make check builds first).
add_test(NAME test_install
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/run_install_test.sh
          ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR} ${CMAKE_C_COMPILER} $<CONFIG>)

set(_nholo_install_env
  "NHOLO_CMAKE=${CMAKE_COMMAND}"
  "NHOLO_CMAKE_GENERATOR=${CMAKE_GENERATOR}")
if(NHOLO_PYTHON)
  # the Python package was built: it must be installed and importable from the prefix
  list(APPEND _nholo_install_env "NHOLO_PYTHON_EXE=${Python3_EXECUTABLE}"
       "NHOLO_PYTHON_SITEDIR=${NHOLO_PYTHON_SITEDIR}")
endif()
if(NHOLO_MANPAGE)
  # help2man was found: the manual page must be installed
  list(APPEND _nholo_install_env "NHOLO_EXPECT_MAN=1")
endif()
if(NHOLO_SANITIZE)
  # The installed shared library needs the sanitizer runtimes loaded first.
  list(APPEND _nholo_install_env "NHOLO_CONSUMER_FLAGS=-fsanitize=address,undefined")
endif()
set_tests_properties(test_install PROPERTIES
  ENVIRONMENT "${_nholo_install_env}"
  LABELS install
  TIMEOUT 600)
unset(_nholo_install_env)
