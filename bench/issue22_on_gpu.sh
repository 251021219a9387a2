#!/usr/bin/env bash
# On the GPU machine (issue 22): the wheel (dist/*.whl, built by tools/build-wheel.sh and carried
# there) installed into a fresh virtual environment without network, and the portable release
# binary (build-release/cudacheck, carried), each against build-gpu/cudacheck built there from the
# same sources: the default run's verdicts must be the same (bench/compare_verdicts.py); the wheel
# both as the `cudacheck` command it installs and through cudacheck.run(). Also: which container
# engines the machine has (the container recipe, deploy/container/Dockerfile).
#
# Usage: OUT=dir bench/issue22_on_gpu.sh
set -u
out=${OUT:-gpu-out}/issue22
mkdir -p "$out"
wheel=$(ls dist/cudacheck-*.whl | head -n 1)
scratch=$(mktemp -d)
venv=$scratch/venv
{
    python3 -m venv "$venv" && echo "venv: $(python3 --version)"
    "$venv/bin/python" -m pip install --no-index --no-deps "$wheel"
    "$venv/bin/python" -m pip list 2>/dev/null
} > "$out/wheel-install.txt" 2>&1
{
    echo "build-gpu/cudacheck:      $(build-gpu/cudacheck --version)"
    echo "the wheel's cudacheck:    $("$venv/bin/cudacheck" --version)"
    echo "python -m cudacheck:      $("$venv/bin/python" -m cudacheck --version)"
    echo "build-release/cudacheck:  $(build-release/cudacheck --version)"
    echo "the wheel's executable:   $(sha256sum "$(readlink -f "$venv/bin/cudacheck")" | cut -c1-16) $(stat -c %s "$(readlink -f "$venv/bin/cudacheck")") bytes"
    echo "wheel: $(basename "$wheel")"
    objdump -p build-release/cudacheck | awk '/NEEDED/ {print "release binary needs " $2}'
} > "$out/versions.txt" 2>&1
# Each default run once, one after the other, JSON and table from the same run.
build-gpu/cudacheck -o "$out/source.json" -o "$out/source.txt"; echo "source build: exit $?" > "$out/exits.txt"
"$venv/bin/cudacheck" -o "$out/wheel.json" -o "$out/wheel.txt"; echo "wheel command: exit $?" >> "$out/exits.txt"
"$venv/bin/python" - "$out/wheel-api.json" <<'PY' >> "$out/exits.txt" 2>&1
import json, sys
import cudacheck
report = cudacheck.run()
json.dump(report, open(sys.argv[1], "w"), indent=1)
print(f"wheel cudacheck.run(): report exit_code {report['exit_code']}, overall {report['summary']['overall']}")
PY
build-release/cudacheck -o "$out/release.json" -o "$out/release.txt"; echo "release binary: exit $?" >> "$out/exits.txt"
{
    for other in wheel wheel-api release; do
        echo "source build against $other:"
        python3 bench/compare_verdicts.py "$out/source.json" "$out/$other.json"
        echo "exit $?"
    done
} > "$out/verdicts.txt" 2>&1
{
    for engine in docker podman nerdctl buildah; do echo "$engine: $(command -v $engine || echo none)"; done
    echo "nvidia-container-toolkit: $(command -v nvidia-ctk || echo none)"
} > "$out/container-engines.txt"
rm -rf "$scratch"
cat "$out/versions.txt" "$out/exits.txt" "$out/verdicts.txt" "$out/container-engines.txt"
