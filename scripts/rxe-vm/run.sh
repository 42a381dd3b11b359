#!/usr/bin/env bash
# Boot the rxe peer VM (QEMU, TCG) on a TAP device, run one job in it and power off.
#
#   scripts/rxe-vm/run.sh --tap TAP --ip A.B.C.D/P --job FILE [--mac M] [--timeout S]
#                         [--netns NS] [--dir D]
#
# The job is a shell script run as root in the guest once rxe0 is up on eth0; its output and
# the guest's console go to stdout. QEMU is killed after S seconds (default 240); the exit
# status is then 124. The TAP (created with `ip tuntap add TAP mode tap`, in NS if given)
# must exist. D is the VM's build (scripts/rxe-vm/build.sh), target/rxe-vm by default.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tap= ip= job= mac=52:54:00:12:34:56 timeout=240 netns= dir=$here/../../target/rxe-vm
while [ $# -gt 0 ]; do
  case $1 in
    --tap) tap=$2; shift 2;; --ip) ip=$2; shift 2;; --job) job=$2; shift 2;;
    --mac) mac=$2; shift 2;; --timeout) timeout=$2; shift 2;; --netns) netns=$2; shift 2;;
    --dir) dir=$2; shift 2;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2;;
  esac
done
[ -n "$tap" ] && [ -n "$ip" ] && [ -n "$job" ] || { echo "run.sh: --tap, --ip and --job are required" >&2; exit 2; }
command -v qemu-system-x86_64 >/dev/null || { echo "run.sh: qemu-system-x86_64 is not installed (scripts/setup.sh)" >&2; exit 1; }
[ -f "$dir/vmlinuz" ] && [ -f "$dir/base.cpio.gz" ] || { echo "run.sh: no VM in $dir (scripts/rxe-vm/build.sh)" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/j"; cp "$job" "$tmp/j/job.sh"
(cd "$tmp/j" && echo job.sh | cpio -o -H newc --quiet | gzip -1) > "$tmp/job.cpio.gz"
# the kernel takes concatenated compressed archives; the job's is unpacked over the base
cat "$dir/base.cpio.gz" "$tmp/job.cpio.gz" > "$tmp/initrd.gz"
run=(timeout -k 5 "$timeout" qemu-system-x86_64 -machine q35 -accel tcg -cpu max -smp 1 -m 512
  -nographic -no-reboot -monitor none -serial stdio
  -kernel "$dir/vmlinuz" -initrd "$tmp/initrd.gz"
  -append "console=ttyS0 quiet loglevel=3 panic=-1 nicgen.ip=$ip"
  -netdev "tap,id=n0,ifname=$tap,script=no,downscript=no" -device "virtio-net-pci,netdev=n0,mac=$mac,romfile=")
if [ -n "$netns" ]; then exec ip netns exec "$netns" "${run[@]}"; else exec "${run[@]}"; fi
