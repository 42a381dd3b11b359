# 450 MHz for the HBM AXI port (its maximum), from the 100 MHz system clock.
create_ip -name clk_wiz -vendor xilinx.com -library ip -module_name clk_wiz_hbm -dir $ip_dir
set_property -dict [list \
  CONFIG.PRIM_IN_FREQ {100.000} \
  CONFIG.CLKOUT1_REQUESTED_OUT_FREQ {450.000} \
  CONFIG.USE_LOCKED {true} \
  CONFIG.USE_RESET {true} \
  CONFIG.RESET_TYPE {ACTIVE_HIGH} \
] [get_ips clk_wiz_hbm]
