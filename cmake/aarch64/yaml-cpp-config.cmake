# yaml-cpp for the aarch64 cross build (cmake/aarch64-linux-gnu.cmake):
# Debian's libyaml-cpp-dev:arm64 cannot be installed beside the build
# machine's libyaml-cpp-dev, so the arm64 runtime library (libyaml-cpp0.7:arm64)
# is linked with the build machine's headers (the same for every architecture).
find_library(LITEGRAPH_YAML_CPP_ARM64 NAMES yaml-cpp libyaml-cpp.so.0.7
             PATHS /usr/lib/aarch64-linux-gnu NO_DEFAULT_PATH)
find_path(LITEGRAPH_YAML_CPP_INCLUDE yaml-cpp/yaml.h PATHS /usr/include NO_DEFAULT_PATH)
if(NOT LITEGRAPH_YAML_CPP_ARM64 OR NOT LITEGRAPH_YAML_CPP_INCLUDE)
  set(yaml-cpp_FOUND FALSE)
  set(yaml-cpp_NOT_FOUND_MESSAGE
      "needs libyaml-cpp0.7:arm64 (/usr/lib/aarch64-linux-gnu) and libyaml-cpp-dev (headers)")
  return()
endif()
if(NOT TARGET yaml-cpp)
  add_library(yaml-cpp SHARED IMPORTED)
  set_target_properties(yaml-cpp PROPERTIES IMPORTED_LOCATION "${LITEGRAPH_YAML_CPP_ARM64}"
                        INTERFACE_INCLUDE_DIRECTORIES "${LITEGRAPH_YAML_CPP_INCLUDE}")
endif()
set(yaml-cpp_FOUND TRUE)
