#!/usr/bin/env bash
# `make test`: every cargo test (release build), then one closing line with the totals.
# The test binaries run two at a time (scripts/run_tests.py), each on two threads: cargo runs
# one binary at a time and left a core idle while a binary's last long test ran alone.
set -uo pipefail
cd "$(dirname "$0")/.."
# one thread per two-node run: two binaries of two test threads already share two cores
export NICGEN_SIM_THREADS=${NICGEN_SIM_THREADS:-1}
log=$(mktemp)
msgs=$(mktemp)
cargo test --release --workspace --no-run --message-format=json-render-diagnostics > "$msgs"
rc=$?
if [ "$rc" -eq 0 ]; then
  python3 scripts/run_tests.py < "$msgs" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
fi
totals=$(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } } END { printf "%d passed, %d failed", p, f }' "$log")
rm -f "$log" "$msgs"
echo
echo "nicgen: $totals"
exit "$rc"
