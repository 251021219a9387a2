#!/usr/bin/env python3
"""A minimal wheel for tests/unit/inspect/package_inspection_test.cpp, written with Python's zipfile
as the wheel spec lays it out (packaging.python.org, "Binary distribution format"): the files given,
then NAME-VERSION.dist-info/METADATA, WHEEL and RECORD (sha256 and size of each file).

    make_wheel.py OUT.whl NAME VERSION [--file MEMBER=PATH]... [--requires REQ]...
                  [--requires-python SPEC] [--tag TAG]... [--stored] [--truncate BYTES]

The wheel's tags are those of OUT's file name (pip reads them there); --tag writes WHEEL's Tag lines.
--truncate cuts the finished archive to BYTES, as an interrupted download would.
"""
import argparse
import base64
import hashlib
import zipfile


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("name")
    parser.add_argument("version")
    parser.add_argument("--file", action="append", default=[])
    parser.add_argument("--requires", action="append", default=[])
    parser.add_argument("--requires-python", default="")
    parser.add_argument("--tag", action="append", default=[])
    parser.add_argument("--stored", action="store_true")
    parser.add_argument("--truncate", type=int, default=0)
    args = parser.parse_args()

    dist_info = f"{args.name.replace('-', '_')}-{args.version}.dist-info"
    metadata = [f"Metadata-Version: 2.1", f"Name: {args.name}", f"Version: {args.version}"]
    if args.requires_python:
        metadata.append(f"Requires-Python: {args.requires_python}")
    metadata += [f"Requires-Dist: {requirement}" for requirement in args.requires]
    wheel = ["Wheel-Version: 1.0", "Generator: cudacheck-tests", "Root-Is-Purelib: false"]
    wheel += [f"Tag: {tag}" for tag in args.tag]
    members = []
    for item in args.file:
        member, path = item.split("=", 1)
        with open(path, "rb") as source:
            members.append((member, source.read()))
    members.append((f"{dist_info}/METADATA", ("\n".join(metadata) + "\n\n").encode()))
    members.append((f"{dist_info}/WHEEL", ("\n".join(wheel) + "\n").encode()))
    record = []
    for member, data in members:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{member},sha256={digest},{len(data)}")
    record.append(f"{dist_info}/RECORD,,")
    members.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode()))
    method = zipfile.ZIP_STORED if args.stored else zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(args.out, "w", method) as archive:
        for member, data in members:
            archive.writestr(member, data)
    if args.truncate:
        with open(args.out, "r+b") as out:
            out.truncate(args.truncate)


if __name__ == "__main__":
    main()
