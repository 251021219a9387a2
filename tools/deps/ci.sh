#!/usr/bin/env bash
# What only CI's tests use, on top of the tests' own set-up (tools/deps/test.sh, which tools/test.sh
# runs): .ci/run calls it first. Each test that uses one of these says SKIPPED where it is missing.
#   slurmctld, slurmd, slurm-client, munge  a one-node Slurm for the health check script
#                   (tests/support/check_slurm_healthcheck.sh starts its own daemons in a scratch
#                   folder); installed with no service started and none left enabled
#                   (deps_apt_install_services, tools/deps/lib.sh)
#   headless Chromium  the HTML report's browser test (tests/support/check_html_in_browser.py):
#                   Debian's chromium-headless-shell, else its chromium. Ubuntu ships Chromium only as
#                   a snap, which a container cannot run: there the test is skipped and says so.
#   host_config.h   of eight CUDA releases, for the host-compiler limits test
#                   (tests/unit/probes/build/build_setup_test.cpp): copied out of NVIDIA's nvcc wheels on
#                   PyPI with HTTP range requests (tools/fetch-wheel-files.py) into
#                   tests/fixtures/downloaded/host_config, which git ignores
#   ccache          CI compiles the same sources twice with the same flags (the test build, then
#                   CMake 3.22's build in tools/check-cmake-minimum.sh): the second comes from the cache
set -euo pipefail
here=$(dirname "$0")
source "$here/lib.sh"
cd "$deps_root"

slurm=()
[ -x /usr/sbin/slurmctld ] || slurm+=(slurmctld)
[ -x /usr/sbin/slurmd ] || slurm+=(slurmd)
command -v scontrol >/dev/null || slurm+=(slurm-client)
[ -x /usr/sbin/munged ] || slurm+=(munge)
deps_apt_install_services "the Slurm health check's test" "${slurm[@]}"

command -v ccache >/dev/null || deps_apt_install "CI's second build of the same objects" ccache

if ! command -v chromium-headless-shell >/dev/null && ! command -v chromium >/dev/null && command -v apt-get >/dev/null; then
    browser=""
    for candidate in chromium-headless-shell chromium; do
        if deps_apt_has "$candidate"; then browser=$candidate; break; fi
    done
    if [ -n "$browser" ]; then
        deps_apt_install "the HTML report's browser test" "$browser" ||
            deps_say "warning: could not install $browser; the HTML browser test will be skipped"
    else
        deps_say "warning: no Debian package of Chromium found; the HTML browser test will be skipped"
    fi
fi

# Without network the test skips and says so, so a failure here warns.
host_configs="tests/fixtures/downloaded/host_config"
for spec in "nvidia-cuda-nvcc-cu11 11.8.89 nvidia/cuda_nvcc" "nvidia-cuda-nvcc-cu12 12.1.105 nvidia/cuda_nvcc" \
            "nvidia-cuda-nvcc-cu12 12.4.131 nvidia/cuda_nvcc" "nvidia-cuda-nvcc-cu12 12.6.85 nvidia/cuda_nvcc" \
            "nvidia-cuda-nvcc-cu12 12.8.93 nvidia/cuda_nvcc" "nvidia-cuda-nvcc-cu12 12.9.86 nvidia/cuda_nvcc" \
            "nvidia-cuda-crt 13.0.88 nvidia/cu13" "nvidia-cuda-crt 13.1.80 nvidia/cu13"; do
    read -r wheel version prefix <<<"$spec"
    [ -s "$host_configs/$version/$prefix/include/crt/host_config.h" ] && continue
    deps_venv  # tools/fetch-wheel-files.py needs only the standard library: any python3 of the distribution
    deps_say "fetching: host_config.h of CUDA $version ($wheel)"
    timeout 120 "$deps_venv_python" tools/fetch-wheel-files.py "$wheel" "$version" x86_64 "$host_configs/$version" "$prefix/include/crt/host_config.h" >/dev/null ||
        deps_say "warning: could not fetch host_config.h of CUDA $version; tests that read it will be skipped"
done
