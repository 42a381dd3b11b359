# Retransmission buffer, 3 of 3: AXI4 to AXI3 (HBM ports are AXI3: bursts of at most 16).
create_ip -name axi_protocol_converter -vendor xilinx.com -library ip -module_name axi_pc_rb -dir $ip_dir
set_property -dict [list \
  CONFIG.SI_PROTOCOL {AXI4} \
  CONFIG.MI_PROTOCOL {AXI3} \
  CONFIG.DATA_WIDTH {256} \
  CONFIG.ADDR_WIDTH {34} \
  CONFIG.ID_WIDTH {0} \
  CONFIG.TRANSLATION_MODE {2} \
] [get_ips axi_pc_rb]
