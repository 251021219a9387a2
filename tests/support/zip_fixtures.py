#!/usr/bin/env python3
"""Zip archives for tests/unit/util/zip_archive_test.cpp, and Python's own reading of them.

  zip_fixtures.py make DIR          the archives (Python's zipfile where it can write them; a small
                                    writer of APPNOTE.TXT's records for zip64 directories, cp437
                                    names and the damaged or hostile archives), then DIR/manifest.json
  zip_fixtures.py large DIR MIB     DIR/large.zip, one deflated member of MIB MiB of random-ish data
                                    (half random bytes, half text) between two small ones, and that
                                    member as Python's zipfile extracts it, DIR/large.bin
  zip_fixtures.py extract ZIP DIR   every member of ZIP as Python's zipfile reads it, into DIR/<index>,
                                    and DIR/manifest.json

The manifest is what the C++ reader must agree with: per archive, either Python's reading (each
member's name as the bytes stored, sizes, CRC-32, method, and the file holding its bytes as Python
extracts them) or, for an archive Python itself cannot read in full, the error Python raises.
"""
import json
import os
import random
import struct
import sys
import zipfile
import zlib


def raw_deflate(data, level=6):
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


def raw_zip(entries, zip64=False, comment=b"", directory_offset_delta=0, end_entries=None, prefix=b""):
    """An archive of `entries` written record by record (APPNOTE.TXT 4.3.7, 4.3.12, 4.3.14-4.3.16).

    Each entry: name (bytes), data; optional method (0/8), flags, crc, csize, usize (the values
    written, whatever the data), payload (the bytes written after the local header), local_name,
    local_method, local_flags, at (write no local header and point at an earlier entry's, by index).
    zip64: 0xFFFFFFFF in every central size and offset, a zip64 extra field with the values, and the
    zip64 end record and locator.
    """
    out = bytearray(prefix)
    central = bytearray()
    offsets = []
    for entry in entries:
        name = entry["name"]
        data = entry.get("data", b"")
        method = entry.get("method", 8)
        payload = entry.get("payload", raw_deflate(data) if method == 8 else data)
        crc = entry.get("crc", zlib.crc32(data))
        csize = entry.get("csize", len(payload))
        usize = entry.get("usize", len(data))
        flags = entry.get("flags", 0)
        if "at" in entry:
            offset = offsets[entry["at"]]
        else:
            offset = len(out)
            local_name = entry.get("local_name", name)
            out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, entry.get("local_flags", flags),
                               entry.get("local_method", method), 0, 0x21, crc, min(csize, 0xFFFFFFFF),
                               min(usize, 0xFFFFFFFF), len(local_name), 0)
            out += local_name + payload
        offsets.append(offset)
        extra = b""
        central_csize, central_usize, central_offset = csize, usize, offset
        if zip64:
            extra = struct.pack("<HHQQQ", 1, 24, usize, csize, offset)
            central_csize = central_usize = central_offset = 0xFFFFFFFF
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, flags, method, 0, 0x21, crc, central_csize,
                               central_usize, len(name), len(extra), 0, 0, 0, 0, central_offset)
        central += name + extra
    directory_offset = len(out) + directory_offset_delta
    count = len(entries) if end_entries is None else end_entries
    out += central
    if zip64:
        zip64_offset = len(out)
        out += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, count, count, len(central), directory_offset)
        out += struct.pack("<IIQI", 0x07064B50, 0, zip64_offset, 1)
        out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, len(comment))
    else:
        out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count & 0xFFFF, count & 0xFFFF, len(central),
                           directory_offset & 0xFFFFFFFF, len(comment))
    return bytes(out + comment)


def stored_name(info):
    """The name's bytes as the archive stores them (zipfile decodes them: UTF-8 or cp437)."""
    return info.orig_filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437")


def python_reading(path, extract_dir):
    """What Python's zipfile reads in the archive: each member, its bytes written to extract_dir/<index>."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = []
            os.makedirs(extract_dir, exist_ok=True)
            for index, info in enumerate(archive.infolist()):
                found = {"name_hex": stored_name(info).hex(), "size": info.file_size,
                         "compressed_size": info.compress_size, "crc32": info.CRC,
                         "method": info.compress_type, "offset": info.header_offset}
                with archive.open(info) as member:
                    if info.file_size <= 64:  # in the manifest: many.zip has 70,000 members
                        found["data_hex"] = member.read().hex()
                    else:
                        found["data"] = os.path.join(extract_dir, str(index))
                        with open(found["data"], "wb") as copy:
                            while True:
                                chunk = member.read(1 << 20)
                                if not chunk:
                                    break
                                copy.write(chunk)
                members.append(found)
            return {"members": members}
    except Exception as error:  # noqa: BLE001 - any refusal is the ground truth recorded
        return {"python_error": f"{type(error).__name__}: {error}"}


def random_ish(rng, size):
    """Half random bytes (incompressible), half numbered text (compressible), in 64 KiB pieces."""
    pieces = []
    made = 0
    line = 0
    while made < size:
        if (made // 65536) % 2 == 0:
            piece = rng.randbytes(65536)
        else:
            text = []
            length = 0
            while length < 65536:
                words = f"line {line}: the quick brown fox {rng.randrange(1 << 30)} jumps\n"
                text.append(words)
                length += len(words)
                line += 1
            piece = "".join(text).encode()[:65536]
        piece = piece[: size - made]
        pieces.append(piece)
        made += len(piece)
    return b"".join(pieces)


def make(directory):
    os.makedirs(directory, exist_ok=True)
    rng = random.Random(39)
    archives = {}

    def path(name):
        return os.path.join(directory, name)

    def write_raw(name, data):
        with open(path(name), "wb") as out:
            out.write(data)

    # Written by Python's zipfile.
    with zipfile.ZipFile(path("stored.zip"), "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("empty", b"")
        archive.writestr("folder/", b"")
        archive.writestr("folder/hello.txt", b"hello, wheel\n")
        archive.writestr("random.bin", rng.randbytes(300000))
    text = b"".join(b"Requires-Dist: nvidia-cublas-cu12==12.%d.%d\n" % (i % 10, i) for i in range(20000))
    with zipfile.ZipFile(path("deflated.zip"), "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("empty", b"")
        archive.writestr("METADATA", b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n")
        archive.writestr("text.txt", text)
        archive.writestr("mixed.bin", random_ish(rng, 3 << 20))
        archive.writestr("zeros.bin", bytes(20 << 20))  # 20 MiB of zeros: over 1000:1, past two checkpoints' interval
        archive.writestr("stored-among-deflated", b"kept as is", compress_type=zipfile.ZIP_STORED)
    with zipfile.ZipFile(path("forced-zip64.zip"), "w", zipfile.ZIP_DEFLATED) as archive:
        for index in range(3):
            with archive.open(f"member{index}.txt", "w", force_zip64=True) as member:
                member.write(b"zip64 sizes in the local header %d\n" % index * 1000)
    names = ["with space.txt", "caf\u00e9/\u00fcber.txt", "\u65e5\u672c\u8a9e.txt", "new\nline", "tab\tand\x1bescape",
             "back\\slash", "a" * 4000, "dot/../dot"]
    with zipfile.ZipFile(path("names.zip"), "w", zipfile.ZIP_DEFLATED) as archive:
        for index, name in enumerate(names):
            archive.writestr(name, f"member {index}\n".encode())
    with zipfile.ZipFile(path("bzip2.zip"), "w", zipfile.ZIP_BZIP2) as archive:
        archive.writestr("member.txt", text[:10000])
    with zipfile.ZipFile(path("lzma.zip"), "w", zipfile.ZIP_LZMA) as archive:
        archive.writestr("member.txt", text[:10000])
    # Python's zipfile writes its zip64 end record and locator past 65,535 members (its
    # ZIP_FILECOUNT_LIMIT): lowered here, so that it writes them for a few.
    limit = zipfile.ZIP_FILECOUNT_LIMIT
    zipfile.ZIP_FILECOUNT_LIMIT = 2
    try:
        with zipfile.ZipFile(path("zip64-end.zip"), "w", zipfile.ZIP_DEFLATED) as archive:
            for index in range(5):
                archive.writestr(f"m/{index}", b"member %d\n" % index * (index + 1))
    finally:
        zipfile.ZIP_FILECOUNT_LIMIT = limit

    # Written record by record: valid archives Python's zipfile reads as well.
    payload = random_ish(rng, 200000)
    write_raw("zip64-directory.zip", raw_zip([{"name": b"a.bin", "data": payload}, {"name": b"b.txt", "data": b"b" * 5000, "method": 0},
                                              {"name": b"c.txt", "data": b"third"}], zip64=True))
    write_raw("cp437-names.zip", raw_zip([{"name": b"caf\x82.txt", "data": b"cp437 e acute"},
                                          {"name": b"\xff\xfe.bin", "data": b"bytes that are no UTF-8"}]))
    # An empty member deflated into no bytes at all, and a deflate stream flushed but never finished
    # (no final block): Python's zipfile reads both.
    write_raw("empty-no-stream.zip", raw_zip([{"name": b"empty", "data": b"", "payload": b""}, {"name": b"next", "data": b"n" * 100}]))
    unfinished = zlib.compressobj(6, zlib.DEFLATED, -15)
    write_raw("no-final-block.zip", raw_zip([{"name": b"open", "data": text[:50000],
                                              "payload": unfinished.compress(text[:50000]) + unfinished.flush(zlib.Z_SYNC_FLUSH)}]))
    write_raw("comment.zip", raw_zip([{"name": b"x", "data": b"x" * 100}], comment=b"an archive comment"))

    # Damaged or hostile: Python's reading is recorded for each (most it refuses too).
    small = [{"name": b"first.txt", "data": b"first member " * 100}, {"name": b"second.txt", "data": b"second member " * 100}]
    base = raw_zip(small)
    write_raw("truncated.zip", base[: len(base) // 2])
    write_raw("empty-file.zip", b"")
    write_raw("not-a-zip.zip", b"\x7fELF" + bytes(4000))
    # Fifield's full overlap: two directory entries, one local header.
    write_raw("overlap-full.zip", raw_zip([{"name": b"kernel", "data": bytes(100000)}, {"name": b"kernel", "at": 0, "data": bytes(100000)}]))
    # The second member's local header inside the first's data.
    first = raw_deflate(b"x" * 5000)
    inner = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0x21, zlib.crc32(b"inner"), 5, 5, 5, 0) + b"inner" + b"inner"
    overlap = bytearray(raw_zip([{"name": b"outer", "data": b"x" * 5000, "payload": first + inner, "csize": len(first) + len(inner)},
                                 {"name": b"inner", "data": b"inner", "method": 0}]))
    # point the second central entry at the header inside the first member's data
    second_entry = overlap.rfind(b"PK\x01\x02")
    struct.pack_into("<I", overlap, second_entry + 42, 30 + len(b"outer") + len(first))
    write_raw("overlap-partial.zip", bytes(overlap))
    write_raw("bad-crc.zip", raw_zip([{"name": b"data.bin", "data": b"payload " * 1000, "crc": 0x12345678}]))
    write_raw("bad-crc-stored.zip", raw_zip([{"name": b"data.bin", "data": b"payload " * 1000, "method": 0, "crc": 0x12345678}]))
    write_raw("directory-outside.zip", raw_zip(small, directory_offset_delta=1 << 20))
    write_raw("huge-count.zip", raw_zip(small, end_entries=65000))
    huge64 = bytearray(raw_zip(small, zip64=True))
    zip64_end = huge64.rfind(b"PK\x06\x06")
    struct.pack_into("<QQ", huge64, zip64_end + 24, 1 << 40, 1 << 40)
    write_raw("huge-count-zip64.zip", bytes(huge64))
    write_raw("encrypted.zip", raw_zip([{"name": b"secret", "data": b"not really encrypted", "flags": 1}]))
    write_raw("inflates-more.zip", raw_zip([{"name": b"more", "data": b"m" * 10000, "usize": 9000}]))
    write_raw("inflates-less.zip", raw_zip([{"name": b"less", "data": b"l" * 10000, "usize": 11000}]))
    damaged = bytearray(raw_deflate(random_ish(rng, 100000)))
    for at in range(1000, 1100):
        damaged[at] ^= 0x5A
    write_raw("bad-deflate.zip", raw_zip([{"name": b"damaged", "data": random_ish(random.Random(1), 100000), "payload": bytes(damaged)}]))
    write_raw("truncated-deflate.zip", raw_zip([{"name": b"cut", "data": text[:100000], "payload": raw_deflate(text[:100000])[:-100]}]))
    write_raw("local-name-differs.zip", raw_zip([{"name": b"METADATA", "local_name": b"METADATX", "data": b"Name: x\n"}]))
    write_raw("local-method-differs.zip", raw_zip([{"name": b"m", "data": b"stored", "method": 0, "local_method": 8}]))
    write_raw("nul-in-name.zip", raw_zip([{"name": b"lib\x00.so", "data": b"x"}]))
    write_raw("ratio-bomb.zip", raw_zip([{"name": b"bomb", "data": b"b" * 1000, "usize": 1 << 40}], zip64=True))
    write_raw("member-past-directory.zip", raw_zip([{"name": b"big", "data": b"z" * 100, "method": 0, "csize": 5000, "usize": 5000}]))
    write_raw("method-99.zip", raw_zip([{"name": b"aes", "data": b"x" * 10, "method": 99, "payload": b"x" * 10}]))
    write_raw("prefixed.zip", raw_zip(small, prefix=b"#!/bin/sh\nexit 0\n"))

    for name in sorted(os.listdir(directory)):
        if name.endswith(".zip"):
            archives[name] = python_reading(path(name), path("extracted/" + name))
    with open(path("manifest.json"), "w") as out:
        json.dump(archives, out, indent=1)


def large(directory, mebibytes):
    os.makedirs(directory, exist_ok=True)
    data = random_ish(random.Random(7), mebibytes << 20)
    with zipfile.ZipFile(os.path.join(directory, "large.zip"), "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("before.txt", b"before\n")
        archive.writestr("large.bin", data)
        archive.writestr("after.txt", b"after\n")
    del data
    with zipfile.ZipFile(os.path.join(directory, "large.zip")) as archive:
        with archive.open("large.bin") as member, open(os.path.join(directory, "large.bin"), "wb") as copy:
            while True:
                chunk = member.read(1 << 20)
                if not chunk:
                    break
                copy.write(chunk)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "make":
        make(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "large":
        large(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1] == "extract":
        reading = python_reading(sys.argv[2], sys.argv[3])
        with open(os.path.join(sys.argv[3], "manifest.json"), "w") as out:
            json.dump(reading, out, indent=1)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
