#!/usr/bin/env bash
# `make test`: every cargo test (release build), then one closing line with the totals.
set -uo pipefail
# one thread per two-node run: the test harness already runs two tests at once on two cores
export NICGEN_SIM_THREADS=${NICGEN_SIM_THREADS:-1}
log=$(mktemp)
cargo test --release --workspace 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
totals=$(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } } END { printf "%d passed, %d failed", p, f }' "$log")
rm -f "$log"
echo
echo "nicgen: $totals"
exit "$rc"
