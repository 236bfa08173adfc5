# Sourced by examples/firmware/run.sh and tests/firmware/dsp_kernels.sh:
# firmware_toolchain_or_skip NAME exits 77 (skipped) when arm-none-eabi-g++ or
# qemu-system-arm is absent, naming the Debian packages, and exits 1 when the
# compiler is there but broken (no C++ standard library, the case of a machine
# with gcc-arm-none-eabi alone): a tool that is present must work.
firmware_toolchain_or_skip() {
  local name="$1" missing=()
  command -v arm-none-eabi-g++ > /dev/null || missing+=(gcc-arm-none-eabi libnewlib-arm-none-eabi
                                                      libstdc++-arm-none-eabi-newlib)
  command -v qemu-system-arm > /dev/null || missing+=(qemu-system-arm)
  if [[ ${#missing[@]} -gt 0 ]]; then
    echo "$name: SKIPPED the firmware: the ARM toolchain or QEMU is not installed" \
         "(Debian: apt-get install ${missing[*]})"
    exit 77
  fi
  if ! echo '#include <cstddef>' | arm-none-eabi-g++ -mcpu=cortex-m7 -mthumb -mfloat-abi=hard \
       -mfpu=fpv5-d16 -std=c++20 -x c++ -E - -o /dev/null 2> /dev/null; then
    echo "$name: arm-none-eabi-g++ is installed but has no C++ standard library (<cstddef>):" \
         "apt-get install libstdc++-arm-none-eabi-newlib" >&2
    exit 1
  fi
  if ! echo '#include <string.h>' | arm-none-eabi-gcc -mcpu=cortex-m7 -mthumb -x c -E - \
       -o /dev/null 2> /dev/null; then
    echo "$name: arm-none-eabi-gcc is installed but has no C library (<string.h>):" \
         "apt-get install libnewlib-arm-none-eabi" >&2
    exit 1
  fi
}
