#!/usr/bin/env bash
# The man page the build writes (tools/make-manpage.py): groff reads it without a warning (lines
# it cannot justify aside), man renders it, and it documents every long option of `--help`.
# Exits 77 (skipped) without groff.
#
# Usage: check_manpage.sh CUDACHECK_1 CUDACHECK
set -euo pipefail
page=$1
cudacheck=$2
command -v groff >/dev/null || { echo "groff is not installed: skipped"; exit 77; }
warnings=$(groff -man -Tutf8 -ww -Wbreak -z "$page" 2>&1)
[ -z "$warnings" ] || { echo "groff warns: $warnings" >&2; exit 1; }
rendered=$(MANWIDTH=100 man -l "$page" 2>/dev/null || groff -man -Tutf8 "$page")
grep -q "^NAME" <<< "$rendered" || { echo "no NAME section" >&2; exit 1; }
for option in $("$cudacheck" --help | grep -oE '^ +(-[a-zA-Z],)?--[a-z][a-z-]*' | grep -oE -- '--[a-z-]+'); do
    grep -q -- "$option" <<< "$rendered" || { echo "the man page does not mention $option" >&2; exit 1; }
done
echo "the man page renders ($(wc -l <<< "$rendered") lines) and mentions every option of --help"
