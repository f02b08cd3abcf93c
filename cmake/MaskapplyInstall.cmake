# SPDX-License-Identifier: MIT
# install() and export: find_package(maskapply CONFIG) gives
#   maskapply::kernels     the header-only kernels (SLEEF through pkg-config; on x86-64 SIMDe and -mavx2 -mfma)
#   maskapply::registry    every bundled kernel and pilot by name at run time
#   maskapply::oracle      the scalar reference (built with -ffp-contract=off)
#   maskapply::testing     the plug-in API (plugin.h), buffers with guard pages and sentinels, case files
#   maskapply::generators  patterns, adversarial families, the cost model and regret (when built)
#   maskapply::fuzz_replay_main  the main a fuzz harness links when libFuzzer is not there
#   maskapply::rapidcheck  the RapidCheck generators and properties (component `rapidcheck`, when built)
# and maskapply_add_fuzz_target() (cmake/MaskapplyFuzz.cmake). The exported libraries' headers (and only theirs:
# cmake/MaskapplyHeaders.cmake) go to include/maskapply/ and the targets put include/ on the consumer's path:
# #include <maskapply/maskapply.h>, <maskapply/plugin.h>, <maskapply/maskapply_rapidcheck.h>.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(maskapply_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/maskapply)

set(core_targets maskapply_kernels maskapply_registry maskapply_oracle maskapply_testing maskapply_fuzz_replay_main)
if(TARGET maskapply_generators)
  list(APPEND core_targets maskapply_generators)
endif()
foreach(t ${core_targets} maskapply_rapidcheck)
  if(NOT TARGET ${t})
    continue()
  endif()
  string(REPLACE "maskapply_" "" export_name ${t})
  set_target_properties(${t} PROPERTIES EXPORT_NAME ${export_name})
  get_target_property(headers ${t} MASKAPPLY_PUBLIC_HEADERS)
  if(headers)
    install(FILES ${headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/maskapply)
  endif()
endforeach()
install(TARGETS ${core_targets} EXPORT maskapply-targets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT maskapply-targets NAMESPACE maskapply:: DESTINATION ${maskapply_cmake_dir})

if(TARGET maskapply_rapidcheck)
  install(TARGETS maskapply_rapidcheck EXPORT maskapply-rapidcheck-targets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT maskapply-rapidcheck-targets NAMESPACE maskapply:: DESTINATION ${maskapply_cmake_dir})
endif()

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/maskapply-config.cmake.in
                              ${PROJECT_BINARY_DIR}/maskapply-config.cmake INSTALL_DESTINATION ${maskapply_cmake_dir})
# 0.x: a minor version may change the API, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/maskapply-config-version.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/maskapply-config.cmake ${PROJECT_BINARY_DIR}/maskapply-config-version.cmake
              ${PROJECT_SOURCE_DIR}/cmake/MaskapplyFuzz.cmake
        DESTINATION ${maskapply_cmake_dir})
