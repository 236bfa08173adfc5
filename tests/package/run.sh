#!/usr/bin/env bash
# Builds and runs the consumer project in tests/package/consumer against an
# installed litegraph, once with CMake (find_package) and once with meson
# (dependency() through pkg-config), and once more with meson using the source
# tree as a subproject.  Exits non-zero when any of them fails.
#
#   tests/package/run.sh PREFIX                  # PREFIX holds an installed litegraph
#   tests/package/run.sh --install BUILD PREFIX  # first `cmake --install BUILD --prefix PREFIX`
#
# Scratch builds go to $LITEGRAPH_PACKAGE_WORK (default: PREFIX/../package-work).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage() { echo "usage: $0 [--install BUILD_DIR] PREFIX" >&2; exit 2; }

build_dir=""
if [[ "${1:-}" == "--install" ]]; then
    [[ $# -eq 3 ]] || usage
    build_dir="$2"
    shift 2
fi
[[ $# -eq 1 ]] || usage
prefix="$1"

if [[ -n "$build_dir" ]]; then
    rm -rf "$prefix"
    echo "== installing $build_dir to $prefix"
    cmake --install "$build_dir" --prefix "$prefix" >/dev/null
fi
prefix="$(cd "$prefix" && pwd)"
[[ -f "$prefix/include/litegraph.hpp" ]] || { echo "error: no litegraph installed in $prefix" >&2; exit 1; }

work="${LITEGRAPH_PACKAGE_WORK:-$(dirname "$prefix")/package-work}"
rm -rf "$work"
mkdir -p "$work"
jobs="${LITEGRAPH_JOBS:-2}"

echo "== CMake consumer: find_package(litegraph) from $prefix"
# The consumers build without optimisation (CMake's empty build type, meson's
# plain): this checks packaging, and -O3 made it six minutes of CI.
# One instruction-set unit (avx2) of the table's: each unit compiles the
# kernels (about a minute at -O0), and one shows the installed units and
# their table build and link.
cmake -S "$here/consumer" -B "$work/cmake" -G Ninja -DCMAKE_BUILD_TYPE= \
    -DLITEGRAPH_SIMD_SLOTS=avx2 -DCMAKE_PREFIX_PATH="$prefix" >"$work/cmake-configure.log" 2>&1 ||
    { cat "$work/cmake-configure.log"; exit 1; }
cmake --build "$work/cmake" -j "$jobs"
"$work/cmake/consumer"
"$work/cmake/paddle_consumer"

echo "== meson consumer: dependency('litegraph') from $prefix"
export PKG_CONFIG_PATH="$prefix/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
meson setup "$work/meson" "$here/consumer" --buildtype=plain >"$work/meson-setup.log" 2>&1 ||
    { cat "$work/meson-setup.log"; exit 1; }
meson compile -C "$work/meson" -j "$jobs"
"$work/meson/consumer"
"$work/meson/paddle_consumer"

echo "== meson consumer: the source tree as a subproject (forced fallback)"
mkdir -p "$work/subproject-src/subprojects"
cp "$here/consumer/meson.build" "$here/consumer/"*.cpp "$here/consumer/"*.hpp "$work/subproject-src/"
ln -s "$(cd "$here/../.." && pwd)" "$work/subproject-src/subprojects/litegraph"
meson setup "$work/subproject" "$work/subproject-src" --buildtype=plain \
    --wrap-mode=forcefallback -Dlitegraph:simd_slots=avx2 >"$work/subproject-setup.log" 2>&1 ||
    { cat "$work/subproject-setup.log"; exit 1; }
meson compile -C "$work/subproject" -j "$jobs"
"$work/subproject/consumer"
"$work/subproject/paddle_consumer"

echo "== package consumers: ok"
