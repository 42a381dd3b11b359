//! The traffic sniffer on Verilator. Both taps see random traffic (RoCEv2 over IPv4 and IPv6,
//! UDP, TCP, raw frames of every length 1..=192 so every `tkeep` residue, some marked bad),
//! with random `tvalid` gaps and random `tready` on the watched streams, while the capture
//! stream drains under random backpressure. Every record is checked against the frame it
//! names (bytes, length, flag, timestamp spacing), the filter against the reference in
//! `nicgen_model::sniff` (etherparse finds the fields), losses against the records' drop
//! counts and the counters, and the PCAPNG against tshark and `pcap-file`'s reader.
mod common;
use common::*;
use nicgen_hw::service::sniffer::{reg, setup_writes, Sniffer512, NS_PER_CYCLE};
use nicgen_model::sniff::{check_records, parse_records, write_pcapng, Filter, Record};
use nicgen_model::{IpHdr, RoceHeaders};
use nicgen_sim::axil::AxilMaster;
use nicgen_sim::axis::*;
use nicgen_sim::oracle::tshark_fields;
use nicgen_sim::*;

const IPS: [u32; 3] = [0x0a00_0001, 0x0a00_0002, 0xc0a8_0107];
const QPNS: [u32; 4] = [0x11, 0x22, 0x12_3456, 0x12_3457];
const OPS: [u8; 6] = [0x06, 0x08, 0x0a, 0x0c, 0x10, 0x11];

fn roce(rng: &mut Rng, v6: bool) -> Vec<u8> {
    let pick = |r: &mut Rng| IPS[r.below(3) as usize].to_be_bytes();
    let ip = if v6 {
        let mut s = [0u8; 16];
        s[..4].copy_from_slice(&pick(rng));
        IpHdr::V6 { src: s, dst: [0xfe; 16], tclass: 0, flow: rng.range(0, 1 << 20) as u32, hlim: 64 }
    } else {
        IpHdr::V4 { src: pick(rng), dst: pick(rng), dscp: 0, ecn: 0, ttl: 64, id: rng.next_u64() as u16 }
    };
    let q = if rng.chance(80) { QPNS[rng.below(4) as usize] } else { rng.range(2, 1 << 24) as u32 };
    let mut h = RoceHeaders::new(ip, OPS[rng.below(6) as usize], q, rng.range(0, 1 << 24) as u32);
    h.udp_sport = 0xc000 | rng.range(0, 0x4000) as u16;
    let n = rng.range(0, 400) as usize;
    h.build_with(&rng.bytes(n), false)
}

/// `n` mixed frames, plus (with `residues`) raw frames of every length 1..=192.
fn traffic(rng: &mut Rng, n: usize, residues: bool) -> Vec<AxisFrame> {
    let mut v: Vec<AxisFrame> = vec![];
    for _ in 0..n {
        let data = match rng.below(10) {
            0..=3 => roce(rng, false),
            4..=5 => roce(rng, true),
            6 => {
                let (port, n) = ([4791, 53, 4789][rng.below(3) as usize], rng.range(0, 200) as usize);
                let p = rng.bytes(n);
                em_frame(rng, None, 17, port, &p)
            }
            7 => {
                let n = rng.range(0, 200) as usize;
                let p = rng.bytes(n);
                em_frame(rng, None, 6, 80, &p)
            }
            8 => {
                let p = rng.bytes(40);
                em_frame(rng, Some(5), 17, 4791, &p)
            }
            _ => {
                let n = rng.range(1, 1600) as usize;
                rng.bytes(n)
            }
        };
        v.push(AxisFrame { data, user: rng.chance(5) });
    }
    if residues {
        for l in 1..=192 {
            let at = rng.range(0, v.len() as u64) as usize;
            v.insert(at, AxisFrame { data: rng.bytes(l), user: rng.chance(5) });
        }
    }
    v
}

struct Bench {
    sim: VerilatorSim,
    d: [AxisDriver; 2],
    ready: [usize; 2],
    mon: AxisMonitor,
    axil: AxilMaster,
    rng: Rng,
    /// Percent of cycles each watched stream's `tready` is high.
    tap_ready: u32,
    /// Cycle of every frame's first beat, per tap.
    first: [Vec<u64>; 2],
    mid: [bool; 2],
}

impl Bench {
    fn new(seed: u64) -> Bench {
        let mut sim = verilate(&mut Sniffer512::default());
        sim.reset(2);
        let d = [AxisDriver::new(&sim, "tap_rx", 45, seed), AxisDriver::new(&sim, "tap_tx", 45, seed + 1)];
        let ready = [sim.port("tap_rx$tready"), sim.port("tap_tx$tready")];
        let mon = AxisMonitor::new(&sim, "m_axis_cap", 85, seed + 2);
        let axil = AxilMaster::new(&sim, "s_axil", 100, seed + 3);
        axil.idle(&mut sim);
        Bench { sim, d, ready, mon, axil, rng: Rng::new(seed + 4), tap_ready: 80, first: [vec![], vec![]], mid: [false; 2] }
    }
    fn write(&mut self, a: u16, v: u32) {
        assert_eq!(self.axil.write(&mut self.sim, a, v, 0xf), 0, "write {a:#x}");
    }
    fn read(&mut self, a: u16) -> u32 {
        self.axil.read(&mut self.sim, a).0
    }
    /// Reset, then set the filter, snap length and enables.
    fn setup(&mut self, f: &Filter, snap: u16) {
        self.sim.reset(2);
        self.axil.idle(&mut self.sim);
        self.mon.frames.clear();
        self.first = [vec![], vec![]];
        self.mid = [false; 2];
        for (a, v) in setup_writes(f, snap) {
            self.write(a, v);
        }
    }
    fn step(&mut self) {
        for i in 0..2 {
            let r = self.rng.chance(self.tap_ready);
            self.sim.set_bit(self.ready[i], r);
            self.d[i].drive(&mut self.sim);
        }
        self.mon.drive(&mut self.sim);
        self.sim.eval();
        for i in 0..2 {
            let p = self.d[i].ports.clone();
            if self.sim.get_bit(p.tvalid) && self.sim.get_bit(self.ready[i]) {
                if !self.mid[i] {
                    self.first[i].push(self.sim.cycle());
                }
                self.mid[i] = !self.sim.get_bit(p.tlast);
            }
            self.d[i].sample(&mut self.sim);
        }
        self.mon.sample(&mut self.sim);
        self.sim.tick();
    }
    /// Send both directions' frames, then drain the capture stream.
    fn run(&mut self, frames: &[Vec<AxisFrame>; 2]) -> Vec<Record> {
        for i in 0..2 {
            for f in &frames[i] {
                self.d[i].push(f.clone());
            }
        }
        let mut quiet = 0;
        let mut n = 0u64;
        while quiet < 40 {
            self.step();
            let busy = !self.d[0].idle() || !self.d[1].idle() || self.sim.get_bit(self.mon.ports.tvalid);
            quiet = if busy { 0 } else { quiet + 1 };
            n += 1;
            assert!(n < 3_000_000, "sniffer stalled");
        }
        let bytes: Vec<u8> = self.mon.frames.iter().flat_map(|f| f.data.clone()).collect();
        parse_records(&bytes).expect("capture stream parses")
    }
    fn counters(&mut self, base: u16) -> [u32; 4] {
        std::array::from_fn(|i| self.read(base + 4 * i as u16))
    }
    /// Every record against the frame it names; losses against drop counts and counters.
    /// Returns the records per direction.
    fn check(&mut self, recs: &[Record], frames: &[Vec<AxisFrame>; 2], f: &Filter, snap: u16) -> [usize; 2] {
        let mut per = [0usize; 2];
        for dir in 0..2 {
            let fr = &frames[dir];
            assert_eq!(self.first[dir].len(), fr.len());
            let mine: Vec<&Record> = recs.iter().filter(|r| r.dir as usize == dir).collect();
            let data: Vec<Vec<u8>> = fr.iter().map(|x| x.data.clone()).collect();
            let ck = check_records(&mine, &data, f, snap).unwrap_or_else(|e| panic!("dir {dir}: {e}"));
            // the flag, and the timestamps' spacing against the cycles the frames began
            let (t0, c0) = (mine.first().map_or(0, |r| r.ts_ns), mine.first().map_or(0, |r| self.first[dir][r.seq as usize]));
            for r in &mine {
                let i = r.seq as usize;
                assert_eq!(r.bad, fr[i].user, "dir {dir}: frame {i}: bad flag");
                assert_eq!(r.ts_ns - t0, NS_PER_CYCLE * (self.first[dir][i] - c0), "dir {dir}: frame {i}: timestamp");
            }
            let c = self.counters(if dir == 0 { reg::RX_COUNTERS } else { reg::TX_COUNTERS });
            assert_eq!(c, [fr.len() as u32, ck.captured as u32, ck.filtered as u32, ck.lost], "dir {dir}: counters seen/captured/filtered/dropped");
            per[dir] = mine.len();
        }
        per
    }
}

/// tshark reads the PCAPNG: interface, lengths, timestamps and drop counts per packet; and
/// `pcap-file` reads back the same bytes.
fn tshark_agrees(recs: &[Record], snap: u16, name: &str) {
    let path = std::env::temp_dir().join(format!("nicgen_sniff_{name}_{}.pcapng", std::process::id()));
    write_pcapng(&path, recs, snap as u32).unwrap();
    let rows = tshark_fields(&path, &["frame.interface_id", "frame.len", "frame.cap_len", "frame.time_epoch", "frame.drop_count", "frame.interface_name"]).unwrap();
    assert_eq!(rows.len(), recs.len(), "tshark packets");
    for (r, row) in recs.iter().zip(&rows) {
        assert_eq!(row[0], r.dir.to_string());
        assert_eq!(row[1], r.orig_len.to_string());
        assert_eq!(row[2], r.data.len().to_string());
        // seconds with nine decimals
        let (s, ns) = row[3].split_once('.').unwrap();
        assert_eq!(s.parse::<u64>().unwrap() * 1_000_000_000 + ns.parse::<u64>().unwrap(), r.ts_ns, "time {}", row[3]);
        assert_eq!(row[4], if r.drops > 0 { r.drops.to_string() } else { String::new() });
        assert_eq!(row[5], ["rx", "tx"][r.dir as usize]);
    }
    let back = nicgen_model::pcap::read_pcap(&path).unwrap();
    assert!(back.iter().zip(recs).all(|(b, r)| b.data == r.data && b.ts_ns == r.ts_ns));
    std::fs::remove_file(&path).ok();
}

#[test]
fn sniffer_captures_filters_and_counts_against_etherparse_and_tshark() {
    let mut rng = Rng::new(41);
    let mut b = Bench::new(7);
    // everything, whole frames: every tkeep residue on both taps
    let frames = [traffic(&mut rng, 200, true), traffic(&mut rng, 200, true)];
    let any = Filter::default();
    b.setup(&any, 0xffff);
    let recs = b.run(&frames);
    let n = b.check(&recs, &frames, &any, 0xffff);
    eprintln!("whole capture: {n:?} records, {} cycles", b.sim.cycle());
    assert_eq!(n, [392, 392], "whole capture at this drain rate loses nothing");
    tshark_agrees(&recs, 0xffff, "all");

    // each filter alone, then all four at once, each with a snap length
    let filters = [
        (Filter { qpn: (QPNS[2], 0xff_ffff), ..any }, 0xffff),
        (Filter { qpn: (QPNS[2], 0xff_fffe), ..any }, 128),
        (Filter { opcode: (0x0a, 0xff), ..any }, 64),
        (Filter { opcode: (0x10, 0xfe), ..any }, 100),
        (Filter { ip: (IPS[2], 0xffff_ffff), ..any }, 0xffff),
        (Filter { ip: (0x0a00_0000, 0xff00_0000), ..any }, 1),
        (Filter { port: (4791, 0xffff), ..any }, 0),
        (Filter { port: (53, 0xffff), ..any }, 0xffff),
        (Filter { qpn: (QPNS[0], 0xff_ffff), opcode: (0x06, 0xff), ip: (IPS[0], 0xffff_ffff), port: (4791, 0xffff) }, 0xffff),
    ];
    for (k, (f, snap)) in filters.iter().enumerate() {
        let frames = [traffic(&mut rng, 120, false), traffic(&mut rng, 120, false)];
        b.setup(f, *snap);
        let recs = b.run(&frames);
        let n = b.check(&recs, &frames, f, *snap);
        let want = [0, 1].map(|d| frames[d].iter().filter(|x| f.matches(&x.data)).count());
        eprintln!("filter {k}: {n:?} records");
        assert_eq!(n, want, "filter {k}: records");
        assert!(k == 8 || n[0] + n[1] > 0, "filter {k} matched nothing: a weak test");
        if k == 2 {
            tshark_agrees(&recs, *snap, "snap");
        }
    }

    // overflow: the capture stream stalls, the buffers fill, whole records are dropped and
    // counted; the first record after the stall says how many were lost
    let frames = [traffic(&mut rng, 300, false), traffic(&mut rng, 300, false)];
    b.setup(&any, 0xffff);
    b.mon.ready_pct = 0;
    for i in 0..2 {
        for f in &frames[i] {
            b.d[i].push(f.clone());
        }
    }
    while !b.d[0].idle() || !b.d[1].idle() {
        b.step();
    }
    b.mon.ready_pct = 85;
    let tail = [traffic(&mut rng, 3, false), traffic(&mut rng, 3, false)];
    let recs = b.run(&tail);
    let all = [0, 1].map(|d| [frames[d].clone(), tail[d].clone()].concat());
    let n = b.check(&recs, &all, &any, 0xffff);
    let drops: u32 = recs.iter().map(|r| r.drops).sum();
    eprintln!("overflow: {drops} dropped, {n:?} captured");
    assert!(drops > 100 && n[0] > 10 && n[1] > 10, "overflow: {drops} dropped, {n:?} captured");
    tshark_agrees(&recs, 0xffff, "overflow");
}
