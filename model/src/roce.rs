//! RoCEv2 frames: build and parse, for every RC opcode.
use etherparse::{EtherType, Ethernet2Header, IpNumber, Ipv4Header, Ipv6FlowLabel, Ipv6Header, UdpHeader};
use thiserror::Error;

pub const ROCE_UDP_PORT: u16 = 4791;
pub const BTH_LEN: usize = 12;
pub const RETH_LEN: usize = 16;
pub const AETH_LEN: usize = 4;
pub const IMMDT_LEN: usize = 4;
pub const IETH_LEN: usize = 4;
pub const ATOMIC_ETH_LEN: usize = 28;
pub const ATOMIC_ACK_ETH_LEN: usize = 8;
pub const ICRC_LEN: usize = 4;

/// RC opcodes (IBA vol. 1, table 38), transport bits 000.
pub mod opcode {
    pub const SEND_FIRST: u8 = 0x00;
    pub const SEND_MIDDLE: u8 = 0x01;
    pub const SEND_LAST: u8 = 0x02;
    pub const SEND_LAST_IMM: u8 = 0x03;
    pub const SEND_ONLY: u8 = 0x04;
    pub const SEND_ONLY_IMM: u8 = 0x05;
    pub const WRITE_FIRST: u8 = 0x06;
    pub const WRITE_MIDDLE: u8 = 0x07;
    pub const WRITE_LAST: u8 = 0x08;
    pub const WRITE_LAST_IMM: u8 = 0x09;
    pub const WRITE_ONLY: u8 = 0x0a;
    pub const WRITE_ONLY_IMM: u8 = 0x0b;
    pub const READ_REQUEST: u8 = 0x0c;
    pub const READ_RESP_FIRST: u8 = 0x0d;
    pub const READ_RESP_MIDDLE: u8 = 0x0e;
    pub const READ_RESP_LAST: u8 = 0x0f;
    pub const READ_RESP_ONLY: u8 = 0x10;
    pub const ACK: u8 = 0x11;
    pub const ATOMIC_ACK: u8 = 0x12;
    pub const CMP_SWAP: u8 = 0x13;
    pub const FETCH_ADD: u8 = 0x14;
    pub const SEND_LAST_INV: u8 = 0x16;
    pub const SEND_ONLY_INV: u8 = 0x17;
    /// Every RC opcode.
    pub const ALL_RC: [u8; 23] = [
        0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10,
        0x11, 0x12, 0x13, 0x14, 0x16, 0x17,
    ];
}

/// Which extension headers follow the BTH, in order, and whether a payload may follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct OpcodeLayout {
    pub reth: bool,
    pub aeth: bool,
    pub immdt: bool,
    pub ieth: bool,
    pub atomic_eth: bool,
    pub atomic_ack_eth: bool,
    pub payload: bool,
}

impl OpcodeLayout {
    pub fn of(op: u8) -> Option<Self> {
        use opcode::*;
        let mut l = OpcodeLayout { payload: true, ..Default::default() };
        match op {
            SEND_FIRST | SEND_MIDDLE | SEND_LAST | SEND_ONLY | WRITE_MIDDLE | WRITE_LAST | READ_RESP_MIDDLE => {}
            SEND_LAST_IMM | SEND_ONLY_IMM | WRITE_LAST_IMM => l.immdt = true,
            SEND_LAST_INV | SEND_ONLY_INV => l.ieth = true,
            WRITE_FIRST | WRITE_ONLY => l.reth = true,
            WRITE_ONLY_IMM => {
                l.reth = true;
                l.immdt = true
            }
            READ_REQUEST => {
                l.reth = true;
                l.payload = false
            }
            READ_RESP_FIRST | READ_RESP_LAST | READ_RESP_ONLY => l.aeth = true,
            ACK => {
                l.aeth = true;
                l.payload = false
            }
            ATOMIC_ACK => {
                l.aeth = true;
                l.atomic_ack_eth = true;
                l.payload = false
            }
            CMP_SWAP | FETCH_ADD => {
                l.atomic_eth = true;
                l.payload = false
            }
            _ => return None,
        }
        Some(l)
    }
    /// Bytes of extension headers after the BTH.
    pub fn ext_len(&self) -> usize {
        self.reth as usize * RETH_LEN
            + self.aeth as usize * AETH_LEN
            + self.immdt as usize * IMMDT_LEN
            + self.ieth as usize * IETH_LEN
            + self.atomic_eth as usize * ATOMIC_ETH_LEN
            + self.atomic_ack_eth as usize * ATOMIC_ACK_ETH_LEN
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Bth {
    pub opcode: u8,
    pub se: bool,
    pub migreq: bool,
    pub pad: u8,
    pub tver: u8,
    pub pkey: u16,
    pub fecn: bool,
    pub becn: bool,
    pub dqpn: u32,
    pub ackreq: bool,
    pub psn: u32,
}

impl Bth {
    pub fn to_bytes(&self) -> [u8; BTH_LEN] {
        let mut b = [0u8; BTH_LEN];
        b[0] = self.opcode;
        b[1] = (self.se as u8) << 7 | (self.migreq as u8) << 6 | (self.pad & 3) << 4 | (self.tver & 0xf);
        b[2..4].copy_from_slice(&self.pkey.to_be_bytes());
        b[4] = (self.fecn as u8) << 7 | (self.becn as u8) << 6;
        b[5..8].copy_from_slice(&self.dqpn.to_be_bytes()[1..]);
        b[8] = (self.ackreq as u8) << 7;
        b[9..12].copy_from_slice(&self.psn.to_be_bytes()[1..]);
        b
    }
    pub fn from_bytes(b: &[u8]) -> Self {
        Bth {
            opcode: b[0],
            se: b[1] & 0x80 != 0,
            migreq: b[1] & 0x40 != 0,
            pad: (b[1] >> 4) & 3,
            tver: b[1] & 0xf,
            pkey: u16::from_be_bytes([b[2], b[3]]),
            fecn: b[4] & 0x80 != 0,
            becn: b[4] & 0x40 != 0,
            dqpn: u32::from_be_bytes([0, b[5], b[6], b[7]]),
            ackreq: b[8] & 0x80 != 0,
            psn: u32::from_be_bytes([0, b[9], b[10], b[11]]),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Reth {
    pub va: u64,
    pub rkey: u32,
    pub dma_len: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Aeth {
    pub syndrome: u8,
    pub msn: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IpHdr {
    V4 { src: [u8; 4], dst: [u8; 4], dscp: u8, ecn: u8, ttl: u8, id: u16 },
    V6 { src: [u8; 16], dst: [u8; 16], tclass: u8, flow: u32, hlim: u8 },
}

/// Everything in a RoCEv2 frame except the payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoceHeaders {
    pub src_mac: [u8; 6],
    pub dst_mac: [u8; 6],
    pub ip: IpHdr,
    pub udp_sport: u16,
    pub udp_csum: u16,
    pub bth: Bth,
    pub reth: Option<Reth>,
    pub aeth: Option<Aeth>,
    pub immdt: Option<u32>,
    pub ieth: Option<u32>,
    /// AtomicETH (28 bytes) or AtomicAckETH (8 bytes), raw.
    pub atomic: Option<Vec<u8>>,
}

impl RoceHeaders {
    /// Headers for `opcode` with every extension header it needs (zero-filled).
    pub fn new(ip: IpHdr, op: u8, dqpn: u32, psn: u32) -> Self {
        let l = OpcodeLayout::of(op).expect("RC opcode");
        RoceHeaders {
            src_mac: [0x02, 0, 0, 0, 0, 1],
            dst_mac: [0x02, 0, 0, 0, 0, 2],
            ip,
            udp_sport: 0xc000,
            udp_csum: 0,
            bth: Bth { opcode: op, pkey: 0xffff, dqpn, psn, ..Default::default() },
            reth: l.reth.then(Reth::default),
            aeth: l.aeth.then(Aeth::default),
            immdt: l.immdt.then_some(0),
            ieth: l.ieth.then_some(0),
            atomic: if l.atomic_eth {
                Some(vec![0; ATOMIC_ETH_LEN])
            } else if l.atomic_ack_eth {
                Some(vec![0; ATOMIC_ACK_ETH_LEN])
            } else {
                None
            },
        }
    }

    fn ext_bytes(&self) -> Vec<u8> {
        let mut v = vec![];
        if let Some(r) = &self.reth {
            v.extend(r.va.to_be_bytes());
            v.extend(r.rkey.to_be_bytes());
            v.extend(r.dma_len.to_be_bytes());
        }
        if let Some(a) = &self.aeth {
            v.push(a.syndrome);
            v.extend(&a.msn.to_be_bytes()[1..]);
        }
        if let Some(a) = &self.atomic {
            if a.len() == ATOMIC_ETH_LEN {
                v.extend(a);
            }
        }
        if let Some(a) = &self.atomic {
            if a.len() == ATOMIC_ACK_ETH_LEN {
                v.extend(a);
            }
        }
        if let Some(i) = self.immdt {
            v.extend(i.to_be_bytes());
        }
        if let Some(i) = self.ieth {
            v.extend(i.to_be_bytes());
        }
        v
    }

    /// The whole Ethernet frame (no FCS) with `payload`, pad bytes to a 4-byte multiple (the BTH
    /// pad count is set from the payload length) and the ICRC.
    pub fn build(&self, payload: &[u8]) -> Vec<u8> {
        self.build_with(payload, true)
    }

    /// Like [`build`](Self::build); with `pad == false` the payload is not padded to a 4-byte
    /// multiple (not a valid IBA packet, but it reaches every frame length for engine tests).
    pub fn build_with(&self, payload: &[u8], pad: bool) -> Vec<u8> {
        let mut bth = self.bth;
        bth.pad = if pad { ((4 - payload.len() % 4) % 4) as u8 } else { 0 };
        let mut l4 = bth.to_bytes().to_vec();
        l4.extend(self.ext_bytes());
        l4.extend(payload);
        l4.extend(std::iter::repeat(0u8).take(bth.pad as usize));
        let udp_len = (UdpHeader::LEN + l4.len() + ICRC_LEN) as u16;
        let udp = UdpHeader { source_port: self.udp_sport, destination_port: ROCE_UDP_PORT, length: udp_len, checksum: self.udp_csum };
        let mut f = vec![];
        match self.ip {
            IpHdr::V4 { src, dst, dscp, ecn, ttl, id } => {
                Ethernet2Header { source: self.src_mac, destination: self.dst_mac, ether_type: EtherType::IPV4 }.write(&mut f).unwrap();
                let mut ip = Ipv4Header::new(udp_len, ttl, IpNumber::UDP, src, dst).unwrap();
                ip.dscp = etherparse::Ipv4Dscp::try_new(dscp & 0x3f).unwrap();
                ip.ecn = etherparse::Ipv4Ecn::try_new(ecn & 3).unwrap();
                ip.identification = id;
                ip.dont_fragment = true;
                ip.header_checksum = ip.calc_header_checksum();
                ip.write(&mut f).unwrap();
            }
            IpHdr::V6 { src, dst, tclass, flow, hlim } => {
                Ethernet2Header { source: self.src_mac, destination: self.dst_mac, ether_type: EtherType::IPV6 }.write(&mut f).unwrap();
                let ip = Ipv6Header {
                    traffic_class: tclass,
                    flow_label: Ipv6FlowLabel::try_new(flow & 0xfffff).unwrap(),
                    payload_length: udp_len,
                    next_header: IpNumber::UDP,
                    hop_limit: hlim,
                    source: src,
                    destination: dst,
                };
                ip.write(&mut f).unwrap();
            }
        }
        udp.write(&mut f).unwrap();
        f.extend(l4);
        let c = crate::icrc::icrc_of(&f).expect("just built a RoCEv2 frame");
        f.extend(c.to_le_bytes());
        f
    }
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum ParseError {
    #[error("frame of {0} bytes is too short for {1}")]
    Truncated(usize, &'static str),
    #[error("not IPv4 or IPv6 (ethertype 0x{0:04x})")]
    NotIp(u16),
    #[error("not UDP to port 4791")]
    NotRoce,
    #[error("IPv4 header: {0}")]
    Ipv4(String),
    #[error("IPv6 header: {0}")]
    Ipv6(String),
    #[error("unknown or non-RC opcode 0x{0:02x}")]
    Opcode(u8),
    #[error("pad count {pad} larger than the {len}-byte payload area")]
    Pad { pad: u8, len: usize },
}

/// A parsed RoCEv2 frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoceFrame {
    pub hdr: RoceHeaders,
    /// Offset of the BTH in the frame.
    pub bth_offset: usize,
    pub payload: Vec<u8>,
    pub icrc: u32,
}

/// Offset of the UDP header and whether the frame is UDP/4791, without validating the rest.
pub fn locate_udp(f: &[u8]) -> Result<(usize, bool), ParseError> {
    if f.len() < 14 {
        return Err(ParseError::Truncated(f.len(), "Ethernet"));
    }
    let et = u16::from_be_bytes([f[12], f[13]]);
    let (l4, proto) = match et {
        0x0800 => {
            let (ip, _) = Ipv4Header::from_slice(&f[14..]).map_err(|e| ParseError::Ipv4(e.to_string()))?;
            (14 + ip.header_len(), ip.protocol)
        }
        0x86dd => {
            let (ip, _) = Ipv6Header::from_slice(&f[14..]).map_err(|e| ParseError::Ipv6(e.to_string()))?;
            (14 + Ipv6Header::LEN, ip.next_header)
        }
        _ => return Err(ParseError::NotIp(et)),
    };
    if f.len() < l4 + 8 {
        return Err(ParseError::Truncated(f.len(), "UDP"));
    }
    let dport = u16::from_be_bytes([f[l4 + 2], f[l4 + 3]]);
    Ok((l4, proto == IpNumber::UDP && dport == ROCE_UDP_PORT))
}

/// Parse a whole RoCEv2 frame (with its ICRC; the ICRC is not checked here).
pub fn parse(f: &[u8]) -> Result<RoceFrame, ParseError> {
    let (l4, roce) = locate_udp(f)?;
    if !roce {
        return Err(ParseError::NotRoce);
    }
    let ip = match u16::from_be_bytes([f[12], f[13]]) {
        0x0800 => {
            let (h, _) = Ipv4Header::from_slice(&f[14..]).map_err(|e| ParseError::Ipv4(e.to_string()))?;
            IpHdr::V4 { src: h.source, dst: h.destination, dscp: h.dscp.value(), ecn: h.ecn.value(), ttl: h.time_to_live, id: h.identification }
        }
        _ => {
            let (h, _) = Ipv6Header::from_slice(&f[14..]).map_err(|e| ParseError::Ipv6(e.to_string()))?;
            IpHdr::V6 { src: h.source, dst: h.destination, tclass: h.traffic_class, flow: h.flow_label.value(), hlim: h.hop_limit }
        }
    };
    let (udp, _) = UdpHeader::from_slice(&f[l4..]).map_err(|_| ParseError::Truncated(f.len(), "UDP"))?;
    let b = l4 + UdpHeader::LEN;
    if f.len() < b + BTH_LEN + ICRC_LEN {
        return Err(ParseError::Truncated(f.len(), "BTH"));
    }
    let bth = Bth::from_bytes(&f[b..b + BTH_LEN]);
    let l = OpcodeLayout::of(bth.opcode).ok_or(ParseError::Opcode(bth.opcode))?;
    let mut p = b + BTH_LEN;
    let end = f.len() - ICRC_LEN;
    if end < p + l.ext_len() {
        return Err(ParseError::Truncated(f.len(), "extension headers"));
    }
    let mut hdr = RoceHeaders {
        src_mac: f[6..12].try_into().unwrap(),
        dst_mac: f[0..6].try_into().unwrap(),
        ip,
        udp_sport: udp.source_port,
        udp_csum: udp.checksum,
        bth,
        reth: None,
        aeth: None,
        immdt: None,
        ieth: None,
        atomic: None,
    };
    let be32 = |x: &[u8]| u32::from_be_bytes(x[..4].try_into().unwrap());
    if l.reth {
        hdr.reth = Some(Reth { va: u64::from_be_bytes(f[p..p + 8].try_into().unwrap()), rkey: be32(&f[p + 8..]), dma_len: be32(&f[p + 12..]) });
        p += RETH_LEN;
    }
    if l.aeth {
        hdr.aeth = Some(Aeth { syndrome: f[p], msn: be32(&f[p..]) & 0xff_ffff });
        p += AETH_LEN;
    }
    if l.atomic_eth {
        hdr.atomic = Some(f[p..p + ATOMIC_ETH_LEN].to_vec());
        p += ATOMIC_ETH_LEN;
    }
    if l.atomic_ack_eth {
        hdr.atomic = Some(f[p..p + ATOMIC_ACK_ETH_LEN].to_vec());
        p += ATOMIC_ACK_ETH_LEN;
    }
    if l.immdt {
        hdr.immdt = Some(be32(&f[p..]));
        p += IMMDT_LEN;
    }
    if l.ieth {
        hdr.ieth = Some(be32(&f[p..]));
        p += IETH_LEN;
    }
    let area = end - p;
    if bth.pad as usize > area {
        return Err(ParseError::Pad { pad: bth.pad, len: area });
    }
    Ok(RoceFrame {
        hdr,
        bth_offset: b,
        payload: f[p..end - bth.pad as usize].to_vec(),
        icrc: u32::from_le_bytes(f[end..].try_into().unwrap()),
    })
}
