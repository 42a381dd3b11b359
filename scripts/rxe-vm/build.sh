#!/usr/bin/env bash
# Assemble the rxe peer VM: Debian's own kernel and an initramfs holding busybox, the modules
# Soft-RoCE needs, rdma-core's libraries with the rxe provider, iproute2's `rdma`,
# ibverbs-utils and perftest, all unpacked from Debian packages with `dpkg -x`.
#
#   scripts/rxe-vm/build.sh [OUT]      (OUT defaults to target/rxe-vm)
#
# Writes OUT/vmlinuz and OUT/base.cpio.gz. Idempotent: nothing is done when both exist and
# were built from this script's package list.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../../target/rxe-vm}
mkdir -p "$out"; out=$(cd "$out" && pwd)
kpkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
[ -n "$kpkg" ] || { echo "rxe-vm: no linux-image-amd64 in apt's lists (run apt-get update)" >&2; exit 1; }
kver=${kpkg#linux-image-}
pkgs="$kpkg busybox-static libc6 libgcc-s1 libnl-3-200 libnl-route-3-200 libibverbs1
  ibverbs-providers librdmacm1 libibumad3 libpci3 libudev1 zlib1g perftest ibverbs-utils
  iproute2 libmnl0 libbsd0 libmd0 libcap2"
stamp=$(echo "$pkgs" "$(sha256sum "$0" "$here/init" | awk '{print $1}')" | sha256sum | cut -c1-16)
if [ -f "$out/base.cpio.gz" ] && [ -f "$out/vmlinuz" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi
echo "rxe-vm: assembling the peer VM from Debian packages ($kpkg)"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debs" "$work/x" "$work/root"
(cd "$work/debs" && apt-get download $pkgs >/dev/null 2>&1) || {
  apt-get update -qq && (cd "$work/debs" && apt-get download $pkgs >/dev/null); }
for d in "$work"/debs/*.deb; do dpkg -x "$d" "$work/x"; done
r=$work/root
mkdir -p "$r"/{bin,sbin,proc,sys,dev,tmp,run,etc,lib/modules,usr/lib/x86_64-linux-gnu}
cp "$work/x/bin/busybox" "$r/bin/busybox"
# the user-space tree: libraries, the rxe provider and its driver file, the tools
cp -a "$work/x/lib/x86_64-linux-gnu/." "$r/usr/lib/x86_64-linux-gnu/" 2>/dev/null || true
cp -a "$work/x/usr/lib/x86_64-linux-gnu/." "$r/usr/lib/x86_64-linux-gnu/"
cp -a "$work/x/lib64" "$r/lib64"
mkdir -p "$r/etc/libibverbs.d" && cp -a "$work/x/etc/libibverbs.d/." "$r/etc/libibverbs.d/"
ln -s ../usr/lib/x86_64-linux-gnu "$r/lib/x86_64-linux-gnu"
mkdir -p "$r/usr/bin"
for t in ib_write_bw ib_read_bw ib_write_lat ib_read_lat ib_send_bw ib_send_lat ib_atomic_bw \
         ibv_devinfo ibv_devices ibv_rc_pingpong; do
  cp "$work/x/usr/bin/$t" "$r/usr/bin/$t"
done
cp "$work/x/usr/bin/rdma" "$r/usr/bin/rdma"
echo "root:x:0:0:root:/:/bin/sh" > "$r/etc/passwd"
# every library the tools need must be in the tree
missing=$(for f in "$r"/usr/bin/* "$r"/usr/lib/x86_64-linux-gnu/libibverbs/*.so; do
  readelf -d "$f" 2>/dev/null | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'; done | sort -u |
  while read -r l; do [ -e "$r/usr/lib/x86_64-linux-gnu/$l" ] || echo "$l"; done)
[ -z "$missing" ] || { echo "rxe-vm: libraries missing from the tree: $missing" >&2; exit 1; }
# the kernel modules, dependencies first (each .ko's .modinfo depends=; the .deb has no
# modules.dep). rxe asks for the crypto algorithm "crc32", which nothing loads on demand
# in an initramfs, so crc32_generic comes first.
mdir=$work/x/lib/modules/$kver/kernel
order=()
add_mod() {
  local name=$1 f dep
  for m in "${order[@]:-}"; do [ "$m" = "$name" ] && return 0; done
  f=$(find "$mdir" -name "$name.ko" -o -name "$name.ko.xz" | head -1)
  [ -n "$f" ] || { echo "rxe-vm: no module $name in $kpkg" >&2; exit 1; }
  for dep in $(objcopy -O binary --only-section=.modinfo "$f" /dev/stdout | tr '\0' '\n' | sed -n 's/^depends=//p' | tr ',' ' '); do add_mod "$dep"; done
  order+=("$name"); cp "$f" "$r/lib/modules/"
}
for m in crc32_generic virtio_pci virtio_net rdma_rxe ib_uverbs; do add_mod "$m"; done
printf '%s\n' "${order[@]}" > "$r/lib/modules/order"
cp "$here/init" "$r/init"; chmod +x "$r/init"
(cd "$r" && find . | cpio -o -H newc --quiet | gzip -1) > "$out/base.cpio.gz"
cp "$work/x/boot/vmlinuz-$kver" "$out/vmlinuz"
echo "$stamp" > "$out/stamp"
echo "rxe-vm: $out/vmlinuz, $out/base.cpio.gz ($(du -h "$out/base.cpio.gz" | cut -f1))"
