#!/usr/bin/env bash
# The README's first command: build hatrace, record the bundled example program
# (examples/kvstore.c), show what it did and its heap over time, check the
# trace, show where its memory goes (recorded again with call stacks), write its HTML
# report, and replay it against every installed allocator. Output goes to build/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
make -s -j2
out=build/demo; mkdir -p "$out"
rm -f "$out"/kvstore.hatf "$out"/kvstore-stacks.hatf "$out"/kvstore.png "$out"/kvstore.html

echo "== record: hatrace record -o $out/kvstore.hatf -- build/examples/kvstore"
build/hatrace record -o "$out/kvstore.hatf" -- build/examples/kvstore 200000
echo
echo "== stats: hatrace stats $out/kvstore.hatf"
build/hatrace stats "$out/kvstore.hatf"
echo
echo "== validate: hatrace validate $out/kvstore.hatf"
build/hatrace validate "$out/kvstore.hatf"
echo
echo "== the heap over time: hatrace stats --timeline --points 12 $out/kvstore.hatf"
build/hatrace stats --timeline --points 12 "$out/kvstore.hatf"
echo
echo "== where the memory goes: hatrace record --stacks, then hatrace stats --sites --sort at-peak --top 3"
build/hatrace record --stacks -o "$out/kvstore-stacks.hatf" -- build/examples/kvstore 200000 2>/dev/null
build/hatrace stats --sites --sort at-peak --top 3 "$out/kvstore-stacks.hatf"
echo
echo "== the report: hatrace report -o $out/kvstore.html $out/kvstore-stacks.hatf"
build/hatrace report -o "$out/kvstore.html" "$out/kvstore-stacks.hatf"
echo "report: $out/kvstore.html (open it in a browser: it needs no server and no network)"
echo
echo "== replay: hatrace replay --plot $out/kvstore.png $out/kvstore.hatf"
build/hatrace replay --plot "$out/kvstore.png" "$out/kvstore.hatf"
echo
echo "chart: $out/kvstore.png"
echo "report: $out/kvstore.html"
echo
echo "the command is build/hatrace (\`make install\` puts hatrace on the PATH): build/hatrace stats $out/kvstore.hatf"
