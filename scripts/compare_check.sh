#!/usr/bin/env bash
# Times `skc check` throughput for two builds, alternately, on one machine: each folder holds a `bench_check`
# (the example of skc-core) and an `skc` binary. Prints, per build, the best and the median of `bench_check`'s
# check (all) (itself the best of 5 checks) and of the whole `skc check` process on bench_check's 100,008-line
# file. Alternating matters: on a shared machine the speed varies from minute to minute.
#
#   scripts/compare_check.sh OLD_DIR NEW_DIR [ROUNDS]
#
# OLD_ENV and NEW_ENV, if set, are `NAME=value` settings given to that build's programs: the same build twice,
# `OLD_ENV=SKC_THREADS=1 scripts/compare_check.sh DIR DIR`, compares one thread with several.
set -euo pipefail
old=$1
new=$2
rounds=${3:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$new/bench_check" --write "$work/bench.sk"
lines=$(wc -l < "$work/bench.sk")
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores; $(date -u +%F); $lines lines; $rounds rounds"
for _ in $(seq "$rounds"); do
  for build in old new; do
    dir=$old settings=${OLD_ENV:-}
    [ "$build" = new ] && dir=$new settings=${NEW_ENV:-}
    # shellcheck disable=SC2086 # the settings are words
    env $settings "$dir/bench_check" | awk -v b="$build" '/check \(all\)/ { print b, "bench", $3 }' >> "$work/times"
    start=$(date +%s%N)
    # shellcheck disable=SC2086
    env $settings "$dir/skc" check "$work/bench.sk" > /dev/null
    end=$(date +%s%N)
    echo "$build process $(( (end - start) / 10000 ))e-2" >> "$work/times"
  done
done
for build in old new; do
  for what in bench process; do
    awk -v b="$build" -v w="$what" '$1 == b && $2 == w { print $3 + 0 }' "$work/times" | sort -n |
      awk -v b="$build" -v w="$what" -v lines="$lines" '
        { t[NR] = $1 }
        END {
          median = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
          printf "%-4s %-8s best %7.1f ms (%9.0f lines/s)  median %7.1f ms  worst %7.1f ms\n", b, w, t[1], lines / t[1] * 1000, median, t[NR]
        }'
  done
done
