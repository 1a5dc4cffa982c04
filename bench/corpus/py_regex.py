# py_regex.py N — regular expressions over generated log lines: findall, sub,
# split and match groups make many small strings, lists and match objects.
# N rounds; prints a checksum.
import random
import re
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
rng = random.Random(2)
verbs = ["GET", "POST", "PUT", "DELETE"]
lines = ["10.%d.%d.%d - - [%02d/Nov/2026:%02d:%02d:%02d] \"%s /api/v%d/item/%d?q=%s HTTP/1.1\" %d %d"
         % (rng.randrange(256), rng.randrange(256), rng.randrange(256), rng.randrange(1, 29),
            rng.randrange(24), rng.randrange(60), rng.randrange(60), rng.choice(verbs),
            rng.randrange(1, 4), rng.randrange(100000), "x" * rng.randrange(1, 12),
            rng.choice([200, 200, 200, 404, 500]), rng.randrange(100, 50000))
         for _ in range(4000)]
line_re = re.compile(r'^(\S+) - - \[([^\]]+)\] "(\w+) (\S+) [^"]*" (\d+) (\d+)$')
total = 0
for _ in range(n):
    by_status = {}
    for line in lines:
        m = line_re.match(line)
        ip, when, verb, path, status, size = m.groups()
        by_status.setdefault(status, []).append((ip, path, int(size)))
        total += len(re.findall(r"\d+", path)) + len(re.split(r"[/?=]", path))
    text = "\n".join(lines)
    total += len(re.sub(r"\d+\.\d+\.\d+\.\d+", "IP", text))
    total += sum(len(v) for v in by_status.values())
print(total)
