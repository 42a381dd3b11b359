//! perftest's out-of-band exchange (its "Ethernet" method, TCP port 18515), as perftest 6.06
//! (Debian's `perftest` 4.5-0.17) speaks it without rdma_cm:
//!
//! 1. the version string, 16 bytes;
//! 2. system data: the cycle buffer and the cache line size, 4 bytes each, big-endian;
//! 3. the active MTU as `"%d"` of the `ibv_mtu` code, 2 bytes; both sides take the smaller;
//! 4. one key message per QP, 108 bytes: `lid:out_reads:qpn:psn:rkey:vaddr:gid[16]:srqn:` in
//!    hex, NUL-terminated;
//! 5. each QP's key message a second time, then one as a barrier before the test and one
//!    after it (2 × QPs + 1 messages before the data, seen on the wire);
//! 6. for bandwidth tests, five 8-byte big-endian reports (size, iterations, peak and average
//!    bandwidth, message rate);
//! 7. a closing key message, then `"done\0"`.
//!
//! In every exchange the client writes first and the server reads first. The server side here
//! reads what comes and answers it in kind, so it serves the bandwidth and latency tests
//! alike; the client side follows the bandwidth tests' sequence.
use anyhow::{bail, Context, Result};
use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpStream};

pub const PORT: u16 = 18515;
pub const VERSION: &str = "6.06";
const KEY_MSG: usize = 108;

/// One side's QP as the exchange carries it (`struct pingpong_dest`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Dest {
    pub lid: u32,
    pub out_reads: u32,
    pub qpn: u32,
    pub psn: u32,
    pub rkey: u32,
    pub vaddr: u64,
    pub gid: [u8; 16],
    pub srqn: u32,
}

impl Dest {
    pub fn encode(&self) -> [u8; KEY_MSG] {
        let mut s = format!("{:04x}:{:04x}:{:06x}:{:06x}:{:08x}:{:016x}:", self.lid, self.out_reads, self.qpn, self.psn, self.rkey, self.vaddr);
        for b in self.gid {
            s += &format!("{b:02x}:");
        }
        s += &format!("{:08x}:", self.srqn);
        let mut m = [0u8; KEY_MSG];
        m[..s.len()].copy_from_slice(s.as_bytes());
        m
    }
    pub fn decode(m: &[u8]) -> Result<Dest> {
        let text = std::str::from_utf8(m.split(|&b| b == 0).next().unwrap_or(&[])).context("key message is not text")?;
        let f: Vec<&str> = text.split(':').collect();
        if f.len() < 23 {
            bail!("key message has {} fields, not 23: {text:?}", f.len());
        }
        let h = |i: usize| u64::from_str_radix(f[i], 16).with_context(|| format!("field {i} of {text:?}"));
        let mut gid = [0u8; 16];
        for (i, g) in gid.iter_mut().enumerate() {
            *g = h(6 + i)? as u8;
        }
        Ok(Dest { lid: h(0)? as u32, out_reads: h(1)? as u32, qpn: h(2)? as u32, psn: h(3)? as u32, rkey: h(4)? as u32, vaddr: h(5)?, gid, srqn: h(22)? as u32 })
    }
    /// The IPv4 address of a v4-mapped RoCEv2 GID (`::ffff:a.b.c.d`).
    pub fn ipv4(&self) -> Option<Ipv4Addr> {
        (self.gid[..10].iter().all(|&b| b == 0) && self.gid[10] == 0xff && self.gid[11] == 0xff).then(|| Ipv4Addr::new(self.gid[12], self.gid[13], self.gid[14], self.gid[15]))
    }
}

/// The v4-mapped GID of `ip`.
pub fn gid_of(ip: Ipv4Addr) -> [u8; 16] {
    let mut g = [0u8; 16];
    g[10] = 0xff;
    g[11] = 0xff;
    g[12..].copy_from_slice(&ip.octets());
    g
}

/// `ibv_mtu` code of an MTU in bytes (1 = 256 … 5 = 4096).
pub fn mtu_code(bytes: usize) -> u32 {
    (bytes.max(256).trailing_zeros()).saturating_sub(7)
}

/// A bandwidth report (`struct bw_report_data`'s exchanged fields).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BwReport {
    pub size: u64,
    pub iters: u64,
    pub bw_peak: f64,
    pub bw_avg: f64,
    pub msg_rate: f64,
}

impl BwReport {
    fn words(&self) -> [u64; 5] {
        [self.size, self.iters, self.bw_peak.to_bits(), self.bw_avg.to_bits(), self.msg_rate.to_bits()]
    }
    fn from_words(w: [u64; 5]) -> Self {
        BwReport { size: w[0], iters: w[1], bw_peak: f64::from_bits(w[2]), bw_avg: f64::from_bits(w[3]), msg_rate: f64::from_bits(w[4]) }
    }
}

/// What the peer said during setup.
#[derive(Clone, Debug)]
pub struct Setup {
    pub version: String,
    /// The MTU both sides use, in bytes.
    pub mtu: usize,
    pub remote: Vec<Dest>,
}

/// One perftest connection.
pub struct Exchange {
    s: TcpStream,
    server: bool,
    /// Every message read (`<`) and written (`>`), in order.
    pub log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    /// Key messages this side has written, for whoever waits for a barrier (the latency tests
    /// start after the one before the test).
    pub keys_written: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Exchange {
    pub fn new(s: TcpStream, server: bool, log: std::sync::Arc<std::sync::Mutex<Vec<String>>>, keys_written: std::sync::Arc<std::sync::atomic::AtomicUsize>) -> Self {
        Exchange { s, server, log, keys_written }
    }
    fn wrote_keys(&self) {
        self.keys_written.fetch_add(1, std::sync::atomic::Ordering::Release);
    }
    fn note(&self, m: String) {
        if let Ok(mut l) = self.log.lock() {
            l.push(m);
        }
    }
    fn read(&mut self, n: usize, what: &str) -> Result<Vec<u8>> {
        let mut b = vec![0u8; n];
        self.s.read_exact(&mut b).with_context(|| format!("perftest exchange: reading {what} ({n} bytes)"))?;
        self.note(format!("exchange < {what} ({n} B)"));
        Ok(b)
    }
    fn write(&mut self, b: &[u8], what: &str) -> Result<()> {
        self.s.write_all(b).with_context(|| format!("perftest exchange: writing {what}"))?;
        self.note(format!("exchange > {what} ({} B)", b.len()));
        Ok(())
    }
    /// One exchange of `mine` against the peer's message of the same size.
    fn xchg(&mut self, mine: &[u8], what: &str) -> Result<Vec<u8>> {
        if self.server {
            let r = self.read(mine.len(), what)?;
            self.write(mine, what)?;
            Ok(r)
        } else {
            self.write(mine, what)?;
            self.read(mine.len(), what)
        }
    }
    /// Steps 1–3: versions, system data, MTU. `mtu` is this side's largest MTU in bytes.
    pub fn start(&mut self, mtu: usize) -> Result<(String, usize)> {
        let mut v = [0u8; 16];
        v[..VERSION.len()].copy_from_slice(VERSION.as_bytes());
        let rv = self.xchg(&v, "version")?;
        let version = String::from_utf8_lossy(rv.split(|&b| b == 0).next().unwrap_or(&[])).to_string();
        self.note(format!("peer perftest version {version}"));
        self.xchg(&4096u32.to_be_bytes(), "cycle buffer")?;
        self.xchg(&64u32.to_be_bytes(), "cache line size")?;
        let mine = mtu_code(mtu);
        let r = self.xchg(&[b'0' + mine as u8, 0], "MTU")?;
        let theirs = (r[0] as char).to_digit(10).unwrap_or(0);
        let code = if (1..=5).contains(&theirs) { theirs.min(mine) } else { mine };
        Ok((version, 128usize << code))
    }
    /// One key message each way.
    pub fn keys(&mut self, mine: &Dest) -> Result<Dest> {
        let r = self.xchg(&mine.encode(), "keys")?;
        self.wrote_keys();
        Dest::decode(&r)
    }
    /// Step 6.
    pub fn reports(&mut self, mine: &BwReport) -> Result<BwReport> {
        let mut w = [0u64; 5];
        for (i, x) in mine.words().iter().enumerate() {
            let r = self.xchg(&x.to_be_bytes(), "report")?;
            w[i] = u64::from_be_bytes(r.try_into().unwrap());
        }
        Ok(BwReport::from_words(w))
    }
    /// Step 7: the closing key message and `done`.
    pub fn close(&mut self, mine: &Dest) -> Result<()> {
        self.keys(mine)?;
        self.write(b"done\0", "done")?;
        Ok(())
    }
    /// The server's part after the QPs are connected: answer every barrier (with `mine`) and
    /// the reports (with `report`) until the client closes. Returns the client's report, if it
    /// sent one. A key message starts with four hex digits and `:`; the five reports come
    /// together, the first starting with the high bytes of the message size (zero).
    pub fn serve_rest(&mut self, mine: &Dest, report: &BwReport) -> Result<Option<BwReport>> {
        let mut got: Option<BwReport> = None;
        loop {
            let mut head = [0u8; 5];
            match self.s.read_exact(&mut head) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(got),
                Err(e) => return Err(e).context("perftest exchange: reading"),
            }
            if &head == b"done\0" {
                self.note("exchange < done (5 B)".into());
                return Ok(got);
            }
            if head[..4].iter().all(|b| b.is_ascii_hexdigit()) && head[4] == b':' {
                let rest = self.read(KEY_MSG - 5, "keys")?;
                Dest::decode(&[&head[..], &rest[..]].concat())?;
                self.write(&mine.encode(), "keys")?;
                self.wrote_keys();
                if got.is_some() {
                    // the closing barrier
                    self.write(b"done\0", "done")?;
                }
                continue;
            }
            let rest = self.read(3, "report")?;
            let mut w = [0u64; 5];
            w[0] = u64::from_be_bytes([&head[..], &rest[..]].concat().try_into().unwrap());
            let mine_w = report.words();
            self.write(&mine_w[0].to_be_bytes(), "report")?;
            for i in 1..5 {
                let r = self.read(8, "report")?;
                w[i] = u64::from_be_bytes(r.try_into().unwrap());
                self.write(&mine_w[i].to_be_bytes(), "report")?;
            }
            got = Some(BwReport::from_words(w));
        }
    }
}
