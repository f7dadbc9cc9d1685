#!/usr/bin/env python3
"""Total GPU time per kernel name from an ncu --print-summary per-kernel file: kernel_times.py FILE."""
import collections
import re
import sys

total, calls, name = collections.Counter(), collections.Counter(), None
for line in open(sys.argv[1]):
    m = re.match(r"\s+(\S.*?)\s+\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\), Device \d+, CC [\d.]+, Invocations (\d+)", line)
    if m:
        name, invocations = re.sub(r"\(.*", "", m.group(1)).split("::")[-1], int(m.group(2))
        continue
    m = re.match(r"\s+gpu__time_duration.sum\s+(\w+)\s+[\d.]+\s+[\d.]+\s+([\d.]+)", line)
    if m and name:
        scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3}.get(m.group(1), 1.0)
        total[name] += float(m.group(2)) * scale * invocations
        calls[name] += invocations
        name = None
for k, v in total.most_common(16):
    print(f"{v / 1000:8.3f} ms {calls[k]:4d} x  {k[:70]}")
print(f"total {sum(total.values()) / 1000:.3f} ms")
