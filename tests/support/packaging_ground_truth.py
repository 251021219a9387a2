#!/usr/bin/env python3
"""Ground truth for cudacheck's Python packaging rules (src/util/python_packaging.*), from the real
pip and packaging. tests/unit/util/python_packaging_test.cpp runs it with a JSON request file and
compares cudacheck's answers with the JSON this prints:

  facts      this interpreter: version, sys.abiflags, machine, glibc, and its sys_tags() as pip's
             vendored packaging computes them (and the stand-alone packaging's, where installed)
  explicit   packaging's cpython_tags/compatible_tags/_manylinux.platform_tags for other
             interpreters, glibc given (_manylinux._get_glibc_version replaced for the call)
  pip        `pip install --dry-run --report` over wheels this script writes (a METADATA, a WHEEL
             and a RECORD each, zipped), for the interpreters the request names: which file pip chose
  rules      packaging.requirements / markers / specifiers / version on a table of cases

Exit status 77 (skip) when pip cannot be imported.
"""
import concurrent.futures
import inspect
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

try:
    from pip._vendor.packaging import tags as pip_tags
    from pip._vendor.packaging import _manylinux as pip_manylinux
    from pip._vendor import packaging as pip_packaging
    from pip._internal.utils.compatibility_tags import get_supported
except ImportError as error:
    print(f"SKIP: pip is not importable here: {error}", file=sys.stderr)
    sys.exit(77)

# The stand-alone packaging, when newer than pip's copy (pip 23 vendors 21.3, which predates the
# free-threaded ABI): the explicit and rules answers come from the newest of the two.
newest = pip_packaging
try:
    import packaging as standalone

    def _key(module):
        return tuple(int(p) if p.isdigit() else 0 for p in module.__version__.split("."))

    if _key(standalone) > _key(pip_packaging):
        newest = standalone
except ImportError:
    standalone = None


def module(name):
    return __import__(f"{newest.__name__}.{name}", fromlist=[name])


def tag_texts(tags):
    return [str(t) for t in tags]


def facts(_request):
    glibc = pip_manylinux._get_glibc_version()
    platform = sysconfig.get_platform()  # "linux-x86_64"
    out = {
        "major": sys.version_info[0],
        "minor": sys.version_info[1],
        "full_version": ".".join(str(n) for n in sys.version_info[:3]),
        "implementation": pip_tags.interpreter_name(),
        "abiflags": getattr(sys, "abiflags", ""),
        "machine": platform.split("-", 1)[1] if platform.startswith("linux-") else platform,
        "glibc": list(glibc) if glibc[0] >= 0 else None,
        "pip_packaging": pip_packaging.__version__,
        "sys_tags": tag_texts(pip_tags.sys_tags()),
        # What pip itself accepts (its resolver's list): sys_tags plus cpXY-none-any.
        "pip_supported": tag_texts(get_supported()),
        "packaging_sys_tags": None,
    }
    if out["implementation"] == "pp":
        suffix = sysconfig.get_config_var("EXT_SUFFIX") or ""
        parts = suffix.split(".")
        out["pypy_abi"] = parts[1].split("-")[0] + "_" + parts[1].split("-")[1] if len(parts) > 2 else ""
    if standalone is not None:
        from packaging import tags as standalone_tags

        out["packaging_sys_tags"] = tag_texts(standalone_tags.sys_tags())
        out["packaging"] = standalone.__version__
    return out


def manylinux(arch, glibc):
    """_manylinux.platform_tags for `arch` as if this machine's glibc were `glibc`."""
    manylinux_module = module("_manylinux")
    saved = manylinux_module._get_glibc_version
    manylinux_module._get_glibc_version = lambda: tuple(glibc)
    try:
        parameters = inspect.signature(manylinux_module.platform_tags).parameters
        if "linux" in parameters:  # packaging 21.x: platform_tags(linux, arch)
            return list(manylinux_module.platform_tags(f"linux_{arch}", arch))
        return list(manylinux_module.platform_tags([arch]))
    finally:
        manylinux_module._get_glibc_version = saved


def explicit(request):
    tags = module("tags")
    out = []
    for case in request["cases"]:
        version = (case["major"], case["minor"])
        platforms = manylinux(case["arch"], case["glibc"]) if case.get("glibc") else []
        linux = [f"linux_{case['arch']}"]
        platforms = linux + platforms if case.get("linux_first") else platforms + linux
        if case.get("implementation", "cp") == "cp":
            listed = list(tags.cpython_tags(version, abis=case["abis"], platforms=platforms))
            listed += list(tags.compatible_tags(version, interpreter=f"cp{version[0]}{version[1]}", platforms=platforms))
        else:
            interpreter = f"{case['implementation']}{version[0]}{version[1]}"
            listed = list(tags.generic_tags(interpreter, abis=case["abis"], platforms=platforms))
            listed += list(tags.compatible_tags(version, interpreter="pp3", platforms=platforms))
        out.append({"platforms": platforms, "tags": tag_texts(listed)})
    return {"packaging": newest.__version__, "results": out}


def write_wheel(directory, file_name):
    """A wheel with nothing but its metadata, which is all `pip install --dry-run` reads."""
    base = file_name[: -len(".whl")]
    parts = base.split("-")
    name, version = parts[0], parts[1]
    tag_sets = parts[-3:]
    dist_info = f"{name}-{version}.dist-info"
    files = {
        f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\n",
        f"{dist_info}/WHEEL": "Wheel-Version: 1.0\nGenerator: cudacheck-test\nRoot-Is-Purelib: false\n"
        + "".join(
            f"Tag: {p}-{a}-{pl}\n"
            for p in tag_sets[0].split(".")
            for a in tag_sets[1].split(".")
            for pl in tag_sets[2].split(".")
        ),
    }
    record = "".join(f"{path},,\n" for path in files) + f"{dist_info}/RECORD,,\n"
    files[f"{dist_info}/RECORD"] = record
    with zipfile.ZipFile(os.path.join(directory, file_name), "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)


def pip_choice(work, group, wheels, interpreter):
    """The wheel pip chooses for `group` from `wheels` (one find-links folder), or None."""
    links = os.path.join(work, f"links-{group}")
    report = os.path.join(work, f"report-{group}-{interpreter['id']}.json")
    command = [sys.executable, "-m", "pip", "install", "--dry-run", "--quiet", "--no-deps", "--disable-pip-version-check",
               "--no-cache-dir", "--report", report, "--no-index", "--find-links", links, "--only-binary=:all:"]
    if interpreter.get("python_version"):
        command += ["--target", os.path.join(work, f"target-{group}-{interpreter['id']}"), "--python-version", interpreter["python_version"],
                    "--implementation", interpreter["implementation"], "--abi", interpreter["abi"]]
        for platform in interpreter["platforms"]:
            command += ["--platform", platform]
    command.append(wheels[0].split("-")[0])
    result = subprocess.run(command, capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PIP_CONFIG_FILE": os.devnull, "PYTHONDONTWRITEBYTECODE": "1"})
    if result.returncode != 0:
        if "Could not find a version" in result.stderr or "No matching distribution" in result.stderr:
            return None
        raise RuntimeError(f"pip failed unexpectedly: {' '.join(command)}\n{result.stderr}")
    with open(report) as handle:
        installs = json.load(handle)["install"]
    return os.path.basename(installs[0]["download_info"]["url"]) if installs else None


def pip(request):
    import pip as pip_module

    # --dry-run and --report came with pip 22.2.
    if tuple(int(p) for p in pip_module.__version__.split(".")[:2] if p.isdigit()) < (22, 2):
        print(f"SKIP: pip {pip_module.__version__} has no --dry-run --report (22.2 and newer)", file=sys.stderr)
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="cudacheck-pip-") as work:
        # Every wheel written before any pip starts: a pip listing the folder must not meet a half-written one.
        for group in request["groups"]:
            links = os.path.join(work, f"links-{group['name']}")
            os.makedirs(links)
            for wheel in group["wheels"]:
                write_wheel(links, wheel)
        jobs = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            for group in request["groups"]:
                for interpreter in request["interpreters"]:
                    key = (group["name"], interpreter["id"])
                    jobs[key] = pool.submit(pip_choice, work, group["name"], group["wheels"], interpreter)
        results = [
            {"group": group, "interpreter": interpreter, "chosen": future.result()}
            for (group, interpreter), future in jobs.items()
        ]
    return {"pip": pip_module.__version__, "results": results}


def rules(request):
    requirements = module("requirements")
    markers = module("markers")
    specifiers = module("specifiers")
    version_module = module("version")
    out = {"packaging": newest.__version__, "requirements": [], "markers": [], "specifiers": [], "versions": []}
    for text in request.get("requirements", []):
        try:
            req = requirements.Requirement(text)
            out["requirements"].append({
                "name": req.name, "extras": sorted(req.extras),
                "specifier": sorted(str(s) for s in req.specifier), "url": req.url or "",
                "marker": req.marker is not None,
            })
        except Exception as error:  # InvalidRequirement
            out["requirements"].append({"error": str(error)})
    for case in request.get("markers", []):
        environment = dict(case["environment"])
        environment["extra"] = case["extra"]
        try:
            out["markers"].append(bool(markers.Marker(case["marker"]).evaluate(environment)))
        except Exception as error:
            out["markers"].append(f"error: {error}")
    for case in request.get("specifiers", []):
        try:
            spec = specifiers.SpecifierSet(case["specifier"])
            out["specifiers"].append(bool(spec.contains(version_module.Version(case["version"]),
                                                        prereleases=case["prereleases"])))
        except Exception as error:
            out["specifiers"].append(f"error: {error}")
    for text in request.get("versions", []):
        try:
            out["versions"].append(str(version_module.Version(text)))
        except Exception:
            out["versions"].append(None)
    parsed = [version_module.Version(v) for v in request.get("versions", []) if _valid(version_module, v)]
    out["sorted"] = [str(v) for v in sorted(parsed)]
    return out


def _valid(version_module, text):
    try:
        version_module.Version(text)
        return True
    except Exception:
        return False


def main():
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    handlers = {"facts": facts, "explicit": explicit, "pip": pip, "rules": rules}
    if command not in handlers:
        print(f"usage: {sys.argv[0]} facts|explicit|pip|rules REQUEST.json ANSWER.json", file=sys.stderr)
        return 2
    if len(sys.argv) != 4:
        print(f"usage: {sys.argv[0]} {command} REQUEST.json ANSWER.json", file=sys.stderr)
        return 2
    with open(sys.argv[2]) as handle:
        request = json.load(handle)
    answer = handlers[command](request)
    with open(sys.argv[3], "w") as handle:
        json.dump(answer, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
