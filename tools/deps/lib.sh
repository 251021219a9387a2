# shellcheck shell=bash
# Shared by the set-up scripts in tools/deps/ (sourced, not run). Each script installs
# what its own role needs and nothing more, on Debian or Ubuntu:
#   build.sh           building and running cudacheck (tools/run.sh)
#   test.sh            + the tests (tools/test.sh); their Python modules in .devtools/venv
#   ci.sh              + what only CI's tests use: Slurm and munge, headless Chromium, host_config.h files, ccache
#   zig.sh             zig, for the portable release binary (tools/release.sh)
#   fuzz.sh            clang and libFuzzer (tools/fuzz.sh)
#   packages.sh        rpmbuild and man (tools/check-packages.sh)
#   older-userland.sh  debootstrap and curl (tools/check-older-userland.sh)
# Packages come from apt-get (after an `apt-get update`, once, and only when something is missing),
# through sudo when not root. Python modules go into the project's own virtual environment,
# .devtools/venv (git ignores it), made from the distribution's /usr/bin/python3: never into the
# python3 first on PATH (a user's pyenv or activated venv) and never with --break-system-packages.
# Every message goes to stderr: tools/run.sh's stdout is cudacheck's.

deps_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
deps_venv_dir="$deps_root/.devtools/venv"
deps_venv_python="$deps_venv_dir/bin/python3"

deps_say() { echo "$*" >&2; }

# Runs a command as root: directly when root, else through sudo.
deps_as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null; then
        sudo "$@"
    else
        deps_say "error: installing packages needs root, and sudo is not installed: run this as root, or install sudo"
        return 1
    fi
}

# `apt-get update` once per run of the set-up (the scripts call each other; the variable carries
# over): a fresh container has no package lists, and stale ones name files the mirror has dropped.
deps_apt_update() {
    [ -n "${CUDACHECK_DEPS_APT_UPDATED:-}" ] && return 0
    deps_say "updating the package lists (apt-get update)"
    deps_as_root apt-get update -qq >&2
    export CUDACHECK_DEPS_APT_UPDATED=1
}

# deps_apt_install WHAT_FOR PACKAGE...: installs the packages named (the callers name only what is
# missing), without the packages they merely recommend.
deps_apt_install() {
    local what_for=$1
    shift
    [ $# -gt 0 ] || return 0
    if ! command -v apt-get >/dev/null; then
        deps_say "error: $* ($what_for) missing, and this is not Debian or Ubuntu (no apt-get): install them with this system's package manager"
        return 1
    fi
    deps_apt_update
    deps_say "installing ($what_for): $*"
    deps_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
}

# True when apt knows a package of that name with a .deb to download (Ubuntu's chromium is a
# transitional package for a snap: it has one, but installs nothing a container can run).
deps_apt_has() {
    apt-cache show "$1" >/dev/null 2>&1 || deps_apt_update
    apt-cache show "$1" 2>/dev/null | grep -q '^Filename:.*\.deb'
}

# True when the C++ compiler finds a header in C++20 mode (preprocessing alone: milliseconds).
deps_have_header() { echo "#include <$1>" | g++ -std=c++20 -x c++ -E - >/dev/null 2>&1; }

# Prints the nvcc that CMake will use (cmake/CudaArchitectures.cmake looks in the same places).
deps_find_nvcc() {
    local candidate
    if command -v nvcc; then return 0; fi
    for candidate in "${CUDACXX:-}" "${CUDA_HOME:+$CUDA_HOME/bin/nvcc}" "${CUDA_PATH:+$CUDA_PATH/bin/nvcc}" /usr/local/cuda/bin/nvcc; do
        if [ -n "$candidate" ] && [ -x "$candidate" ]; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

# Stops, before anything is installed, when there is no CUDA toolkit: cudacheck's kernels are
# compiled by nvcc, and no Debian package provides the toolkit cudacheck is built against.
deps_require_nvcc() {
    deps_find_nvcc >/dev/null && return 0
    deps_say "error: the CUDA toolkit (nvcc) was not found: not on PATH, not in \$CUDACXX, \$CUDA_HOME/bin, \$CUDA_PATH/bin or /usr/local/cuda/bin."
    deps_say "       cudacheck's GPU kernels are compiled with nvcc. Install the toolkit from NVIDIA's repository"
    deps_say "       (https://developer.nvidia.com/cuda-downloads, e.g. \`apt-get install cuda-toolkit-13-0\`), or point CUDACXX at nvcc."
    deps_say "       Nothing was installed."
    exit 1
}

# .devtools/venv, made once from the distribution's python3 (installing python3 and python3-venv
# when missing); remade when its interpreter no longer starts (the distribution's Python upgraded).
deps_venv() {
    if [ -x "$deps_venv_python" ] && "$deps_venv_python" -c 'import pip' >/dev/null 2>&1; then return 0; fi
    [ -x /usr/bin/python3 ] || deps_apt_install "the project's Python environment, .devtools/venv" python3
    # Debian and Ubuntu ship venv's pip bootstrap (ensurepip) in python3-venv.
    /usr/bin/python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || deps_apt_install "the project's Python environment, .devtools/venv" python3-venv
    deps_say "creating: .devtools/venv (a virtual environment of /usr/bin/python3, for the project's own tools)"
    rm -rf "$deps_venv_dir"
    mkdir -p "$deps_root/.devtools"
    /usr/bin/python3 -m venv "$deps_venv_dir" >&2
}

# deps_venv_modules MODULE:PYPI_NAME...: pip-installs into .devtools/venv each module it cannot import.
deps_venv_modules() {
    local spec missing=()
    deps_venv
    for spec in "$@"; do
        "$deps_venv_python" -c "import ${spec%%:*}" >/dev/null 2>&1 || missing+=("${spec#*:}")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    deps_say "installing into .devtools/venv (pip): ${missing[*]}"
    "$deps_venv_python" -m pip install --quiet --disable-pip-version-check "${missing[@]}" >&2
}

# deps_pip_download DEST PIP_DOWNLOAD_ARGUMENTS...: downloads wheels with .devtools/venv's pip,
# installing nothing.
deps_pip_download() {
    local dest=$1
    shift
    deps_venv
    mkdir -p "$dest"
    "$deps_venv_python" -m pip download --quiet --disable-pip-version-check --no-deps --dest "$dest" "$@" >&2
}

# deps_apt_install_services WHAT_FOR PACKAGE...: installs packages that ship daemons (Slurm, munge)
# for a test that starts its own copies in a scratch directory, so that no daemon starts and none is
# left enabled. While apt runs, /usr/sbin/policy-rc.d answers 101 ("action forbidden"), which
# invoke-rc.d and deb-systemd-invoke obey: the maintainer scripts start nothing (invoke-rc.d(8);
# README.policy-rc.d in Debian's init-system-helpers). The scripts still enable what they ship
# (deb-systemd-helper enable: "Created symlink /etc/systemd/system/multi-user.target.wants/...";
# update-rc.d: the /etc/rc?.d S links), so each unit and init script of the newly installed packages
# is then disabled: `update-rc.d NAME disable` turns the S links into K links and, where systemctl
# exists, runs `systemctl --root=/ disable` on the unit of the same name; `systemctl --root=/
# disable` does the same for a unit without an init script. The links gone, an upgrade does not
# enable the unit again: the postinst enables only what `deb-systemd-helper was-enabled` finds
# still enabled (deb-systemd-helper(1)). Where systemctl is missing, no systemd reads the units'
# links. Installing for real, rather than unpacking the .debs aside, keeps the test on the
# binaries, plugins and paths Debian builds Slurm with (PluginDir, libslurm). What is still enabled
# afterwards is an error.
deps_apt_install_services() {
    local what_for=$1
    shift
    [ $# -gt 0 ] || return 0
    local policy=/usr/sbin/policy-rc.d placed="" before after status=0
    before=$(dpkg-query -W -f '${Package}\n' 2>/dev/null | sort)
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\n# Placed by cudacheck tools/deps/lib.sh while test packages install: start no service.\nexit 101\n' |
            deps_as_root tee "$policy" >/dev/null
        deps_as_root chmod 0755 "$policy"
        placed=1
    fi
    deps_apt_install "$what_for" "$@" || status=$?
    [ -z "$placed" ] || deps_as_root rm -f "$policy"
    [ "$status" -eq 0 ] || return "$status"
    after=$(dpkg-query -W -f '${Package}\n' 2>/dev/null | sort)
    local package file unit name left=() systemctl=""
    command -v systemctl >/dev/null && systemctl=1
    for package in $(comm -13 <(echo "$before") <(echo "$after")); do
        while read -r file; do
            case $file in
                /etc/init.d/*)
                    name=$(basename "$file")
                    deps_as_root update-rc.d "$name" disable >/dev/null 2>&1 || true
                    if ls /etc/rc[2-5].d/S??"$name" >/dev/null 2>&1; then left+=("/etc/init.d/$name"); fi
                    ;;
                /lib/systemd/system/*.service | /usr/lib/systemd/system/*.service | /lib/systemd/system/*.socket | /usr/lib/systemd/system/*.socket)
                    [ -n "$systemctl" ] || continue
                    unit=$(basename "$file")
                    deps_as_root systemctl --root=/ --quiet disable "$unit" >/dev/null 2>&1 || true
                    if ls /etc/systemd/system/*.wants/"$unit" >/dev/null 2>&1; then left+=("$unit"); fi
                    ;;
            esac
        done < <(dpkg -L "$package" 2>/dev/null)
    done
    if [ ${#left[@]} -gt 0 ]; then
        deps_say "error: still enabled after installing $*: ${left[*]}; disable them (systemctl disable UNIT, update-rc.d NAME disable)"
        return 1
    fi
    deps_say "installed $* with no service started and none left enabled"
}
