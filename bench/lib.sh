# lib.sh — helpers the benchmark scripts share (sourced, not run).

# The median of the numbers on stdin, one or more per line (blank-separated);
# the mean of the middle two for an even count.
median() {
  tr ' \t' '\n\n' | grep . | sort -n |
    awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
