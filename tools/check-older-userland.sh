#!/usr/bin/env bash
# Runs the portable release binary in an older userland than the one it was built on: Ubuntu 20.04
# (glibc 2.31, one of the distributions the release binary promises to run on), bootstrapped with debootstrap from
# archive.ubuntu.com into .devtools/focal-root (once: ~45 s and 120 MB; git ignores it) and entered
# as a chroot with a clean environment. There the binary must start, report the chroot's own
# distribution and glibc in host.os, and give the no-driver report (exit 1, valid against the
# schema), led by the missing driver: CC201 where the machine has no NVIDIA kernel module (this
# project's build machines), CC210 where it has one (the chroot holds no libcuda). The
# checks that need the driver are skipped behind that one finding, so only one of the two is there.
#
# RHEL 8's glibc 2.28 is older still, but no archive that serves it is reachable from this
# project's machines (tried: archive.debian.org for Debian 10, vault.centos.org, the Rocky and Alma
# mirrors, Red Hat's UBI CDN, snapshot.debian.org, conda-forge's sysroot): for 2.28 the symbol
# versions (tools/check-release-binary.sh: nothing newer than GLIBC_2.28) stand as the proof.
#
# Needs root (debootstrap, chroot, mounting /proc in a private mount namespace): it re-runs itself
# with `sudo -n` where it can, and otherwise says it was skipped. Exits 1 on the first failure.
#
# Usage: tools/check-older-userland.sh [build-release/cudacheck]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build-release/cudacheck}")
fail() { echo "check-older-userland: $*" >&2; exit 1; }
[ -x "$bin" ] || fail "$bin is not an executable (tools/release.sh builds it)"
if [ "$(id -u)" -ne 0 ]; then
    if sudo -n true 2>/dev/null; then
        # .devtools/venv is made as the user who runs this, not as root (tools/deps/lib.sh).
        tools/deps/older-userland.sh
        exec sudo -n "$0" "$bin"
    fi
    echo "check-older-userland: SKIPPED (needs root for debootstrap and chroot, and sudo -n is not allowed)"
    exit 0
fi
# debootstrap, curl, and jsonschema in .devtools/venv for the reports' validation.
tools/deps/older-userland.sh
command -v debootstrap >/dev/null || fail "debootstrap is missing (tools/deps/older-userland.sh installs it)"

root=.devtools/focal-root
if [ ! -e "$root/.complete" ]; then
    # Ubuntu's archive key, from focal's ubuntu-keyring package; the package's SHA-256 is the one
    # focal's main/binary-amd64/Packages gives (a released suite: it never changes). Debootstrap then
    # verifies every package against that key.
    keyring_deb=ubuntu-keyring_2020.02.11.2_all.deb
    keyring_sha256=7564f3f76fbc9f165ecc30e2cf2695d38b284e234bffa0c6441ff37f8a7aebd7
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    echo "fetching: Ubuntu 20.04 (debootstrap --variant=minbase focal) into $root"
    curl -fsS --retry 3 -o "$scratch/$keyring_deb" "http://archive.ubuntu.com/ubuntu/pool/main/u/ubuntu-keyring/$keyring_deb" ||
        fail "could not download $keyring_deb from archive.ubuntu.com"
    echo "$keyring_sha256  $scratch/$keyring_deb" | sha256sum -c --quiet || fail "$keyring_deb does not have the expected SHA-256"
    dpkg-deb -x "$scratch/$keyring_deb" "$scratch/keyring"
    # Built aside and moved into place whole: an interrupted bootstrap leaves no half-made root.
    rm -rf "$root.partial"
    debootstrap --variant=minbase --keyring="$scratch/keyring/usr/share/keyrings/ubuntu-archive-keyring.gpg" focal "$root.partial" \
        http://archive.ubuntu.com/ubuntu > "$scratch/debootstrap.log" 2>&1 || { tail -n 20 "$scratch/debootstrap.log" >&2; fail "debootstrap failed"; }
    touch "$root.partial/.complete"
    rm -rf "$root"
    mv "$root.partial" "$root"
fi
glibc=$(basename "$(ls "$root"/lib/x86_64-linux-gnu/libc-*.so)" .so | sed 's/libc-//')
echo "userland: $(. "$root/etc/os-release" && echo "$PRETTY_NAME"), glibc $glibc"

install -m 0755 "$bin" "$root/usr/local/bin/cudacheck"
out=$(mktemp -d)
# A private mount namespace: /proc is mounted for the chroot alone and goes away with it. A clean
# environment: nothing of this machine's (CUDA_HOME, PATH into /usr/local/cuda) leaks in.
run_in_root() {
    unshare --mount --fork sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 "$@"' \
        "$root" "$@"
}
run_in_root cudacheck --version || fail "--version failed in the chroot"
run_in_root cudacheck --level quick --format json > "$out/quick.json" && quick=0 || quick=$?
run_in_root cudacheck --format json > "$out/default.json" && default=0 || default=$?
echo "--level quick: exit $quick; default run: exit $default"
.devtools/venv/bin/python3 - "$out" "$quick" "$default" "$glibc" docs/report.schema.json <<'PY' || fail "the reports made in the chroot are not as expected"
import json, sys
import jsonschema
out, quick_code, default_code, glibc, schema_path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
schema = json.load(open(schema_path))
for name, code in (("quick", quick_code), ("default", default_code)):
    report = json.load(open(f"{out}/{name}.json"))
    jsonschema.validate(report, schema)
    assert report["exit_code"] == code == 1, f"{name}: exit {code}, report says {report['exit_code']}; 1 expected (no driver in the chroot)"
    checks = {check["id"]: check for check in report["checks"]}
    host = checks["host.os"]["message"]
    assert "Ubuntu 20.04" in host and f"glibc {glibc}" in host, f"{name}: host.os says {host!r}"
    codes = {finding["code"] for check in report["checks"] for finding in check.get("findings", [])}
    driver_codes = codes & {"CC201", "CC210"}
    assert driver_codes, f"{name}: neither CC201 (no kernel module) nor CC210 (no libcuda) among {sorted(codes)}"
    print(f"{name}: valid against the schema, exit 1, {' '.join(sorted(driver_codes))}, host.os: {host}")
PY
rm -rf "$out"
echo "check-older-userland: $bin runs on Ubuntu 20.04 (glibc $glibc)"
