#!/usr/bin/env python3
"""The differential corpus: which file `import X` loads, as cudacheck predicts it from
files alone, against what the real interpreter does.

Each scenario below builds a Python environment in a temporary directory (virtual environments with
and without the system site-packages, a base interpreter with a user site, PYTHONPATH and
PYTHONHOME variants, .pth files, editable installs made by pip itself, namespace packages, broken
links, a pip of another environment), with fake `torch`, `jax` and `cupy` packages. For each
scenario and each base interpreter found here (Debian's /usr/bin/python3 with its patched site.py,
and stock CPython builds where pyenv has them), the ground truth is the interpreter itself:

    python3 -c "import X; print(X.__file__)"

run in the scenario's environment and working directory; cudacheck's answer is the `imports` entry
of the environment in `cudacheck --only frameworks.builds --python <interpreter> --format json`,
run the same way. Every answer must agree (100 %); the table printed at the end lists them.

Usage: python_import_corpus.py CUDACHECK [--wheels DIR] [--keep]
  DIR holds a setuptools wheel (tools/install-deps.sh downloads it into .devtools/wheels) for the
  editable installs; without it those scenarios are reported as not run and the test fails.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

MODULES = ("torch", "jax", "cupy")
TIMEOUT = 60


def base_interpreters():
    """Debian's system python3 and stock CPython 3.11+ builds (pyenv), one per version."""
    found, seen = [], set()
    candidates = ["/usr/bin/python3"]
    for root in [os.environ.get("PYENV_ROOT", ""), os.path.expanduser("~/.pyenv")]:
        if root:
            candidates += sorted(glob.glob(os.path.join(root, "versions", "3.1[1-9]*", "bin", "python3")))
    for candidate in candidates:
        if not os.access(candidate, os.X_OK):
            continue
        version = subprocess.run([candidate, "-I", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                 capture_output=True, text=True, timeout=TIMEOUT).stdout.strip()
        key = (version, candidate.startswith("/usr/bin"))
        if not version or key in seen:
            continue
        seen.add(key)
        found.append((candidate, version))
    return found


# --- fixtures ------------------------------------------------------------------------------

def write(path, text=""):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def fake_torch(site, version="2.11.0+cu130", record=True):
    write(os.path.join(site, "torch", "__init__.py"), "from .version import __version__\n")
    write(os.path.join(site, "torch", "version.py"), f"__version__ = '{version}'\ncuda = '{version.split('+cu')[-1][:-1]}.0'\n")
    if record:
        plain = version.split("+")[0]
        write(os.path.join(site, f"torch-{plain}.dist-info", "METADATA"), f"Metadata-Version: 2.1\nName: torch\nVersion: {plain}\n\n")


def fake_jax(site, as_module=False):
    if as_module:
        write(os.path.join(site, "jax.py"), "_version = '0.0.1'\n")
        return
    write(os.path.join(site, "jax", "__init__.py"), "from .version import _version as __version__\n")
    write(os.path.join(site, "jax", "version.py"), "_version = '0.11.2'\n")
    write(os.path.join(site, "jax-0.11.2.dist-info", "METADATA"), "Metadata-Version: 2.1\nName: jax\nVersion: 0.11.2\n\n")


def fake_cupy(site):
    write(os.path.join(site, "cupy", "__init__.py"), "__version__ = '14.2.0'\n")
    write(os.path.join(site, "cupy_cuda13x-14.2.0.dist-info", "METADATA"), "Metadata-Version: 2.1\nName: cupy-cuda13x\nVersion: 14.2.0\n\n")


def all_fakes(site):
    fake_torch(site)
    fake_jax(site)
    fake_cupy(site)


class Scenario:
    """One environment: what the interpreter is, and the variables and directory it runs with."""

    def __init__(self, work, base, version):
        self.work, self.base, self.version = work, base, version
        self.env = {"PATH": "/usr/bin:/bin", "HOME": os.path.join(work, "home"), "LC_ALL": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
        os.makedirs(self.env["HOME"], exist_ok=True)
        self.cwd = os.path.join(work, "cwd")
        os.makedirs(self.cwd, exist_ok=True)
        self.interpreter = base      # what the ground truth runs and --python names
        self.via_path = False        # found as the python3 on PATH instead of through --python
        self.expect_finding = None   # a code the report must carry (scenarios about findings)
        self.expect_no_finding = None

    def venv(self, name="env", system_site=False, pip=False):
        prefix = os.path.join(self.work, name)
        command = [self.base, "-m", "venv", prefix] + ([] if pip else ["--without-pip"])
        if system_site:
            command.append("--system-site-packages")
        subprocess.run(command, check=True, timeout=120, env={"PATH": "/usr/bin:/bin"})
        self.interpreter = os.path.join(prefix, "bin", "python")
        return prefix

    def site(self, prefix):
        return os.path.join(prefix, "lib", f"python{self.version}", "site-packages")

    def user_site(self, base=None):
        return os.path.join(base or os.path.join(self.env["HOME"], ".local"), "lib", f"python{self.version}", "site-packages")


# Each builder sets up one scenario; returns False when it cannot run with this interpreter.

def venv_plain(s):
    all_fakes(s.site(s.venv()))


def pythonpath_stale_torch(s):
    all_fakes(s.site(s.venv()))
    stale = os.path.join(s.work, "shared", "old")
    fake_torch(stale, "2.5.1+cu124", record=False)
    s.env["PYTHONPATH"] = stale
    s.expect_finding = "CC632"


def pythonpath_relative_entry(s):
    all_fakes(s.site(s.venv()))
    fake_torch(os.path.join(s.cwd, "rel", "dir"), "2.4.0+cu121", record=False)
    s.env["PYTHONPATH"] = "rel/dir"


def pythonpath_empty_entry_is_cwd(s):
    all_fakes(s.site(s.venv()))
    fake_jax(s.cwd, as_module=True)
    s.env["PYTHONPATH"] = ":" + os.path.join(s.work, "nothing-here")


def pythonpath_module_before_package(s):
    all_fakes(s.site(s.venv()))
    first = os.path.join(s.work, "first")
    write(os.path.join(first, "cupy.py"), "__version__ = '1.0'\n")
    s.env["PYTHONPATH"] = first


def cwd_package_shadows(s):
    all_fakes(s.site(s.venv()))
    fake_torch(s.cwd, "2.6.0+cu126", record=False)
    s.expect_finding = "CC632"


def cwd_empty_directory_does_not_shadow(s):
    all_fakes(s.site(s.venv()))
    os.makedirs(os.path.join(s.cwd, "torch"))
    s.expect_no_finding = "CC632"


def namespace_portions(s):
    s.venv()
    a, b = os.path.join(s.work, "a"), os.path.join(s.work, "b")
    os.makedirs(os.path.join(a, "cupy"))
    os.makedirs(os.path.join(b, "cupy"))
    s.env["PYTHONPATH"] = f"{a}:{b}"


def installed_but_files_gone(s):
    site = s.site(s.venv())
    all_fakes(site)
    shutil.rmtree(os.path.join(site, "torch"))
    os.makedirs(os.path.join(site, "torch", "lib"))  # what an interrupted uninstall leaves
    s.expect_finding = "CC637"


def safe_path_drops_cwd(s):
    if s.version < "3.11":
        return False
    all_fakes(s.site(s.venv()))
    fake_torch(s.cwd, "2.6.0+cu126", record=False)
    s.env["PYTHONSAFEPATH"] = "1"


def user_site_of_base(s):
    fake_torch(s.user_site())


def user_site_disabled(s):
    fake_torch(s.user_site())
    s.env["PYTHONNOUSERSITE"] = "1"


def user_base_variable(s):
    base = os.path.join(s.work, "userbase")
    fake_jax(s.user_site(base))
    s.env["PYTHONUSERBASE"] = base


def user_site_installed_twice(s):
    prefix = s.venv(system_site=True)
    fake_torch(s.site(prefix))
    fake_torch(s.user_site(), "2.5.1+cu124")  # the venv's own comes first: no finding
    s.expect_no_finding = "CC633"


def venv_system_site_sees_user_site(s):
    s.venv(system_site=True)
    fake_torch(s.user_site())


def venv_isolated_ignores_user_site(s):
    s.venv(system_site=False)
    fake_torch(s.user_site())


def pyvenv_cfg_without_the_key(s):
    prefix = s.venv(system_site=False)
    config = os.path.join(prefix, "pyvenv.cfg")
    with open(config, encoding="utf-8") as f:
        lines = [line for line in f if not line.lower().startswith("include-system-site-packages")]
    write(config, "".join(lines))
    fake_torch(s.user_site())


def pth_adds_directory(s):
    site = s.site(s.venv())
    extra = os.path.join(s.work, "extra")
    fake_cupy(extra)
    write(os.path.join(site, "extra.pth"), f"# a comment\n\n{extra}\n")


def pth_relative_line(s):
    site = s.site(s.venv())
    fake_cupy(os.path.join(s.work, "sideline"))
    write(os.path.join(site, "rel.pth"), os.path.relpath(os.path.join(s.work, "sideline"), site) + "\n")


def pth_failing_import_ends_the_file(s):
    site = s.site(s.venv())
    later = os.path.join(s.work, "later")
    fake_cupy(later)
    write(os.path.join(site, "broken.pth"), f"import module_that_is_not_there_34\n{later}\n")
    s.expect_finding = "CC635"


def pth_missing_then_existing(s):
    site = s.site(s.venv())
    present = os.path.join(s.work, "present")
    fake_jax(present)
    write(os.path.join(site, "mixed.pth"), f"{os.path.join(s.work, 'gone')}\n{present}\n")
    s.expect_finding = "CC636"


def pth_files_in_sorted_order(s):
    site = s.site(s.venv())
    for name, version in (("b", "2.4.0+cu121"), ("a", "2.3.0+cu121")):
        fake_torch(os.path.join(s.work, name), version, record=False)
        write(os.path.join(site, f"{name}.pth"), os.path.join(s.work, name) + "\n")


def pth_hidden_file(s):
    site = s.site(s.venv())
    hidden = os.path.join(s.work, "hidden")
    fake_jax(hidden)
    write(os.path.join(site, ".hidden.pth"), hidden + "\n")


def editable_project(s, layout):
    """A project installed with `pip install -e` by the venv's own pip (setuptools' PEP 660 build:
    a flat layout gets a finder in sys.meta_path, a src layout a path in a .pth file)."""
    if not s.wheels:
        return False
    prefix = s.venv(pip=True)
    project = os.path.join(s.work, "project")
    package_root = os.path.join(project, "src") if layout == "src" else project
    write(os.path.join(package_root, "torch", "__init__.py"), "__version__ = '2.12.0a0+gitabc'\n")
    write(os.path.join(package_root, "torch", "version.py"), "__version__ = '2.12.0a0+gitabc'\ncuda = '13.0'\n")
    packages = '[tool.setuptools.packages.find]\nwhere = ["src"]\n' if layout == "src" else '[tool.setuptools]\npackages = ["torch"]\n'
    write(os.path.join(project, "pyproject.toml"),
          '[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n'
          f'[project]\nname = "torch"\nversion = "2.12.0a0"\n{packages}')
    subprocess.run([os.path.join(prefix, "bin", "python"), "-m", "pip", "install", "-q", "--no-index", "--find-links", s.wheels, "-e", project],
                   check=True, timeout=300, env={"PATH": "/usr/bin:/bin", "HOME": s.env["HOME"]}, capture_output=True)
    return project


def editable_finder(s):
    return editable_project(s, "flat") is not False


def editable_static_pth(s):
    return editable_project(s, "src") is not False


def editable_source_gone(s):
    project = editable_project(s, "flat")
    if project is False:
        return False
    shutil.move(project, project + "-moved")
    s.expect_finding = "CC637"


def editable_loses_to_a_namespace_directory(s):
    if editable_project(s, "flat") is False:
        return False
    os.makedirs(os.path.join(s.cwd, "torch"))


def broken_interpreter_link(s):
    prefix = s.venv()
    link = os.path.join(prefix, "bin", "python")
    os.remove(link)
    os.symlink(os.path.join(s.work, "removed-python3"), link)


def pythonhome_without_stdlib(s):
    all_fakes(s.site(s.venv()))
    s.env["PYTHONHOME"] = os.path.join(s.work, "not-a-python")
    s.expect_finding = "CC638"


def pythonhome_of_the_base(s):
    fake_torch(s.user_site())
    real = os.path.realpath(s.base)
    s.env["PYTHONHOME"] = os.path.dirname(os.path.dirname(real))


def python3_on_path(s):
    prefix = s.venv()
    all_fakes(s.site(prefix))
    s.env["PATH"] = os.path.join(prefix, "bin") + ":/usr/bin:/bin"
    s.env["VIRTUAL_ENV"] = prefix
    s.via_path = True


def venv_through_its_symlink(s):
    # `python3 -m venv env`: env/bin/python -> python3 -> the base interpreter; --python names
    # the link, which must keep the environment.
    prefix = s.venv()
    fake_torch(s.site(prefix))
    s.interpreter = os.path.join(prefix, "bin", "python")
    if not os.path.islink(s.interpreter):
        return False


def pip_of_another_environment(s):
    other = s.venv(name="other", pip=True)
    mine = s.venv(name="mine")
    fake_torch(s.site(other))
    # python3 from `mine` first on PATH, pip from `other` after it (what a half-activated shell has)
    tools = os.path.join(s.work, "tools")
    os.makedirs(tools)
    os.symlink(os.path.join(other, "bin", "pip"), os.path.join(tools, "pip"))
    s.env["PATH"] = f"{os.path.join(mine, 'bin')}:{tools}:/usr/bin:/bin"
    s.via_path = True
    s.expect_finding = "CC634"


SCENARIOS = [
    ("venv, packages in its site-packages", venv_plain),
    ("PYTHONPATH holds a stale torch without install record", pythonpath_stale_torch),
    ("PYTHONPATH entry relative to the working directory", pythonpath_relative_entry),
    ("PYTHONPATH's empty entry is the working directory (jax.py there)", pythonpath_empty_entry_is_cwd),
    ("PYTHONPATH module cupy.py before the installed package", pythonpath_module_before_package),
    ("working directory holds a torch package (python3 -c)", cwd_package_shadows),
    ("working directory holds an empty torch directory", cwd_empty_directory_does_not_shadow),
    ("cupy only as namespace portions in two PYTHONPATH entries", namespace_portions),
    ("install record kept, package files gone", installed_but_files_gone),
    ("PYTHONSAFEPATH drops the working directory", safe_path_drops_cwd),
    ("base interpreter, torch in the user site", user_site_of_base),
    ("base interpreter, PYTHONNOUSERSITE=1", user_site_disabled),
    ("base interpreter, PYTHONUSERBASE", user_base_variable),
    ("venv with system site-packages: its own torch before the user site's", user_site_installed_twice),
    ("venv with system site-packages sees the user site", venv_system_site_sees_user_site),
    ("venv without system site-packages ignores the user site", venv_isolated_ignores_user_site),
    ("pyvenv.cfg without include-system-site-packages", pyvenv_cfg_without_the_key),
    (".pth adds an absolute directory", pth_adds_directory),
    (".pth adds a relative directory", pth_relative_line),
    (".pth import that fails ends the file", pth_failing_import_ends_the_file),
    (".pth names a missing directory, then an existing one", pth_missing_then_existing),
    (".pth files in sorted order", pth_files_in_sorted_order),
    (".pth file whose name starts with a dot", pth_hidden_file),
    ("editable install by pip, flat layout (finder)", editable_finder),
    ("editable install by pip, src layout (.pth path)", editable_static_pth),
    ("editable install whose source was moved", editable_source_gone),
    ("editable finder against an empty torch directory in the working directory", editable_loses_to_a_namespace_directory),
    ("venv whose interpreter link is broken", broken_interpreter_link),
    ("PYTHONHOME without a standard library", pythonhome_without_stdlib),
    ("PYTHONHOME naming the base installation", pythonhome_of_the_base),
    ("the venv's python3 first on PATH, no --python", python3_on_path),
    ("--python env/bin/python, a symlink to the base interpreter", venv_through_its_symlink),
    ("pip on PATH belongs to another environment", pip_of_another_environment),
]


# --- the two answers -----------------------------------------------------------------------

def ground_truth(s, module):
    """What the interpreter itself does: the file `import X` loads, "namespace", or "FAIL"."""
    command = ["python3" if s.via_path else s.interpreter, "-c", f"import {module}; print({module}.__file__)"]
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, env=s.env, cwd=s.cwd)
    except OSError:
        return "FAIL"
    if run.returncode != 0:
        return "FAIL"
    printed = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
    return "namespace" if printed == "None" else os.path.realpath(printed)


def pip_ground_truth(s):
    """Whether `pip install` would land where python3 does not look: pip's own site-packages
    (`pip -V`) against python3's sys.path."""
    pip = subprocess.run(["pip", "-V"], capture_output=True, text=True, timeout=TIMEOUT, env=s.env, cwd=s.cwd).stdout.split()
    pip_site = os.path.realpath(os.path.dirname(pip[pip.index("from") + 1]))
    path = subprocess.run(["python3", "-c", "import sys, json; print(json.dumps(sys.path))"], capture_output=True, text=True,
                          timeout=TIMEOUT, env=s.env, cwd=s.cwd).stdout
    return pip_site not in {os.path.realpath(p) for p in json.loads(path) if p}


def cudacheck(s, binary):
    command = [binary, "--only", "frameworks.builds", "--format", "json"]
    if not s.via_path:
        command += ["--python", s.interpreter]
    run = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, env=s.env, cwd=s.cwd)
    try:
        report = json.loads(run.stdout)
    except ValueError:
        raise SystemExit(f"cudacheck wrote no JSON report (exit {run.returncode}) for {command} in {s.cwd}:\n{run.stderr[-2000:]}")
    environments = report.get("frameworks") or []
    if s.via_path:
        chosen = [e for e in environments if e["bare_python3"]]
    else:
        chosen = [e for e in environments if f"--python {s.interpreter}" in e["found_by"]]
    codes = {finding["code"] for check in report["checks"] for finding in check.get("findings", [])}
    environment = chosen[0] if chosen else None
    # An interpreter that cannot start (CC638 about this environment) imports nothing.
    if environment is not None and any(finding["code"] == "CC638" and finding.get("subject") == environment["prefix"]
                                       for check in report["checks"] for finding in check.get("findings", [])):
        environment = dict(environment, starts=False)
    return environment, codes, report


def predicted(environment, codes, module):
    if environment is None or environment.get("starts") is False:
        return "FAIL"
    for entry in environment.get("imports", []):
        if entry["module"] == module:
            if entry["kind"] == "not found":
                return "FAIL"
            if entry["kind"] == "namespace package":
                return "namespace"
            return os.path.realpath(entry["file"])
    return "FAIL"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cudacheck")
    parser.add_argument("--wheels", default="")
    parser.add_argument("--keep", action="store_true")
    arguments = parser.parse_args()
    wheels = arguments.wheels if arguments.wheels and glob.glob(os.path.join(arguments.wheels, "setuptools-*.whl")) else ""
    interpreters = base_interpreters()
    if not interpreters:
        print("SKIPPED: no Python 3 interpreter here")
        return 77
    rows, disagreements, not_run = [], 0, []
    top = tempfile.mkdtemp(prefix="cudacheck-imports-")
    try:
        for base, version in interpreters:
            for index, (title, build) in enumerate(SCENARIOS):
                work = os.path.join(top, f"{version}-{'deb' if base.startswith('/usr/bin') else 'stock'}-{index:02d}")
                os.makedirs(work)
                s = Scenario(work, base, version)
                s.wheels = wheels
                if build(s) is False:
                    not_run.append(f"{title} [{base}]")
                    continue
                environment, codes, _ = cudacheck(s, arguments.cudacheck)
                answers = []
                if build is pip_of_another_environment:
                    truth = pip_ground_truth(s)
                    said = "CC634" in codes
                    ok = truth == said
                    answers.append(("pip mismatch", str(truth), str(said), ok))
                else:
                    for module in MODULES:
                        truth = ground_truth(s, module)
                        said = predicted(environment, codes, module)
                        answers.append((module, truth, said, truth == said))
                for code, wanted in ((s.expect_finding, True), (s.expect_no_finding, False)):
                    if code:
                        answers.append((f"finding {code}", str(wanted), str(code in codes), (code in codes) == wanted))
                for what, truth, said, ok in answers:
                    rows.append((title, f"{version}{' (/usr/bin)' if base.startswith('/usr/bin') else ''}", what, truth, said, ok))
                    disagreements += not ok
    finally:
        if not arguments.keep:
            shutil.rmtree(top, ignore_errors=True)
    scenarios_run = len({(r[0], r[1]) for r in rows})
    print(f"{'':2} {'scenario':70} {'python':14} {'import':14} interpreter | cudacheck")
    for title, python, what, truth, said, ok in rows:
        shown_truth = truth.replace(top, "$T")
        shown_said = said.replace(top, "$T")
        print(f"{'ok' if ok else 'XX'} {title[:70]:70} {python:14} {what:14} {shown_truth} | {shown_said}")
    for title in not_run:
        print(f"-- not run: {title}")
    print(f"{len(rows) - disagreements} of {len(rows)} answers agree, {scenarios_run} scenario runs over {len(interpreters)} interpreter(s)")
    if disagreements:
        return 1
    if not wheels:
        print("the editable-install scenarios need a setuptools wheel (tools/install-deps.sh puts one in .devtools/wheels)")
        return 1
    distinct = len({r[0] for r in rows})
    if distinct < 25:
        print(f"only {distinct} distinct scenarios ran; the corpus asks for at least 25")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
