# Load a bitstream into the U55C over JTAG (volatile: lost at power cycle).
#   vivado -mode batch -source scripts/vivado/program.tcl -tclargs <file.bit>
# The hardware server is HW_SERVER_URL (host:port), or localhost:3121.
if {[llength $argv] < 1} {
    puts "usage: program.tcl <file.bit>"
    exit 2
}
set bit [file normalize [lindex $argv 0]]
source [file join [file dirname [file normalize [info script]]] hw_device.tcl]
refresh_hw_device -update_hw_probes false $dev
set_property PROGRAM.FILE $bit $dev
program_hw_devices $dev
refresh_hw_device $dev
puts "program: $bit loaded into $dev on $url"
close_hw_target
disconnect_hw_server
close_hw_manager
