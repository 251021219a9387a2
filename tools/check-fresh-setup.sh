#!/usr/bin/env bash
# The README's two set-up commands on a fresh machine: a new Debian 12 root made with
# debootstrap (--variant=minbase, nothing of this machine's packages), the CUDA toolkit of this
# machine mounted read-only at /usr/local/cuda-<version> as NVIDIA's packages put it, and a clean
# clone of this repository's HEAD. In it, as root in a chroot with a clean environment:
#   1. `tools/run.sh --version`, timed: what it installed (dpkg's list before and after), whether it
#      enabled a service (links under /etc/systemd/system/*.wants and /etc/rc?.d), and every file
#      it wrote outside the clone that no newly installed package owns (dpkg -L);
#   2. then `tools/test.sh`, timed, with what it installed on top.
# It fails when run.sh installs a package only the tests or the release need, enables a service or
# writes outside the clone and the package manager; test.sh enabling a service fails it too.
# Needs root and network (deb.debian.org). Takes ~45 min on 2 cores (most of it the test build).
#
# Usage: tools/check-fresh-setup.sh OUT_DIR   (writes OUT_DIR/fresh-setup.md and the logs)
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:?usage: tools/check-fresh-setup.sh OUT_DIR}")
mkdir -p "$out"
fail() { echo "check-fresh-setup: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, chroot, mounts)"
command -v debootstrap >/dev/null || fail "debootstrap is missing (apt-get install debootstrap)"
toolkit=$(realpath /usr/local/cuda 2>/dev/null || true)
[ -x "$toolkit/bin/nvcc" ] || fail "no CUDA toolkit at /usr/local/cuda to mount into the fresh root"

root=$(mktemp -d /var/tmp/cudacheck-fresh-XXXXXX)
# mktemp makes it 0700, and it becomes the chroot's /: a machine's / is 0755, and with 0700 no
# user but root resolves any path there (the second-user tests' loader failed on libstdc++).
chmod 0755 "$root"
cleanup() {
    # The mounts live in the unshare'd namespaces below and end with them; only files are left.
    rm -rf "$root"
}
trap cleanup EXIT
SECONDS=0
echo "debootstrap: Debian 12 (bookworm, minbase) into $root"
debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian > "$out/debootstrap.log" 2>&1 ||
    { tail -n 20 "$out/debootstrap.log" >&2; fail "debootstrap failed"; }
cat > "$root/etc/apt/sources.list" <<'EOF'
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The network's own certificate authorities (a proxy that inspects TLS, as on this project's
# machines), which any machine on it trusts: the chroot's ca-certificates takes them in when a
# script installs it. Without them pip cannot reach PyPI here.
if [ -d /usr/local/share/ca-certificates ]; then
    mkdir -p "$root/usr/local/share/ca-certificates"
    cp -r /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
fi
mkdir -p "$root$toolkit"
ln -s "$toolkit" "$root/usr/local/cuda"
git clone --quiet --no-hardlinks . "$root/root/cudacheck"
# With FRESH_SETUP_WORKING_TREE=1, the working tree's changes on top (tracked and untracked files
# git does not ignore), to measure before committing.
if [ "${FRESH_SETUP_WORKING_TREE:-0}" = 1 ]; then
    git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - 2>/dev/null | tar -xf - -C "$root/root/cudacheck"
fi
echo "fresh root ready in $SECONDS s"

# A private mount namespace for each step: /proc, /sys, /dev and the toolkit (read-only) are
# mounted for the chroot alone and go away with it. A clean environment, as a new login's.
in_root() {
    unshare --mount --fork sh -c '
        root=$0 toolkit=$1; shift
        mount -t proc proc "$root/proc" && mount --rbind /sys "$root/sys" && mount --rbind /dev "$root/dev" &&
        mount --bind "$toolkit" "$root$toolkit" && mount -o remount,bind,ro "$root$toolkit" &&
        exec chroot "$root" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb "$@"' \
        "$root" "$toolkit" "$@"
}
packages() { in_root dpkg-query -W -f '${Package}\n' | sort; }
# Daemons started at boot: systemd's wants links to a service or socket, and SysV runlevel 2-5
# start links (a one-shot of early boot such as procps's sysctl in rcS.d, or man-db's daily timer
# that fish's man-db brings, is no daemon).
services() {
    (cd "$root" && { find etc/systemd/system -path '*.wants/*' \( -name '*.service' -o -name '*.socket' \) 2>/dev/null
                     find etc/rc[2-5].d -name 'S*' 2>/dev/null; } | sort)
}

step() {
    local name=$1; shift
    packages > "$out/$name.packages-before"
    services > "$out/$name.services-before"
    touch "$root/.marker-$name"
    sleep 1  # a file written in the same second as the marker still counts as newer
    local start=$SECONDS status=0
    in_root sh -c "cd /root/cudacheck && $*" > "$out/$name.log" 2>&1 || status=$?
    local took=$((SECONDS - start))
    packages > "$out/$name.packages-after"
    services > "$out/$name.services-after"
    comm -13 "$out/$name.packages-before" "$out/$name.packages-after" > "$out/$name.installed"
    comm -13 "$out/$name.services-before" "$out/$name.services-after" > "$out/$name.services-enabled"
    # Files newer than the marker outside the clone, less what the newly installed packages own
    # and the package manager's own state (dpkg, apt, debconf, logs), /proc, /sys and /dev.
    (cd "$root" && find . -xdev -newer ".marker-$name" \( -type f -o -type l \) -printf '/%P\n' 2>/dev/null |
        grep -v -E '^/(root/cudacheck/|var/lib/(dpkg|apt|ucf|systemd/deb-systemd)|var/cache/(apt|debconf|ldconfig|man)|var/log/|etc/ld\.so\.cache$|etc/rc.\.d/|etc/systemd/system/|\.marker-)' |
        sort || true) > "$out/$name.written"
    # dpkg names some files /lib/..., which a merged /usr (Debian 12) holds as /usr/lib/...: both.
    in_root xargs -r dpkg -L < "$out/$name.installed" 2>/dev/null | sed -E 'p; s#^/(lib|lib64|bin|sbin)/#/usr/\1/#' |
        sort -u > "$out/$name.owned" || true
    comm -23 "$out/$name.written" "$out/$name.owned" > "$out/$name.written-unowned"
    echo "$name: exit $status in $took s; $(wc -l < "$out/$name.installed") package(s) installed; $(wc -l < "$out/$name.services-enabled") service link(s); $(wc -l < "$out/$name.written-unowned") file(s) outside the clone no package owns"
    eval "${name}_status=$status ${name}_seconds=$took"
}

# FRESH_SETUP_STEPS="test" measures tools/test.sh alone on a fresh root (it installs what building
# needs too).
steps=${FRESH_SETUP_STEPS:-run test}
run_status=0 run_seconds=0 test_status=0 test_seconds=0
touch "$out/run.installed" "$out/run.services-enabled" "$out/run.written-unowned" "$out/run.log" \
      "$out/test.installed" "$out/test.services-enabled" "$out/test.written-unowned" "$out/test.log"
[[ " $steps " == *" run "* ]] && step run "tools/run.sh --version"
[[ " $steps " == *" test "* ]] && step test "tools/test.sh"

# What only the tests or the release need must not come with run.sh.
forbidden='^(libgtest-dev|googletest|zsh|fish|groff-base|man-db|rpm|debootstrap|clang|libclang-rt-.*|chromium.*|slurm.*|munge|python3-venv|python3-pip|python3-jsonschema|python3-junitparser)$'
{
    echo "# The README's set-up commands on a fresh Debian 12 root (tools/check-fresh-setup.sh)"
    echo
    echo "Made $(date -u +%Y-%m-%dT%H:%MZ) from $(git rev-parse --short HEAD)$([ "${FRESH_SETUP_WORKING_TREE:-0}" = 1 ] && echo " and its working tree"); steps: $steps; $(nproc) cores; CUDA toolkit $(basename "$toolkit") mounted read-only."
    echo
    echo "| command | exit | wall time | packages installed | services enabled | files outside the clone no package owns |"
    echo "| --- | --- | --- | --- | --- | --- |"
    echo "| \`tools/run.sh --version\` | $run_status | $((run_seconds / 60)) min $((run_seconds % 60)) s | $(wc -l < "$out/run.installed") | $(wc -l < "$out/run.services-enabled") | $(wc -l < "$out/run.written-unowned") |"
    echo "| \`tools/test.sh\`$([[ " $steps " == *" run "* ]] && echo " (after run.sh)") | $test_status | $((test_seconds / 60)) min $((test_seconds % 60)) s | $(wc -l < "$out/test.installed") | $(wc -l < "$out/test.services-enabled") | $(wc -l < "$out/test.written-unowned") |"
    echo
    echo "tools/run.sh installed: $(tr '\n' ' ' < "$out/run.installed")"
    echo
    echo "tools/test.sh installed on top: $(tr '\n' ' ' < "$out/test.installed")"
    echo
    echo "run.sh's files outside the clone that no package owns:"; sed 's/^/    /' "$out/run.written-unowned"
    echo
    echo "test.sh's files outside the clone that no package lists (the maintainer scripts' own: CA links, byte-code, /etc/shells):"
    echo "$(wc -l < "$out/test.written-unowned") files, in test.written-unowned"
    echo
    echo "The last lines of each:"; echo; echo '```'; tail -n 5 "$out/run.log"; echo '---'; tail -n 8 "$out/test.log"; echo '```'
} > "$out/fresh-setup.md"
cat "$out/fresh-setup.md"

problems=()
[ "$run_status" -eq 0 ] || problems+=("tools/run.sh --version exited $run_status")
[ "$test_status" -eq 0 ] || problems+=("tools/test.sh exited $test_status")
grep -E "$forbidden" "$out/run.installed" > "$out/run.forbidden" && problems+=("tools/run.sh installed what only tests/release need: $(tr '\n' ' ' < "$out/run.forbidden")")
[ -s "$out/run.services-enabled" ] && problems+=("tools/run.sh enabled: $(tr '\n' ' ' < "$out/run.services-enabled")")
[ -s "$out/test.services-enabled" ] && problems+=("tools/test.sh enabled: $(tr '\n' ' ' < "$out/test.services-enabled")")
[ -s "$out/run.written-unowned" ] && problems+=("tools/run.sh wrote outside the clone and the package manager (see $out/run.written-unowned)")
if [ ${#problems[@]} -gt 0 ]; then
    printf 'check-fresh-setup: %s\n' "${problems[@]}" >&2
    exit 1
fi
echo "check-fresh-setup: passed"
