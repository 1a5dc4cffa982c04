# py_json.py N — JSON round trips of a list of nested records (json's C
# accelerator: every dict, list, str and float it makes goes through malloc
# under PYTHONMALLOC=malloc). N rounds; prints a checksum.
import json
import random
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
rng = random.Random(1)
words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
docs = [{"id": i,
         "name": "user%d" % i,
         "tags": [rng.choice(words) for _ in range(rng.randrange(1, 6))],
         "scores": [rng.random() for _ in range(6)],
         "active": i % 3 == 0,
         "nested": {"a": [i, str(i), None, True], "b": {"x": i * 1.5, "y": "v" * (i % 17)}}}
        for i in range(2000)]
total = 0
for _ in range(n):
    text = json.dumps(docs, sort_keys=(_ % 2 == 0))
    back = json.loads(text)
    total += sum(len(d["tags"]) for d in back) + len(text)
print(total)
