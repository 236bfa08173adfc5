#!/usr/bin/env bash
# Installs the Debian packages litegraph builds and tests with (idempotent).
# Run as root or with sudo available.
set -euo pipefail
packages=(cmake ninja-build g++ python3 pkg-config meson
          xtensor-dev libxsimd-dev xtl-dev doctest-dev nlohmann-json3-dev
          libprotobuf-dev protobuf-compiler libstb-dev clang-format-14 graphviz)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
echo "installing: ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"
