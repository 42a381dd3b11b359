# Retransmission buffer, 2 of 3: 512-bit to 256-bit AXI4 (the HBM port width) at 450 MHz:
# 256 x 450 MHz = 115 Gb/s per direction, above the 100G copy stream.
create_ip -name axi_dwidth_converter -vendor xilinx.com -library ip -module_name axi_dw_rb -dir $ip_dir
set_property -dict [list \
  CONFIG.PROTOCOL {AXI4} \
  CONFIG.SI_DATA_WIDTH {512} \
  CONFIG.MI_DATA_WIDTH {256} \
  CONFIG.ADDR_WIDTH {34} \
  CONFIG.SI_ID_WIDTH {0} \
] [get_ips axi_dw_rb]
