#!/usr/bin/env bash
# Installs, if missing, what building and testing cudacheck needs on Debian/Ubuntu: CMake, Ninja,
# a C++20 compiler, CLI11, fmt, nlohmann/json, GoogleTest, Python's jsonschema and junitparser (for
# the schema and JUnit tests), cuobjdump (the reference the `cudacheck inspect` tests compare
# with) and clang with its libFuzzer (for tools/fuzz.sh, which CI runs briefly). The CUDA toolkit
# itself must already be installed (nvcc on PATH or in /usr/local/cuda). promtool, for the
# Prometheus output's lint, is unpacked from Debian's prometheus package without installing it;
# headless Chromium, for the HTML report's browser test, is Debian's chromium-headless-shell.
set -euo pipefail

missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v ninja >/dev/null || missing+=(ninja-build)
command -v g++ >/dev/null || missing+=(g++)
have_header() { echo "#include <$1>" | g++ -std=c++20 -x c++ -fsyntax-only - >/dev/null 2>&1; }
if command -v g++ >/dev/null; then
  have_header CLI/CLI.hpp || missing+=(libcli11-dev)
  have_header fmt/format.h || missing+=(libfmt-dev)
  have_header nlohmann/json.hpp || missing+=(nlohmann-json3-dev)
  have_header gtest/gtest.h || missing+=(libgtest-dev)
else
  missing+=(libcli11-dev libfmt-dev nlohmann-json3-dev libgtest-dev)
fi
# zsh and fish load the completion scripts in their tests (bash is there already).
command -v zsh >/dev/null || missing+=(zsh)
command -v fish >/dev/null || missing+=(fish)
# groff reads the man page the build writes (tests/support/check_manpage.sh).
command -v groff >/dev/null || missing+=(groff-base)
# CPack's RPM generator needs rpmbuild; man opens the installed page (tools/check-packages.sh).
command -v rpmbuild >/dev/null || missing+=(rpm)
command -v man >/dev/null || missing+=(man-db)
# A one-node Slurm runs the Slurm health check script for real (tests/support/check_slurm_healthcheck.sh).
[ -x /usr/sbin/slurmctld ] || missing+=(slurmctld)
[ -x /usr/sbin/slurmd ] || missing+=(slurmd)
command -v scontrol >/dev/null || missing+=(slurm-client)
[ -x /usr/sbin/munged ] || missing+=(munge)
# An older userland (Ubuntu 20.04) for the release binary (tools/check-older-userland.sh).
[ -x /usr/sbin/debootstrap ] || missing+=(debootstrap)
command -v curl >/dev/null || missing+=(curl)
python3 -c 'import jsonschema' 2>/dev/null || missing+=(python3-jsonschema)
# A fresh virtual environment, for the wheel's check (tools/check-wheel.sh).
python3 -c 'import ensurepip' 2>/dev/null || missing+=(python3-venv)
# The JUnit output is checked by a real JUnit reader (tests/support/validate_junit.py).
python3 -c 'import junitparser' 2>/dev/null || missing+=(python3-junitparser)
# clang's libFuzzer, for tools/fuzz.sh: a fuzz target links only where it is there.
have_libfuzzer() {
  local probe status=0
  probe="$(mktemp -d)"
  echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' > "$probe/probe.cpp"
  clang++ -fsanitize=fuzzer "$probe/probe.cpp" -o "$probe/probe" >/dev/null 2>&1 || status=1
  rm -rf "$probe"
  return $status
}
have_libfuzzer || missing+=(clang)

if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  # Debian ships libFuzzer in libclang-rt-dev, which clang only recommends (older releases: in clang).
  if [[ " ${missing[*]} " == *" clang "* ]] && apt-cache show libclang-rt-dev >/dev/null 2>&1; then missing+=(libclang-rt-dev); fi
  echo "installing: ${missing[*]}"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The Debian packages serve the system python3; a python3 of its own first on PATH (pyenv, a
# virtualenv) gets the modules from PyPI instead.
# module:PyPI package
for module in jsonschema:jsonschema junitparser:junitparser prometheus_client:prometheus_client yaml:pyyaml; do
  python3 -c "import ${module%%:*}" 2>/dev/null && continue
  echo "installing: ${module#*:} (pip, for $(command -v python3))"
  python3 -m pip install --quiet "${module#*:}" 2>/dev/null ||
    python3 -m pip install --quiet --break-system-packages "${module#*:}" ||
    echo "warning: could not install ${module#*:} for python3; the tests that need it will be skipped" >&2
done

# promtool, for `promtool check metrics` (the Prometheus project's lint of the text format:
# naming, units, suffixes) in tests/support/validate_prometheus.py. Debian and Ubuntu ship it only
# inside the `prometheus` package (a 19 MB download), whose installation would also set up and start
# a Prometheus server; so the package is downloaded, not installed, and promtool alone is unpacked
# into a folder git ignores, once. Without it the Prometheus tests run without the lint, so a failure
# here warns.
promtool_dir="tests/fixtures/downloaded/promtool"
if ! command -v promtool >/dev/null && [ ! -x "$promtool_dir/usr/bin/promtool" ] && command -v apt-get >/dev/null; then
  echo "fetching: promtool (unpacked from Debian's prometheus package, which is not installed)"
  scratch="$(mktemp -d)"
  fetch_promtool() {
    (cd "$scratch" && apt-get download -qq prometheus >/dev/null 2>&1) &&
      mkdir -p "$promtool_dir" &&
      dpkg-deb --fsys-tarfile "$scratch"/prometheus_*.deb | tar -x -C "$promtool_dir" ./usr/bin/promtool
  }
  if ! fetch_promtool; then
    # The package lists may be missing (a fresh container) or stale (an old version's file gone).
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq >/dev/null 2>&1 || true
    fetch_promtool || echo "warning: could not fetch promtool; the Prometheus tests will not lint with it" >&2
  fi
  rm -rf "$scratch"
fi

# A headless browser, for the HTML report's test in a real browser
# (tests/support/check_html_in_browser.py): Debian's chromium-headless-shell, else its chromium.
# Ubuntu ships Chromium only as a snap, which a container cannot run: there the test is skipped and
# says so, so a failure here warns.
if ! command -v chromium-headless-shell >/dev/null && ! command -v chromium >/dev/null && command -v apt-get >/dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  browser=""
  for candidate in chromium-headless-shell chromium; do
    # apt-cache knows nothing before a first update in a fresh container.
    apt-cache show "$candidate" >/dev/null 2>&1 || $sudo apt-get update -qq >/dev/null 2>&1 || true
    if apt-cache show "$candidate" 2>/dev/null | grep -q '^Filename:.*\.deb'; then browser=$candidate; break; fi
  done
  if [ -n "$browser" ]; then
    echo "installing: $browser (for the HTML report's browser test)"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$browser" >/dev/null ||
      echo "warning: could not install $browser; the HTML browser test will be skipped" >&2
  else
    echo "warning: no Debian package of Chromium found; the HTML browser test will be skipped" >&2
  fi
fi

if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ] && [ -z "${CUDACXX:-}" ]; then
  echo "error: the CUDA toolkit (nvcc) was not found. Install it from NVIDIA's repository (e.g. cuda-toolkit-13-0)," >&2
  echo "       or point CUDACXX at nvcc." >&2
  exit 1
fi

# cuobjdump: the toolkit's own when it has one, else NVIDIA's wheel for the toolkit's major version
# (nvidia-cuda-cuobjdump; the binary lands in site-packages/nvidia/cu<major>/bin, where
# tests/unit/cuda/gpu_code_test.cpp looks). Without it those comparisons skip, so a failure here warns.
nvcc="$(command -v nvcc || echo "${CUDACXX:-/usr/local/cuda/bin/nvcc}")"
if ! command -v cuobjdump >/dev/null && [ ! -x "$(dirname "$nvcc")/cuobjdump" ]; then
  cuda_major="$("$nvcc" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')"
  if ! python3 -c "import nvidia.cu${cuda_major}, os, sys; sys.exit(not os.path.exists(os.path.join(list(nvidia.cu${cuda_major}.__path__)[0], 'bin', 'cuobjdump')))" 2>/dev/null; then
    echo "installing: nvidia-cuda-cuobjdump==${cuda_major}.*"
    python3 -m pip install --quiet "nvidia-cuda-cuobjdump==${cuda_major}.*" 2>/dev/null ||
      python3 -m pip install --quiet --break-system-packages "nvidia-cuda-cuobjdump==${cuda_major}.*" ||
      echo "warning: could not install cuobjdump; the inspect comparisons with it will be skipped" >&2
  fi
fi

# Real include/crt/host_config.h files of several CUDA releases, for the host-compiler limits test
# (tests/unit/probes/build_setup_test.cpp): copied out of NVIDIA's nvcc wheels on PyPI with HTTP
# range requests (tools/fetch-wheel-files.py), into a folder git ignores, not into the repository.
# Without network the test skips and says so, so a failure here warns.
host_configs="tests/fixtures/downloaded/host_config"
for spec in "nvidia-cuda-nvcc-cu11 11.8.89 nvidia/cuda_nvcc" "nvidia-cuda-nvcc-cu12 12.1.105 nvidia/cuda_nvcc" \
            "nvidia-cuda-nvcc-cu12 12.4.131 nvidia/cuda_nvcc" "nvidia-cuda-nvcc-cu12 12.6.85 nvidia/cuda_nvcc" \
            "nvidia-cuda-nvcc-cu12 12.8.93 nvidia/cuda_nvcc" "nvidia-cuda-nvcc-cu12 12.9.86 nvidia/cuda_nvcc" \
            "nvidia-cuda-crt 13.0.88 nvidia/cu13" "nvidia-cuda-crt 13.1.80 nvidia/cu13"; do
  read -r wheel version prefix <<<"$spec"
  [ -s "$host_configs/$version/$prefix/include/crt/host_config.h" ] && continue
  echo "fetching: host_config.h of CUDA $version ($wheel)"
  timeout 120 python3 tools/fetch-wheel-files.py "$wheel" "$version" x86_64 "$host_configs/$version" "$prefix/include/crt/host_config.h" >/dev/null ||
    echo "warning: could not fetch host_config.h of CUDA $version; tests that read it will be skipped" >&2
done

# zig, the release binary's compiler and linker (cmake/toolchains/zig-glibc-2.28.cmake: clang with
# LLVM's libc++ against glibc 2.28's symbol versions): PyPI's ziglang wheel, unpacked into
# .devtools/ (git ignores it), not installed. 0.15.2 brings clang 20, the newest nvcc 13.0 accepts.
zig_version=0.15.2
zig_dir="$(dirname "$0")/../.devtools/ziglang-$zig_version"
if [ ! -x "$zig_dir/ziglang/zig" ]; then
  echo "fetching: zig $zig_version (PyPI's ziglang wheel, unpacked into .devtools/)"
  zig_download="$(mktemp -d)"
  if python3 -m pip download --quiet --no-deps --dest "$zig_download" "ziglang==$zig_version" &&
     python3 -m zipfile -e "$zig_download"/ziglang-*.whl "$zig_dir"; then
    chmod +x "$zig_dir/ziglang/zig"
  else
    rm -rf "$zig_dir"
    echo "warning: could not fetch zig $zig_version; the release binary (tools/release.sh) cannot be built" >&2
  fi
  rm -rf "$zig_download"
fi

# A setuptools wheel for the editable installs that tests/support/python_import_corpus.py makes
# with pip itself (`pip install --no-index --find-links .devtools/wheels -e <project>`: setuptools
# 70.1 and newer build PEP 660 editable wheels without the `wheel` package). Downloaded, not installed.
setuptools_version=75.3.0
wheels_dir="$(dirname "$0")/../.devtools/wheels"
if [ ! -s "$wheels_dir/setuptools-$setuptools_version-py3-none-any.whl" ]; then
  echo "fetching: setuptools $setuptools_version (PyPI's wheel, into .devtools/wheels)"
  mkdir -p "$wheels_dir"
  python3 -m pip download --quiet --no-deps --dest "$wheels_dir" "setuptools==$setuptools_version" ||
    echo "warning: could not fetch setuptools $setuptools_version; the editable-install scenarios of the import corpus will fail" >&2
fi
