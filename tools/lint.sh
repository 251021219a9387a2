#!/usr/bin/env bash
# The lint the test command runs (ctest's test lint.clang_format_and_clang_tidy, label `lint`):
#   clang-format-19 --dry-run --Werror over every C++ file of src/ kernels/ tests/ bench/
#     (.clang-format), and
#   clang-tidy-19 over every src/ .cpp, with the flags of the build's compile_commands.json
#     (.clang-tidy: its warnings are errors), in parallel on every core.
# Usage: tools/lint.sh [BUILD_DIR]   (default: build, the `default` preset's folder)
# Exit 0 when clean, 1 with each finding printed (file:line:col, the check), 77 when clang-format-19
# or clang-tidy-19 is missing (ctest reports the test as skipped; tools/deps/test.sh installs both).
# The version is pinned: clang-format's output and clang-tidy's checks change between versions, so
# another version would report differences the tree's own version accepts.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
format=clang-format-19
tidy=clang-tidy-19

for tool in "$format" "$tidy"; do
    if ! command -v "$tool" >/dev/null; then
        echo "lint: $tool is not installed: the lint is skipped (tools/deps/test.sh installs it: apt-get install $tool)" >&2
        exit 77
    fi
done
if [ ! -f "$build/compile_commands.json" ]; then
    echo "lint: $build/compile_commands.json is missing: configure first (cmake --preset default), which writes it" >&2
    exit 1
fi

started=$SECONDS
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Tracked files and new ones not yet added (git ignores build folders); find where this is no clone.
# tests/fixtures/ is data (sources of prebuilt fixtures): left as it is.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files --cached --others --exclude-standard -- src kernels tests bench |
        grep -E '\.(cpp|hpp|cu|cuh|h)$' | grep -v '^tests/fixtures/' |
        while read -r file; do [ -f "$file" ] && echo "$file"; done >"$scratch/sources"
else
    find src kernels tests bench -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' -o -name '*.h' \) \
        -not -path 'tests/fixtures/*' 2>/dev/null | sort >"$scratch/sources"
fi
grep '^src/.*\.cpp$' "$scratch/sources" >"$scratch/tidy_sources" || true

status=0
if ! xargs -d '\n' "$format" --dry-run --Werror <"$scratch/sources" >"$scratch/format.out" 2>&1; then
    cat "$scratch/format.out"
    echo "lint: clang-format: $(grep -c 'warning\|error' "$scratch/format.out") place(s) differ from .clang-format in" \
        "$(grep -o '^[^:]*:[0-9]*:[0-9]*: \(warning\|error\)' "$scratch/format.out" | cut -d: -f1 | sort -u | wc -l) file(s);" \
        "fix with: $format -i FILE (twice where a trailing comment was reflowed)"
    status=1
fi
format_seconds=$((SECONDS - started))

# One clang-tidy per file, as many at once as there are cores; each file's findings are printed
# together once it is done. A header's finding is reported by every file that includes it: the
# summary counts each place once.
# Findings in this tree's own headers only (.clang-tidy's filter, anchored at this folder here).
jobs=$(nproc 2>/dev/null || echo 2)
header_filter="^$(pwd | sed 's/[][\.*^$+?(){}|]/\\&/g')/src/"
export build tidy scratch header_filter
# shellcheck disable=SC2016 # the script runs in each bash -c, which expands it
xargs -d '\n' -P "$jobs" -n 1 bash -c '
    out="$scratch/tidy.$(echo "$1" | tr / _)"
    "$tidy" -p "$build" --quiet --header-filter="$header_filter" "$1" >"$out" 2>&1 || { cat "$out"; exit 1; }
' _ <"$scratch/tidy_sources" || status=1
tidy_seconds=$((SECONDS - started - format_seconds))

findings=$(cat "$scratch"/tidy.* 2>/dev/null | grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error): ' | sort -u || true)
if [ -n "$findings" ]; then
    echo "lint: clang-tidy: $(echo "$findings" | wc -l) finding(s), by check:"
    echo "$findings" | sed -n 's/.*\[\([^],]*\).*\]$/\1/p' | sort | uniq -c | sort -rn
    status=1
fi
echo "lint: $(wc -l <"$scratch/sources") files formatted in ${format_seconds} s, $(wc -l <"$scratch/tidy_sources") tidied in ${tidy_seconds} s on $jobs cores:" \
    "$([ "$status" -eq 0 ] && echo clean || echo FAILED)"
exit "$status"
