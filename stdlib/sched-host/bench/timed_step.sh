# Sourced by the scheduler's one-call GPU scripts (compare_with_main.sh, global_mailbox_check.sh).
# timed_step NAME LIMIT COMMAND...: runs COMMAND under `timeout LIMIT` with its output in $OUT/NAME.log, prints
# its exit status and time, then the log's last ${TAILN:-40} non-empty lines (passing tests left out).
timed_step() {
  local name=$1 limit=$2
  shift 2
  local begin=$(date +%s%N)
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  echo "== $name: rc=$rc in $((($(date +%s%N) - begin) / 1000000)) ms"
  grep -v '^\s*$' "$OUT/$name.log" | grep -v "^test .* ok$" | tail -n ${TAILN:-40}
}
