# Load a bitstream into the U55C over JTAG (volatile: lost at power cycle).
#   vivado -mode batch -source scripts/vivado/program.tcl -tclargs <file.bit>
# The hardware server is HW_SERVER_URL (host:port), or localhost:3121.
if {[llength $argv] < 1} {
    puts "usage: program.tcl <file.bit>"
    exit 2
}
set bit [file normalize [lindex $argv 0]]
set url localhost:3121
if {[info exists ::env(HW_SERVER_URL)] && $::env(HW_SERVER_URL) ne ""} {
    set url $::env(HW_SERVER_URL)
}
open_hw_manager
connect_hw_server -url $url
open_hw_target
set dev [lindex [get_hw_devices xcu55c*] 0]
if {$dev eq ""} {
    puts "program: no xcu55c device on $url"
    exit 1
}
current_hw_device $dev
refresh_hw_device -update_hw_probes false $dev
set_property PROGRAM.FILE $bit $dev
program_hw_devices $dev
refresh_hw_device $dev
puts "program: $bit loaded into $dev on $url"
close_hw_target
disconnect_hw_server
close_hw_manager
