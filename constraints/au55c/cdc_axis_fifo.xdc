# Scoped to every instance of cdc_axis_fifo_core (read with SCOPED_TO_REF cdc_axis_fifo_core by
# scripts/vivado/build.tcl). Gray-coded pointers and the drop counter cross through ASYNC_REG
# pairs; the memory is written in the s_clock domain and read in the clock domain only after its
# pointer has crossed. Bound each crossing's datapath delay below the faster clock's period
# (322 MHz: 3.1 ns) and keep the Gray bits' skew below one period.
set_max_delay -datapath_only -from [get_cells {wcommit_g_reg[*]}] -to [get_cells {wc_g1_reg[*]}] 3.000
set_bus_skew -from [get_cells {wcommit_g_reg[*]}] -to [get_cells {wc_g1_reg[*]}] 3.000
set_max_delay -datapath_only -from [get_cells {rp_g_reg[*]}] -to [get_cells {rp_g_s1_reg[*]}] 3.000
set_bus_skew -from [get_cells {rp_g_reg[*]}] -to [get_cells {rp_g_s1_reg[*]}] 3.000
set_max_delay -datapath_only -from [get_cells {drops_g_reg[*]}] -to [get_cells {dr_g1_reg[*]}] 3.000
set_max_delay -datapath_only -from [get_cells -quiet {mem_reg*}] -to [get_cells {od_reg[*]}] 3.000
