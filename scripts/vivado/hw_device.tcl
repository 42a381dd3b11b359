# Shared by program.tcl and flash.tcl: connect to the hardware server (HW_SERVER_URL, default
# localhost:3121), open the JTAG target and select the U55C's FPGA. Sets `url` and `dev`.
set url localhost:3121
if {[info exists ::env(HW_SERVER_URL)] && $::env(HW_SERVER_URL) ne ""} {
    set url $::env(HW_SERVER_URL)
}
open_hw_manager
connect_hw_server -url $url
open_hw_target
set dev [lindex [get_hw_devices xcu55c*] 0]
if {$dev eq ""} {
    puts "no xcu55c device on $url"
    exit 1
}
current_hw_device $dev
