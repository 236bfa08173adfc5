# Cross build for 64-bit ARM Linux (aarch64) on an x86-64 Debian machine:
#   cmake -S . -B build-aarch64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# Packages (Debian 12): g++-aarch64-linux-gnu, qemu-user, and after
# `dpkg --add-architecture arm64`: libprotobuf-dev:arm64, libyaml-cpp0.7:arm64
# (the runtime library only: libyaml-cpp-dev:arm64 would replace the build
# machine's libyaml-cpp-dev): .ci/debian-packages-aarch64.txt, which
# `tools/install-deps.sh --arch aarch64` installs.  docs/building.md, "ARM64".
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# ctest and custom commands run the programs under QEMU.  `-L /`: the arm64
# libraries of the multiarch packages (/lib/aarch64-linux-gnu) with their own
# loader; the cross toolchain's copy (/usr/aarch64-linux-gnu) is another
# glibc build, and its loader with the multiarch libc hangs in pthread_create.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-L;/)
# Header-only packages whose CMake configs Debian installs in the build
# machine's multiarch folder only (libxtensor-dev:arm64 is not co-installable
# with the build machine's): the headers are the same for every architecture.
foreach(pkg xtensor xsimd)
  if(NOT ${pkg}_DIR AND EXISTS /usr/lib/x86_64-linux-gnu/cmake/${pkg})
    set(${pkg}_DIR /usr/lib/x86_64-linux-gnu/cmake/${pkg} CACHE PATH "")
  endif()
endforeach()
if(NOT yaml-cpp_DIR)
  set(yaml-cpp_DIR ${CMAKE_CURRENT_LIST_DIR}/aarch64 CACHE PATH "")
endif()
