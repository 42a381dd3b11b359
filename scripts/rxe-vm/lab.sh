#!/usr/bin/env bash
# The interop lab: a network namespace holding a bridge with the host's address for perftest's
# TCP exchange, and two TAP devices on it, one for the rxe peer VM and one for the card.
#
#   scripts/rxe-vm/lab.sh up NS [MTU]    # br0 10.9.0.254/24, tapv (VM), tapt (card)
#   scripts/rxe-vm/lab.sh down NS
#
# Nothing leaves the namespace: it has no route and no device but these.
set -euo pipefail
cmd=${1:-}; ns=${2:-}; mtu=${3:-9000}
[ -n "$ns" ] || { echo "usage: lab.sh up|down NS [MTU]" >&2; exit 2; }
case $cmd in
  up)
    ip netns add "$ns"
    ip netns exec "$ns" sh -euc "
      ip link set lo up
      ip link add br0 type bridge
      for d in tapv tapt; do ip tuntap add \$d mode tap; ip link set \$d mtu $mtu; ip link set \$d master br0; ip link set \$d up; done
      ip link set br0 mtu $mtu
      ip addr add 10.9.0.254/24 dev br0
      ip link set br0 up"
    ;;
  down) ip netns del "$ns" 2>/dev/null || true ;;
  *) echo "usage: lab.sh up|down NS [MTU]" >&2; exit 2 ;;
esac
