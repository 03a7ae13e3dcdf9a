#!/bin/sh
# run_fuzz.sh FUZZER SECONDS DICT ARTIFACT_DIR SEED_DIR... - fuzz for a bounded time on a
# scratch copy of the seed corpus (the seeds in the source tree are never written). A crash,
# leak, UBSan report or out-of-memory fails the test and leaves the input in ARTIFACT_DIR
# (reproduce with: FUZZER ARTIFACT_DIR/crash-...).
set -u
FUZZER=$1 SECONDS_=$2 DICT=$3 ART=$4
shift 4
W=$(mktemp -d "${TMPDIR:-/tmp}/nholo-fuzz.XXXXXX")
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/corpus" "$ART"
for d in "$@"; do
  [ -d "$d" ] && cp "$d"/* "$W/corpus/" 2>/dev/null
done
echo "fuzz_modelfile: $(ls "$W/corpus" | wc -l) seeds, $SECONDS_ s"
"$FUZZER" -max_total_time="$SECONDS_" -rss_limit_mb=2048 -timeout=20 -dict="$DICT" \
  -artifact_prefix="$ART/" -print_final_stats=1 "$W/corpus" >"$W/log" 2>&1
rc=$?
grep -E '^(Done|stat::number_of_executed_units|stat::new_units_added)' "$W/log"
if [ "$rc" -ne 0 ]; then
  tail -60 "$W/log"
  echo "0 passed, 1 failed"
  exit 1
fi
echo "1 passed, 0 failed"
