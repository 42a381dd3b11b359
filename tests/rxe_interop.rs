//! The engine against Linux Soft-RoCE (rxe) and perftest, a RoCE stack we did not write.
//!
//! Each test builds a lab (`scripts/rxe-vm/lab.sh`: a network namespace, a bridge, a TAP for
//! the VM and one for the card), boots Debian's kernel with rxe under QEMU on one TAP
//! (`scripts/rxe-vm/run.sh`) and runs `nicgen perf` on the other. perftest runs with `-u 20`
//! (a 4 s local ACK timeout) because the card is simulated: it answers in wall time about
//! 4,000 times slower than a real one. Each test checks what perftest printed, rxe's own
//! counters, nicgen's counters and data check, and the capture (tshark must decode every frame
//! without an error; `nicgen pcap check` must find every ICRC good).
//!
//! Nothing here is skipped: without root, /dev/net/tun, QEMU or the VM the tests fail and say
//! why (`make test` builds the VM through scripts/setup.sh).
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const HOST: &str = "10.9.0.254";
const VM_IP: &str = "10.9.0.1";
const CARD_IP: &str = "10.9.0.2";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A network namespace with the lab in it, removed on drop.
struct Lab {
    ns: String,
    dir: PathBuf,
    _turn: std::sync::MutexGuard<'static, ()>,
}

/// One lab at a time: two guests and two twins at once on two cores would slow the card's
/// answers towards the peer's timeout.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl Lab {
    fn new(name: &str) -> Lab {
        let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
        let r = root();
        assert!(Path::new("/dev/net/tun").exists(), "no /dev/net/tun: the interop tests need TAP devices");
        let uid = Command::new("id").arg("-u").output().expect("id");
        assert_eq!(String::from_utf8_lossy(&uid.stdout).trim(), "0", "the interop tests create network namespaces and need root");
        assert!(r.join("target/rxe-vm/vmlinuz").exists(), "no rxe peer VM in target/rxe-vm: run scripts/setup.sh (it runs scripts/rxe-vm/build.sh)");
        let ns = format!("nicgen-{name}-{}", std::process::id());
        let lab = r.join("scripts/rxe-vm/lab.sh");
        let _ = Command::new(&lab).args(["down", &ns]).status();
        let st = Command::new(&lab).args(["up", &ns]).status().expect("lab.sh");
        assert!(st.success(), "lab.sh up {ns} failed");
        let dir = std::env::temp_dir().join(&ns);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Lab { ns, dir, _turn: turn }
    }
    /// Boot the VM with `job` (a shell script run once rxe0 is up), in the background.
    fn vm(&self, job: &str) -> Child {
        let jf = self.dir.join("job.sh");
        let full = format!("ip link set eth0 mtu 9000\n{job}\necho \"perftest exit $?\"\ncd /sys/class/infiniband/rxe0/ports/1/hw_counters && for f in *; do echo \"rxe-counter $f $(cat $f)\"; done\n");
        std::fs::write(&jf, full).unwrap();
        let log = std::fs::File::create(self.dir.join("vm.log")).unwrap();
        Command::new(root().join("scripts/rxe-vm/run.sh"))
            .args(["--netns", &self.ns, "--tap", "tapv", "--ip", &format!("{VM_IP}/24"), "--timeout", "300", "--job"])
            .arg(&jf)
            .stdout(Stdio::from(log.try_clone().unwrap()))
            .stderr(Stdio::from(log))
            .spawn()
            .expect("run.sh")
    }
    /// `nicgen perf ARGS` in the namespace on the card's TAP, in the background.
    fn perf(&self, args: &[&str]) -> Child {
        let log = std::fs::File::create(self.dir.join("perf.log")).unwrap();
        Command::new("ip")
            .args(["netns", "exec", &self.ns, env!("CARGO_BIN_EXE_nicgen"), "perf"])
            .args(args)
            .args(["--iface", "tapt", "--ip", CARD_IP, "--wall", "240", "--pcap"])
            .arg(self.dir.join("wire.pcap"))
            .env("RUST_BACKTRACE", "0")
            .stdout(Stdio::from(log.try_clone().unwrap()))
            .stderr(Stdio::from(log))
            .spawn()
            .expect("nicgen perf")
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        let _ = Command::new(root().join("scripts/rxe-vm/lab.sh")).args(["down", &self.ns]).status();
    }
}

fn wait(c: &mut Child, limit: Duration, what: &str) -> bool {
    let t0 = Instant::now();
    loop {
        if let Some(s) = c.try_wait().unwrap() {
            return s.success();
        }
        if t0.elapsed() > limit {
            let _ = c.kill();
            let _ = c.wait();
            panic!("{what} still running after {} s", limit.as_secs());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// What one run left behind.
struct Outcome {
    vm: String,
    perf: String,
    rxe: HashMap<String, u64>,
    engine: HashMap<String, u64>,
    checked: u64,
}

impl Outcome {
    fn dump(&self) -> String {
        format!("--- VM ---\n{}\n--- nicgen perf ---\n{}", self.vm, self.perf)
    }
    fn rxe(&self, n: &str) -> u64 {
        *self.rxe.get(n).unwrap_or_else(|| panic!("no rxe counter {n}\n{}", self.dump()))
    }
    fn engine(&self, n: &str) -> u64 {
        self.engine.get(n).copied().unwrap_or(0)
    }
    /// No retransmission and no timeout on either side.
    fn assert_clean(&self) {
        for c in ["retry_exceeded_err", "rcvd_seq_err", "duplicate_request", "rnr_nak_retry_err", "completer_retry_err", "out_of_seq_request", "rcvd_rnr_err", "send_err"] {
            if self.rxe.contains_key(c) {
                assert_eq!(self.rxe(c), 0, "rxe counter {c}\n{}", self.dump());
            }
        }
        for c in ["tx_retransmits", "req_timeouts", "req_nak_seq", "resp_duplicate", "resp_psn_out_of_window", "rx_drop_overflow", "resp_naks"] {
            assert_eq!(self.engine(c), 0, "nicgen counter {c}\n{}", self.dump());
        }
    }
}

/// Run a VM job and `nicgen perf` side by side. `vm_first`: the VM is perftest's server (it
/// must listen before nicgen connects; nicgen retries the connection meanwhile).
fn interop(lab: &Lab, vm_job: &str, perf_args: &[&str]) -> Outcome {
    let mut perf = lab.perf(perf_args);
    let mut vm = lab.vm(vm_job);
    let perf_ok = wait(&mut perf, Duration::from_secs(280), "nicgen perf");
    let _ = wait(&mut vm, Duration::from_secs(320), "the rxe VM");
    let vm_log = std::fs::read_to_string(lab.dir.join("vm.log")).unwrap_or_default();
    let perf_log = std::fs::read_to_string(lab.dir.join("perf.log")).unwrap_or_default();
    let rxe = vm_log
        .lines()
        .filter_map(|l| l.strip_prefix("rxe-counter "))
        .filter_map(|l| l.split_once(' ').and_then(|(n, v)| Some((n.to_string(), v.trim().parse().ok()?))))
        .collect();
    let engine = perf_log
        .lines()
        .find_map(|l| l.strip_prefix("engine counters: "))
        .map(|l| l.split(", ").filter_map(|x| x.rsplit_once(' ').and_then(|(n, v)| Some((n.to_string(), v.parse().ok()?)))).collect())
        .unwrap_or_default();
    let checked = perf_log.split(" bytes checked").next().and_then(|s| s.rsplit("; ").next()).and_then(|s| s.trim().parse().ok()).unwrap_or(0);
    let o = Outcome { vm: vm_log, perf: perf_log, rxe, engine, checked };
    assert!(perf_ok, "nicgen perf failed\n{}", o.dump());
    assert!(o.vm.contains("perftest exit 0"), "perftest failed in the VM\n{}", o.dump());
    check_capture(&lab.dir.join("wire.pcap"), &o);
    o
}

/// tshark decodes every frame without an error; every ICRC is good by `nicgen pcap check`.
fn check_capture(pcap: &Path, o: &Outcome) {
    let t = Command::new("tshark").arg("-r").arg(pcap).args(["-Y", "_ws.malformed || _ws.expert.severity >= \"Error\""]).output().expect("tshark");
    let bad = String::from_utf8_lossy(&t.stdout);
    assert!(t.status.success() && bad.trim().is_empty(), "tshark finds errors in the capture:\n{bad}\n{}", o.dump());
    let c = Command::new(env!("CARGO_BIN_EXE_nicgen")).args(["pcap", "check"]).arg(pcap).output().expect("nicgen pcap check");
    let text = String::from_utf8_lossy(&c.stdout);
    assert!(c.status.success() && text.contains(" 0 bad"), "pcap check:\n{text}\n{}", o.dump());
}

fn perftest_line(o: &Outcome, size: usize) -> String {
    o.vm.lines().find(|l| l.trim_start().starts_with(&size.to_string())).unwrap_or_else(|| panic!("no result line for {size} B\n{}", o.dump())).to_string()
}

#[test]
fn ib_write_bw_from_rxe_into_nicgen_4k_mtu_two_qps() {
    let lab = Lab::new("wsrv");
    let o = interop(&lab, &format!("sleep 2; ib_write_bw -d rxe0 -x 1 -F -u 20 -m 4096 -q 2 -s 65536 -n 20 {HOST}"), &["write", "--server", "--qps", "2", "--size", "65536", "--iters", "20"]);
    println!("{}\n{}", perftest_line(&o, 65536), o.perf);
    o.assert_clean();
    assert!(o.perf.contains("MTU 4096"), "{}", o.dump());
    assert_eq!(o.engine("resp_writes"), 2 * 20 * 16, "{}", o.dump());
    // perftest writes every QP's data to QP 0's address: the last write of each of those
    // 64 KiB is checked
    assert_eq!(o.checked, 65536, "{}", o.dump());
}

/// nicgen's requester against rxe's responder, which ACKs only packets that ask: a 256 KiB
/// WRITE is 64 packets, four windows of 16. Without AckReq inside a message every window
/// would wait for the whole ACK timeout (about 75 s of wall time at timeout 12), and this
/// test would run out of time.
#[test]
fn ib_write_bw_from_nicgen_into_rxe_long_messages() {
    let lab = Lab::new("wcli");
    let o = interop(&lab, "ib_write_bw -d rxe0 -x 1 -F -u 20 -m 4096 -q 2 -s 262144 -n 5", &["write", VM_IP, "--qps", "2", "--size", "262144", "--iters", "5"]);
    println!("{}\n{}", perftest_line(&o, 262144), o.perf);
    o.assert_clean();
    assert_eq!(o.engine("req_completions"), 10, "{}", o.dump());
    assert_eq!(o.rxe("rcvd_pkts"), 2 * 5 * 64, "{}", o.dump());
    assert_eq!(o.checked, 2 * 5 * 262144, "{}", o.dump());
}

/// READ both ways at 1 KiB MTU with a message size that is no power of two.
#[test]
fn ib_read_bw_both_ways_1k_mtu_odd_size() {
    let size = 10_000;
    let lab = Lab::new("rsrv");
    let o = interop(&lab, &format!("sleep 2; ib_read_bw -d rxe0 -x 1 -F -u 20 -m 1024 -q 2 -s {size} -n 10 {HOST}"), &["read", "--server", "--qps", "2", "--size", &size.to_string(), "--iters", "10", "--mtu", "1024"]);
    println!("{}\n{}", perftest_line(&o, size), o.perf);
    o.assert_clean();
    assert!(o.perf.contains("MTU 1024"), "{}", o.dump());
    assert_eq!(o.engine("resp_reads"), 2 * 10, "{}", o.dump());
    assert_eq!(o.checked, 2 * 10 * size as u64, "{}", o.dump());
    drop(lab);
    let lab = Lab::new("rcli");
    let o = interop(&lab, &format!("ib_read_bw -d rxe0 -x 1 -F -u 20 -m 1024 -q 2 -s {size} -n 10"), &["read", VM_IP, "--qps", "2", "--size", &size.to_string(), "--iters", "10", "--mtu", "1024"]);
    println!("{}\n{}", perftest_line(&o, size), o.perf);
    o.assert_clean();
    assert_eq!(o.engine("req_completions"), 20, "{}", o.dump());
    assert_eq!(o.checked, 2 * 10 * size as u64, "{}", o.dump());
}

/// The latency tests with the card as server: `ib_write_lat` (each side WRITEs in turn, the
/// card answering each of the peer's WRITEs) and `ib_read_lat`.
#[test]
fn ib_write_lat_and_ib_read_lat_complete() {
    let (size, iters) = (64, 50);
    let lab = Lab::new("wlat");
    let o = interop(&lab, &format!("sleep 2; ib_write_lat -d rxe0 -x 1 -F -u 20 -s {size} -n {iters} {HOST}"), &["write", "--server", "--lat", "--size", &size.to_string(), "--iters", &iters.to_string()]);
    println!("{}\n{}", perftest_line(&o, size), o.perf);
    o.assert_clean();
    assert_eq!(o.engine("resp_writes"), iters as u64, "{}", o.dump());
    assert_eq!(o.engine("req_completions"), iters as u64, "{}", o.dump());
    drop(lab);
    let lab = Lab::new("rlat");
    let o = interop(&lab, &format!("sleep 2; ib_read_lat -d rxe0 -x 1 -F -u 20 -s {size} -n {iters} {HOST}"), &["read", "--server", "--lat", "--size", &size.to_string(), "--iters", &iters.to_string()]);
    println!("{}\n{}", perftest_line(&o, size), o.perf);
    o.assert_clean();
    assert_eq!(o.engine("resp_reads"), iters as u64, "{}", o.dump());
    assert_eq!(o.checked, (iters * size) as u64, "{}", o.dump());
}

/// The latency tests with the card as client: `ib_write_lat` (the server in the VM WRITEs
/// first, the card answers each WRITE) and `ib_read_lat` (the card READs, one at a time).
#[test]
fn ib_write_lat_and_ib_read_lat_with_the_card_as_client() {
    let (size, iters) = (64, 20);
    let lab = Lab::new("wlatc");
    let o = interop(&lab, &format!("ib_write_lat -d rxe0 -x 1 -F -u 20 -s {size} -n {iters}"), &["write", VM_IP, "--lat", "--size", &size.to_string(), "--iters", &iters.to_string()]);
    println!("{}\n{}", perftest_line(&o, size), o.perf);
    o.assert_clean();
    assert!(o.perf.contains("latency (simulated, mean)"), "{}", o.dump());
    assert_eq!(o.engine("resp_writes"), iters as u64, "{}", o.dump());
    assert_eq!(o.engine("req_completions"), iters as u64, "{}", o.dump());
    drop(lab);
    let lab = Lab::new("rlatc");
    let o = interop(&lab, &format!("ib_read_lat -d rxe0 -x 1 -F -u 20 -s {size} -n {iters}"), &["read", VM_IP, "--lat", "--size", &size.to_string(), "--iters", &iters.to_string()]);
    // read_lat's server prints no figures: the card, its client, does
    println!("{}", o.perf);
    o.assert_clean();
    assert_eq!(o.engine("req_completions"), iters as u64, "{}", o.dump());
    assert_eq!(o.checked, (iters * size) as u64, "{}", o.dump());
}

/// SEND both ways at 1 KiB MTU, 2 QPs, a size that is no power of two: `ib_send_bw` from rxe
/// into the card (which keeps 16 RECVs posted per QP and posts another as each fills), then
/// from the card into rxe's posted RECVs. Every RECV completes with the message's length, and
/// every byte is checked against the wire.
#[test]
fn ib_send_bw_both_ways_two_qps() {
    let (size, iters) = (10_000, 20);
    let lab = Lab::new("ssrv");
    let o = interop(&lab, &format!("sleep 2; ib_send_bw -d rxe0 -x 1 -F -u 20 -m 1024 -q 2 -s {size} -n {iters} {HOST}"), &["send", "--server", "--qps", "2", "--size", &size.to_string(), "--iters", &iters.to_string(), "--mtu", "1024"]);
    println!("{}\n{}", perftest_line(&o, size), o.perf);
    o.assert_clean();
    assert!(o.perf.contains(&format!("receive completions: {}", 2 * iters)), "{}", o.dump());
    assert_eq!(o.engine("resp_sends"), (2 * iters * size.div_ceil(1024)) as u64, "{}", o.dump());
    assert_eq!(o.checked, (2 * iters * size) as u64, "{}", o.dump());
    drop(lab);
    let lab = Lab::new("scli");
    let o = interop(&lab, &format!("ib_send_bw -d rxe0 -x 1 -F -u 20 -m 1024 -q 2 -s {size} -n {iters}"), &["send", VM_IP, "--qps", "2", "--size", &size.to_string(), "--iters", &iters.to_string(), "--mtu", "1024"]);
    println!("{}\n{}", perftest_line(&o, size), o.perf);
    o.assert_clean();
    assert_eq!(o.engine("req_completions"), 2 * iters as u64, "{}", o.dump());
    assert_eq!(o.checked, (2 * iters * size) as u64, "{}", o.dump());
}

/// `ib_send_lat` both ways: each side SENDs its n-th message once the other's n-th has filled
/// one of its RECVs.
#[test]
fn ib_send_lat_both_ways() {
    let (size, iters) = (64, 20);
    let lab = Lab::new("slat");
    let o = interop(&lab, &format!("sleep 2; ib_send_lat -d rxe0 -x 1 -F -u 20 -s {size} -n {iters} {HOST}"), &["send", "--server", "--lat", "--size", &size.to_string(), "--iters", &iters.to_string()]);
    println!("{}\n{}", perftest_line(&o, size), o.perf);
    o.assert_clean();
    assert!(o.perf.contains(&format!("receive completions: {iters}")), "{}", o.dump());
    assert_eq!(o.engine("req_completions"), iters as u64, "{}", o.dump());
    drop(lab);
    let lab = Lab::new("slatc");
    let o = interop(&lab, &format!("ib_send_lat -d rxe0 -x 1 -F -u 20 -s {size} -n {iters}"), &["send", VM_IP, "--lat", "--size", &size.to_string(), "--iters", &iters.to_string()]);
    println!("{}", o.perf);
    o.assert_clean();
    assert!(o.perf.contains("latency (simulated, mean)"), "{}", o.dump());
    assert!(o.perf.contains(&format!("receive completions: {iters}")), "{}", o.dump());
    assert_eq!(o.engine("req_completions"), iters as u64, "{}", o.dump());
}

/// 1% of the RoCE frames dropped at the card's side of the TAP, both ways: both stacks
/// recover, and every byte arrives.
#[test]
fn lossy_link_both_stacks_recover() {
    let lab = Lab::new("loss");
    let o = interop(&lab, &format!("sleep 2; ib_write_bw -d rxe0 -x 1 -F -u 20 -m 4096 -s 65536 -n 40 {HOST}"), &["write", "--server", "--size", "65536", "--iters", "40", "--loss", "1", "--seed", "3"]);
    println!("{}\n{}", perftest_line(&o, 65536), o.perf);
    let lost: u64 = ["lost_in", "lost_out"].iter().map(|k| o.perf.split(&format!("{k}: ")).nth(1).and_then(|s| s.split([',', ' ']).next()).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0)).sum();
    assert!(lost > 0, "the loss model dropped nothing\n{}", o.dump());
    assert_eq!(o.checked, 65536, "{}", o.dump());
    println!("lost {lost}; rxe: completer_retry_err {} rcvd_seq_err {}; nicgen: resp_naks {} resp_duplicate {}", o.rxe("completer_retry_err"), o.rxe("rcvd_seq_err"), o.engine("resp_naks"), o.engine("resp_duplicate"));
}

/// perftest's key message, as perftest 6.06 sent it from rxe (QPN 0x11), decoded and encoded
/// again byte for byte.
#[test]
fn perftest_key_message_round_trip() {
    use nicgen_scenario::perftest::{mtu_code, Dest};
    let wire = b"0000:0001:000011:42b470:0000024f:00007f03f669a000:00:00:00:00:00:00:00:00:00:00:ff:ff:0a:09:00:02:00000000:";
    let mut m = [0u8; 108];
    m[..wire.len()].copy_from_slice(wire);
    let d = Dest::decode(&m).unwrap();
    assert_eq!((d.qpn, d.psn, d.rkey, d.vaddr, d.out_reads), (0x11, 0x42b470, 0x24f, 0x7f03f669a000, 1));
    assert_eq!(d.ipv4(), Some(std::net::Ipv4Addr::new(10, 9, 0, 2)));
    assert_eq!(d.encode(), m);
    assert_eq!((mtu_code(1024), mtu_code(4096)), (3, 5));
}

/// The card answers ARP and ICMP echo: the namespace's own kernel (its bridge, 10.9.0.254)
/// resolves the card's MAC and pings it, with 56 and with 1400 bytes of payload, while
/// `nicgen perf` waits for a client.
#[test]
fn linux_resolves_and_pings_the_card() {
    let lab = Lab::new("ping");
    let mut perf = lab.perf(&["write", "--server", "--size", "64", "--iters", "1"]);
    let t0 = Instant::now();
    let mut ok = false;
    let mut last = String::new();
    // the twin takes a few seconds to build or load its model before it answers
    while t0.elapsed() < Duration::from_secs(120) && !ok {
        let p = Command::new("ip").args(["netns", "exec", &lab.ns, "ping", "-c", "3", "-i", "0.3", "-W", "2", CARD_IP]).output().expect("ping");
        last = String::from_utf8_lossy(&p.stdout).to_string();
        ok = p.status.success() && last.contains("3 received");
    }
    // a 1,442-byte frame: 23 beats through the echo FIFO, the kernel checks the reply's checksum
    let big = Command::new("ip").args(["netns", "exec", &lab.ns, "ping", "-c", "2", "-i", "0.3", "-W", "5", "-s", "1400", "-p", "a5", CARD_IP]).output().expect("ping");
    let big_out = String::from_utf8_lossy(&big.stdout).to_string();
    let neigh = Command::new("ip").args(["netns", "exec", &lab.ns, "ip", "neigh", "show", CARD_IP]).output().expect("ip neigh");
    let _ = perf.kill();
    let _ = perf.wait();
    assert!(ok, "ping to the card failed:\n{last}");
    assert!(big.status.success() && big_out.contains("2 received"), "1400-byte ping to the card failed:\n{big_out}");
    let n = String::from_utf8_lossy(&neigh.stdout);
    assert!(n.contains("02:4e:47:00:00:01"), "the kernel did not learn the card's MAC by ARP: {n}");
}
