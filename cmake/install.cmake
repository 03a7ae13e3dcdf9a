# cmake/install.cmake - install rules for nholo, included by the top-level CMakeLists.txt
# after the targets are defined.
#
#   <libdir>/libnholo.so*, <libdir>/libnholo.a      the shared and the static library
#   <libdir>/nholo-modules/nholo-*.so               the components (install components plot,
#                                                   hdf5, cholmod; CMakeLists.txt)
#   <includedir>/nholo/*.h                          the public headers
#   <bindir>/nholo                                  the command-line tool
#   <libdir>/cmake/nholo/                           CMake package: nholo::nholo (shared),
#                                                   nholo::nholo_static (static)
#   <libdir>/pkgconfig/nholo.pc                     pkg-config file
#   <docdir>/README.md, <docdir>/docs/*.md          the documentation (docdir: share/doc/nholo)
#   <docdir>/docs/img/*.png                         its pictures
#   <docdir>/examples/*                             the example model files
#   <mandir>/man1/nholo.1                           the manual page, made by help2man from
#                                                   `nholo --help` when help2man is found
#
# Components: Runtime (shared library, CLI) and Development (everything else).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(NHOLO_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/nholo" CACHE STRING
    "Install directory of the nholo CMake package files (relative to the prefix, or absolute)")
mark_as_advanced(NHOLO_INSTALL_CMAKEDIR)

# Both libraries have OUTPUT_NAME nholo (libnholo.so and libnholo.a); the exported names must
# differ: nholo::nholo is the shared library, nholo::nholo_static the static one.
set_target_properties(nholo_shared PROPERTIES EXPORT_NAME nholo)
set_target_properties(nholo_static PROPERTIES EXPORT_NAME nholo_static)
# The static library links nholo_flags PRIVATE, which CMake records as $<LINK_ONLY:nholo_flags>
# in its interface, so the flags target must be in the export set too. Only its link options
# reach consumers (the sanitizer runtime in NHOLO_SANITIZE builds); its warnings do not.
set_target_properties(nholo_flags PROPERTIES EXPORT_NAME nholo_internal_flags)

install(TARGETS nholo_shared nholo_static nholo_flags
  EXPORT nholoTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          COMPONENT Runtime
          NAMELINK_COMPONENT Development
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          COMPONENT Development
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          COMPONENT Runtime)

install(TARGETS nholo_cli
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          COMPONENT Runtime)

# ---- documentation, examples, manual page -----------------------------------------------
# `nholo --help` names the documentation directory relative to the prefix.
target_compile_definitions(nholo_cli PRIVATE "NHOLO_DOCDIR=\"${CMAKE_INSTALL_DOCDIR}\"")
install(FILES ${PROJECT_SOURCE_DIR}/README.md
  DESTINATION ${CMAKE_INSTALL_DOCDIR}
  COMPONENT Runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/
  DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
  COMPONENT Runtime
  FILES_MATCHING PATTERN "*.md" PATTERN "*.png")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/
  DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples
  COMPONENT Runtime)

find_program(NHOLO_HELP2MAN help2man DOC "help2man, which makes the manual page from nholo --help")
mark_as_advanced(NHOLO_HELP2MAN)
if(NHOLO_HELP2MAN)
  set(NHOLO_MANPAGE "${PROJECT_BINARY_DIR}/man/nholo.1")
  add_custom_command(OUTPUT ${NHOLO_MANPAGE}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
    COMMAND ${NHOLO_HELP2MAN} --no-info --no-discard-stderr
            "--name=simulate nonholonomic mechanical systems with impacts"
            --output=${NHOLO_MANPAGE} $<TARGET_FILE:nholo_cli>
    DEPENDS nholo_cli
    COMMENT "Generating the manual page nholo.1 with help2man"
    VERBATIM)
  add_custom_target(nholo_man ALL DEPENDS ${NHOLO_MANPAGE})
  install(FILES ${NHOLO_MANPAGE}
    DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
    COMPONENT Runtime)
else()
  set(NHOLO_MANPAGE "")
  message(STATUS "help2man not found: no manual page (install help2man, or run scripts/setup.sh)")
endif()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/nholo/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/nholo
  COMPONENT Development
  FILES_MATCHING PATTERN "*.h")

# ---- CMake package -------------------------------------------------------------------
install(EXPORT nholoTargets
  NAMESPACE nholo::
  FILE nholoTargets.cmake
  DESTINATION ${NHOLO_INSTALL_CMAKEDIR}
  COMPONENT Development)

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/nholoConfig.cmake.in
  ${PROJECT_BINARY_DIR}/nholoConfig.cmake
  INSTALL_DESTINATION ${NHOLO_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR NHOLO_INSTALL_MODULEDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/nholoConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMajorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/nholoConfig.cmake
  ${PROJECT_BINARY_DIR}/nholoConfigVersion.cmake
  DESTINATION ${NHOLO_INSTALL_CMAKEDIR}
  COMPONENT Development)

# ---- pkg-config ----------------------------------------------------------------------
# The prefix written into nholo.pc is the one actually installed to, so the .pc file is
# generated at install time: `cmake --install build --prefix /somewhere` gets
# prefix=/somewhere (DESTDIR, a staging root, is not part of it, as it should not be).
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(_nholo_pc_libdir "${CMAKE_INSTALL_LIBDIR}")
else()
  set(_nholo_pc_libdir "\${exec_prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${NHOLO_INSTALL_MODULEDIR}")
  set(_nholo_pc_moduledir "${NHOLO_INSTALL_MODULEDIR}")
else()
  set(_nholo_pc_moduledir "\${exec_prefix}/${NHOLO_INSTALL_MODULEDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(_nholo_pc_includedir "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(_nholo_pc_includedir "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
set(_nholo_pc_file "${PROJECT_BINARY_DIR}/pkgconfig/nholo.pc")
# the core needs libm (libc implied); the components are modules opened at run time, never
# linked by a consumer: the .pc file names their directory and the ones built
set(_nholo_pc_libs_private "-lm")
string(REPLACE ";" " " _nholo_pc_components "${NHOLO_MODULES}")
install(CODE "
set(NHOLO_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
string(REGEX REPLACE \"(.)/+\$\" \"\\\\1\" NHOLO_PC_PREFIX \"\${NHOLO_PC_PREFIX}\")
set(NHOLO_PC_LIBDIR [==[${_nholo_pc_libdir}]==])
set(NHOLO_PC_INCLUDEDIR [==[${_nholo_pc_includedir}]==])
set(NHOLO_PC_VERSION [==[${PROJECT_VERSION}]==])
set(NHOLO_PC_MODULEDIR [==[${_nholo_pc_moduledir}]==])
set(NHOLO_PC_COMPONENTS [==[${_nholo_pc_components}]==])
set(NHOLO_PC_LIBS_PRIVATE [==[${_nholo_pc_libs_private}]==])
configure_file([==[${PROJECT_SOURCE_DIR}/cmake/nholo.pc.in]==] [==[${_nholo_pc_file}]==] @ONLY)
" COMPONENT Development)
install(FILES ${_nholo_pc_file}
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
  COMPONENT Development)

unset(_nholo_pc_libdir)
unset(_nholo_pc_moduledir)
unset(_nholo_pc_components)
unset(_nholo_pc_libs_private)
unset(_nholo_pc_includedir)
unset(_nholo_pc_file)
