# Sourced by bench/issueNN_on_gpu.sh on the GPU machine: the set-up they share.
#   two_builds NAME OLD_SOURCE_DIR
# (NEW_SOURCE_DIR, default this checkout: the tree built as the new build, e.g. the revision that
# ended an earlier issue, when a later one is the checkout)
# makes $results (a scratch directory for the recording), $out=$results/NAME, $scratch (removed by
# the caller at the end), sets $venv and $site (the torch venv and its site-packages), builds this
# revision (build-gpu) and OLD_SOURCE_DIR (build-old) without tests, sets $new and $old to the two
# binaries (NEW_BUILD_DIR and OLD_BUILD_DIR name other build folders: a build made by an earlier call
# on the same machine is then reused), puts the venv first on PATH and starts $SECONDS. The build's output is in $out/build.log;
# on failure its end is printed and the script exits 1.
two_builds() {
    local name=$1 old_source new_source new_build=${NEW_BUILD_DIR:-build-gpu} old_build=${OLD_BUILD_DIR:-build-old}
    old_source=$(realpath "$2")
    new_source=$(realpath "${NEW_SOURCE_DIR:-.}")
    results=$(mktemp -d "/tmp/$name-results-XXXXXX")
    out=$results/$name
    mkdir -p "$out"
    venv=/opt/torch/.venv
    site=$venv/lib/python3.12/site-packages
    scratch=$(mktemp -d "/tmp/$name-XXXXXX")
    SECONDS=0
    # Side by side, configured as bench/build_on_gpu.sh configures every tree.
    bash "$(dirname "${BASH_SOURCE[0]}")/build_on_gpu.sh" "$new_source:$new_build" "$old_source:$old_build" \
        > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
    echo "built both in $SECONDS s" | tee "$out/steps.txt"
    new=$(realpath "$new_build/cudacheck")
    old=$(realpath "$old_build/cudacheck")
    export PATH=$venv/bin:$PATH
}
