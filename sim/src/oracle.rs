//! Independent oracles driven from Rust: scapy (`scapy.contrib.roce`) for the ICRC and for
//! frames built the way another stack builds them, and tshark for field dissection.
use anyhow::{bail, Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub fn oracle_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("scripts").join("oracle").join("roce_oracle.py")
}

/// scapy's verdict on one frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScapyVerdict {
    Ok,
    Bad { expected: u32, found: u32 },
    NotRoce,
}

/// Ask scapy to check the ICRC of each frame (Ethernet, no FCS, ICRC at the end).
pub fn scapy_check(frames: &[Vec<u8>]) -> Result<Vec<ScapyVerdict>> {
    let mut child = Command::new("python3")
        .arg(oracle_script())
        .arg("check")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .context("starting python3 (run scripts/setup.sh)")?;
    {
        let mut stdin = child.stdin.take().unwrap();
        let mut s = String::new();
        for f in frames {
            for b in f {
                s += &format!("{b:02x}");
            }
            s.push('\n');
        }
        std::thread::spawn(move || stdin.write_all(s.as_bytes()));
    }
    let out = child.wait_with_output()?;
    if !out.status.success() {
        bail!("scapy oracle failed");
    }
    let text = String::from_utf8(out.stdout)?;
    let v: Vec<ScapyVerdict> = text
        .lines()
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            match w[0] {
                "ok" => ScapyVerdict::Ok,
                "bad" => ScapyVerdict::Bad { expected: u32::from_str_radix(w[1], 16).unwrap(), found: u32::from_str_radix(w[2], 16).unwrap() },
                _ => ScapyVerdict::NotRoce,
            }
        })
        .collect();
    if v.len() != frames.len() {
        bail!("scapy answered {} verdicts for {} frames", v.len(), frames.len());
    }
    Ok(v)
}

/// `n` random RoCEv2 RC frames (IPv4 and IPv6, every RC opcode) built by scapy.
pub fn scapy_build(n: usize, seed: u64) -> Result<Vec<Vec<u8>>> {
    let out = Command::new("python3")
        .arg(oracle_script())
        .args(["build", &n.to_string(), &seed.to_string()])
        .output()
        .context("starting python3 (run scripts/setup.sh)")?;
    if !out.status.success() {
        bail!("scapy build failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let text = String::from_utf8(out.stdout)?;
    text.lines()
        .map(|l| (0..l.len()).step_by(2).map(|i| u8::from_str_radix(&l[i..i + 2], 16).context("hex")).collect())
        .collect()
}

/// Frames built by scapy from JSON requests (see `roce_oracle.py request`), as another RoCE
/// stack would send them.
pub fn scapy_request(requests: &[String]) -> Result<Vec<Vec<u8>>> {
    use std::io::Write;
    let mut child = Command::new("python3")
        .arg(oracle_script())
        .arg("request")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .context("starting python3 (run scripts/setup.sh)")?;
    child.stdin.take().unwrap().write_all(requests.join("\n").as_bytes())?;
    let out = child.wait_with_output()?;
    if !out.status.success() {
        bail!("scapy request failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let text = String::from_utf8(out.stdout)?;
    text.lines()
        .map(|l| (0..l.len()).step_by(2).map(|i| u8::from_str_radix(&l[i..i + 2], 16).context("hex")).collect())
        .collect()
}

/// `tshark -r FILE -T fields -e F1 -e F2 …`: one row per frame, one column per field.
pub fn tshark_fields(pcap: &Path, fields: &[&str]) -> Result<Vec<Vec<String>>> {
    tshark_fields_opts(pcap, &[], fields)
}

/// [`tshark_fields`] with more tshark options first (`-o ip.check_checksum:TRUE`, say).
pub fn tshark_fields_opts(pcap: &Path, opts: &[&str], fields: &[&str]) -> Result<Vec<Vec<String>>> {
    let mut cmd = Command::new("tshark");
    cmd.arg("-r").arg(pcap).args(opts).args(["-T", "fields", "-E", "separator=/t", "-E", "occurrence=f"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().context("starting tshark (run scripts/setup.sh)")?;
    if !out.status.success() {
        bail!("tshark failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(String::from_utf8(out.stdout)?.lines().map(|l| l.split('\t').map(|s| s.to_string()).collect()).collect())
}
