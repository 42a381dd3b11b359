# Batch build of one board top: synthesis, implementation, bitstream.
#   vivado -mode batch -source scripts/vivado/build.tcl -tclargs <gen/BOARD> <out dir> [jobs]
# Reads the generated Verilog (gen/BOARD/BOARD.f via board.tcl), creates the IP from
# scripts/vivado/ip/*.tcl, reads constraints/au55c/*.xdc (the CDC files scoped to their
# modules), stamps the build date and git hash into board_regs (BUILD_DATE, GIT_HASH), sets the
# EM board's M2M identity from NICGEN_EM_ID and NICGEN_M2M_MAC when given, writes
# utilization and timing reports, and copies the bitstream to revisions/.
if {[llength $argv] < 2} {
    puts "usage: build.tcl <gen/BOARD> <out dir> \[jobs\]"
    exit 2
}
set script_dir [file dirname [file normalize [info script]]]
set root [file normalize [file join $script_dir .. ..]]
set board_dir [file normalize [lindex $argv 0]]
set out_dir [file normalize [lindex $argv 1]]
set jobs [expr {[llength $argv] > 2 ? [lindex $argv 2] : 4}]
source [file join $board_dir board.tcl]
file mkdir $out_dir
set ip_dir [file join $out_dir ip]
file mkdir $ip_dir

# build stamp: YYYYMMDD as hex digits, and the first 8 hex digits of the commit
set build_date [clock format [clock seconds] -format %Y%m%d]
if {[catch {exec git -C $root rev-parse --short=8 HEAD} git_hash]} {
    set git_hash 00000000
}
puts "nicgen build: $board_name ($board_config) on $board_part, date $build_date, commit $git_hash"

create_project -in_memory -part $board_part
set_property target_language Verilog [current_project]
foreach f $board_files {
    read_verilog [file join $board_dir $f]
}
foreach ip $board_ips {
    source [file join $script_dir ip $ip.tcl]
}
foreach ip $board_ips {
    generate_target all [get_ips $ip]
    synth_ip [get_ips $ip]
}
foreach x $board_xdc {
    set f [file join $root constraints au55c $x]
    if {[string match cdc_* $x]} {
        # scoped: applies to every instance of the module, with cell names relative to it
        read_xdc -ref [file rootname $x]_core $f
    } else {
        read_xdc $f
    }
}

set generics [list -generic "BUILD_DATE=32'h$build_date" -generic "GIT_HASH=32'h$git_hash"]
# the EM board: its number in M2M messages and the MAC its M2M frames are sent to
# (NICGEN_EM_ID=3, NICGEN_M2M_MAC=02:4e:49:43:00:03)
if {$board_name eq "au55c_em"} {
    if {[info exists ::env(NICGEN_EM_ID)]} {
        lappend generics -generic "EM_ID=8'd$::env(NICGEN_EM_ID)"
    }
    if {[info exists ::env(NICGEN_M2M_MAC)]} {
        lappend generics -generic "M2M_MAC=48'h[string map {: {}} $::env(NICGEN_M2M_MAC)]"
    }
}
synth_design -top $board_name -part $board_part {*}$generics
report_utilization -file [file join $out_dir ${board_name}_utilization_synth.rpt]
opt_design
place_design
phys_opt_design
route_design
report_utilization -hierarchical -file [file join $out_dir ${board_name}_utilization.rpt]
report_timing_summary -max_paths 20 -file [file join $out_dir ${board_name}_timing.rpt]
report_clock_interaction -file [file join $out_dir ${board_name}_clocks.rpt]
set wns [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -setup]]
if {$wns < 0} {
    puts "nicgen build: WARNING: timing not met (WNS $wns ns), see ${board_name}_timing.rpt"
}
set bit [file join $out_dir $board_name.bit]
write_bitstream -force $bit
write_debug_probes -quiet -force [file join $out_dir $board_name.ltx]

# every bitstream is kept: revisions/BOARD_DATE_HASH.bit
set rev_dir [file join $root revisions]
if {[info exists ::env(NICGEN_REVISIONS)]} {
    set rev_dir $::env(NICGEN_REVISIONS)
}
file mkdir $rev_dir
set rev [file join $rev_dir ${board_name}_${build_date}_${git_hash}.bit]
file copy -force $bit $rev
puts "nicgen build: $bit (copy: $rev)"
