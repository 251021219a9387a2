#!/usr/bin/env python3
"""Writes the man page cudacheck.1 from what already describes the command line, so nothing is
written twice: the binary's own help (`cudacheck --help` and each subcommand's: NAME, OPTIONS,
COMMANDS) and docs/cli.md (everything else, from Markdown to roff: sections, paragraphs, lists,
code blocks, tables). The build runs it (src/CMakeLists.txt); `cmake --install` puts the page in
share/man/man1.

Usage: make-manpage.py CUDACHECK DOCS_CLI_MD OUTPUT
"""
import re
import subprocess
import sys


def roff_text(text):
    """Inline Markdown to roff: escapes, `code` and **bold** in bold, [text](link) as text."""
    text = text.replace("\\", "\\e")
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fR", text)
    text = re.sub(r"`([^`]+)`", r"\\fB\1\\fR", text)
    text = text.replace("-", "\\-")
    return text


def roff_line(text):
    """A line that must not start a roff request (main() writes characters beyond ASCII as \\[uXXXX])."""
    return "\\&" + text if text.startswith((".", "'")) else text


def verbatim(line):
    line = line.replace("\\", "\\e").replace("-", "\\-")
    return roff_line(line)


def markdown_to_roff(markdown):
    out = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("# "):  # the document's title: the man page has its own
            i += 1
        elif line.startswith("## "):
            out.append(".SH " + roff_text(line[3:].strip().upper()))
            i += 1
        elif line.startswith("### "):
            out.append(".SS " + roff_text(line[4:].strip()))
            i += 1
        elif line.startswith("```"):
            out += [".PP", ".RS 2", ".nf"]
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                out.append(verbatim(lines[i]))
                i += 1
            out += [".fi", ".RE"]
            i += 1
        elif line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                if not re.fullmatch(r"\|[-:| ]+\|?", lines[i].strip()):
                    cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", lines[i].strip().strip("|"))]
                    rows.append(cells)
                i += 1
            # One paragraph per row: its first cell in bold, the others after it.
            header = rows[0] if rows else []
            for row in rows[1:]:
                out.append(".TP")
                out.append(roff_line(roff_text(row[0].replace("\\|", "|"))))
                rest = [f"{name}: {value}" if name and len(row) > 2 else value for name, value in zip(header[1:], row[1:]) if value]
                out.append(roff_line(roff_text("; ".join(rest).replace("\\|", "|"))))
        elif re.match(r"\s*[-*] ", line):
            indent = len(line) - len(line.lstrip())
            item = [line.strip()[2:]]
            i += 1
            while i < len(lines) and lines[i].strip() and not re.match(r"\s*[-*] ", lines[i]) and not lines[i].startswith(("#", "|", "```")):
                item.append(lines[i].strip())
                i += 1
            out += [".IP \\(bu " + str(2 + indent), roff_line(roff_text(" ".join(item)))]
        elif not line.strip():
            i += 1
        else:
            paragraph = []
            while i < len(lines) and lines[i].strip() and not lines[i].startswith(("#", "|", "```")) and not re.match(r"\s*[-*] ", lines[i]):
                paragraph.append(lines[i].strip())
                i += 1
            out += [".PP", roff_line(roff_text(" ".join(paragraph)))]
    return out


def help_options(text):
    """(names, description) of each option in a CLI11 help text."""
    options = []
    in_options = False
    for line in text.splitlines():
        if line.rstrip().endswith("Options:") or line.strip() == "Options:":
            in_options = True
            continue
        if in_options and (not line.strip() or not line.startswith(" ")):
            if line.strip() and not line.startswith(" "):
                in_options = False
            continue
        if not in_options:
            continue
        match = re.match(r"  (\S.*?)(?:\s{2,}(\S.*))?$", line)
        if match and line.startswith("  -"):
            options.append([match.group(1).strip(), match.group(2) or ""])
        elif options:
            options[-1][1] += " " + line.strip()
    return options


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    binary, cli_md, output = sys.argv[1:]
    top = subprocess.run([binary, "--help"], capture_output=True, text=True, check=True).stdout
    version = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout.split()[1]
    summary = top.splitlines()[0].split(": ", 1)[1]
    # Each subcommand with its description, whose later lines --help wraps under it.
    subcommands = []
    for line in top.split("Subcommands:", 1)[1].splitlines() if "Subcommands:" in top else []:
        match = re.match(r"  (\w[\w-]*)\s{2,}(\S.*)$", line)
        if match:
            subcommands.append([match.group(1), match.group(2)])
        elif subcommands and re.match(r"\s{3,}\S", line):
            subcommands[-1][1] += " " + line.strip()
        elif line.strip():
            break  # the exit codes after the list
    page = [f'.TH CUDACHECK 1 "" "cudacheck {version}" "User Commands"', ".SH NAME", f"cudacheck \\- {roff_text(summary)}"]
    with open(cli_md, encoding="utf-8") as handle:
        page += markdown_to_roff(handle.read())
    page.append(".SH OPTION SUMMARY")
    page.append(".PP")
    page.append("As \\fBcudacheck \\-\\-help\\fR lists them (the options of \\fBcudacheck\\fR and \\fBcudacheck run\\fR):")
    for names, description in help_options(top):
        page += [".TP", roff_line(roff_text(names)), roff_line(roff_text(description))]
    page.append(".SH COMMANDS")
    for name, description in subcommands:
        page += [".SS " + name, ".PP", roff_line(roff_text(description))]
        if name == "run":  # its options are the top level's, above
            continue
        sub = subprocess.run([binary, name, "--help"], capture_output=True, text=True).stdout
        for names, text in help_options(sub):
            if names.startswith("-h,--help"):
                continue
            page += [".TP", roff_line(roff_text(names)), roff_line(roff_text(text))]
    page += [".SH SEE ALSO", "The documentation in the source tree: docs/cli.md, docs/checks.md, docs/errors.md, docs/ci.md."]
    with open(output, "w", encoding="ascii") as handle:
        handle.write("\n".join("".join(c if ord(c) < 128 else f"\\[u{ord(c):04X}]" for c in line) for line in page) + "\n")


if __name__ == "__main__":
    main()
