#!/usr/bin/env python3
"""Checks the deployment examples in deploy/ (docs/cluster.md) without a cluster.

Usage: validate_deploy.py CUDACHECK_BINARY DEPLOY_DIR
Kubernetes manifests are parsed as YAML: the Job must request nvidia.com/gpu, the DaemonSet must
not (it must not hold GPUs) but see them through NVIDIA_VISIBLE_DEVICES=all; both run the image
the container recipe builds (cudacheck:<this binary's version>, tools/build-image.sh). The cudacheck command
line of every manifest and of the Slurm script is then run with this build's binary at
--level quick: an option it does not know would exit 2. Exit 77 (skipped) without PyYAML.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    print("SKIPPED: python3 yaml is not installed")
    sys.exit(77)


def cudacheck_arguments(command_line):
    """The arguments after `cudacheck` in a shell command line, up to the end of that command."""
    words = shlex.split(command_line.replace(";", " ; "))
    start = words.index("cudacheck") + 1
    arguments = []
    for word in words[start:]:
        if word in (";", "&&", "||", "|"):
            break
        arguments.append(word)
    return arguments


def run(binary, arguments, where, problems):
    """Runs the binary with the arguments, output redirected to a scratch file, at --level quick."""
    with tempfile.TemporaryDirectory() as scratch:
        arguments = list(arguments)
        if "-o" in arguments:
            arguments[arguments.index("-o") + 1] = os.path.join(scratch, os.path.basename(arguments[arguments.index("-o") + 1]))
        quick = [] if "--level" in arguments else ["--level", "quick"]
        completed = subprocess.run([binary, *arguments, *quick], capture_output=True, text=True, timeout=120)
        if completed.returncode not in (0, 1):
            problems.append(f"{where}: `cudacheck {' '.join(arguments)}` exited {completed.returncode}: {completed.stderr.strip()}")


def container_of(document):
    spec = document["spec"]["template"]["spec"]
    return spec, spec["containers"][0]


def main():
    binary, deploy = sys.argv[1:]
    problems = []
    version = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout.split()[1]
    image = f"cudacheck:{version}"
    kinds = {}
    for name in sorted(os.listdir(os.path.join(deploy, "kubernetes"))):
        path = os.path.join(deploy, "kubernetes", name)
        with open(path, encoding="utf-8") as handle:
            for document in yaml.safe_load_all(handle):
                kinds[document["kind"]] = document
                spec, container = container_of(document)
                if spec.get("runtimeClassName") != "nvidia":
                    problems.append(f"{name}: runtimeClassName is not nvidia")
                gpus = container.get("resources", {}).get("limits", {}).get("nvidia.com/gpu")
                env = {item["name"]: item.get("value") for item in container.get("env", [])}
                if document["kind"] == "Job" and not gpus:
                    problems.append(f"{name}: the Job requests no nvidia.com/gpu")
                if document["kind"] == "DaemonSet":
                    if gpus:
                        problems.append(f"{name}: the DaemonSet would hold GPUs (nvidia.com/gpu)")
                    if env.get("NVIDIA_VISIBLE_DEVICES") != "all":
                        problems.append(f"{name}: the DaemonSet does not set NVIDIA_VISIBLE_DEVICES=all")
                # The image the container recipe builds (tools/build-image.sh: cudacheck:<version>).
                if container.get("image") != image:
                    problems.append(f"{name}: image {container.get('image')!r}, not {image!r} (deploy/container/Dockerfile builds that)")
                command = " ".join(container.get("command", []) + container.get("args", []))
                run(binary, cudacheck_arguments(command[command.index("cudacheck"):]), name, problems)
    for kind in ("Job", "DaemonSet"):
        if kind not in kinds:
            problems.append(f"no {kind} manifest in {deploy}/kubernetes")
    with open(os.path.join(deploy, "slurm", "cudacheck-nodes.sbatch"), encoding="utf-8") as handle:
        srun = next(line for line in handle if line.startswith("srun "))
    if not re.search(r"--output=\S*%N", srun):
        problems.append("the Slurm script does not name each report after its node (%N)")
    run(binary, cudacheck_arguments(srun), "cudacheck-nodes.sbatch", problems)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
