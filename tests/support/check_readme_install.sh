#!/usr/bin/env bash
# The README's install lines, run exactly as written, on the tree tools/release.sh leaves (a
# release preset that builds the binary alone makes `cmake --install build-release` fail there).
# The lines are taken from README.md's ```sh blocks: every line that starts with
# `cmake --install build-release` or runs `cpack -G`. Each runs from the repository's root with bash,
# HOME pointing at a scratch folder (the README installs into ~/.local), and the install line with
# DESTDIR in that folder too, so that whatever prefix the README names, nothing lands outside it;
# before them, the packages of an earlier run are removed from build-release. Then:
#   - the prefix holds the binary, its man page, the three completions, the schema, the policy
#     examples, the Slurm health check, README and LICENSE (and docs/errors.md, unchanged, wherever an
#     errors.md is installed); the binary runs `--version`; bash loads the completion; man finds the
#     page through PATH alone (man-db looks in ../share/man of each PATH entry), where man is installed
#   - the package cpack made holds the same files under /usr.
# Exits 1 on the first failure. CI runs it after tools/release.sh (.ci/run).
#
# Usage: tests/support/check_readme_install.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "check-readme-install: $*" >&2; exit 1; }
[ -x build-release/cudacheck ] || fail "build-release/cudacheck is missing: run tools/release.sh first"
! grep -q '^SKBUILD:' build-release/CMakeCache.txt 2>/dev/null ||
    fail "build-release is configured for the Python wheel (tools/build-wheel.sh): run tools/release.sh again"

# The ```sh blocks' lines, then the install lines among them.
mapfile -t lines < <(awk '/^ *```sh *$/ { inside = 1; next } /^ *```/ { inside = 0 } inside { sub(/^ +/, ""); print }' README.md |
    grep -E '^cmake --install build-release|cpack -G')
[ ${#lines[@]} -gt 0 ] || fail "README.md has no \`cmake --install build-release\` or \`cpack -G\` line in a sh block"
grep -q '^cmake --install build-release' < <(printf '%s\n' "${lines[@]}") || fail "README.md has no \`cmake --install build-release\` line"
grep -q 'cpack -G' < <(printf '%s\n' "${lines[@]}") || fail "README.md has no \`cpack -G\` line"

scratch=$(mktemp -d /tmp/cudacheck-readme-install.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/home"
rm -f build-release/cudacheck[-_]0*.{deb,rpm,tar.gz}
for line in "${lines[@]}"; do
    case $line in *sudo*) fail "the README's line runs sudo, which this test does not: $line" ;; esac
    echo "\$ $line"
    destdir=()
    # Only for cmake --install: CPack stages its own install, which a DESTDIR would move aside.
    case $line in "cmake --install"*) destdir=(DESTDIR="$scratch/destdir") ;; esac
    env HOME="$scratch/home" "${destdir[@]}" bash -euo pipefail -c "$line" > "$scratch/output" 2>&1 ||
        { cat "$scratch/output" >&2; fail "the README's line failed: $line"; }
done

# What the README's prefix received (~/.local, under DESTDIR).
binary=$(find "$scratch/destdir" -path '*/bin/cudacheck' -type f 2>/dev/null | head -n 1)
[ -n "$binary" ] || fail "cmake --install installed no bin/cudacheck"
prefix=$(dirname "$(dirname "$binary")")
[ "$prefix" = "$scratch/destdir$scratch/home/.local" ] || echo "note: the README's prefix is not ~/.local: ${prefix#"$scratch/destdir"}"
wanted="bin/cudacheck share/man/man1/cudacheck.1 share/bash-completion/completions/cudacheck share/zsh/site-functions/_cudacheck
        share/fish/vendor_completions.d/cudacheck.fish share/cudacheck/report.schema.json share/cudacheck/policies/cluster-node.json
        share/cudacheck/slurm/cudacheck-healthcheck.sh share/doc/cudacheck/README.md share/doc/cudacheck/LICENSE"
for file in $wanted; do [ -s "$prefix/$file" ] || fail "cmake --install put no $file into the prefix"; done
cmp -s docs/report.schema.json "$prefix/share/cudacheck/report.schema.json" || fail "the installed schema is not docs/report.schema.json"
errors_md=$(find "$prefix" -name errors.md)
if grep -q 'docs/errors.md' src/CMakeLists.txt cmake/Packaging.cmake && [ -z "$errors_md" ]; then
    fail "the build installs docs/errors.md (an install() rule names it), but cmake --install put no errors.md into the prefix"
fi
for file in $errors_md; do cmp -s docs/errors.md "$file" || fail "$file is not docs/errors.md"; done
"$prefix/bin/cudacheck" --version > /dev/null || fail "the installed binary does not run --version"
grep -q '^\.TH' "$prefix/share/man/man1/cudacheck.1" || fail "the installed man page has no .TH line"
completion=$(bash -c "source '$prefix/share/bash-completion/completions/cudacheck' && complete -p cudacheck")
grep -q _cudacheck <<< "$completion" || fail "bash does not load the installed completion"
if command -v man >/dev/null; then
    found=$(env -u MANPATH PATH="$prefix/bin:/usr/bin:/bin" man -w cudacheck 2>/dev/null) || true
    [ "$found" = "$prefix/share/man/man1/cudacheck.1" ] || fail "man -w cudacheck with $prefix/bin on PATH gives '$found', not the installed page"
    man_note="man finds the page through PATH"
else
    man_note="man is not installed: its look-up was left out"
fi
echo "cmake --install: $(find "$prefix" -type f | wc -l) files in ${prefix#"$scratch/destdir"}, every one expected${errors_md:+ (and errors.md)}; $man_note"

# The package cpack made.
packages=(build-release/cudacheck[-_]0*.deb build-release/cudacheck[-_]0*.rpm build-release/cudacheck[-_]0*.tar.gz)
package=""
for candidate in "${packages[@]}"; do [ -f "$candidate" ] && { package=$candidate; break; }; done
[ -n "$package" ] || fail "cpack made no package in build-release"
case $package in
    *.deb) listing=$(dpkg-deb -c "$package" | awk '{print $NF}' | sed 's|^\./|/|') ;;
    *.rpm) listing=$(rpm -qpl "$package" 2>/dev/null) ;;
    *.tar.gz) listing=$(tar tzf "$package" | sed 's|^[^/]*/|/|') ;;
esac
for file in $wanted; do grep -qx "/usr/$file" <<< "$listing" || fail "$package has no /usr/$file"; done
echo "$(basename "$package"): every file under /usr"
echo "check-readme-install: pass"
