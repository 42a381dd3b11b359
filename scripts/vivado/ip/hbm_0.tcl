# HBM, both stacks (16 GB), 100 MHz reference and APB clocks. Only AXI port 00 (pseudo-channel
# 0, 512 MB) is used: the retransmission buffer. The switch is off, so port 00 reaches
# pseudo-channel 0 directly.
create_ip -name hbm -vendor xilinx.com -library ip -module_name hbm_0 -dir $ip_dir
set_property -dict [list \
  CONFIG.USER_HBM_DENSITY {16GB} \
  CONFIG.USER_HBM_STACK {2} \
  CONFIG.USER_HBM_REF_CLK_0 {100} \
  CONFIG.USER_HBM_REF_CLK_1 {100} \
  CONFIG.USER_APB_PCLK_0 {100} \
  CONFIG.USER_APB_PCLK_1 {100} \
  CONFIG.USER_APB_EN {false} \
  CONFIG.USER_AXI_CLK_FREQ {450} \
  CONFIG.USER_SWITCH_ENABLE_00 {FALSE} \
  CONFIG.USER_SWITCH_ENABLE_01 {FALSE} \
  CONFIG.USER_XSDB_INTF_EN {FALSE} \
] [get_ips hbm_0]
