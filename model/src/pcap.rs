//! PCAP read and write with nanosecond timestamps, and PCAPNG read (what `tshark -w` and
//! Wireshark write by default), with `pcap-file`.
use anyhow::{Context, Result};
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapReader, PcapWriter};
use pcap_file::pcapng::{Block, PcapNgReader};
use pcap_file::{DataLink, TsResolution};
use std::path::Path;
use std::time::Duration;

/// One captured frame: time in ns and the bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Captured {
    pub ts_ns: u64,
    pub data: Vec<u8>,
}

pub fn write_pcap(path: &Path, frames: &[Captured]) -> Result<()> {
    let f = std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let hdr = PcapHeader { ts_resolution: TsResolution::NanoSecond, datalink: DataLink::ETHERNET, snaplen: 65535, ..Default::default() };
    let mut w = PcapWriter::with_header(std::io::BufWriter::new(f), hdr)?;
    for c in frames {
        w.write_packet(&PcapPacket::new(Duration::from_nanos(c.ts_ns), c.data.len() as u32, &c.data))?;
    }
    Ok(())
}

/// Read every frame of a PCAP or PCAPNG file (told apart by their magic numbers).
pub fn read_pcap(path: &Path) -> Result<Vec<Captured>> {
    let bytes = std::fs::read(path).with_context(|| format!("opening {}", path.display()))?;
    if bytes.len() >= 4 && bytes[..4] == [0x0a, 0x0d, 0x0d, 0x0a] {
        return read_pcapng(path, &bytes);
    }
    let f = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut r = PcapReader::new(std::io::BufReader::new(f)).with_context(|| format!("{}: not a PCAP file", path.display()))?;
    let mut v = vec![];
    while let Some(p) = r.next_packet() {
        let p = p.with_context(|| format!("{}: frame {}", path.display(), v.len() + 1))?;
        v.push(Captured { ts_ns: p.timestamp.as_nanos() as u64, data: p.data.into_owned() });
    }
    Ok(v)
}

fn read_pcapng(path: &Path, bytes: &[u8]) -> Result<Vec<Captured>> {
    let mut r = PcapNgReader::new(bytes).with_context(|| format!("{}: not a PCAPNG file", path.display()))?;
    let mut v = vec![];
    while let Some(b) = r.next_block() {
        let b = b.with_context(|| format!("{}: block after frame {}", path.display(), v.len()))?;
        match b {
            Block::EnhancedPacket(p) => v.push(Captured { ts_ns: p.timestamp.as_nanos() as u64, data: p.data.into_owned() }),
            Block::SimplePacket(p) => v.push(Captured { ts_ns: 0, data: p.data.into_owned() }),
            _ => {}
        }
    }
    Ok(v)
}
