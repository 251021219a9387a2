#!/usr/bin/env bash
# On the GPU machine (issue 34): the import prediction against the torch venv's real interpreter,
# and what the new reading costs.
#  1. builds this revision (build-gpu) and the one before issue 34 (OLD_SOURCE_DIR, build-old);
#  2. times them against each other, 0.5 s idle before every run (bench/compare_builds.py): the
#     default run, --level quick, and frameworks.builds alone;
#  3. a stale torch on PYTHONPATH (the Python files of the venv's torch without its binaries,
#     version.py saying 2.5.1+cu124): what `import torch` prints, and the default run of each build;
#  4. `--python ENV/bin/python` on a venv made with the torch venv's interpreter whose .pth line
#     adds the torch venv's site-packages: each build's answer, and the interpreter's own;
#  5. the differential corpus (tests/support/python_import_corpus.py) with Ubuntu's Python 3.12;
#  6. the default run's verdicts of both builds (bench/compare_verdicts.py);
#  7. a truncated libcudnn_cnn.so.9, first as a copy on LD_LIBRARY_PATH, then the system's file in
#     place (restored by the same command): cudnn.conv should name the file (CC605), not CC902.
# Everything made is under a scratch directory, removed at the end; no GPU setting is touched.
#
# Usage: OUT=dir bench/issue34_on_gpu.sh OLD_SOURCE_DIR
#   writes OUT/issue34.tgz (the device tool returns at most eight files): docs/examples/h200/issue34.
set -uo pipefail
. "$(dirname "$0")/two_builds.sh"
two_builds issue34 "$1"

# 2. Timing first, on a machine nothing else has used yet.
{
    echo "## default run"; python3 bench/compare_builds.py --runs 15 --gap 0.5 "$old" "$new"
    echo; echo "## --level quick"; python3 bench/compare_builds.py --runs 15 --gap 0.5 "$old" "$new" -- --level quick
    echo; echo "## --only frameworks.builds"; python3 bench/compare_builds.py --runs 15 --gap 0.5 "$old" "$new" -- --only frameworks.builds
} > "$out/timing.md" 2>&1
echo "timed in $SECONDS s" >> "$out/steps.txt"

# 3. A stale torch on PYTHONPATH.
stale=$scratch/shared/old
# (a source checkout or a copied folder: the Python files, not the compiled parts)
python3 -c 'import os, shutil, sys; shutil.copytree(sys.argv[1], sys.argv[2], ignore=lambda d, names: [n for n in names if not n.endswith(".py") and not os.path.isdir(os.path.join(d, n))])' "$site/torch" "$stale/torch"
ls "$stale/torch" | head -n 5 > "$out/pythonpath-shadow-copy.txt"; find "$stale" -name '*.py' | wc -l >> "$out/pythonpath-shadow-copy.txt"
sed -i "s/^__version__ = .*/__version__ = '2.5.1+cu124'/; s/^cuda: .*/cuda: Optional[str] = '12.4'/" "$stale/torch/version.py"
{
    echo "\$ PYTHONPATH=$stale python3 -c 'import torch'"
    PYTHONPATH=$stale python3 -c 'import torch' 2>&1 | tail -n 4; echo "exit ${PIPESTATUS[0]}"
    echo "\$ PYTHONPATH=$stale python3 -c 'import importlib.util; print(importlib.util.find_spec(\"torch\").origin)'"
    PYTHONPATH=$stale python3 -c 'import importlib.util; print(importlib.util.find_spec("torch").origin)'
} > "$out/pythonpath-shadow-python.txt" 2>&1
PYTHONPATH=$stale "$new" -o "$out/pythonpath-shadow.txt" -o "$out/pythonpath-shadow.json"; echo "new build: exit $?" > "$out/pythonpath-shadow-exits.txt"
PYTHONPATH=$stale "$old" -o "$out/pythonpath-shadow-before.txt"; echo "build before issue 34: exit $?" >> "$out/pythonpath-shadow-exits.txt"

# 4. --python ENV/bin/python, ENV made with the torch venv's interpreter.
env_dir=$scratch/env
python3 -m venv --without-pip "$env_dir"
echo "$site" > "$env_dir/lib/python3.12/site-packages/torch-venv.pth"
{
    echo "\$ ls -l $env_dir/bin/python*"; ls -l "$env_dir"/bin/python*
    echo "\$ cat $env_dir/pyvenv.cfg"; cat "$env_dir/pyvenv.cfg"
    echo "\$ $env_dir/bin/python -c 'import torch; print(torch.__file__, torch.__version__)'"
    "$env_dir/bin/python" -c 'import torch; print(torch.__file__, torch.__version__)'
} > "$out/python-option-interpreter.txt" 2>&1
(cd "$scratch" && "$new" --only frameworks.builds --python env/bin/python -o "$out/python-option.txt" -o "$out/python-option.json" -v)
echo "new build: exit $?" > "$out/python-option-exits.txt"
(cd "$scratch" && "$old" --only frameworks.builds --python env/bin/python -o "$out/python-option-before.txt" -v)
echo "build before issue 34: exit $?" >> "$out/python-option-exits.txt"

# 5. The corpus with this machine's Python (Ubuntu 24.04's python3.12).
python3 tests/support/python_import_corpus.py "$new" --wheels .devtools/wheels > "$out/import-corpus.txt" 2>&1
echo "corpus: exit $?" >> "$out/steps.txt"

# 6. The default run's verdicts, before and after.
"$old" -o "$out/default-before.json" > /dev/null; echo "before: exit $?" > "$out/default-exits.txt"
"$new" -o "$out/default.json" -o "$out/default.txt"; echo "after: exit $?" >> "$out/default-exits.txt"
python3 bench/compare_verdicts.py "$out/default-before.json" "$out/default.json" > "$out/verdicts.txt" 2>&1

# 7. cuDNN's convolution sub-library truncated (a full disk during an upgrade): a copy first on
#    LD_LIBRARY_PATH, then the system's own file in place, restored by this same command.
cnn=$(readlink -f "$(ldconfig -p | awk '$1=="libcudnn_cnn.so.9" && /x86-64/ {print $NF; exit}')")
size=$(stat -c %s "$cnn")
echo "libcudnn_cnn.so.9: $cnn, $size bytes" > "$out/cnn-steps.txt"
mkdir -p "$scratch/cnn" && head -c $((size / 2)) "$cnn" > "$scratch/cnn/libcudnn_cnn.so.9"
LD_LIBRARY_PATH=$scratch/cnn${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$new" -v -o "$out/cnn-copy.txt" -o "$out/cnn-copy.json"; echo "copy first, new: exit $?" >> "$out/cnn-steps.txt"
LD_LIBRARY_PATH=$scratch/cnn${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$old" -v -o "$out/cnn-copy-before.txt"; echo "copy first, before: exit $?" >> "$out/cnn-steps.txt"
echo "processes mapping it: $(grep -l libcudnn_cnn /proc/[0-9]*/maps 2>/dev/null | wc -l)" >> "$out/cnn-steps.txt"
cp -p "$cnn" "$scratch/cnn.backup"
( trap 'cp -p "$scratch/cnn.backup" "$cnn"; cmp -s "$scratch/cnn.backup" "$cnn" && echo "restored $cnn" || echo "NOT RESTORED: $cnn"' EXIT
  truncate -s $((size / 2)) "$cnn"
  "$new" -v -o "$out/cnn-in-place.txt" -o "$out/cnn-in-place.json"; echo "in place, new: exit $?"
  "$old" -v -o "$out/cnn-in-place-before.txt"; echo "in place, before: exit $?" ) >> "$out/cnn-steps.txt" 2>&1
"$new" diff "$out/default.json" "$out/cnn-in-place.json" > "$out/cnn-diff.txt" 2>&1
echo "done in $SECONDS s" >> "$out/steps.txt"
rm -rf "$scratch"
tar -czf "${OUT:-.}/issue34.tgz" -C "$results" issue34
cat "$out/steps.txt" "$out/cnn-steps.txt" "$out/timing.md" "$out/pythonpath-shadow-exits.txt" "$out/python-option-exits.txt" "$out/default-exits.txt" "$out/verdicts.txt"
tail -n 3 "$out/import-corpus.txt"
