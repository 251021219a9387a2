#!/usr/bin/env bash
# What the tests need (tools/test.sh), on top of what building needs (tools/deps/build.sh):
#   apt-get:        GoogleTest (libgtest-dev); zsh and fish, which load the completion scripts in
#                   their tests (bash is there already); groff, which reads the man page the build
#                   writes (tests/support/check_manpage.sh); python3 and python3-venv where missing
#   .devtools/venv: jsonschema, junitparser, prometheus_client, pyyaml and packaging (pip), for the validators
#                   the tests run (validate_schema.py, validate_junit.py, validate_prometheus.py,
#                   validate_deploy.py, check_python_api.py); CMake gives the tests this interpreter
#                   (CUDACHECK_TEST_PYTHON, tests/CMakeLists.txt). The user's own Python is not touched.
#   apt-get:        clang-format-19 and clang-tidy-19, for the lint the tests run (tools/lint.sh): the
#                   version is pinned (Debian 12 ships 19), since another formats some code differently
#   downloaded, nothing installed (all in folders git ignores):
#     promtool      unpacked from Debian's prometheus package into tests/fixtures/downloaded/promtool
#     cuobjdump     where the toolkit has none: NVIDIA's nvidia-cuda-cuobjdump wheel for its major,
#                   unpacked into .devtools/ and linked as .devtools/bin/cuobjdump, which tools/test.sh
#                   puts on the tests' PATH (tests/unit/cuda/gpu_code_test.cpp compares with it)
#     setuptools    a wheel in .devtools/wheels, for the editable installs the import corpus makes
#                   with pip (tests/support/python_import_corpus.py)
#     NVIDIA wheels small ones of CUDA 11, 12 and 13 (runtime, NVRTC), in tests/fixtures/downloaded/wheels,
#                   which the zip reader's tests read as Python's zipfile does (tests/unit/util/zip_archive_test.cpp);
#                   and JAX's CUDA 13 PJRT plugin (129 MB), a framework-sized wheel for `inspect`
# What only CI's tests use (Slurm, munge, Chromium, host_config.h files) is tools/deps/ci.sh's: the
# tests that need them say SKIPPED where they are missing.
set -euo pipefail
here=$(dirname "$0")
"$here/build.sh"
source "$here/lib.sh"
cd "$deps_root"

missing=()
deps_have_header gtest/gtest.h || missing+=(libgtest-dev)
command -v zsh >/dev/null || missing+=(zsh)
command -v fish >/dev/null || missing+=(fish)
command -v groff >/dev/null || missing+=(groff-base)
# setpriv runs the second-user cases (links, caches, unreadable environments). It is util-linux's
# (Debian 10 and newer, Ubuntu), which every system has; `dpkg -S /usr/bin/setpriv` on Debian 12.
command -v setpriv >/dev/null || missing+=(util-linux)
[ -x /usr/bin/python3 ] || missing+=(python3)
command -v clang-format-19 >/dev/null || missing+=(clang-format-19)
command -v clang-tidy-19 >/dev/null || missing+=(clang-tidy-19)
deps_apt_install "the tests" "${missing[@]}"

# The validators' modules. module:PyPI name
# packaging, pinned: the library that cudacheck's packaging rules (util/python_packaging) are held
# to by tests/support/packaging_ground_truth.py. pip 23 vendors packaging 21.3, which predates
# free-threaded tags and today's marker rules.
deps_venv_modules jsonschema:jsonschema junitparser:junitparser prometheus_client:prometheus_client yaml:pyyaml packaging:packaging==26.4

# promtool, for `promtool check metrics` (the Prometheus project's lint of the text format: naming,
# units, suffixes) in tests/support/validate_prometheus.py. Debian and Ubuntu ship it only inside
# the `prometheus` package (a 19 MB download), whose installation would also set up and start a
# Prometheus server; so the package is downloaded, not installed, and promtool alone is unpacked.
# Without it the Prometheus tests run without the lint, so a failure here warns.
promtool_dir="tests/fixtures/downloaded/promtool"
if ! command -v promtool >/dev/null && [ ! -x "$promtool_dir/usr/bin/promtool" ] && command -v apt-get >/dev/null; then
    deps_say "fetching: promtool (unpacked from Debian's prometheus package, which is not installed)"
    scratch=$(mktemp -d)
    fetch_promtool() {
        (cd "$scratch" && apt-get download -qq prometheus >/dev/null 2>&1) &&
            mkdir -p "$promtool_dir" &&
            dpkg-deb --fsys-tarfile "$scratch"/prometheus_*.deb | tar -x -C "$promtool_dir" ./usr/bin/promtool
    }
    # The package lists may be missing (a fresh container) or stale (an old version's file gone).
    fetch_promtool || { deps_apt_update && fetch_promtool; } ||
        deps_say "warning: could not fetch promtool; the Prometheus tests will not lint with it"
    rm -rf "$scratch"
fi

# cuobjdump: the toolkit's own when it has one, else NVIDIA's wheel for the toolkit's major version
# (nvidia-cuda-cuobjdump; the executable is at nvidia/cu<major>/bin or nvidia/cuda_cuobjdump/bin in
# it). Without it those comparisons skip, so a failure here warns.
nvcc=$(deps_find_nvcc)
if ! command -v cuobjdump >/dev/null && [ ! -x "$(dirname "$nvcc")/cuobjdump" ] && [ ! -x .devtools/bin/cuobjdump ]; then
    cuda_major=$("$nvcc" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
    deps_say "fetching: cuobjdump (NVIDIA's nvidia-cuda-cuobjdump ${cuda_major}.* wheel, unpacked into .devtools/)"
    scratch=$(mktemp -d)
    unpacked=".devtools/cuobjdump-$cuda_major"
    if deps_pip_download "$scratch" --only-binary=:all: "nvidia-cuda-cuobjdump==${cuda_major}.*" &&
        rm -rf "$unpacked" && "$deps_venv_python" -m zipfile -e "$scratch"/nvidia_cuda_cuobjdump-*.whl "$unpacked"; then
        found=$(find "$unpacked" -path '*/bin/cuobjdump' -type f | head -n 1)
        if [ -n "$found" ]; then
            chmod +x "$found"
            mkdir -p .devtools/bin
            ln -sfn "$deps_root/$found" .devtools/bin/cuobjdump
        else
            deps_say "warning: the nvidia-cuda-cuobjdump wheel holds no bin/cuobjdump; the inspect comparisons with it will be skipped"
        fi
    else
        deps_say "warning: could not fetch cuobjdump; the inspect comparisons with it will be skipped"
    fi
    rm -rf "$scratch"
fi

# A setuptools wheel for the editable installs that tests/support/python_import_corpus.py makes
# with pip itself (`pip install --no-index --find-links .devtools/wheels -e <project>`: setuptools
# 70.1 and newer build PEP 660 editable wheels without the `wheel` package). Downloaded, not installed.
setuptools_version=75.3.0
if [ ! -s ".devtools/wheels/setuptools-$setuptools_version-py3-none-any.whl" ]; then
    deps_say "fetching: setuptools $setuptools_version (PyPI's wheel, into .devtools/wheels)"
    deps_pip_download .devtools/wheels "setuptools==$setuptools_version" ||
        deps_say "warning: could not fetch setuptools $setuptools_version; the editable-install scenarios of the import corpus will fail"
fi

# Published wheels, read in place by the zip reader's tests (util/zip_archive.hpp) and compared with
# Python's zipfile. Pinned, so the tests read the same bytes everywhere; downloaded, not installed.
# Without network those tests skip, so a failure here warns.
wheel_dir="tests/fixtures/downloaded/wheels"
for spec in "nvidia-cuda-runtime-cu11==11.8.89 nvidia_cuda_runtime_cu11-11.8.89-" \
            "nvidia-cuda-runtime-cu12==12.4.127 nvidia_cuda_runtime_cu12-12.4.127-" \
            "nvidia-cuda-runtime==13.0.96 nvidia_cuda_runtime-13.0.96-" \
            "nvidia-cuda-nvrtc-cu12==12.4.127 nvidia_cuda_nvrtc_cu12-12.4.127-"; do
    read -r requirement prefix <<<"$spec"
    compgen -G "$wheel_dir/$prefix*.whl" >/dev/null && continue
    deps_say "fetching: $requirement (PyPI's wheel, into $wheel_dir)"
    deps_pip_download "$wheel_dir" --only-binary=:all: --platform manylinux2014_x86_64 --python-version 3.11 "$requirement" ||
        deps_say "warning: could not fetch $requirement; the zip reader's tests of published wheels will skip it"
done
# A framework-sized one: JAX's CUDA 13 PJRT plugin (129 MB; its xla_cuda_plugin.so carries SASS and
# PTX for six architectures), which `cudacheck inspect` reads in place
# (tests/unit/inspect/package_inspection_test.cpp compares it with the same library unpacked).
if ! compgen -G "$wheel_dir/jax_cuda13_pjrt-0.12.1-*.whl" >/dev/null; then
    deps_say "fetching: jax-cuda13-pjrt==0.12.1 (PyPI's wheel, 129 MB, into $wheel_dir)"
    deps_pip_download "$wheel_dir" --only-binary=:all: --platform manylinux_2_27_x86_64 --python-version 3.12 "jax-cuda13-pjrt==0.12.1" ||
        deps_say "warning: could not fetch jax-cuda13-pjrt; inspect's test of a framework-sized wheel will skip"
fi
