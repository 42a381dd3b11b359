#!/usr/bin/env bash
# Install the tools nicgen needs: Verilator, Yosys, iverilog, tshark, scapy.
# Idempotent: each tool is installed only when missing.
set -euo pipefail
need_apt=()
command -v verilator >/dev/null 2>&1 || need_apt+=(verilator)
command -v yosys     >/dev/null 2>&1 || need_apt+=(yosys)
command -v iverilog  >/dev/null 2>&1 || need_apt+=(iverilog)
# the Vivado flow scripts are tested under tclsh with a stub of Vivado's commands
command -v tclsh     >/dev/null 2>&1 || need_apt+=(tcl)
command -v tshark    >/dev/null 2>&1 || need_apt+=(tshark)
command -v editcap   >/dev/null 2>&1 || need_apt+=(wireshark-common)
command -v g++       >/dev/null 2>&1 || need_apt+=(g++)
command -v make      >/dev/null 2>&1 || need_apt+=(make)
# the rxe peer VM (scripts/rxe-vm): QEMU, and cpio and binutils to assemble its initramfs
command -v qemu-system-x86_64 >/dev/null 2>&1 || need_apt+=(qemu-system-x86)
command -v cpio      >/dev/null 2>&1 || need_apt+=(cpio)
command -v objcopy   >/dev/null 2>&1 || need_apt+=(binutils)
command -v ip        >/dev/null 2>&1 || need_apt+=(iproute2)
command -v ping      >/dev/null 2>&1 || need_apt+=(iputils-ping)
# the bench plots label their axes with DejaVu Sans
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need_apt+=(fonts-dejavu-core)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  # tshark asks whether non-root users may capture: answer no, non-interactively
  echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections 2>/dev/null || true
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi
if ! python3 -c 'import scapy.contrib.roce' >/dev/null 2>&1; then
  echo "setup: installing scapy"
  python3 -m pip install -q 'scapy>=2.5' 
fi
if ! python3 -c 'import numpy' >/dev/null 2>&1; then
  echo "setup: installing numpy (the DPI training script)"
  python3 -m pip install -q numpy
fi
# the peer VM's kernel and initramfs, from Debian's packages (not committed)
bash "$(dirname "$0")/rxe-vm/build.sh"
echo "setup: verilator $(verilator --version | awk '{print $2}'), yosys $(yosys -V | awk '{print $2}'), iverilog $(iverilog -V 2>/dev/null | head -1 | awk '{print $4}'), tshark $(tshark --version | head -1 | awk '{print $3}'), scapy $(python3 -c 'import scapy; print(scapy.__version__)')"
