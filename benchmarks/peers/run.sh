#!/bin/sh
# litegraph against ONNX Runtime on the PP-OCR direction classifier; see
# run.py --help.  Needs python3 (standard library only), node and npm.
case "$0" in */*) here=${0%/*} ;; *) here=. ;; esac
if ! command -v python3 >/dev/null 2>&1; then
    echo "peers: error: python3 not found on PATH (run.sh drives run.py)" >&2
    exit 3
fi
exec python3 "$here/run.py" "$@"
