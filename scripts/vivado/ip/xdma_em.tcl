# XDMA for au55c_em: PCIe Gen3 x16, 512-bit AXI at 250 MHz (axi_aclk is the core clock),
# AXI-Stream H2C/C2H channel 0 (the host driver posts the descriptors: the host's frames),
# and an AXI4-Lite master on BAR0 (128 KiB: board_regs above 64 KiB).
# Sourced by build.tcl with ip_dir set.
create_ip -name xdma -vendor xilinx.com -library ip -module_name xdma_em -dir $ip_dir
set_property -dict [list \
  CONFIG.mode_selection {Advanced} \
  CONFIG.pcie_blk_locn {PCIE4C_X1Y0} \
  CONFIG.pl_link_cap_max_link_width {X16} \
  CONFIG.pl_link_cap_max_link_speed {8.0_GT/s} \
  CONFIG.axi_data_width {512_bit} \
  CONFIG.axisten_freq {250} \
  CONFIG.xdma_axi_intf_mm {AXI_Stream} \
  CONFIG.xdma_rnum_chnl {1} \
  CONFIG.xdma_wnum_chnl {1} \
  CONFIG.axilite_master_en {true} \
  CONFIG.axilite_master_size {128} \
  CONFIG.axilite_master_scale {Kilobytes} \
  CONFIG.pf0_device_id {903F} \
  CONFIG.pf0_msi_enabled {false} \
  CONFIG.cfg_mgmt_if {false} \
] [get_ips xdma_em]
