# py_churn.py N — object churn as in pyperformance's tree and dict benchmarks:
# binary trees of small class instances built and dropped, a bounded dict of
# tuples and lists replaced in turn, strings formatted and joined. N rounds;
# prints a checksum.
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 20


class Node:
    def __init__(self, left, right, value):
        self.left = left
        self.right = right
        self.value = value


def tree(depth, value):
    if depth == 0:
        return Node(None, None, value)
    return Node(tree(depth - 1, 2 * value), tree(depth - 1, 2 * value + 1), value)


def check(node):
    if node.left is None:
        return 1
    return 1 + check(node.left) + check(node.right)


total = 0
cache = {}
for r in range(n):
    keep = tree(12, r)
    for i in range(8):
        total += check(tree(10, i))
    for i in range(20000):
        key = "k%d" % ((i * 7919 + r) % 5000)
        cache[key] = (i, [i, r], "%d-%d" % (i, r))
        if len(cache) > 4000:
            cache.pop(next(iter(cache)))
    total += check(keep) + len(",".join(v[2] for v in cache.values()))
print(total)
