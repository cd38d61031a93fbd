"""Reading the reference CSVs and writing catalog JSON: helpers every part of the import shares."""

import csv
import io
import json
import re

AS_OF_DEFAULT = "2026-11-29"  # date the reference CSVs were transcribed (no catalog commit dates)

GIB_TO_GB = 1024 ** 3 / 1e9  # Azure and GCP state local disks in GiB; the catalog field is GB


def gib_to_gb(gib):
    return int(round(gib * GIB_TO_GB))


def read_commented_csv(path):
    """Return (header comment lines without '# ', list of row dicts)."""
    with open(path, newline="", encoding="utf-8") as f:
        text = f.read()
    comments, body = [], []
    for line in text.splitlines(keepends=True):
        if line.startswith("#") and not body:
            comments.append(line[1:].strip())
        else:
            body.append(line)
    rows = list(csv.DictReader(io.StringIO("".join(body))))
    return comments, rows


def num(text):
    """CSV number -> int when integral in the text, else float. Empty/NA -> None."""
    text = text.strip()
    if text in ("", "NA"):
        return None
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return float(text)


def dump(obj):
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"
