# tclsh scripts/vivado/stub/run.tcl <log file> <script.tcl> [args...]: run a flow script
# against the Vivado stub and write the recorded calls, one per line.
set log [lindex $argv 0]
set script [lindex $argv 1]
source [file join [file dirname [file normalize [info script]]] vivado_stub.tcl]
set argv [lrange $argv 2 end]
set argc [llength $argv]
set code [catch {source $script} err]
set f [open $log w]
foreach c $::stub_calls {
    puts $f $c
}
close $f
if {$code != 0} {
    puts stderr "script failed: $err"
    exit 1
}
