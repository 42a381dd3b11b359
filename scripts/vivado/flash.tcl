# Write a bitstream to the U55C's configuration flash (persistent), after the golden image.
#   vivado -mode batch -source scripts/vivado/flash.tcl -tclargs <file.bit>
# The user image goes at 0x01002000 (the card's fallback/golden image below it is never
# erased: only the sectors the file covers are). Flash: mt25qu01g (1 Gb, SPI x4), 128 MB.
if {[llength $argv] < 1} {
    puts "usage: flash.tcl <file.bit>"
    exit 2
}
set bit [file normalize [lindex $argv 0]]
set mcs [file rootname $bit].mcs
set flash_part mt25qu01g-spi-x1_x2_x4
set user_offset 0x01002000
write_cfgmem -force -format mcs -size 128 -interface SPIx4 -loadbit "up $user_offset $bit" -file $mcs
source [file join [file dirname [file normalize [info script]]] hw_device.tcl]
create_hw_cfgmem -hw_device $dev [lindex [get_cfgmem_parts $flash_part] 0]
set cfg [get_property PROGRAM.HW_CFGMEM $dev]
set_property PROGRAM.ADDRESS_RANGE {use_file} $cfg
set_property PROGRAM.FILES [list $mcs] $cfg
set_property PROGRAM.PRM_FILE {} $cfg
set_property PROGRAM.UNUSED_PIN_TERMINATION {pull-none} $cfg
set_property PROGRAM.BLANK_CHECK 0 $cfg
set_property PROGRAM.ERASE 1 $cfg
set_property PROGRAM.CFG_PROGRAM 1 $cfg
set_property PROGRAM.VERIFY 1 $cfg
set_property PROGRAM.CHECKSUM 0 $cfg
# the flash is reached through a bridge bitstream loaded first
create_hw_bitstream -hw_device $dev [get_property PROGRAM.HW_CFGMEM_BITFILE $dev]
program_hw_devices $dev
refresh_hw_device $dev
program_hw_cfgmem -hw_cfgmem $cfg
puts "flash: $mcs written at $user_offset ($flash_part); power-cycle the card to boot it"
close_hw_target
disconnect_hw_server
close_hw_manager
