#!/usr/bin/env bash
# Builds the container image (deploy/container/Dockerfile) as cudacheck:<version>, the name the
# Kubernetes manifests in deploy/kubernetes/ use (push it to your registry under that name, or
# change theirs), then runs it: `--version`, and the default run, with `--gpus all` where Docker has
# the NVIDIA runtime (exit 0 expected), else without a GPU (exit 1 expected: no driver in it).
# Needs Docker (or Podman as `docker`) and a registry that serves nvidia/cuda images.
#
# Usage: tools/build-image.sh [extra docker build arguments, e.g. --build-arg CUDA_VERSION=13.0.2]
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^ *VERSION \([0-9.]*\)$/\1/p' CMakeLists.txt | head -n 1)
image=cudacheck:$version
command -v docker >/dev/null || { echo "build-image: docker is not installed" >&2; exit 1; }
docker build -f deploy/container/Dockerfile -t "$image" "$@" .
docker run --rm "$image" --version
if docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q nvidia; then
    docker run --rm --gpus all "$image" && code=0 || code=$?
    [ "$code" = 0 ] || { echo "build-image: the default run with --gpus all exited $code" >&2; exit 1; }
else
    docker run --rm "$image" --level quick > /dev/null && code=0 || code=$?
    [ "$code" = 1 ] || { echo "build-image: without a GPU the quick run exited $code, not 1" >&2; exit 1; }
fi
echo "build-image: $image built and runs"
