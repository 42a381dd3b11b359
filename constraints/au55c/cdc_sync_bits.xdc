# Scoped to every instance of cdc_sync_bits_core: the input of the first ASYNC_REG stage comes
# from another clock domain (slow status levels); only its datapath delay matters.
set_false_path -to [get_cells {s1_reg[*]}]
