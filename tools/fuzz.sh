#!/usr/bin/env bash
# Fuzzes the readers of the files users hand cudacheck, with clang's libFuzzer, ASan and UBSan:
#   gpu_code     the ELF/fatbinary reader behind `inspect` (seeds: the test build's nvcc fixtures)
#   report_json  the report reader of diff, fleet, render and --expect (seeds: docs/examples, tests/golden)
#   policy       the --expect policy reader (seeds: docs/policies)
#   python_files the readers of build_info.py, version.py, METADATA, pyvenv.cfg, pip scripts and torch's
#                arch tables (seeds: tests/fixtures/frameworks)
#   python_packaging  wheel names and tags, METADATA, PEP 508 requirements and markers, PEP 440
#                versions and specifiers (seeds: tests/fixtures/frameworks)
#   zip_archive  the zip reader of `inspect WHEEL` (seeds: tests/fuzz/regressions/zip_archive and the
#                small NVIDIA wheels tools/deps/test.sh downloads)
# each for SECONDS (default 60), also from the inputs kept in tests/fuzz/regressions/TARGET.
#   tools/fuzz.sh [--seconds N] [TARGET...]
# What it finds stays in BUILD/fuzz/corpus/TARGET, crashes land in BUILD/fuzz/artifacts/TARGET
# (BUILD: $CUDACHECK_BUILD_DIR, default build); a crash, once fixed, goes into
# tests/fuzz/regressions/TARGET, which the normal build replays (tests/CMakeLists.txt). CI runs
# `tools/fuzz.sh --seconds 20` after the tests (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --seconds=*) seconds="${1#*=}"; shift ;;
    -h | --help) sed -n '2,13p' "$0"; exit 0 ;;
    gpu_code | report_json | policy | python_files | python_packaging | zip_archive) targets+=("$1"); shift ;;
    *) echo "fuzz.sh: unknown target or option '$1' (targets: gpu_code report_json policy python_files python_packaging zip_archive)" >&2; exit 2 ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(gpu_code report_json policy python_files python_packaging zip_archive)
build="${CUDACHECK_BUILD_DIR:-build}"
out="$build/fuzz"
mkdir -p "$out/obj"

# clang and libFuzzer are installed here, by tools/deps/fuzz.sh, where missing (with what
# compiling the sources needs, tools/deps/build.sh), not by the set-up of building or testing.
tools/deps/build.sh
tools/deps/fuzz.sh

# What each target links, compiled once for all of them (through ccache when there is one).
sources_gpu_code=(src/cuda/gpu_code.cpp src/cuda/arch_coverage.cpp src/util/mapped_file.cpp src/util/file_source.cpp src/util/system.cpp src/util/process.cpp src/util/activity.cpp)
sources_report_json=(src/report/report_json.cpp src/report/remedy.cpp src/report/legacy_metrics.cpp src/report/catalog.cpp src/report/result.cpp src/report/fleet.cpp src/report/report_query.cpp src/cuda/library_families.cpp
                     src/util/json_read.cpp src/util/system.cpp src/util/process.cpp src/util/activity.cpp src/util/units.cpp)
sources_policy=(src/report/policy.cpp "${sources_report_json[@]}")
sources_python_files=(src/probes/python/build_info.cpp src/probes/python/python_packages.cpp src/util/python_packaging.cpp src/probes/python/python_environments.cpp src/probes/build/torch_arch_list.cpp
                      src/util/json_read.cpp src/util/system.cpp src/util/process.cpp src/util/path.cpp src/util/activity.cpp src/util/environment.cpp)
sources_python_packaging=(src/util/python_packaging.cpp src/util/system.cpp src/util/process.cpp src/util/activity.cpp)
sources_zip_archive=(src/util/zip_archive.cpp src/util/system.cpp src/util/process.cpp src/util/activity.cpp)
compiler=(clang++)
command -v ccache >/dev/null && compiler=(ccache clang++)
flags=(-std=c++20 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -Isrc -Itests
       "-DCUDACHECK_SOURCE_DIR=\"$PWD\"")
object() { echo "$out/obj/$(echo "${1%.cpp}" | tr / _).o"; }
all_sources=()
for target in "${targets[@]}"; do
  declare -n target_sources="sources_$target"
  all_sources+=("tests/fuzz/${target}_fuzz.cpp" "${target_sources[@]}")
done
mapfile -t all_sources < <(printf '%s\n' "${all_sources[@]}" | sort -u)
echo "fuzz.sh: compiling ${#all_sources[@]} files"
pids=()
for source in "${all_sources[@]}"; do
  if [ ${#pids[@]} -ge "$(nproc)" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  "${compiler[@]}" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$source" -o "$(object "$source")" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done

for target in "${targets[@]}"; do
  declare -n target_sources="sources_$target"
  objects=()
  for source in "tests/fuzz/${target}_fuzz.cpp" "${target_sources[@]}"; do objects+=("$(object "$source")"); done
  # zlib statically, as the build links it (cmake/Dependencies.cmake).
  clang++ "${flags[@]}" -fsanitize=fuzzer "${objects[@]}" -lfmt -l:libz.a -pthread -o "$out/$target"

  # Seeds copied fresh (numbered: many reports share a name); libFuzzer writes only to the first directory.
  seeds="$out/seeds/$target"
  rm -rf "$seeds"
  mkdir -p "$seeds" "$out/corpus/$target" "$out/artifacts/$target"
  case "$target" in
    gpu_code) seed_files=("$build"/tests/gpu-code-fixtures/*); max_len=1048576 ;;
    report_json) mapfile -t seed_files < <(find docs/examples tests/golden -name '*.json' | sort); max_len=262144 ;;
    policy) mapfile -t seed_files < <(find docs/policies -name '*.json' | sort); max_len=65536 ;;
    python_files) mapfile -t seed_files < <(find tests/fixtures/frameworks -type f \( -name '*.py' -o -name METADATA -o -name '*.cfg' -o -name '*.pth' \) | sort); max_len=1048576 ;;
    python_packaging) mapfile -t seed_files < <(find tests/fixtures/frameworks -type f -name METADATA | sort); max_len=262144 ;;
    zip_archive) mapfile -t seed_files < <(find tests/fixtures/downloaded/wheels -name 'nvidia_cuda_runtime_cu1*.whl' -size -1024k 2>/dev/null | sort); max_len=1048576 ;;
  esac
  count=0
  for file in "${seed_files[@]}"; do
    [ -f "$file" ] || continue
    count=$((count + 1))
    cp "$file" "$seeds/$count-$(basename "$file")"
  done
  [ "$count" -gt 0 ] || echo "fuzz.sh: warning: no seeds for $target (for gpu_code: build the tests first, or set CUDACHECK_BUILD_DIR)" >&2
  corpora=("$out/corpus/$target" "$seeds")
  [ -d "tests/fuzz/regressions/$target" ] && corpora+=("tests/fuzz/regressions/$target")
  echo "fuzz.sh: $target for ${seconds}s from $count seeds"
  "$out/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" -print_final_stats=1 \
    -artifact_prefix="$out/artifacts/$target/" "${corpora[@]}"
done
