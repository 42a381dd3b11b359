#!/usr/bin/env bash
# Composition of services: every subset of the engine's services (aes, dlrm, dpi) generates
# (`nicgen verilog --services`), lints (`nicgen lint --top`), and passes the RC engine's
# engine-level tests unchanged: the two-node, reliability and interop suites, with
# NICGEN_SERVICES choosing the engine they build (the services sit idle: no QP is bound to
# them, so the engine must behave exactly as without them). About 5 minutes a subset on 2 cores;
# `make compose` runs all eight. Usage: scripts/compose.sh [subset ...] (names in the order
# aes,dlrm,dpi; `none` for none).
set -euo pipefail
cd "$(dirname "$0")/.."
subsets=("$@")
[ ${#subsets[@]} -gt 0 ] || subsets=(none aes dlrm dpi aes,dlrm aes,dpi dlrm,dpi aes,dlrm,dpi)
cargo build --release -q
gen=$(mktemp -d)
trap 'rm -rf "$gen"' EXIT
args=()
for s in "${subsets[@]}"; do args+=(--services "$s"); done
target/release/nicgen verilog --out "$gen" "${args[@]}" > /dev/null
for s in "${subsets[@]}"; do
  name="roce_engine_svc_$(echo "$s" | tr , _)"
  start=$(date +%s)
  echo "compose: services ${s}: generate, lint $name"
  target/release/nicgen lint --dir "$gen" --top "$name"
  echo "compose: services ${s}: the RC engine's tests (NICGEN_SERVICES=$s)"
  if ! NICGEN_SERVICES="$s" cargo test --release -p nicgen-scenario --test rdma_two_node --test rdma_reliability --test rdma_interop > "$gen/test.log" 2>&1; then
    grep -E "FAILED|panicked|^error" -A6 "$gen/test.log" | head -60
    echo "compose: services ${s}: FAILED"
    exit 1
  fi
  grep -E "^test result" "$gen/test.log"
  echo "compose: services ${s}: passed in $(( $(date +%s) - start )) s"
done
echo "compose: ${#subsets[@]} compositions generate, lint and pass the RC engine's tests"
