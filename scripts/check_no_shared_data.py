#!/usr/bin/env python3
"""Fails when a tracked file holds real data from ../shared/data (which stays there and is never
committed): a byte-for-byte copy of one of its files (also gzipped), 20 or more of its lines, or a
file the apps write as a copy of their input (vocab.txt, doc_ids.txt, user_ids.csv, item_ids.csv,
heldout.mtx) kept under docs/. Exits 77 (skipped) where ../shared/data is absent or REPO is not a git checkout.
    check_no_shared_data.py [REPO [SHARED_DATA]]   ($FK_SHARED_DATA overrides SHARED_DATA)"""
import gzip
import hashlib
import os
import subprocess
import sys
import tarfile

MIN_LINE = 6       # shorter lines ("1 1 2", a short word) occur anywhere
MAX_SHARED = 20    # lines of shared data a tracked file may share by chance
INPUT_COPIES = {"vocab.txt", "doc_ids.txt", "user_ids.csv", "item_ids.csv", "heldout.mtx"}


def unpacked(path, data):
    """The file's contents, gzip and tar members unpacked: (name, bytes) pairs."""
    if path.endswith((".tar.gz", ".tgz")):
        with tarfile.open(path) as t:
            return [(f"{path}:{m.name}", t.extractfile(m).read()) for m in t.getmembers() if m.isfile()]
    if path.endswith(".gz"):
        try:
            return [(path, data), (path + " (unpacked)", gzip.decompress(data))]
        except OSError:
            pass
    return [(path, data)]


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    repo = os.path.abspath(repo)
    shared = os.environ.get("FK_SHARED_DATA") or (sys.argv[2] if len(sys.argv) > 2 else
                                                   os.path.join(repo, "..", "shared", "data"))
    if not os.path.isdir(shared):
        print(f"no shared data at {shared}: skipped")
        return 77
    digests, lines = {}, set()
    for root, _, names in os.walk(shared):
        for name in names:
            path = os.path.join(root, name)
            for label, data in unpacked(path, open(path, "rb").read()):
                digests[hashlib.sha256(data).hexdigest()] = os.path.relpath(label, shared)
                lines.update(l.strip() for l in data.splitlines() if len(l.strip()) >= MIN_LINE)
    try:
        tracked = subprocess.check_output(["git", "-C", repo, "ls-files", "-z"],
                                          stderr=subprocess.DEVNULL).split(b"\0")
    except (OSError, subprocess.CalledProcessError):
        print(f"{repo} is not a git checkout: skipped")
        return 77
    bad = []
    os.chdir(repo)  # tracked paths are relative to it, and so are the reports below
    for rel in (t.decode() for t in tracked if t):
        path = rel
        if not os.path.isfile(path):
            continue
        if rel.startswith("docs/") and os.path.basename(rel) in INPUT_COPIES:
            bad.append(f"{rel}: an app's copy of its input")
        for label, data in unpacked(path, open(path, "rb").read()):
            digest = hashlib.sha256(data).hexdigest()
            if digest in digests:
                bad.append(f"{label}: a copy of {digests[digest]}")
                continue
            shared_lines = sum(1 for l in data.splitlines() if l.strip() in lines)
            if shared_lines >= MAX_SHARED:
                bad.append(f"{label}: {shared_lines} lines of the shared data")
    for b in bad:
        print(b)
    print(f"{len(tracked) - 1} tracked files against {len(digests)} shared files and "
          f"{len(lines)} of their lines: {len(bad)} holding shared data")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
