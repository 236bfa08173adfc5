#!/usr/bin/env bash
# The main job on the built-in example: install what is missing, build the CLI,
# generate SqueezeNet 1.0 (128x128x3, deterministic weights) and run it,
# printing its outputs and memory figures.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target litegraph_cli -j2
build/bin/litegraph generate squeezenet1_0 -o build/models/squeezenet1_0
build/bin/litegraph info build/models/squeezenet1_0
build/bin/litegraph run build/models/squeezenet1_0 --repeat 3
