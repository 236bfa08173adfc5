# Install rules: headers, the exported targets litegraph::litegraph and
# litegraph::paddle, litegraphConfig.cmake (+ version file) and the pkg-config
# files litegraph.pc / litegraph-paddle.pc.  Everything is architecture
# independent (header-only), so it goes under datadir.
include(CMakePackageConfigHelpers)

set(LITEGRAPH_INSTALL_CMAKEDIR "${CMAKE_INSTALL_DATADIR}/cmake/litegraph" CACHE STRING
    "Where litegraphConfig.cmake is installed, relative to the prefix")
set(LITEGRAPH_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_DATADIR}/pkgconfig" CACHE STRING
    "Where litegraph.pc is installed, relative to the prefix")

install(TARGETS litegraph litegraph_paddle EXPORT litegraphTargets)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
# The arch units of the run-time SIMD dispatch (kernels/simd.hpp), one per
# row of include/litegraph/kernels/isa_table.hpp (installed with the headers),
# compiled by the consumer: litegraphConfig.cmake adds them to
# litegraph::litegraph (LITEGRAPH_SIMD_DISPATCH, default ON); pkg-config users
# compile them themselves (README).
litegraph_isa_rows(_litegraph_isa "${PROJECT_SOURCE_DIR}/include/litegraph/kernels/isa_table.hpp")
foreach(slot IN LISTS _litegraph_isa_SLOTS)
  install(FILES "${PROJECT_SOURCE_DIR}/src/simd/${slot}.cpp"
          DESTINATION "${CMAKE_INSTALL_DATADIR}/litegraph/simd")
endforeach()
install(FILES "${PROJECT_SOURCE_DIR}/cmake/litegraphSimd.cmake"
        DESTINATION "${LITEGRAPH_INSTALL_CMAKEDIR}")
install(EXPORT litegraphTargets
        NAMESPACE litegraph::
        DESTINATION "${LITEGRAPH_INSTALL_CMAKEDIR}")

configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/litegraphConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/litegraphConfig.cmake"
  INSTALL_DESTINATION "${LITEGRAPH_INSTALL_CMAKEDIR}")
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/litegraphConfigVersion.cmake"
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion
  ARCH_INDEPENDENT)
install(FILES "${PROJECT_BINARY_DIR}/litegraphConfig.cmake"
              "${PROJECT_BINARY_DIR}/litegraphConfigVersion.cmake"
        DESTINATION "${LITEGRAPH_INSTALL_CMAKEDIR}")

# pkg-config files.  The prefix is taken at install time (cmake --install
# --prefix P), not at configure time, so one build installs anywhere.
foreach(pc litegraph litegraph-paddle)
  install(CODE "
    set(CMAKE_INSTALL_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
    set(PROJECT_VERSION \"${PROJECT_VERSION}\")
    configure_file(\"${CMAKE_CURRENT_LIST_DIR}/${pc}.pc.in\"
                   \"${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc\" @ONLY)
    file(INSTALL \"${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc\"
         DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${LITEGRAPH_INSTALL_PKGCONFIGDIR}\")")
endforeach()
