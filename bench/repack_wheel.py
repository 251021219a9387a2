#!/usr/bin/env python3
"""Re-packs an installed distribution into a wheel, from its own RECORD and WHEEL files.

    bench/repack_wheel.py SITE_PACKAGES DIST_NAME OUT_DIR      prints the wheel's path

For issue 39's recording on the GPU machine: `cudacheck inspect` of a wheel made from the files that
are installed and known to run there (the --level full proof), so that the wheel's verdict can be
held to the installed distribution's. pip cannot rebuild a wheel of an installed distribution, so
this does what the wheel format says an installer undoes (PEP 427, "File contents"; PEP 376's
RECORD): every file RECORD lists, under the same relative path, deflated; files outside
site-packages (scripts, ../../bin) are left out, and RECORD is rewritten to name what the wheel
holds. The wheel's name carries the WHEEL file's `Tag:` lines, compressed.
"""
import base64
import csv
import hashlib
import io
import os
import sys
import zipfile


def main() -> int:
    site, dist, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    wanted = dist.lower().replace("-", "_")
    info = next((name for name in os.listdir(site) if name.endswith(".dist-info")
                 and name.lower().split("-")[0].replace("-", "_") == wanted), None)
    if info is None:
        print(f"no {dist} distribution in {site}", file=sys.stderr)
        return 1
    version = info[: -len(".dist-info")].split("-", 1)[1]
    tags = [line.split(":", 1)[1].strip() for line in open(os.path.join(site, info, "WHEEL"))
            if line.startswith("Tag:")]
    if not tags:
        print(f"{info}/WHEEL names no tag", file=sys.stderr)
        return 1
    # The compressed tag set (PEP 425): each part's values joined by dots, in the WHEEL file's order.
    parts = [list(dict.fromkeys(tag.split("-")[i] for tag in tags)) for i in range(3)]
    name = f"{info.split('-')[0]}-{version}-{'-'.join('.'.join(values) for values in parts)}.whl"
    path = os.path.join(out_dir, name)
    record_name = f"{info}/RECORD"
    rows = []
    with open(os.path.join(site, record_name), newline="") as record:
        paths = [row[0] for row in csv.reader(record) if row]
    # Deflate at level 1: a verdict reads the same members at any level, and level 6 takes 1.4 times
    # as long (200 MB of libtorch_cuda.so on the 2-core build machine: 4.7 s against 3.4 s).
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as wheel:
        for relative in paths:
            if relative == record_name or relative.startswith("..") or os.path.isabs(relative):
                continue
            full = os.path.join(site, relative)
            if not os.path.isfile(full):
                continue
            data = open(full, "rb").read()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            wheel.writestr(relative, data)
            rows.append((relative, f"sha256={digest}", str(len(data))))
        text = io.StringIO()
        csv.writer(text, lineterminator="\n").writerows(rows + [(record_name, "", "")])
        wheel.writestr(record_name, text.getvalue())
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
