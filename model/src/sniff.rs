//! The traffic sniffer's host side: its capture records, its filter as a reference model, and
//! PCAPNG output (one interface per direction, nanosecond timestamps) with `pcap-file`.
//!
//! A record is a run of 64-byte words, as the sniffer's `m_axis_cap` stream (and a DMA of it
//! into host memory) leaves them: one descriptor word, then `ceil(cap_len / 64)` words of the
//! frame's first `cap_len` bytes. Descriptor, little-endian:
//!
//! | bytes  | field                                                                     |
//! |--------|---------------------------------------------------------------------------|
//! | 0..8   | timestamp of the frame's first beat at the tap, ns (free-running counter)  |
//! | 8..10  | the frame's length on the tap (bytes)                                      |
//! | 10..12 | bytes captured: `min(length, snap length)`                                 |
//! | 12     | direction: 0 = RX (from the MAC), 1 = TX (to the MAC)                      |
//! | 13     | flags: bit 0 = the frame was marked bad (`tuser`) on its last beat         |
//! | 16..20 | records of this direction lost for lack of buffer room since the last one  |
//! | 20..24 | the frame's number on its tap (every frame counts, captured or not)        |
//! | 24..28 | magic `SNF1`                                                               |
//! | 28..64 | zero                                                                       |
use anyhow::{bail, Context, Result};
use etherparse::{NetSlice, SlicedPacket, TransportSlice};
use pcap_file::pcapng::blocks::enhanced_packet::{EnhancedPacketBlock, EnhancedPacketOption};
use pcap_file::pcapng::blocks::interface_description::{InterfaceDescriptionBlock, InterfaceDescriptionOption};
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::DataLink;
use std::path::Path;
use std::time::Duration;

pub const WORD: usize = 64;
pub const MAGIC: [u8; 4] = *b"SNF1";
pub const DIR_RX: u8 = 0;
pub const DIR_TX: u8 = 1;

/// One capture record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub ts_ns: u64,
    pub orig_len: u16,
    pub dir: u8,
    pub bad: bool,
    pub drops: u32,
    pub seq: u32,
    /// The captured bytes (`cap_len` of them).
    pub data: Vec<u8>,
}

/// Words a record of `cap_len` captured bytes takes, descriptor included.
pub fn record_words(cap_len: usize) -> usize {
    1 + cap_len.div_ceil(WORD)
}

/// Split a stream of capture words into records. Errors name the byte offset and the field.
pub fn parse_records(bytes: &[u8]) -> Result<Vec<Record>> {
    if bytes.len() % WORD != 0 {
        bail!("capture stream: {} bytes is not a whole number of 64-byte words", bytes.len());
    }
    let mut v = vec![];
    let mut at = 0;
    while at < bytes.len() {
        let d = &bytes[at..at + WORD];
        if d[24..28] != MAGIC {
            bail!("capture stream offset {at}: magic {:02x?}, expected {:02x?} (SNF1)", &d[24..28], MAGIC);
        }
        let u16_at = |i: usize| u16::from_le_bytes([d[i], d[i + 1]]);
        let u32_at = |i: usize| u32::from_le_bytes(d[i..i + 4].try_into().unwrap());
        let (orig_len, cap_len) = (u16_at(8), u16_at(10) as usize);
        if cap_len > orig_len as usize {
            bail!("capture stream offset {at}: cap_len {cap_len} > orig_len {orig_len}");
        }
        if d[12] > DIR_TX {
            bail!("capture stream offset {at}: direction {} (0 = RX, 1 = TX)", d[12]);
        }
        let end = at + record_words(cap_len) * WORD;
        if end > bytes.len() {
            bail!("capture stream offset {at}: record of {cap_len} bytes runs past the end ({} bytes)", bytes.len());
        }
        v.push(Record {
            ts_ns: u64::from_le_bytes(d[0..8].try_into().unwrap()),
            orig_len,
            dir: d[12],
            bad: d[13] & 1 != 0,
            drops: u32_at(16),
            seq: u32_at(20),
            data: bytes[at + WORD..at + WORD + cap_len].to_vec(),
        });
        at = end;
    }
    Ok(v)
}

/// Write records as PCAPNG: interface 0 is RX, 1 is TX, both Ethernet with nanosecond
/// timestamps. Each packet carries its direction (`epb_flags`) and, where records were lost
/// before it, their number (`epb_dropcount`).
pub fn write_pcapng(path: &Path, recs: &[Record], snaplen: u32) -> Result<()> {
    let f = std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut w = PcapNgWriter::new(std::io::BufWriter::new(f))?;
    for name in ["rx", "tx"] {
        w.write_pcapng_block(InterfaceDescriptionBlock {
            linktype: DataLink::ETHERNET,
            snaplen,
            options: vec![
                InterfaceDescriptionOption::IfName(name.into()),
                InterfaceDescriptionOption::IfDescription(format!("nicgen sniffer, MAC {}", name.to_uppercase()).into()),
                InterfaceDescriptionOption::IfTsResol(9),
            ],
        })?;
    }
    for r in recs {
        let mut options = vec![EnhancedPacketOption::Flags(if r.dir == DIR_RX { 1 } else { 2 })];
        if r.drops > 0 {
            options.push(EnhancedPacketOption::DropCount(r.drops as u64));
        }
        w.write_pcapng_block(EnhancedPacketBlock {
            interface_id: r.dir as u32,
            timestamp: Duration::from_nanos(r.ts_ns),
            original_len: r.orig_len as u32,
            data: r.data.as_slice().into(),
            options,
        })?;
    }
    Ok(())
}

/// The sniffer's filter: a frame is captured when every field matches under its mask (a zero
/// mask matches anything, even a frame without that field). IP matches the IPv4 source or
/// destination, the port the UDP source or destination; opcode and QPN are the BTH's, of
/// RoCEv2 frames (UDP port 4791) over IPv4 without options or over IPv6.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    pub ip: (u32, u32),
    pub port: (u16, u16),
    pub opcode: (u8, u8),
    pub qpn: (u32, u32),
}

impl Filter {
    /// The reference: fields found by etherparse, BTH read at the start of the UDP payload.
    pub fn matches(&self, frame: &[u8]) -> bool {
        let hit = |x: u32, (v, m): (u32, u32)| (x ^ v) & m == 0;
        let sliced = SlicedPacket::from_ethernet(frame).ok();
        let (mut ips, mut ports, mut bth) = (None, None, None);
        if let Some(p) = &sliced {
            // the sniffer reads fixed offsets: no VLAN tag, IPv4 without options
            if p.vlan.is_none() {
                let v4 = match &p.net {
                    Some(NetSlice::Ipv4(h)) if h.header().ihl() == 5 => Some((h.header().source(), h.header().destination())),
                    _ => None,
                };
                let v6 = matches!(&p.net, Some(NetSlice::Ipv6(h)) if h.extensions().is_empty());
                if let Some((s, d)) = v4 {
                    ips = Some((u32::from_be_bytes(s), u32::from_be_bytes(d)));
                }
                if let (true, Some(TransportSlice::Udp(u))) = (v4.is_some() || v6, &p.transport) {
                    ports = Some((u.source_port(), u.destination_port()));
                    let at = if v6 { 62 } else { 42 };
                    if u.destination_port() == 4791 && frame.len() >= at + 8 {
                        bth = Some((frame[at], u32::from_be_bytes([0, frame[at + 5], frame[at + 6], frame[at + 7]])));
                    }
                }
            }
        }
        let ip_ok = self.ip.1 == 0 || ips.is_some_and(|(s, d)| hit(s, self.ip) || hit(d, self.ip));
        let pm = (self.port.0 as u32, self.port.1 as u32);
        let port_ok = pm.1 == 0 || ports.is_some_and(|(s, d)| hit(s as u32, pm) || hit(d as u32, pm));
        let op_ok = self.opcode.1 == 0 || bth.is_some_and(|(op, _)| hit(op as u32, (self.opcode.0 as u32, self.opcode.1 as u32)));
        let qpn_ok = self.qpn.1 == 0 || bth.is_some_and(|(_, q)| hit(q, self.qpn));
        ip_ok && port_ok && op_ok && qpn_ok
    }
}

/// What [`check_records`] found for one direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    pub captured: usize,
    /// Frames the filter passes that have no record: reported by the records' drop counts.
    pub lost: u32,
    /// Of those, the ones after the last record (no record has reported them yet).
    pub tail: u32,
    /// Frames the filter passes over.
    pub filtered: usize,
}

/// Check one direction's records against the frames that crossed its tap, in order: each record
/// names its frame (`seq`), which the filter must pass; the frames the filter passes between two
/// records must equal the later one's drop count; the bytes must be the frame's first
/// `min(length, snap)` and the length the frame's.
pub fn check_records(recs: &[&Record], frames: &[Vec<u8>], filter: &Filter, snap: u16) -> std::result::Result<Checked, String> {
    let want: Vec<bool> = frames.iter().map(|x| filter.matches(x)).collect();
    let (mut next, mut lost) = (0usize, 0u32);
    for r in recs {
        let i = r.seq as usize;
        if i < next || i >= frames.len() {
            return Err(format!("record for frame {i} out of order or beyond the {} frames (next {next})", frames.len()));
        }
        if !want[i] {
            return Err(format!("frame {i} captured, but the filter should pass over it"));
        }
        let skipped = want[next..i].iter().filter(|w| **w).count() as u32;
        if r.drops != skipped {
            return Err(format!("frame {i}: drop count {} but {skipped} frames the filter passes have no record", r.drops));
        }
        lost += skipped;
        let x = &frames[i];
        if r.orig_len as usize != x.len() {
            return Err(format!("frame {i}: length {} recorded, {} on the tap", r.orig_len, x.len()));
        }
        if r.data[..] != x[..x.len().min(snap as usize)] {
            return Err(format!("frame {i}: captured bytes differ from the frame's first {}", r.data.len()));
        }
        next = i + 1;
    }
    let tail = want[next..].iter().filter(|w| **w).count() as u32;
    Ok(Checked { captured: recs.len(), lost: lost + tail, tail, filtered: want.iter().filter(|w| !**w).count() })
}

impl std::str::FromStr for Filter {
    type Err = anyhow::Error;
    /// `field=value[/mask]`, comma-separated; fields `qpn`, `opcode`, `ip` (dotted or a
    /// number), `port`. Numbers may be hex (`0x…`). Without a mask, the whole field must match.
    fn from_str(s: &str) -> Result<Self> {
        fn num(v: &str) -> Result<u32> {
            if let Ok(ip) = v.parse::<std::net::Ipv4Addr>() {
                return Ok(u32::from(ip));
            }
            let r = match v.strip_prefix("0x") {
                Some(h) => u32::from_str_radix(h, 16),
                None => v.parse(),
            };
            r.with_context(|| format!("filter value {v:?}: not a number or IPv4 address"))
        }
        let mut f = Filter::default();
        for item in s.split(',').filter(|x| !x.is_empty()) {
            let (k, v) = item.split_once('=').with_context(|| format!("filter {item:?}: expected field=value[/mask]"))?;
            let (v, m) = match v.split_once('/') {
                Some((v, m)) => (num(v)?, Some(num(m)?)),
                None => (num(v)?, None),
            };
            let full = |bits: u32| -> Result<(u32, u32)> {
                let all = if bits == 32 { u32::MAX } else { (1 << bits) - 1 };
                let m = m.unwrap_or(all);
                if v > all || m > all {
                    bail!("filter {k}: value {v:#x} or mask {m:#x} wider than {bits} bits");
                }
                Ok((v, m))
            };
            match k {
                "qpn" => f.qpn = full(24)?,
                "ip" => f.ip = full(32)?,
                "port" => {
                    let (v, m) = full(16)?;
                    f.port = (v as u16, m as u16);
                }
                "opcode" => {
                    let (v, m) = full(8)?;
                    f.opcode = (v as u8, m as u8);
                }
                _ => bail!("filter field {k:?}: one of qpn, opcode, ip, port"),
            }
        }
        Ok(f)
    }
}
