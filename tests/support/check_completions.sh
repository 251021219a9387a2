#!/usr/bin/env bash
# The completion script `cudacheck completion SHELL` prints, loaded by that shell for real:
#   bash: sourced, then _cudacheck answers as the shell would ask it (options, their choices,
#         subcommands, a subcommand's options and argument choices);
#   zsh:  installed as _cudacheck on fpath, compinit registers it for cudacheck, and zsh parses it;
#   fish: sourced, then `complete -C` completes command lines as fish itself would.
# Exits 77 (skipped) when the shell is not installed.
#
# Usage: check_completions.sh CUDACHECK SHELL
set -euo pipefail
cudacheck=$1
shell=$2
command -v "$shell" >/dev/null || { echo "$shell is not installed: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$cudacheck" completion "$shell" > "$work/script"
fail() { echo "completions ($shell): $*" >&2; exit 1; }
expect() {  # what, then the completions, then each word expected among them
    local what=$1 got=$2; shift 2
    for word in "$@"; do grep -qxF -- "$word" <<< "$got" || fail "$what: no '$word' among: $(tr '\n' ' ' <<< "$got")"; done
    echo "$what -> $(tr '\n' ' ' <<< "$got" | cut -c1-100)"
}
case $shell in
    bash)
        complete_line() {  # the words of a command line, the last being completed
            bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _cudacheck; printf "%s\n" "${COMPREPLY[@]}"' _ "$work/script" "$@"
        }
        expect "cudacheck --for" "$(complete_line cudacheck --for)" --format
        expect "cudacheck --format ''" "$(complete_line cudacheck --format '')" table json markdown junit prometheus html
        expect "cudacheck ''" "$(complete_line cudacheck '')" run list explain diff fleet inspect env render completion --level
        expect "cudacheck inspect --" "$(complete_line cudacheck inspect --)" --arch --format --verbose
        expect "cudacheck run --level ''" "$(complete_line cudacheck run --level '')" quick standard full
        expect "cudacheck completion ''" "$(complete_line cudacheck completion '')" bash zsh fish
        [ -z "$(complete_line cudacheck --format x)" ] || fail "'--format x' completed to something"
        ;;
    zsh)
        zsh -n "$work/script" || fail "zsh cannot parse it"
        mkdir "$work/functions" && cp "$work/script" "$work/functions/_cudacheck"
        registered=$(zsh -f -c 'fpath=("$1" $fpath); autoload -Uz compinit; compinit -u -d "$2/zcompdump"; print -r -- ${_comps[cudacheck]}' _ "$work/functions" "$work")
        [ "$registered" = _cudacheck ] || fail "compinit did not register _cudacheck for cudacheck (got '$registered')"
        echo "compinit registers _cudacheck for cudacheck"
        ;;
    fish)
        complete_line() { fish --no-config -c "source $work/script; complete -C '$1'" | cut -f1; }
        expect "cudacheck --for" "$(complete_line 'cudacheck --for')" --format
        expect "cudacheck --format " "$(complete_line 'cudacheck --format ')" table json html
        expect "cudacheck " "$(complete_line 'cudacheck ')" run inspect completion
        expect "cudacheck inspect --a" "$(complete_line 'cudacheck inspect --a')" --arch
        expect "cudacheck completion " "$(complete_line 'cudacheck completion ')" bash zsh fish
        ;;
    *) fail "unknown shell" ;;
esac
echo "completions ($shell): load and complete"
