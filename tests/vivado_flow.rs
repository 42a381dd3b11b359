//! The U55C flow without Vivado: the Tcl scripts run under `tclsh` against a stub of Vivado's
//! commands that records every call, and the constraints are checked against the board tops'
//! ports.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

const PART: &str = "xcu55c-fsvh2892-2L-e";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `nicgen verilog` into a fresh folder, once per test binary.
fn gen() -> PathBuf {
    static ONCE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ONCE.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("nicgen-vivado-gen-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        let out = Command::new(env!("CARGO_BIN_EXE_nicgen")).args(["verilog", "--out"]).arg(&d).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        d
    })
    .clone()
}

fn board(name: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(gen().join(name).join("board.json")).unwrap()).unwrap()
}

/// Run `script` under the stub: the recorded calls, one `Vec<String>` of words each.
fn run_stub(script: &str, args: &[&str], env: &[(&str, &str)]) -> Vec<Vec<String>> {
    let log = std::env::temp_dir().join(format!("nicgen-stub-{}-{}.log", script.replace('/', "_"), std::process::id()));
    let mut c = Command::new("tclsh");
    c.arg(root().join("scripts/vivado/stub/run.tcl")).arg(&log).arg(root().join("scripts/vivado").join(script)).args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("tclsh (scripts/setup.sh installs it)");
    assert!(out.status.success(), "{script}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| {
            // each line is a Tcl list: split on spaces outside braces
            let mut words = vec![];
            let (mut cur, mut depth) = (String::new(), 0);
            for ch in l.chars() {
                match ch {
                    '{' => {
                        if depth > 0 {
                            cur.push(ch);
                        }
                        depth += 1;
                    }
                    '}' => {
                        depth -= 1;
                        if depth > 0 {
                            cur.push(ch);
                        }
                    }
                    ' ' if depth == 0 => {
                        if !cur.is_empty() {
                            words.push(std::mem::take(&mut cur));
                        }
                    }
                    _ => cur.push(ch),
                }
            }
            if !cur.is_empty() {
                words.push(cur);
            }
            words
        })
        .collect()
}

fn calls<'a>(log: &'a [Vec<String>], cmd: &str) -> Vec<&'a Vec<String>> {
    log.iter().filter(|c| c[0] == cmd).collect()
}

/// The properties an IP script sets: CONFIG.x → value.
fn ip_props(log: &[Vec<String>], ip: &str) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for c in calls(log, "set_property") {
        if c.len() >= 4 && c[1] == "-dict" && c.last().unwrap() == ip {
            // the dict: `list a b c d` flattened by the recorder
            let d: Vec<&str> = c[2].split_whitespace().collect();
            for kv in d.chunks(2) {
                if kv.len() == 2 {
                    m.insert(kv[0].to_string(), kv[1].trim_matches(|ch| ch == '{' || ch == '}').to_string());
                }
            }
        }
    }
    m
}

#[test]
fn build_script_reads_everything_and_creates_the_ip() {
    for name in ["au55c100g", "au55c_em"] {
        let b = board(name);
        let out = std::env::temp_dir().join(format!("nicgen-vivado-out-{name}-{}", std::process::id()));
        let revs = out.join("revisions");
        let env = [("NICGEN_REVISIONS", revs.to_str().unwrap()), ("NICGEN_EM_ID", "3"), ("NICGEN_M2M_MAC", "02:4e:49:43:00:03")];
        let log = run_stub("build.tcl", &[gen().join(name).to_str().unwrap(), out.to_str().unwrap()], &env);
        // the part, everywhere
        let cp = calls(&log, "create_project");
        assert_eq!(cp.len(), 1);
        assert!(cp[0].windows(2).any(|w| w[0] == "-part" && w[1] == PART), "{:?}", cp[0]);
        let sd = calls(&log, "synth_design");
        assert_eq!(sd.len(), 1);
        assert!(sd[0].windows(2).any(|w| w[0] == "-part" && w[1] == PART));
        assert!(sd[0].windows(2).any(|w| w[0] == "-top" && w[1] == name));
        // the build stamp: BUILD_DATE and GIT_HASH generics
        let generics: Vec<&String> = sd[0].windows(2).filter(|w| w[0] == "-generic").map(|w| &w[1]).collect();
        assert!(generics.iter().any(|g| g.starts_with("BUILD_DATE=32'h2")), "{generics:?}");
        assert!(generics.iter().any(|g| g.starts_with("GIT_HASH=32'h") && g.len() == "GIT_HASH=32'h".len() + 8), "{generics:?}");
        // the EM board's M2M identity (parameters of its top), and only there
        let ident = generics.iter().filter(|g| g.starts_with("EM_ID=") || g.starts_with("M2M_MAC=")).count();
        if name == "au55c_em" {
            assert!(generics.contains(&&"EM_ID=8'd3".to_string()) && generics.contains(&&"M2M_MAC=48'h024e49430003".to_string()), "{generics:?}");
            let v = std::fs::read_to_string(gen().join(name).join(format!("{name}.v"))).unwrap();
            assert!(v.contains("parameter [7:0] EM_ID") && v.contains("parameter [47:0] M2M_MAC"));
        } else {
            assert_eq!(ident, 0, "{generics:?}");
        }
        // every generated Verilog file is read, and nothing else (no lint stubs)
        let read: BTreeSet<PathBuf> = calls(&log, "read_verilog").iter().map(|c| PathBuf::from(&c[1])).collect();
        let want: BTreeSet<PathBuf> = b["files"].as_array().unwrap().iter().map(|f| std::fs::canonicalize(gen().join(name).join(f.as_str().unwrap())).unwrap()).collect();
        let read: BTreeSet<PathBuf> = read.iter().map(|p| std::fs::canonicalize(p).unwrap()).collect();
        assert_eq!(read, want);
        assert!(want.iter().any(|p| p.ends_with(format!("{name}.v"))));
        // every constraint file is read; the CDC ones scoped to their module
        let xdc: Vec<&Vec<String>> = calls(&log, "read_xdc");
        for x in b["xdc"].as_array().unwrap() {
            let x = x.as_str().unwrap();
            let c = xdc.iter().find(|c| c.last().unwrap().ends_with(&format!("constraints/au55c/{x}"))).unwrap_or_else(|| panic!("{name}: {x} not read"));
            assert!(Path::new(c.last().unwrap()).exists(), "{x} missing");
            if x.starts_with("cdc_") {
                assert_eq!(c[1..3], ["-ref".to_string(), format!("{}_core", x.trim_end_matches(".xdc"))]);
            }
        }
        // every IP created from its script, generated and synthesized
        for ip in b["ips"].as_array().unwrap() {
            let ip = ip.as_str().unwrap();
            assert!(calls(&log, "create_ip").iter().any(|c| c.windows(2).any(|w| w[0] == "-module_name" && w[1] == ip)), "{ip} not created");
            assert!(calls(&log, "synth_ip").iter().any(|c| c[1] == ip), "{ip} not synthesized");
        }
        // reports, bitstream, and its copy in revisions/
        assert_eq!(calls(&log, "report_timing_summary").len(), 1);
        assert_eq!(calls(&log, "report_utilization").len(), 2);
        assert_eq!(calls(&log, "write_bitstream").len(), 1);
        let kept: Vec<_> = std::fs::read_dir(&revs).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        assert!(kept.len() == 1 && kept[0].starts_with(&format!("{name}_2")) && kept[0].ends_with(".bit"), "{kept:?}");
        // the intended IP properties
        if name == "au55c100g" {
            let x = ip_props(&log, "xdma_0");
            for (k, v) in [("pl_link_cap_max_link_width", "X16"), ("pl_link_cap_max_link_speed", "8.0_GT/s"), ("axi_data_width", "512_bit"), ("axisten_freq", "250"), ("xdma_axi_intf_mm", "AXI_Stream"), ("dsc_bypass_rd", "0001"), ("dsc_bypass_wr", "0001"), ("axilite_master_en", "true")] {
                assert_eq!(x.get(&format!("CONFIG.{k}")).map(|s| s.as_str()), Some(v), "xdma_0 {k}");
            }
            let h = ip_props(&log, "hbm_0");
            assert_eq!(h.get("CONFIG.USER_HBM_DENSITY").map(|s| s.as_str()), Some("16GB"));
        }
        for q in 0..if name == "au55c_em" { 2 } else { 1 } {
            let c = ip_props(&log, &format!("cmac_usplus_{q}"));
            for (k, v) in [("CMAC_CAUI4_MODE", "1"), ("GT_REF_CLK_FREQ", "161.1328125"), ("USER_INTERFACE", "AXIS"), ("INCLUDE_RS_FEC", "1"), ("CMAC_CORE_SELECT", ["CMACE4_X0Y3", "CMACE4_X0Y4"][q]), ("GT_GROUP_SELECT", ["X0Y24~X0Y27", "X0Y28~X0Y31"][q])] {
                assert_eq!(c.get(&format!("CONFIG.{k}")).map(|s| s.as_str()), Some(v), "cmac_usplus_{q} {k}");
            }
        }
    }
}

#[test]
fn program_and_flash_scripts() {
    let log = run_stub("program.tcl", &["/tmp/x.bit"], &[("HW_SERVER_URL", "lab-host:3121")]);
    let c = calls(&log, "connect_hw_server");
    assert_eq!(c[0][1..], ["-url".to_string(), "lab-host:3121".into()]);
    assert!(calls(&log, "set_property").iter().any(|c| c[1] == "PROGRAM.FILE" && c[2] == "/tmp/x.bit"));
    assert_eq!(calls(&log, "program_hw_devices").len(), 1);
    assert!(calls(&log, "get_hw_devices").iter().any(|c| c[1] == "xcu55c*"));
    // without HW_SERVER_URL: the local server
    let log = run_stub("program.tcl", &["/tmp/x.bit"], &[("HW_SERVER_URL", "")]);
    assert_eq!(calls(&log, "connect_hw_server")[0][2], "localhost:3121");

    let log = run_stub("flash.tcl", &["/tmp/x.bit"], &[]);
    let w = calls(&log, "write_cfgmem");
    assert_eq!(w.len(), 1);
    let a = &w[0];
    let opt = |k: &str| a.windows(2).find(|x| x[0] == k).map(|x| x[1].clone()).unwrap();
    assert_eq!(opt("-size"), "128");
    assert_eq!(opt("-interface"), "SPIx4");
    assert_eq!(opt("-format"), "mcs");
    assert_eq!(opt("-loadbit"), "up 0x01002000 /tmp/x.bit", "user image after the golden one");
    assert!(calls(&log, "get_cfgmem_parts").iter().any(|c| c[1] == "mt25qu01g-spi-x1_x2_x4"));
    let props: BTreeMap<String, String> = calls(&log, "set_property").iter().filter(|c| c.len() == 4).map(|c| (c[1].clone(), c[2].clone())).collect();
    // only the sectors the file covers are erased: the golden image at 0 is untouched
    assert_eq!(props["PROGRAM.ADDRESS_RANGE"], "use_file");
    assert_eq!(props["PROGRAM.ERASE"], "1");
    assert_eq!(props["PROGRAM.CFG_PROGRAM"], "1");
    assert_eq!(props["PROGRAM.VERIFY"], "1");
    assert_eq!(calls(&log, "program_hw_cfgmem").len(), 1);
}

/// Port bits → (has a LOC/PACKAGE_PIN, has an IOSTANDARD), and the ports with a create_clock.
fn constraints(files: &[&str]) -> (BTreeMap<String, (bool, bool)>, BTreeSet<String>) {
    let mut pins: BTreeMap<String, (bool, bool)> = BTreeMap::new();
    let mut clocks = BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(root().join("constraints/au55c").join(f)).unwrap();
        for line in text.lines().map(|l| l.split(";#").next().unwrap().trim()).filter(|l| !l.starts_with('#')) {
            let Some(at) = line.find("[get_ports") else { continue };
            let rest = &line[at + "[get_ports".len()..];
            let inner = rest.trim_end();
            let inner = inner.strip_suffix(']').unwrap_or(inner);
            let names: Vec<String> = inner
                .trim_start()
                .trim_start_matches("-quiet")
                .split(|c: char| c == '{' || c == '}' || c.is_whitespace())
                .filter(|s| !s.is_empty())
                .map(|s| s.to_string())
                .collect();
            let head = &line[..at];
            for n in names {
                if head.starts_with("create_clock") {
                    clocks.insert(n.clone());
                }
                let e = pins.entry(n).or_default();
                e.0 |= head.contains("PACKAGE_PIN") || head.contains("LOC ");
                e.1 |= head.contains("IOSTANDARD");
            }
        }
    }
    (pins, clocks)
}

#[test]
fn every_board_port_is_constrained() {
    for name in ["au55c100g", "au55c_em"] {
        let b = board(name);
        let files: Vec<&str> = b["xdc"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).filter(|x| !x.starts_with("cdc_")).collect();
        let (pins, clocks) = constraints(&files);
        let mut checked = 0;
        for p in b["ports"].as_array().unwrap() {
            let (n, w, kind) = (p["name"].as_str().unwrap(), p["width"].as_u64().unwrap(), p["kind"].as_str().unwrap());
            for i in 0..w {
                let bit = if w > 1 { format!("{n}[{i}]") } else { n.to_string() };
                let (loc, iostd) = pins.get(&bit).copied().unwrap_or_default();
                assert!(loc, "{name}: {bit} has no LOC");
                if kind == "io" || kind == "diff_clock" {
                    assert!(iostd, "{name}: {bit} has no IOSTANDARD");
                }
                checked += 1;
            }
            if (kind == "gt_refclk" || kind == "diff_clock") && n.ends_with("_p") {
                assert!(clocks.contains(n), "{name}: clock {n} has no create_clock");
            }
        }
        assert!(checked > 60, "{name}: {checked} port bits");
        // and no constraint names a port the top does not have (a typo would silently do nothing)
        let ports: BTreeSet<String> = b["ports"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|p| {
                let (n, w) = (p["name"].as_str().unwrap().to_string(), p["width"].as_u64().unwrap());
                (0..w).map(move |i| if w > 1 { format!("{n}[{i}]") } else { n.clone() })
            })
            .collect();
        for (p, _) in pins.iter().filter(|(p, _)| !p.contains('*')) {
            let optional = p.starts_with("qsfp1") && name == "au55c100g";
            assert!(ports.contains(p) || optional, "{name}: constraint for unknown port {p}");
        }
    }
}

/// The scoped CDC constraints name cells that exist in the module they are scoped to.
#[test]
fn cdc_constraints_name_real_registers() {
    for (m, x) in [("cdc_axis_fifo", "cdc_axis_fifo.xdc"), ("cdc_sync_bits", "cdc_sync_bits.xdc")] {
        let v = std::fs::read_to_string(gen().join(m).join(format!("{m}_core.v"))).unwrap();
        let text = std::fs::read_to_string(root().join("constraints/au55c").join(x)).unwrap();
        let mut n = 0;
        for cell in text.split("get_cells").skip(1) {
            let name = cell.split(['{', '}', ']']).find(|s| s.contains("_reg")).unwrap().trim().trim_start_matches("-quiet").trim();
            let reg = name.split("_reg").next().unwrap();
            assert!(v.contains(&format!(" {reg};")) || v.contains(&format!(" {reg},")) || v.contains(&format!(", {reg};")) || v.contains(&format!(" {reg} [")), "{x}: no register {reg} in {m}_core");
            n += 1;
        }
        assert!(n > 0);
        assert!(v.contains("ASYNC_REG"), "{m}: synchronizers must carry ASYNC_REG");
    }
}
