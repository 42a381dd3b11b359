//! `nicgen perf`: the engine's side of perftest. The twin (`twin`) attaches the verilated
//! engine to a TAP; perftest's out-of-band exchange (`perftest`) runs over the host's own TCP
//! stack; the engine's QPs are set up from what the peer sends.
use crate::perftest::{gid_of, BwReport, Dest, Exchange, PORT};
use crate::twin::{Twin, TwinOpts};
use anyhow::{anyhow, bail, Context, Result};
use nicgen_sim::CycleSim;
use nicgen_hw::roce::qp::*;
use nicgen_hw::roce::{cq_status, wr_op, RecvWrFields, SqWrFields};
use nicgen_model::opcode as op;
use std::collections::HashMap;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerfOp {
    Write,
    Read,
    /// SEND into posted RECVs (`ib_send_bw`, `ib_send_lat`).
    Send,
}

#[derive(Clone, Debug)]
pub struct PerfOpts {
    pub op: PerfOp,
    /// `None`: serve (listen on port 18515); `Some(host)`: connect to perftest's server there.
    pub peer: Option<Ipv4Addr>,
    pub iface: String,
    pub ip: Ipv4Addr,
    pub mac: [u8; 6],
    pub size: usize,
    pub iters: usize,
    pub qps: usize,
    /// The largest MTU this side offers, in bytes (the smaller of both sides' is used).
    pub mtu: usize,
    pub pcap: Option<PathBuf>,
    /// The QPs' local ACK timeout code (4.096 µs × 2^code of simulated time).
    pub timeout: u8,
    pub loss_pct: u32,
    pub seed: u64,
    /// Give up after this much wall time.
    pub wall: Duration,
    /// The latency tests (`ib_write_lat`, `ib_read_lat`, `ib_send_lat`), as perftest's
    /// ping-pong runs them: for `write` the server WRITEs first and each side answers the
    /// other's n-th WRITE with its own; for `read` the client READs one at a time; for `send`
    /// the client SENDs first and each side answers the other's n-th SEND with its own.
    pub lat: bool,
}

/// What one run measured and checked.
#[derive(Clone, Debug, Default)]
pub struct PerfReport {
    pub peer_version: String,
    pub mtu: usize,
    pub remote: Vec<Dest>,
    /// The peer's own report (bandwidth tests), as it sent it.
    pub peer_report: Option<BwReport>,
    /// Payload bytes moved by the test, and the simulated cycles from the first to the last
    /// data packet (250 MHz).
    pub bytes: u64,
    pub cycles: u64,
    /// Data bytes checked against the wire and found equal.
    pub checked_bytes: u64,
    pub completions: usize,
    pub engine_counters: Vec<(&'static str, u64)>,
    pub twin_counts: crate::twin::TwinCounts,
    pub log: Vec<String>,
}

impl PerfReport {
    pub fn gbps(&self) -> f64 {
        if self.cycles == 0 {
            return 0.0;
        }
        self.bytes as f64 * 8.0 / (self.cycles as f64 / 250e6) / 1e9
    }
}

enum ToMain {
    Connected { version: String, mtu: usize, remote: Vec<Dest> },
    /// Client: the QPs are connected on both sides; run the test.
    Go,
    Done(Option<BwReport>),
    Failed(anyhow::Error),
}

enum ToExchange {
    Ready,
    TestDone(BwReport),
}

const QPN_BASE: u32 = 0x20;
const MR_BASE: u64 = 0x10_0000_0000;
const MR_STRIDE: u64 = 0x100_0000;
const LOCAL_BASE: u64 = 0x20_0000_0000;
/// The RECV buffers this side posts: QP q's k-th at `RECV_BASE + q << 32 + k * stride`, never
/// reused, so every SEND received can be checked at the end.
const RECV_BASE: u64 = 0x40_0000_0000;

/// Key messages a perftest client exchanges after the first round of keys and before the
/// traffic (perftest 6.06: each QP's keys again, then its barriers: one for the WRITE and READ
/// bandwidth tests, two for the latency tests and for SEND, whose server posts its RECVs
/// before the last).
fn keys_before_traffic(o: &PerfOpts) -> usize {
    o.qps + if o.lat || o.op == PerfOp::Send { 2 } else { 1 }
}

/// The address of QP `q`'s `k`-th RECV buffer.
fn recv_addr(q: usize, k: usize, size: usize) -> u64 {
    RECV_BASE + ((q as u64) << 32) + k as u64 * (size as u64).next_multiple_of(64)
}

/// Keeps each QP's receive queue full (the engine's ring holds `RECV_RING` RECVs): a RECV
/// for every one completed, in order, `size` bytes each.
struct RecvFeeder {
    size: usize,
    posted: Vec<usize>,
    done: Vec<usize>,
    seen: usize,
}

impl RecvFeeder {
    fn new(qps: usize, size: usize) -> Self {
        RecvFeeder { size, posted: vec![0; qps], done: vec![0; qps], seen: 0 }
    }
    fn feed(&mut self, t: &mut Twin, mine: &[Dest]) {
        for (_, c) in &t.node.recvs[self.seen..] {
            if let Some(q) = mine.iter().position(|d| d.qpn == c.qpn) {
                self.done[q] += 1;
            }
        }
        self.seen = t.node.recvs.len();
        for (q, d) in mine.iter().enumerate() {
            while self.posted[q] - self.done[q] < nicgen_hw::roce::RECV_RING {
                let r = RecvWrFields { qpn: d.qpn, wr_id: self.posted[q] as u32, addr: recv_addr(q, self.posted[q], self.size), len: self.size as u32 };
                t.node.recv.push(r.to_words());
                self.posted[q] += 1;
            }
        }
    }
}

fn my_dests(o: &PerfOpts) -> Vec<Dest> {
    let mut rng = nicgen_sim::Rng::new(o.seed ^ 0x9e37);
    (0..o.qps)
        .map(|q| Dest {
            lid: 0,
            out_reads: 16,
            qpn: QPN_BASE + q as u32,
            psn: rng.below(1 << 24) as u32,
            // one memory region for all QPs, as perftest registers one: its client writes every
            // QP's data with QP 0's rkey and address
            rkey: 0x100,
            vaddr: MR_BASE + q as u64 * MR_STRIDE,
            gid: gid_of(o.ip),
            srqn: 0,
        })
        .collect()
}

fn exchange_thread(o: PerfOpts, mine: Vec<Dest>, tx: mpsc::Sender<ToMain>, rx: mpsc::Receiver<ToExchange>, log: Arc<Mutex<Vec<String>>>, keys_written: Arc<AtomicUsize>) {
    let run = || -> Result<()> {
        let (stream, server) = match o.peer {
            None => {
                let l = TcpListener::bind(("0.0.0.0", PORT)).with_context(|| format!("listening on port {PORT}"))?;
                l.set_nonblocking(true)?;
                let t0 = Instant::now();
                let s = loop {
                    match l.accept() {
                        Ok((s, _)) => break s,
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                            if t0.elapsed() > o.wall {
                                bail!("no perftest client connected within {:.0} s", o.wall.as_secs_f64());
                            }
                            std::thread::sleep(Duration::from_millis(20));
                        }
                        Err(e) => return Err(e.into()),
                    }
                };
                s.set_nonblocking(false)?;
                (s, true)
            }
            Some(peer) => {
                let t0 = Instant::now();
                let s = loop {
                    match TcpStream::connect_timeout(&(peer, PORT).into(), Duration::from_secs(2)) {
                        Ok(s) => break s,
                        Err(e) if t0.elapsed() > o.wall => bail!("connecting to {peer}:{PORT}: {e}"),
                        Err(_) => std::thread::sleep(Duration::from_millis(200)),
                    }
                };
                (s, false)
            }
        };
        stream.set_read_timeout(Some(o.wall))?;
        let mut x = Exchange::new(stream, server, log.clone(), keys_written.clone());
        let (version, mtu) = x.start(o.mtu)?;
        let mut remote = vec![];
        for d in &mine {
            remote.push(x.keys(d)?);
        }
        tx.send(ToMain::Connected { version, mtu, remote })?;
        match rx.recv()? {
            ToExchange::Ready => {}
            ToExchange::TestDone(_) => bail!("test finished before it started"),
        }
        if server {
            let rep = x.serve_rest(&mine[0], &BwReport { size: o.size as u64, iters: o.iters as u64, ..Default::default() })?;
            tx.send(ToMain::Done(rep))?;
        } else {
            // perftest 6.06 exchanges each QP's keys a second time, then its barriers before
            // the test (`keys_before_traffic`; seen on the wire for WRITE: 2 x QPs + 1 key
            // messages before the data, one after)
            for k in 0..keys_before_traffic(&o) {
                x.keys(if k < o.qps { &mine[k] } else { &mine[0] })?;
            }
            tx.send(ToMain::Go)?;
            let ToExchange::TestDone(report) = rx.recv()? else { bail!("no test result") };
            if o.lat || o.op == PerfOp::Send {
                // the latency tests and SEND print their own figures: no reports, only the close,
                // which perftest 6.06's latency server may not wait for (it has printed and
                // gone: its exit status is what the caller checks)
                let _ = x.close(&mine[0]);
                tx.send(ToMain::Done(None))?;
                return Ok(());
            }
            x.keys(&mine[0])?; // after the test
            let theirs = x.reports(&report)?;
            x.close(&mine[0])?;
            tx.send(ToMain::Done(Some(theirs)))?;
        }
        Ok(())
    };
    let r = run();
    if let Err(e) = r {
        let _ = tx.send(ToMain::Failed(e));
    }
}

/// Set QP `q` up against the peer's `r`.
fn connect_qp(t: &mut Twin, o: &PerfOpts, me: &Dest, r: &Dest, mtu: usize, peer_mac: [u8; 6]) -> Result<()> {
    let peer_ip = r.ipv4().ok_or_else(|| anyhow!("the peer's GID {:02x?} is not IPv4-mapped (perftest needs -x with the RoCEv2 IPv4 GID index)", r.gid))?;
    let cfg = QpCfgFields {
        pmtu: (mtu.trailing_zeros() - 8) as u8,
        remote_qpn: r.qpn,
        remote_ip: u32::from(peer_ip) as u128,
        remote_mac: crate::twin::mac_u64(&peer_mac),
        udp_sport: 0xc000 | (me.qpn as u16 & 0x3fff),
        pkey: 0xffff,
        ttl: 64,
        rkey: me.rkey,
        mr_base: MR_BASE,
        mr_len: MR_STRIDE * o.qps as u64,
        access: access::REMOTE_READ | access::REMOTE_WRITE,
        timeout: o.timeout,
        retry_cnt: 7,
        // a SEND that finds no RECV posted is asked again after 0.01 ms (IBA code 1)
        min_rnr_timer: 1,
        // as perftest: RNR NAKs are retried without end
        rnr_retry: 7,
        ..Default::default()
    };
    t.pause_streams();
    t.node.qp(me.qpn, &cfg, &QpRqFields { state: state::RTS, rq_expected_psn: r.psn, ..Default::default() }, me.psn)
}

/// Run one perftest against a real peer.
pub fn perf(o: &PerfOpts) -> Result<PerfReport> {
    if o.size == 0 {
        bail!("--size must be at least 1");
    }
    let mut t = Twin::new(TwinOpts { iface: o.iface.clone(), ip: o.ip, mac: o.mac, loss_pct: o.loss_pct, seed: o.seed, capture: true })?;
    let mine = my_dests(o);
    // a known pattern in every region the peer may read
    if o.op == PerfOp::Read {
        for d in &mine {
            let pat: Vec<u8> = (0..o.size.max(4096) as u64).map(|i| (i.wrapping_mul(131) ^ (d.qpn as u64) << 3) as u8).collect();
            t.node.mem.write(d.vaddr, &pat);
        }
    }
    let (to_main, from_x) = mpsc::channel();
    let (to_x, x_rx) = mpsc::channel();
    let xo = o.clone();
    let xm = mine.clone();
    let exchange_log = Arc::new(Mutex::new(Vec::new()));
    let keys_written = Arc::new(AtomicUsize::new(0));
    let (xl, xk) = (exchange_log.clone(), keys_written.clone());
    let worker = std::thread::spawn(move || exchange_thread(xo, xm, to_main, x_rx, xl, xk));
    let mut rep = PerfReport::default();
    let t0 = Instant::now();
    let mut wrs: Vec<SqWrFields> = vec![];
    let mut posted = 0usize;
    let mut test_start = None;
    // the latency tests' messages posted so far
    let mut pongs = 0usize;
    let mut connected = false;
    // the latency tests as client: the test has started (after the barrier)
    let mut lat_client_go = false;
    // SEND: RECVs kept posted on every QP from the connection on
    let mut feeder: Option<RecvFeeder> = None;
    let outcome = (|| -> Result<Option<BwReport>> {
        loop {
            if t0.elapsed() > o.wall {
                bail!("perf: not finished after {:.0} s of wall time", o.wall.as_secs_f64());
            }
            for _ in 0..64 {
                t.step()?;
                if let Some(f) = feeder.as_mut() {
                    f.feed(&mut t, &mine);
                }
            }
            // the latency tests' ping-pong (perftest's run_iter_lat_write): the n-th WRITE each
            // way ends with the byte n (mod 256). As server the card WRITEs first, once the
            // barrier before the test is answered (2 x QPs + 1 key messages), then answers each
            // of the peer's WRITEs; as client it waits for the server's n-th WRITE before its
            // n-th. read_lat's client READs one at a time (run_iter_lat).
            // send_lat: the client SENDs first; each side SENDs its n-th once the other's n-th
            // has filled a RECV (run_iter_lat_send)
            let lat_turn = o.lat && pongs < o.iters && if o.peer.is_none() { o.op != PerfOp::Read && connected } else { lat_client_go };
            if lat_turn {
                let peer_wrote = t.node.mem.byte(mine[0].vaddr + o.size as u64 - 1);
                let received = t.node.recvs.len();
                let ready = match (o.peer.is_none(), o.op) {
                    (true, PerfOp::Send) => received > pongs,
                    (false, PerfOp::Send) => received >= pongs,
                    (true, _) if pongs == 0 => keys_written.load(Ordering::Acquire) > 2 * o.qps,
                    (true, _) => peer_wrote == pongs as u8,
                    (false, PerfOp::Write) => peer_wrote == (pongs + 1) as u8,
                    (false, PerfOp::Read) => t.node.done.len() >= pongs,
                };
                if ready {
                    let r = rep.remote[0];
                    let laddr = LOCAL_BASE + pongs as u64 * (o.size as u64).next_multiple_of(4096);
                    let opc = op_of(o.op);
                    if o.op != PerfOp::Read {
                        let mut data = vec![0x5au8; o.size];
                        data[o.size - 1] = (pongs + 1) as u8;
                        t.node.mem.write(laddr, &data);
                    }
                    wrs.push(SqWrFields { wr_id: wrs.len() as u32, op: opc, qpn: mine[0].qpn, laddr, raddr: r.vaddr, rkey: r.rkey, len: o.size as u32, signaled: true });
                    pongs += 1;
                }
            }
            // the client's work: keep the SQ fed
            while posted < wrs.len() && t.node.sq.idle() {
                t.node.sq.push(wrs[posted].to_words());
                posted += 1;
            }
            let all_posted = !wrs.is_empty() && (!lat_client_go || wrs.len() == o.iters);
            // send_lat's client ends with the server's last SEND
            let all_received = !(lat_client_go && o.op == PerfOp::Send) || t.node.recvs.len() >= o.iters;
            if let (Some(start), true) = (test_start, all_posted && all_received) {
                if t.node.done.len() >= wrs.len() {
                    rep.cycles = t.node.sim.cycle() - start;
                    rep.bytes = (o.size * wrs.len()) as u64;
                    let secs = rep.cycles as f64 / 250e6;
                    if lat_client_go {
                        // write_lat's and send_lat's figure is half a round trip; read_lat's a
                        // whole READ
                        let per = if o.op == PerfOp::Read { 1.0 } else { 2.0 };
                        rep.log.push(format!("latency (simulated, mean): {:.3} us over {} iterations", secs * 1e6 / (wrs.len() as f64 * per), wrs.len()));
                    }
                    let r = BwReport { size: o.size as u64, iters: o.iters as u64, bw_peak: rep.bytes as f64 / secs / 1e6, bw_avg: rep.bytes as f64 / secs / 1e6, msg_rate: wrs.len() as f64 / secs / 1e6 };
                    to_x.send(ToExchange::TestDone(r))?;
                    test_start = None;
                }
            }
            match from_x.try_recv() {
                Ok(ToMain::Connected { version, mtu, remote }) => {
                    rep.log.push(format!("peer: perftest {version}, MTU {mtu}"));
                    let peer_ip = remote[0].ipv4().ok_or_else(|| anyhow!("the peer's GID is not IPv4-mapped (use -x with the RoCEv2 IPv4 GID)"))?;
                    let mac = t.resolve(peer_ip, Duration::from_secs(20))?;
                    rep.log.push(format!("peer {peer_ip} is at {}", crate::twin::format_mac(&mac)));
                    for (me, r) in mine.iter().zip(&remote) {
                        connect_qp(&mut t, o, me, r, mtu, mac)?;
                    }
                    rep.peer_version = version;
                    rep.mtu = mtu;
                    rep.remote = remote;
                    if o.op == PerfOp::Send {
                        let mut f = RecvFeeder::new(o.qps, o.size);
                        f.feed(&mut t, &mine);
                        feeder = Some(f);
                    }
                    to_x.send(ToExchange::Ready)?;
                    connected = true;
                }
                Ok(ToMain::Go) if o.lat => {
                    lat_client_go = true;
                    test_start = Some(t.node.sim.cycle());
                }
                Ok(ToMain::Go) => {
                    let opc = op_of(o.op);
                    let mut rng = nicgen_sim::Rng::new(o.seed);
                    for k in 0..o.iters {
                        for (q, r) in rep.remote.iter().enumerate() {
                            let laddr = LOCAL_BASE + (q * o.iters + k) as u64 * (o.size as u64).next_multiple_of(4096);
                            if opc != wr_op::READ {
                                t.node.mem.write(laddr, &rng.bytes(o.size));
                            }
                            wrs.push(SqWrFields { wr_id: wrs.len() as u32, op: opc, qpn: mine[q].qpn, laddr, raddr: r.vaddr, rkey: r.rkey, len: o.size as u32, signaled: true });
                        }
                    }
                    test_start = Some(t.node.sim.cycle());
                }
                Ok(ToMain::Done(r)) => {
                    return Ok(r);
                }
                Ok(ToMain::Failed(e)) => return Err(e.context("perftest exchange")),
                Err(mpsc::TryRecvError::Empty) => {}
                Err(mpsc::TryRecvError::Disconnected) => bail!("the perftest exchange ended without a result"),
            }
        }
    })();
    if let (Err(_), Some(p)) = (&outcome, &o.pcap) {
        t.write_pcap(p)?;
    }
    let peer_report = outcome.map_err(|e| {
        let log = exchange_log.lock().map(|l| l.join("\n")).unwrap_or_default();
        e.context(format!("the perftest exchange so far:\n{log}"))
    })?;
    let _ = worker.join();
    if let Ok(l) = exchange_log.lock() {
        rep.log.extend(l.iter().cloned());
    }
    // let the last frames go out
    for _ in 0..20_000 {
        t.step()?;
    }
    if let Some(p) = &o.pcap {
        t.write_pcap(p)?;
    }
    rep.log.push(format!("simulated {} cycles in {:.1} s of wall time ({:.0} cycles/s)", t.node.sim.cycle(), t0.elapsed().as_secs_f64(), t.node.sim.cycle() as f64 / t0.elapsed().as_secs_f64()));
    // a perftest server sends its own report uninitialised: only a client's means anything
    rep.peer_report = if o.peer.is_none() { peer_report } else { None };
    rep.completions = t.node.done.len() + t.node.recvs.len();
    for (i, (_, c)) in t.node.done.iter().enumerate() {
        if c.status != cq_status::SUCCESS {
            bail!("completion {i} (WR {}) has status {}", c.wr_id, c.status);
        }
    }
    // every RECV filled by a SEND of the test's size, in its QP's order
    let mut next_recv: HashMap<u32, u32> = HashMap::new();
    for (i, (_, c)) in t.node.recvs.iter().enumerate() {
        let k = next_recv.entry(c.qpn).or_default();
        if (c.status, c.byte_len, c.wr_id) != (cq_status::SUCCESS, o.size as u32, *k) {
            bail!("receive completion {i}: {c:?}, expected RECV {} filled with {} bytes", *k, o.size);
        }
        *k += 1;
    }
    rep.log.push(format!("receive completions: {}", t.node.recvs.len()));
    let data = check_data(&t, &mine, &rep.remote, rep.mtu as u32, &wrs, o.size)?;
    rep.checked_bytes = data.checked;
    if o.peer.is_none() {
        rep.bytes = data.bytes;
        rep.cycles = data.cycles;
    }
    rep.engine_counters = t.engine_counters();
    rep.twin_counts = t.counts.clone();
    Ok(rep)
}

struct DataCheck {
    checked: u64,
    bytes: u64,
    cycles: u64,
}

/// Every data byte against the wire: what WRITEs from the peer carried must be in host memory
/// (the last write of each byte wins), and what its SENDs carried in the RECV buffers (QP q's
/// k-th SEND in its k-th RECV); what the engine's READ responses carried must equal
/// host memory at the address the READ named. `bytes` and `cycles` measure the data packets
/// the peer sent (WRITE) or the engine sent (READ responses), first to last.
fn check_data(t: &Twin, mine: &[Dest], remote: &[Dest], mtu: u32, wrs: &[SqWrFields], size: usize) -> Result<DataCheck> {
    use nicgen_model::parse;
    let mut shadow: HashMap<u64, u8> = HashMap::new();
    let mut write_va: HashMap<u32, u64> = HashMap::new();
    let mut sends_in: HashMap<u32, usize> = HashMap::new();
    let mut bytes = 0u64;
    let mut span = (u64::MAX, 0u64);
    // READ requests by (our QPN, PSN): the address the responses come from
    let mut reads: HashMap<(u32, u32), u64> = HashMap::new();
    // a responder of our own, apart from the engine: it takes each QP's packets in PSN order
    // from the PSN the peer announced, and ignores the rest (duplicates, packets after a gap)
    let mut expected: HashMap<u32, u32> = mine.iter().zip(remote).map(|(m, r)| (m.qpn, r.psn)).collect();
    for (cyc, f) in t.roce_in.iter() {
        let Ok(p) = parse(f) else { continue };
        let b = p.hdr.bth;
        let Some(e) = expected.get_mut(&b.dqpn) else { continue };
        if b.psn != *e {
            continue;
        }
        *e = match b.opcode {
            op::READ_REQUEST => (*e + p.hdr.reth.map_or(1, |r| r.dma_len.div_ceil(mtu).max(1))) & 0xff_ffff,
            _ => (*e + 1) & 0xff_ffff,
        };
        match b.opcode {
            op::WRITE_FIRST | op::WRITE_ONLY => {
                write_va.insert(b.dqpn, p.hdr.reth.map(|r| r.va).unwrap_or(0));
            }
            op::SEND_FIRST | op::SEND_ONLY => {
                let q = mine.iter().position(|d| d.qpn == b.dqpn).unwrap_or(0);
                let k = sends_in.entry(b.dqpn).or_default();
                write_va.insert(b.dqpn, recv_addr(q, *k, size));
                *k += 1;
            }
            op::WRITE_MIDDLE | op::WRITE_LAST | op::SEND_MIDDLE | op::SEND_LAST => {}
            op::READ_REQUEST => {
                if let Some(r) = p.hdr.reth {
                    reads.insert((b.dqpn, b.psn), r.va);
                }
                continue;
            }
            _ => continue,
        }
        let va = write_va.entry(b.dqpn).or_default();
        for (i, x) in p.payload.iter().enumerate() {
            shadow.insert(*va + i as u64, *x);
        }
        *va += p.payload.len() as u64;
        bytes += p.payload.len() as u64;
        span = (span.0.min(*cyc), span.1.max(*cyc));
    }
    let mut checked = 0u64;
    for (a, v) in &shadow {
        let m = t.node.mem.byte(*a);
        if m != *v {
            bail!("data check: host memory at {a:#x} holds {m:#04x}, the peer wrote {v:#04x}");
        }
        checked += 1;
    }
    let mut read_va: HashMap<u32, u64> = HashMap::new();
    for (cyc, f) in t.roce_out.iter() {
        let Ok(p) = parse(f) else { continue };
        let b = p.hdr.bth;
        let Some(q) = remote.iter().position(|r| r.qpn == b.dqpn) else { continue };
        match b.opcode {
            op::READ_RESP_FIRST | op::READ_RESP_ONLY => {
                let Some(va) = reads.get(&(mine[q].qpn, b.psn)) else {
                    bail!("data check: a READ response with PSN {:#x} on QP {:#x} answers no READ request", b.psn, mine[q].qpn);
                };
                read_va.insert(b.dqpn, *va);
            }
            op::READ_RESP_MIDDLE | op::READ_RESP_LAST => {}
            _ => continue,
        }
        let va = read_va.entry(b.dqpn).or_default();
        if t.node.mem.read(*va, p.payload.len()) != p.payload {
            bail!("data check: the READ response from {va:#x} (PSN {:#x}) differs from host memory", b.psn);
        }
        *va += p.payload.len() as u64;
        checked += p.payload.len() as u64;
        bytes += p.payload.len() as u64;
        span = (span.0.min(*cyc), span.1.max(*cyc));
    }
    // this side's own work: each WRITE carries its source, each READ response from the peer
    // lands at its WR's local address. Requests pair with WRs in each QP's order; a PSN seen
    // again is a retransmission.
    let mut per_qp: HashMap<u32, std::collections::VecDeque<&SqWrFields>> = HashMap::new();
    for w in wrs {
        per_qp.entry(w.qpn).or_default().push_back(w);
    }
    let mut at: HashMap<u32, u64> = HashMap::new();
    let mut read_at: HashMap<(u32, u32), u64> = HashMap::new();
    let mut sent_psn: HashMap<u32, u32> = HashMap::new();
    for (_, f) in t.roce_out.iter() {
        let Ok(p) = parse(f) else { continue };
        let b = p.hdr.bth;
        let Some(q) = remote.iter().position(|r| r.qpn == b.dqpn) else { continue };
        let me = mine[q].qpn;
        let first = matches!(b.opcode, op::WRITE_FIRST | op::WRITE_ONLY | op::SEND_FIRST | op::SEND_ONLY | op::READ_REQUEST);
        if !matches!(b.opcode, op::WRITE_FIRST | op::WRITE_ONLY | op::WRITE_MIDDLE | op::WRITE_LAST | op::SEND_FIRST | op::SEND_ONLY | op::SEND_MIDDLE | op::SEND_LAST | op::READ_REQUEST) {
            continue;
        }
        let fresh = sent_psn.get(&me).is_none_or(|last| (b.psn.wrapping_sub(*last) & 0xff_ffff) < 0x80_0000 && b.psn != *last);
        if first && fresh {
            let Some(w) = per_qp.get_mut(&me).and_then(|v| v.pop_front()) else { bail!("data check: QP {me:#x} sent more messages than it was given") };
            at.insert(me, w.laddr);
            if b.opcode == op::READ_REQUEST {
                read_at.insert((me, b.psn), w.laddr);
            }
        }
        if fresh {
            sent_psn.insert(me, b.psn);
        }
        if b.opcode != op::READ_REQUEST {
            // a retransmission starts again where its message started: check it against the
            // first transmission's bytes only when it is fresh
            if fresh {
                let a = at.entry(me).or_default();
                if t.node.mem.read(*a, p.payload.len()) != p.payload {
                    bail!("data check: a WRITE or SEND packet (PSN {:#x}) differs from its source at {a:#x}", b.psn);
                }
                *a += p.payload.len() as u64;
                checked += p.payload.len() as u64;
            }
        }
    }
    let mut resp_expected: HashMap<u32, u32> = HashMap::new();
    let mut resp_at: HashMap<u32, u64> = HashMap::new();
    for (_, f) in t.roce_in.iter() {
        let Ok(p) = parse(f) else { continue };
        let b = p.hdr.bth;
        if !matches!(b.opcode, op::READ_RESP_FIRST | op::READ_RESP_ONLY | op::READ_RESP_MIDDLE | op::READ_RESP_LAST) || !ours_has(mine, b.dqpn) {
            continue;
        }
        if matches!(b.opcode, op::READ_RESP_FIRST | op::READ_RESP_ONLY) {
            let Some(a) = read_at.get(&(b.dqpn, b.psn)) else { continue };
            resp_at.insert(b.dqpn, *a);
            resp_expected.insert(b.dqpn, b.psn);
        }
        let Some(e) = resp_expected.get_mut(&b.dqpn) else { continue };
        if b.psn != *e {
            continue;
        }
        *e = (*e + 1) & 0xff_ffff;
        let a = resp_at.entry(b.dqpn).or_default();
        if t.node.mem.read(*a, p.payload.len()) != p.payload {
            bail!("data check: the READ response PSN {:#x} did not land at {a:#x}", b.psn);
        }
        *a += p.payload.len() as u64;
        checked += p.payload.len() as u64;
    }
    Ok(DataCheck { checked, bytes, cycles: span.1.saturating_sub(span.0) })
}

fn op_of(o: PerfOp) -> u8 {
    match o {
        PerfOp::Write => wr_op::WRITE,
        PerfOp::Read => wr_op::READ,
        PerfOp::Send => wr_op::SEND,
    }
}

fn ours_has(mine: &[Dest], qpn: u32) -> bool {
    mine.iter().any(|d| d.qpn == qpn)
}
