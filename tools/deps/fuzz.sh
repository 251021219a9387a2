#!/usr/bin/env bash
# clang with its libFuzzer and sanitizers, for tools/fuzz.sh (what building needs comes from
# tools/deps/build.sh). Debian ships libFuzzer in libclang-rt-dev, which clang only recommends
# (older releases: in clang itself).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
have_libfuzzer() {
    local probe status=0
    probe=$(mktemp -d)
    echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' > "$probe/probe.cpp"
    clang++ -fsanitize=fuzzer "$probe/probe.cpp" -o "$probe/probe" >/dev/null 2>&1 || status=1
    rm -rf "$probe"
    return $status
}
have_libfuzzer && exit 0
packages=(clang)
deps_apt_update
apt-cache show libclang-rt-dev >/dev/null 2>&1 && packages+=(libclang-rt-dev)
deps_apt_install "fuzzing (tools/fuzz.sh)" "${packages[@]}"
have_libfuzzer || { deps_say "error: clang++ -fsanitize=fuzzer still does not link; install clang with its libFuzzer (libclang-rt-dev)"; exit 1; }
