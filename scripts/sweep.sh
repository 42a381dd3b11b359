#!/usr/bin/env bash
# `make sweep`: the scenarios across seeds and traffic mixes, each run checked by the scenario
# itself (every byte, frame and counter against the model); prints each run and the failures.
# About 15 minutes on two cores after `make build` (the services engine builds once).
set -uo pipefail
cd "$(dirname "$0")/.."
N=${NICGEN:-target/release/nicgen}
SEEDS=${SWEEP_SEEDS:-8}
fail=0
run() {
  if out=$("$@" 2>&1); then echo "ok    $*"; else echo "FAIL  $*"; echo "$out" | tail -n 8; fail=$((fail + 1)); fi
}
for seed in $(seq 1 $((SEEDS * 2))); do
  run "$N" sim icrc --seed "$seed" --frames 2000
done
for seed in $(seq 1 "$SEEDS"); do
  for op in write read mixed; do
    run "$N" sim rdma --op "$op" --random-size --size 65536 --count 48 --qps 4 --seed "$seed"
  done
  run "$N" sim rdma --op mixed --b-op mixed --random-size --size 20000 --count 32 --qps 8 --seed "$seed"
  run "$N" sim rdma --op mixed --random-size --size 16384 --count 32 --qps 4 --seed "$seed" --loss 0.01 --reorder 0.01 --dup 0.01 --corrupt 0.01 --timeout 3
  run "$N" sim rdma --op write --random-size --size 9000 --count 32 --qps 4 --seed "$seed" --pmtu 256
done
for seed in $(seq 1 $((SEEDS / 2))); do
  run "$N" sim rdma --op mixed --random-size --size 32768 --count 32 --qps 4 --seed "$seed" --aes
  run "$N" sim rdma --op read --random-size --size 32768 --count 32 --qps 4 --seed "$seed" --dlrm neg2zero-log
  run "$N" sim rdma --op read --random-size --size 32768 --count 32 --qps 4 --seed "$seed" --dpi flag --dpi-classes csv,png,text,elf
  run "$N" sim rdma --op read --size 4096 --count 64 --qps 64 --outstanding 64 --qp-table 4096 --seed "$seed"
done
for seed in $(seq 1 "$SEEDS"); do
  for mode in overlay nat; do
    for width in 512 1024; do
      run "$N" sim em --mode "$mode" --width "$width" --seed "$seed" --frames 4000 --fuzz $((seed % 3 * 10))
    done
  done
done
for seed in $(seq 1 $((SEEDS / 2 + 2))); do
  run "$N" sim server --seed "$seed" --frames 200
done
run "$N" sim server --seed 11 --ems 8 --frames 100
run "$N" sim server --seed 12 --ems 0 --frames 300
run "$N" sim server --seed 13 --faulty 2 --frames 100
echo "sweep: $fail failed"
[ "$fail" -eq 0 ]
