# Clocks. The 250 MHz core clock is XDMA's axi_aclk and the 322.266 MHz MAC clocks are the
# CMACs' gt_txusrclk2: the IP constrains both. Crossings between them are only through
# cdc_axis_fifo and cdc_sync_bits, constrained by their scoped files (cdc_*.xdc).

# 100 MHz system clock (SI5394 OUT3): HBM reference and APB, CMAC init/DRP, power-on reset
set_property -dict {PACKAGE_PIN BK10 IOSTANDARD LVDS} [get_ports clk100_p]
set_property -dict {PACKAGE_PIN BL10 IOSTANDARD LVDS} [get_ports clk100_n]
create_clock -period 10.000 -name clk100 [get_ports clk100_p]

# 100 MHz PCIe reference clock (lanes 8-15 quad, used for x16)
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_p]

# 161.1328125 MHz QSFP28 reference clocks (SI5394 OUT0/OUT1)
create_clock -period 6.206 -name qsfp0_refclk [get_ports qsfp0_refclk_p]
create_clock -period 6.206 -name qsfp1_refclk [get_ports -quiet qsfp1_refclk_p]
