#!/usr/bin/env bash
# Checks that our C++ sources are formatted with clang-format-14 (the repo's
# .clang-format); exits non-zero and names each offending file otherwise.
#
#   tools/check_format.sh            # every C++ file in include/ src/ tests/ tools/ examples/ benchmarks/
#   tools/check_format.sh FILE...    # only these (as pre-commit passes them)
#   tools/check_format.sh --fix      # rewrite the files in place instead
#
# single_include/ is generated and build directories are never ours to format.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
clang_format="${CLANG_FORMAT:-clang-format-14}"
command -v "$clang_format" >/dev/null ||
    { echo "error: $clang_format not found (apt-get install clang-format-14)" >&2; exit 2; }

mode=(--dry-run --Werror)
if [[ "${1:-}" == "--fix" ]]; then
    mode=(-i)
    shift
fi

is_ours() {
    case "$1" in
        single_include/* | build*/* | */build*/*) return 1 ;;
        include/* | src/* | tests/* | tools/* | examples/* | benchmarks/*) ;;
        *) return 1 ;;
    esac
    case "$1" in
        *.hpp | *.cpp | *.h | *.hh | *.cc | *.cxx | *.ipp | *.inl) return 0 ;;
    esac
    return 1
}

files=()
if [[ $# -gt 0 ]]; then
    for f in "$@"; do
        f="${f#./}"
        if is_ours "$f" && [[ -f "$f" ]]; then files+=("$f"); fi
    done
else
    while IFS= read -r -d '' f; do
        f="${f#./}"
        if is_ours "$f"; then files+=("$f"); fi
    done < <(find include src tests tools examples benchmarks -type d -name 'build*' -prune -o \
        -type f -print0 2>/dev/null | sort -z)
fi

if [[ ${#files[@]} -eq 0 ]]; then
    echo "check_format: no C++ files to check"
    exit 0
fi

# Batches of 16 files, as many processes at once as there are cores (one
# process per file cost most of a minute in CI, in process start-up).
jobs="$(nproc 2>/dev/null || echo 2)"
bad=()
status=0
out="$(printf '%s\0' "${files[@]}" |
    xargs -0 -n 16 -P "$jobs" "$clang_format" "${mode[@]}" 2>&1)" || status=$?
if [[ ${mode[0]} == --dry-run ]]; then
    # Each unformatted spot is reported as FILE:LINE:COL: error: ...
    mapfile -t bad < <(grep -oE '^[^:]+:[0-9]+:[0-9]+: error' <<<"$out" | cut -d: -f1 | sort -u)
fi
if [[ $status -ne 0 && ${#bad[@]} -eq 0 ]]; then
    # A failure that names no file (clang-format itself, or .clang-format).
    echo "error: $clang_format failed (exit $status):" >&2
    echo "$out" | head -20 >&2
    exit 2
fi
if [[ ${#bad[@]} -gt 0 ]]; then
    echo "error: not formatted with $clang_format (fix: tools/check_format.sh --fix, or $clang_format -i FILE):" >&2
    printf '  %s\n' "${bad[@]}" >&2
    exit 1
fi
echo "check_format: ${#files[@]} files ok"
