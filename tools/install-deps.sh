#!/usr/bin/env bash
# Installs the Debian packages listed in .ci/debian-packages.txt that are
# missing (idempotent; needs root or sudo), then probes every toolchain the
# build and the tests use by compiling and running one tiny program each:
#
#   host C++      g++ against xtensor+xsimd, protobuf, nlohmann_json, doctest, stb,
#                 yaml-cpp
#   firmware      arm-none-eabi-g++ with <cstddef>, <array>, <cmath>, linked
#                 against examples/firmware/startup.cpp and run under
#                 qemu-system-arm -M mps2-an500 (semihosting exit code)
#   fuzzing       clang++-14 -fsanitize=fuzzer,address,undefined
#   OpenCL        the ICD loader and headers, a platform with a device (PoCL)
#   tools         cmake, ninja, protoc, python3, meson, pkg-config,
#                 clang-format-14, dot
#
# A probe that fails names the Debian package that provides what is missing
# and the script exits 1: the package list is complete by construction (a
# package missing from .ci/debian-packages.txt fails here on a fresh machine,
# not later in a test).  Used by the quick start, the test command and CI.
#
#   tools/install-deps.sh               install what is missing, then probe
#   tools/install-deps.sh --probe-only  probe only (no apt-get)
#   tools/install-deps.sh --arch aarch64 [--probe-only]
#                                       also the aarch64 cross build's packages
#                                       (.ci/debian-packages-aarch64.txt; dpkg gets
#                                       the arm64 architecture), then probe as
#                                       above plus the cross compiler: the host
#                                       C++ program cross-built against the arm64
#                                       libraries and run under qemu-aarch64 -L /
#   tools/install-deps.sh --help
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

install=1
arch=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --probe-only) install=0 ;;
        --arch)
            [[ "${2:-}" == aarch64 ]] || {
                echo "tools/install-deps.sh: --arch takes aarch64 (the one cross build there is)" >&2
                exit 2
            }
            arch=aarch64; shift ;;
        -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) echo "tools/install-deps.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
lists=("$root/.ci/debian-packages.txt")
[[ -z "$arch" ]] || lists+=("$root/.ci/debian-packages-$arch.txt")

if ((install)); then
    sudo_cmd=()
    [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
    updated=0
    if [[ -n "$arch" ]] && ! { dpkg --print-foreign-architectures | grep -qx arm64; }; then
        echo "adding the arm64 architecture to dpkg"
        "${sudo_cmd[@]}" dpkg --add-architecture arm64
        "${sudo_cmd[@]}" apt-get update -q
        updated=1
    fi
    mapfile -t packages < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "${lists[@]}" | grep -v '^$')
    missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    if [[ ${#missing[@]} -eq 0 ]]; then
        echo "all ${#packages[@]} Debian packages present"
    else
        echo "installing: ${missing[*]}"
        ((updated)) || "${sudo_cmd[@]}" apt-get update -q
        "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
            "${missing[@]}" </dev/null
    fi
fi

# ---- probes ---------------------------------------------------------------
probe_dir="$(mktemp -d)"
trap 'rm -rf "$probe_dir"' EXIT
failed=()
# fail WHAT PACKAGE LOG: record a failed probe, naming the package.
fail() {
    failed+=("$1: install the Debian package '$2'")
    if [[ -s "${3:-}" ]]; then
        echo "probe '$1' failed:" >&2
        head -15 "$3" | sed 's/^/    /' >&2
    fi
}
# need COMMAND PACKAGE: the command exists.
need() { command -v "$1" >/dev/null || { fail "command $1" "$2"; return 1; }; }
# header_of HEADER PACKAGE COMPILER [FLAGS...]: HEADER is found by COMPILER.
header_ok() {
    local header="$1" compiler="$2"
    shift 2
    echo "#include <$header>" | "$compiler" "$@" -x c++ -E - -o /dev/null 2>/dev/null
}

for tool in "cmake cmake" "ninja ninja-build" "protoc protobuf-compiler" "python3 python3" \
    "meson meson" "pkg-config pkg-config" "clang-format-14 clang-format-14" "dot graphviz"; do
    read -r cmd pkg <<<"$tool"
    need "$cmd" "$pkg" || true
done

# Host C++: one program over every library the build and tests use.
if need g++ g++; then
    cat >"$probe_dir/host.cpp" <<'EOF'
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <google/protobuf/descriptor.pb.h>
#include <nlohmann/json.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xmath.hpp>
#include <xsimd/xsimd.hpp>
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>
#include <yaml-cpp/yaml.h>
#include <CLI/CLI.hpp>
int main() {
    if (YAML::Load("a: [1, 2]")["a"].size() != 2) return 2;
    CLI::App app{"probe"};
    int n = 0;
    app.add_option("-n", n)->check(CLI::Range(1, 9));
    std::vector<std::string> args{"3", "-n"};  // CLI11 takes them last first
    app.parse(args);
    if (n != 3) return 3;
    xt::xarray<float> a = {1.0f, 2.0f, 3.0f};
    google::protobuf::FileDescriptorProto proto;
    proto.set_name("probe");
    nlohmann::json j = {{"sum", static_cast<double>(xt::sum(a)())}, {"name", proto.name()}};
    return j["sum"] == 6.0 && j["name"] == "probe" && xsimd::batch<float>::size >= 1 ? 0 : 1;
}
EOF
    flags=(-std=c++20 -DXTENSOR_USE_XSIMD)
    if g++ "${flags[@]}" "$probe_dir/host.cpp" -o "$probe_dir/host" -lprotobuf -lyaml-cpp >"$probe_dir/host.log" 2>&1 &&
        "$probe_dir/host"; then
        echo "probe host C++: g++ with xtensor, xsimd, protobuf, nlohmann_json, doctest, stb, yaml-cpp, CLI11: ok"
    else
        named=0
        for h in "xtl/xtl_config.hpp xtl-dev" "xsimd/xsimd.hpp libxsimd-dev" "xtensor/xarray.hpp xtensor-dev" \
            "google/protobuf/descriptor.pb.h libprotobuf-dev" "nlohmann/json.hpp nlohmann-json3-dev" \
            "doctest/doctest.h doctest-dev" "stb/stb_image.h libstb-dev" "yaml-cpp/yaml.h libyaml-cpp-dev" \
            "CLI/CLI.hpp libcli11-dev"; do
            read -r header pkg <<<"$h"
            header_ok "$header" g++ "${flags[@]}" || { fail "host C++ header <$header>" "$pkg"; named=1; }
        done
        # Headers all there: the link (libprotobuf) or the compiler itself.
        ((named)) || fail "host C++ program (compile, link -lprotobuf -lyaml-cpp, run)" "libprotobuf-dev" "$probe_dir/host.log"
    fi
fi

# aarch64 (--arch aarch64): the same program cross-built against the arm64
# libraries (yaml-cpp by its runtime library's file: there is no
# libyaml-cpp-dev:arm64 beside the build machine's, see
# cmake/aarch64-linux-gnu.cmake) and run under qemu-aarch64 -L /.
if [[ "$arch" == aarch64 ]] && need aarch64-linux-gnu-g++ g++-aarch64-linux-gnu &&
    need qemu-aarch64 qemu-user; then
    multi=/usr/lib/aarch64-linux-gnu
    yaml=("$multi"/libyaml-cpp.so.0.7*)
    if [[ ! -e "$multi/libprotobuf.so" ]]; then
        fail "arm64 protobuf library ($multi/libprotobuf.so)" libprotobuf-dev:arm64
    elif [[ ! -e "${yaml[0]}" ]]; then
        fail "arm64 yaml-cpp library ($multi/libyaml-cpp.so.0.7)" libyaml-cpp0.7:arm64
    elif aarch64-linux-gnu-g++ -std=c++20 -DXTENSOR_USE_XSIMD "$probe_dir/host.cpp" -o "$probe_dir/host-aarch64" \
        -lprotobuf "${yaml[0]}" >"$probe_dir/aarch64.log" 2>&1 &&
        timeout 120 qemu-aarch64 -L / "$probe_dir/host-aarch64" >>"$probe_dir/aarch64.log" 2>&1; then
        echo "probe aarch64: aarch64-linux-gnu-g++ with the arm64 protobuf and yaml-cpp, run under qemu-aarch64 -L /: ok"
    else
        fail "aarch64 cross program (compile, link -lprotobuf and yaml-cpp, run under qemu-aarch64 -L /)" \
            g++-aarch64-linux-gnu "$probe_dir/aarch64.log"
    fi
fi

# Firmware: the Cortex-M7 C++ toolchain and QEMU, as examples/firmware/run.sh
# and tests/firmware/dsp_kernels.sh use them.
fw="$root/examples/firmware"
if need arm-none-eabi-g++ gcc-arm-none-eabi; then
    arm=(-mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16)
    if ! echo '#include <string.h>' | arm-none-eabi-gcc "${arm[@]}" --specs=nano.specs -x c -E - -o /dev/null \
        >"$probe_dir/newlib.log" 2>&1; then
        fail "arm-none-eabi C library (newlib: <string.h>, nano.specs)" libnewlib-arm-none-eabi \
            "$probe_dir/newlib.log"
    elif ! header_ok cstddef arm-none-eabi-g++ "${arm[@]}" -std=c++20; then
        fail "arm-none-eabi-g++ C++ library (<cstddef>)" libstdc++-arm-none-eabi-newlib
    else
        cat >"$probe_dir/fw.cpp" <<'EOF'
#include <array>
#include <cmath>
#include <cstddef>
#include "platform_arm.hpp"
int main() {
    volatile float x = 2.0f;
    std::array<float, 3> v{std::sqrt(x), std::exp(0.0f), 1.0f};
    std::size_t n = v.size();
    platform::put("probe firmware: hello\n");
    return (v[1] == 1.0f && n == 3 && v[0] > 1.41f && v[0] < 1.42f) ? 0 : 5;
}
EOF
        fwflags=("${arm[@]}" -std=c++20 -O2 -fno-exceptions -fno-rtti -fno-threadsafe-statics -I"$fw")
        if arm-none-eabi-g++ "${fwflags[@]}" -c "$probe_dir/fw.cpp" -o "$probe_dir/fw.o" >"$probe_dir/fw.log" 2>&1 &&
            arm-none-eabi-g++ "${fwflags[@]}" -c "$fw/startup.cpp" -o "$probe_dir/startup.o" >>"$probe_dir/fw.log" 2>&1 &&
            arm-none-eabi-g++ "${arm[@]}" "$probe_dir/fw.o" "$probe_dir/startup.o" -nostartfiles --specs=nano.specs \
                -Wl,--gc-sections -L"$fw" -T"$fw/mps2_an500.ld" -o "$probe_dir/fw.elf" >>"$probe_dir/fw.log" 2>&1; then
            if need qemu-system-arm qemu-system-arm; then
                if ! qemu-system-arm -M help 2>/dev/null | grep -q '^mps2-an500 '; then
                    fail "qemu-system-arm -M help names no mps2-an500" qemu-system-arm
                elif timeout 60 qemu-system-arm -M mps2-an500 -nographic -monitor none -serial none \
                    -semihosting-config enable=on,target=native -kernel "$probe_dir/fw.elf" \
                    >"$probe_dir/qemu.log" 2>&1 && grep -q 'probe firmware: hello' "$probe_dir/qemu.log"; then
                    echo "probe firmware: arm-none-eabi-g++ (<cstddef>, <array>, <cmath>, startup) under qemu-system-arm mps2-an500: ok"
                else
                    fail "firmware run under qemu-system-arm -M mps2-an500" qemu-system-arm "$probe_dir/qemu.log"
                fi
            fi
        else
            fail "arm-none-eabi-g++ firmware build (startup, mps2_an500.ld)" libstdc++-arm-none-eabi-newlib \
                "$probe_dir/fw.log"
        fi
    fi
fi

# Fuzzing: clang with the libFuzzer runtime (.ci/fuzz.sh).
if need clang++-14 clang-14; then
    echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' \
        >"$probe_dir/fuzz.cpp"
    if clang++-14 -fsanitize=fuzzer,address,undefined "$probe_dir/fuzz.cpp" -o "$probe_dir/fuzz" \
        >"$probe_dir/fuzz.log" 2>&1 && "$probe_dir/fuzz" -runs=10 >>"$probe_dir/fuzz.log" 2>&1; then
        echo "probe fuzzing: clang++-14 -fsanitize=fuzzer,address,undefined: ok"
    else
        fail "clang++-14 -fsanitize=fuzzer (the libFuzzer runtime)" libclang-rt-14-dev "$probe_dir/fuzz.log"
    fi
fi

# OpenCL: headers, the ICD loader, and a platform with a device (PoCL on the CPU).
if ! header_ok CL/cl.h g++ -DCL_TARGET_OPENCL_VERSION=120; then
    fail "OpenCL header <CL/cl.h>" opencl-headers
else
    cat >"$probe_dir/cl.cpp" <<'EOF'
#include <CL/cl.h>
#include <cstdio>
int main() {
    cl_uint platforms = 0;
    cl_platform_id platform[8];
    if (clGetPlatformIDs(8, platform, &platforms) != CL_SUCCESS || platforms == 0) {
        std::puts("no OpenCL platform");
        return 2;
    }
    for (cl_uint i = 0; i < platforms && i < 8; ++i) {
        cl_uint devices = 0;
        if (clGetDeviceIDs(platform[i], CL_DEVICE_TYPE_ALL, 0, nullptr, &devices) == CL_SUCCESS && devices > 0) {
            char name[256] = {};
            clGetPlatformInfo(platform[i], CL_PLATFORM_NAME, sizeof name, name, nullptr);
            std::printf("%s, %u device(s)\n", name, devices);
            return 0;
        }
    }
    std::puts("OpenCL platforms without a device");
    return 3;
}
EOF
    if ! g++ -DCL_TARGET_OPENCL_VERSION=120 "$probe_dir/cl.cpp" -o "$probe_dir/cl" -lOpenCL \
        >"$probe_dir/cl.log" 2>&1; then
        fail "OpenCL ICD loader (link -lOpenCL)" ocl-icd-opencl-dev "$probe_dir/cl.log"
    elif out="$("$probe_dir/cl" 2>&1)"; then
        echo "probe OpenCL: $out: ok"
    else
        echo "$out" >"$probe_dir/cl.log"
        fail "OpenCL device (a CPU device from PoCL)" pocl-opencl-icd "$probe_dir/cl.log"
    fi
fi

if [[ ${#failed[@]} -gt 0 ]]; then
    echo "tools/install-deps.sh: ${#failed[@]} probe(s) failed:" >&2
    printf '  %s\n' "${failed[@]}" >&2
    ((install)) && echo "(the package list ${lists[*]##*/} is incomplete, or an install went wrong)" >&2
    exit 1
fi
echo "tools/install-deps.sh: every probe passed"
