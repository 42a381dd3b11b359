# Retransmission buffer, 1 of 3: 512-bit AXI4 from the core clock (250 MHz) to the HBM clock
# (450 MHz). No IDs: the engine keeps one ID and in-order completion.
create_ip -name axi_clock_converter -vendor xilinx.com -library ip -module_name axi_cc_rb -dir $ip_dir
set_property -dict [list \
  CONFIG.PROTOCOL {AXI4} \
  CONFIG.DATA_WIDTH {512} \
  CONFIG.ADDR_WIDTH {34} \
  CONFIG.ID_WIDTH {0} \
  CONFIG.ACLK_ASYNC {1} \
] [get_ips axi_cc_rb]
