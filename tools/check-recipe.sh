#!/usr/bin/env bash
# Follows docs/architecture.md's "Add a check" section to the letter, on a scratch branch of REV in
# a worktree of its own: for each recipe (`host-check`, then `labelled-figure`) it writes every block
# the section marks `recipe=NAME file=PATH` (a new file) or `append=PATH` (added at the end), runs the
# section's ```sh recipe=NAME``` block line by line in the worktree's root, commits, and holds the
# result to what the section promises:
#   - the files written by hand: at most 3 for the host check, 4 for the check with a figure; the
#     only others touched are the ones tools/generate-docs.sh derives (README.md, docs/checks.md,
#     docs/errors.md); nothing under src/render/;
#   - the new check's figure, by its family and label, in the JSON report, the Prometheus text and
#     the HTML page that the binary of that commit writes.
# Exits 0 when all holds, 1 with the reason otherwise. Builds into the worktree's build/ (preset
# `default`, through ccache where it is installed, as tools/test.sh does), so the first recipe
# compiles everything: about 25 minutes on 2 cores without a warm cache. The worktree and the
# branch are removed at the end; the output goes to stdout and, when OUT is given, to OUT.
#
# Usage: tools/check-recipe.sh [REV] [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
rev=$(git rev-parse --verify "${1:-HEAD}^{commit}")
out=${2:-}
scratch=$(mktemp -d /tmp/cudacheck-recipe-XXXXXX)
tree=$scratch/tree
branch=recipe-scratch-$$
cleanup() {
    git -C "$repo" worktree remove --force "$tree" >/dev/null 2>&1 || true
    git -C "$repo" branch -D "$branch" >/dev/null 2>&1 || true
    rm -rf "$scratch"
}
trap cleanup EXIT
[ -z "$out" ] || exec > >(tee "$out") 2>&1

echo "# docs/architecture.md's \"Add a check\", followed on a scratch branch of $(git log -1 --format='%h (%cs)' "$rev")"
git worktree add -q -b "$branch" "$tree" "$rev"
cd "$tree"
git config user.name "check-recipe" && git config user.email "check-recipe@localhost"

# The blocks of one recipe, written as the section says; prints the files written, one a line.
apply_blocks() {
    python3 - "$1" <<'PY'
import os, re, sys
recipe = sys.argv[1]
text = open("docs/architecture.md").read()
section = text[text.index("\n## Add a check\n"):]
section = section[:section.find("\n## ", 1)]
blocks = re.findall(r"^```(\w+) ([^\n]*)\n(.*?)^```$", section, flags=re.S | re.M)
written = []
for language, info, body in blocks:
    fields = dict(field.split("=", 1) for field in info.split() if "=" in field)
    if fields.get("recipe") != recipe or language == "sh":
        continue
    if "file" in fields:
        if os.path.exists(fields["file"]):
            sys.exit(f"the recipe writes {fields['file']}, which exists already")
        os.makedirs(os.path.dirname(fields["file"]) or ".", exist_ok=True)
        open(fields["file"], "w").write(body)
        written.append(fields["file"])
    elif "append" in fields:
        if not os.path.exists(fields["append"]):
            sys.exit(f"the recipe appends to {fields['append']}, which does not exist")
        with open(fields["append"], "a") as target:
            target.write(body)
        written.append(fields["append"])
if not written:
    sys.exit(f"docs/architecture.md has no block for the recipe {recipe}")
print("\n".join(written))
PY
}

# The commands of one recipe's ```sh block.
commands_of() {
    python3 - "$1" <<'PY'
import re, sys
text = open("docs/architecture.md").read()
section = text[text.index("\n## Add a check\n"):]
section = section[:section.find("\n## ", 1)]
for info, body in re.findall(r"^```sh ([^\n]*)\n(.*?)^```$", section, flags=re.S | re.M):
    if f"recipe={sys.argv[1]}" in info.split():
        print(body, end="")
PY
}

failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

configure=()
if command -v ccache >/dev/null; then
    configure+=(-DCMAKE_CXX_COMPILER_LAUNCHER="env;CCACHE_BASEDIR=$tree;CCACHE_NOHASHDIR=true;ccache")
fi
cmake --preset default "${configure[@]}" > "$scratch/configure.log" 2>&1 || { tail -20 "$scratch/configure.log"; exit 1; }

for recipe in host-check labelled-figure; do
    limit=3; [ $recipe = labelled-figure ] && limit=4
    echo
    echo "## recipe $recipe"
    mapfile -t written < <(apply_blocks $recipe)
    printf 'written by hand: %s\n' "${written[@]}"
    while IFS= read -r line; do
        [ -n "$line" ] || continue
        echo "\$ $line"
        start=$SECONDS
        if bash -c "$line" > "$scratch/step.log" 2>&1; then
            tail -n 12 "$scratch/step.log"
            echo "(exit 0, $((SECONDS - start)) s)"
        else
            tail -n 40 "$scratch/step.log"
            fail "$line"
            break
        fi
    done < <(commands_of $recipe)
    git add -A
    git commit -q -m "recipe $recipe, as docs/architecture.md writes it"
    mapfile -t touched < <(git diff --name-only HEAD~1 HEAD)
    generated=()
    by_hand=()
    for file in "${touched[@]}"; do
        case "$file" in
            README.md | docs/checks.md | docs/errors.md) generated+=("$file") ;;
            *) by_hand+=("$file") ;;
        esac
    done
    echo "files touched: ${#touched[@]}; by hand ${#by_hand[@]} (${by_hand[*]}); regenerated by tools/generate-docs.sh ${#generated[@]} (${generated[*]:-none})"
    [ "${#by_hand[@]}" -le "$limit" ] || fail "$recipe touched ${#by_hand[@]} files by hand, more than $limit"
    [ "${#by_hand[@]}" -eq "${#written[@]}" ] || fail "$recipe touched files the section does not write: ${by_hand[*]}"
    for file in "${touched[@]}"; do [[ $file == src/render/* ]] && fail "$recipe edited the renderer $file"; done
done

# The figure in every format, with no renderer edited: read from what the binary writes.
echo
echo "## the figure of host.memory_limits in JSON, Prometheus and HTML"
if [ -x build/cudacheck ]; then
    build/cudacheck --only host.memory_limits -o "$scratch/limits.json" -o "$scratch/limits.prom" -o "$scratch/limits.html" || true
    python3 - "$scratch/limits.json" <<'PY' || fail "no stack_soft_limit figure with its family and label in the JSON report"
import json, sys
report = json.load(open(sys.argv[1]))
figures = [metric for check in report["checks"] if check["id"] == "host.memory_limits" for metric in check.get("metrics", [])]
stack = [figure for figure in figures if figure["name"] == "stack_soft_limit"]
print("JSON:", json.dumps(stack[0]) if stack else "none")
assert stack and stack[0]["family"] == "process_memory_limit" and stack[0]["labels"] == {"resource": "stack"}
PY
    prom=$(grep -E '^cudacheck_process_memory_limit_bytes\{.*resource="stack"' "$scratch/limits.prom" || true)
    echo "Prometheus: ${prom:-none}"
    [ -n "$prom" ] || fail "no cudacheck_process_memory_limit_bytes{resource=\"stack\"} series in the Prometheus text"
    grep -q "stack_soft_limit" "$scratch/limits.html" && echo "HTML: stack_soft_limit shown" || fail "the HTML page does not show stack_soft_limit"
else
    fail "no binary was built"
fi
echo
[ "$failures" -eq 0 ] && echo "the recipes hold: every step ran, files within the limits, the figure in JSON, Prometheus and HTML" || echo "$failures failure(s)"
[ "$failures" -eq 0 ]
