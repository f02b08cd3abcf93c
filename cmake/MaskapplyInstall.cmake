# SPDX-License-Identifier: MIT
# install() and export: find_package(maskapply CONFIG) gives
#   maskapply::kernels     the header-only kernels (SLEEF through pkg-config; on x86-64 SIMDe and -mavx2 -mfma)
#   maskapply::registry    every bundled kernel and pilot by name at run time
#   maskapply::oracle      the scalar reference (built with -ffp-contract=off)
#   maskapply::testing     the plug-in API (plugin.h), buffers with guard pages and sentinels, case files
#   maskapply::generators  patterns, adversarial families, the cost model and regret (when built)
#   maskapply::fuzz_replay_main  the main a fuzz harness links when libFuzzer is not there
#   maskapply::rapidcheck  the RapidCheck generators and properties (component `rapidcheck`, when built)
# and maskapply_add_fuzz_target() (cmake/MaskapplyFuzz.cmake). Headers go to include/maskapply/, which the
# targets put on the include path: #include "maskapply.h", "plugin.h", "maskapply_rapidcheck.h".
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(maskapply_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/maskapply)
set(maskapply_include_dir ${CMAKE_INSTALL_INCLUDEDIR}/maskapply)

file(GLOB kernel_headers ${PROJECT_SOURCE_DIR}/kernels/*.h)
file(GLOB oracle_headers ${PROJECT_SOURCE_DIR}/oracle/*.h)
install(FILES ${kernel_headers} ${oracle_headers} ${PROJECT_SOURCE_DIR}/fuzz/template/maskapply_fuzz.h
        DESTINATION ${maskapply_include_dir})
set(core_targets maskapply_kernels maskapply_registry maskapply_oracle maskapply_testing maskapply_fuzz_replay_main)
if(TARGET maskapply_generators)
  file(GLOB generator_headers ${PROJECT_SOURCE_DIR}/generators/*.h)
  install(FILES ${generator_headers} DESTINATION ${maskapply_include_dir})
  list(APPEND core_targets maskapply_generators)
endif()
foreach(t ${core_targets})
  string(REPLACE "maskapply_" "" export_name ${t})
  set_target_properties(${t} PROPERTIES EXPORT_NAME ${export_name})
endforeach()
install(TARGETS ${core_targets} EXPORT maskapply-targets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT maskapply-targets NAMESPACE maskapply:: DESTINATION ${maskapply_cmake_dir})

if(TARGET maskapply_rapidcheck)
  install(FILES ${PROJECT_SOURCE_DIR}/properties/support.h ${PROJECT_SOURCE_DIR}/properties/maskapply_rapidcheck.h
          DESTINATION ${maskapply_include_dir})
  set_target_properties(maskapply_rapidcheck PROPERTIES EXPORT_NAME rapidcheck)
  install(TARGETS maskapply_rapidcheck EXPORT maskapply-rapidcheck-targets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
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
