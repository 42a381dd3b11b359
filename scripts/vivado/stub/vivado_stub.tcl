# A stand-in for Vivado's Tcl commands, for testing the flow scripts under plain tclsh: each
# command records its call (one line: the command and its arguments) in $::stub_log and
# returns a plausible value. Usage:
#   tclsh scripts/vivado/stub/run.tcl <log file> <script.tcl> [script args ...]
set ::stub_calls {}
proc stub_record {name args} {
    lappend ::stub_calls [concat [list $name] $args]
}
foreach cmd {
    create_project set_property read_verilog read_xdc create_ip generate_target synth_ip
    synth_design opt_design place_design phys_opt_design route_design report_utilization
    report_timing_summary report_clock_interaction write_debug_probes
    open_hw_manager connect_hw_server open_hw_target current_hw_device refresh_hw_device
    program_hw_devices close_hw_target disconnect_hw_server close_hw_manager write_cfgmem
    create_hw_cfgmem create_hw_bitstream program_hw_cfgmem current_project
} {
    proc $cmd {args} "stub_record $cmd {*}\$args; return {}"
}
proc get_ips {args} { stub_record get_ips {*}$args; return [lindex $args end] }
proc get_hw_devices {args} { stub_record get_hw_devices {*}$args; return {xcu55c_0} }
proc get_cfgmem_parts {args} { stub_record get_cfgmem_parts {*}$args; return [lindex $args end] }
proc get_timing_paths {args} { stub_record get_timing_paths {*}$args; return {path_0} }
proc get_property {name obj} {
    stub_record get_property $name $obj
    switch -- $name {
        SLACK { return 0.123 }
        PROGRAM.HW_CFGMEM { return cfgmem_0 }
        PROGRAM.HW_CFGMEM_BITFILE { return bridge.bit }
        default { return {} }
    }
}
proc version {args} { return 2023.2 }
proc write_bitstream {args} {
    stub_record write_bitstream {*}$args
    set f [open [lindex $args end] w]
    puts $f stub-bitstream
    close $f
}
