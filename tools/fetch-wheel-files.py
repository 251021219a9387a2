#!/usr/bin/env python3
"""Copies a few members out of a wheel on PyPI without downloading the wheel: HTTP range requests
for the zip's end record, its central directory, then each wanted member (APPNOTE.TXT, sections 4.3
and 4.4). Used to make the framework fixtures in tests/fixtures/frameworks from real releases;
each output folder gets a SOURCE file naming the wheel, its URL and the sha256 PyPI lists for it.

    tools/fetch-wheel-files.py NAME VERSION WHEEL-FILENAME-SUBSTRING OUTDIR MEMBER-PATTERN...

A member pattern is a path inside the wheel, or one ending in "/" for every member below it, or
"*.dist-info/METADATA". A pattern "names:PREFIX" copies no member: the names of the members that
start with PREFIX are listed in OUTDIR/NAMES (bitsandbytes' one library per CUDA release: what
matters is which exist, not their hundreds of megabytes).
"""
import json
import struct
import sys
import urllib.request
import zlib
from pathlib import Path


def get(url, start=None, end=None):
    request = urllib.request.Request(url, headers={"User-Agent": "cudacheck-fixtures"})
    if start is not None:
        request.add_header("Range", f"bytes={start}-{end}")
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.read()


def wheel_url(name, version, substring):
    # PyPI's simple index in JSON (PEP 691, sizes from PEP 700).
    request = urllib.request.Request(f"https://pypi.org/simple/{name}/",
                                     headers={"Accept": "application/vnd.pypi.simple.v1+json", "User-Agent": "cudacheck-fixtures"})
    with urllib.request.urlopen(request, timeout=60) as response:
        index = json.loads(response.read())
    prefix = f"{name.replace('-', '_')}-{version}-"
    candidates = [f for f in index["files"] if f["filename"].endswith(".whl") and f["filename"].lower().startswith(prefix.lower())]
    for file in candidates:
        if substring in file["filename"]:
            return file["filename"], file["url"], file["hashes"]["sha256"], file["size"]
    sys.exit(f"no wheel of {name} {version} matching {substring!r}: " + ", ".join(f["filename"] for f in candidates))


def central_directory(url, size):
    tail = get(url, max(0, size - 65557), size - 1)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0:
        sys.exit("no end of central directory record")
    entries, cd_size, cd_offset = struct.unpack("<HII", tail[at + 10:at + 20])
    if cd_offset == 0xFFFFFFFF or entries == 0xFFFF:  # zip64
        locator = tail.rfind(b"PK\x06\x07")
        (zip64_end,) = struct.unpack("<Q", tail[locator + 8:locator + 16])
        record = get(url, zip64_end, zip64_end + 55)
        entries, cd_size, cd_offset = struct.unpack("<QQQ", record[32:56])
    directory = get(url, cd_offset, cd_offset + cd_size - 1)
    members, at = {}, 0
    while at + 46 <= len(directory) and directory[at:at + 4] == b"PK\x01\x02":
        method, = struct.unpack("<H", directory[at + 10:at + 12])
        compressed, uncompressed = struct.unpack("<II", directory[at + 20:at + 28])
        name_length, extra_length, comment_length = struct.unpack("<HHH", directory[at + 28:at + 34])
        offset, = struct.unpack("<I", directory[at + 42:at + 46])
        name = directory[at + 46:at + 46 + name_length].decode()
        extra = directory[at + 46 + name_length:at + 46 + name_length + extra_length]
        if 0xFFFFFFFF in (compressed, uncompressed, offset):  # zip64 extended information
            values = iter(struct.unpack("<" + "Q" * ((len(extra) - 4) // 8), extra[4:4 + 8 * ((len(extra) - 4) // 8)]))
            uncompressed = next(values) if uncompressed == 0xFFFFFFFF else uncompressed
            compressed = next(values) if compressed == 0xFFFFFFFF else compressed
            offset = next(values) if offset == 0xFFFFFFFF else offset
        members[name] = (method, compressed, offset)
        at += 46 + name_length + extra_length + comment_length
    return members


def member(url, method, compressed, offset):
    header = get(url, offset, offset + 29)
    name_length, extra_length = struct.unpack("<HH", header[26:30])
    start = offset + 30 + name_length + extra_length
    data = get(url, start, start + compressed - 1) if compressed else b""
    return zlib.decompress(data, -15) if method == 8 else data


def wanted(name, patterns):
    for pattern in patterns:
        if pattern.endswith("/") and name.startswith(pattern):
            return True
        if pattern.startswith("*.dist-info/") and ".dist-info/" in name and name.endswith(pattern[len("*.dist-info/"):]):
            return True
        if name == pattern:
            return True
    return False


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    name, version, substring, out = sys.argv[1:5]
    patterns = [p for p in sys.argv[5:] if not p.startswith("names:")]
    listed = [p[len("names:"):] for p in sys.argv[5:] if p.startswith("names:")]
    filename, url, sha256, size = wheel_url(name, version, substring)
    members = central_directory(url, size)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if listed:
        names = sorted(path for path in members if any(path.startswith(prefix) for prefix in listed))
        (out / "NAMES").write_text("".join(f"{path}\n" for path in names))
    written = []
    for path, (method, compressed, offset) in sorted(members.items()):
        if path.endswith("/") or not wanted(path, patterns):
            continue
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        data = member(url, method, compressed, offset)
        if path.endswith("/METADATA"):  # the header block only; the long description follows a blank line
            data = data.split(b"\n\n", 1)[0] + b"\n"
        target.write_bytes(data)
        written.append(path)
    missing = [p for p in patterns if not any(wanted(w, [p]) for w in written)]
    listing = f"names listed in NAMES: {', '.join(listed)}\n" if listed else ""
    (out / "SOURCE").write_text(f"wheel: {filename}\nurl: {url}\nsha256: {sha256}\nmembers: {', '.join(written)}\n{listing}")
    print(f"{filename}: {len(written)} member(s) to {out}")
    if missing:
        sys.exit(f"not in the wheel: {', '.join(missing)}")


if __name__ == "__main__":
    main()
