#!/usr/bin/env bash
# Regenerate the fuzzers' seed corpora with the library itself:
#   tests/fuzz/make-seeds.sh          (B=build-dir to pick the build directory)
# then review and commit tests/fuzz/corpus.
set -eu
cd "$(dirname "$0")/../.."
B=${B:-build}
make -s B="$B" "$B/libhatf.a"
mkdir -p "$B/fuzz"
${CC:-cc} -std=gnu11 -Wall -Wextra -O1 -g -Iinclude -Ihatf -Ibench -D_GNU_SOURCE \
    -o "$B/fuzz/make_seeds" tests/fuzz/make_seeds.c "$B/libhatf.a" -lzstd -lxxhash -lpthread -lm
# the generated seeds are overwritten in place; hand-made ones (a text header,
# a container from before address coding 3) stay
mkdir -p tests/fuzz/corpus
"$B/fuzz/make_seeds" tests/fuzz/corpus
du -ab tests/fuzz/corpus | sort -k2
