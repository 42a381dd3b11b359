//! The DistDPU execution module's golden model: what the EM parser reads from a frame, and why
//! it drops one.
//!
//! The parser reads the first 128 bytes of a frame (bytes past the frame's end read as zero):
//! Ethernet with an optional 802.1Q tag, IPv4 without options or IPv6 without extension
//! headers, then TCP, UDP or another protocol. On the wire side a UDP datagram over IPv4 to port
//! 4789 is VXLAN (RFC 7348), and the inner frame (IPv4 or IPv6) is read by the same rules.
//!
//! IPv6 and the tables: every table keys IPv4-sized (32-bit) addresses. An IPv6 address enters
//! the header, the ACL and the address lookups as its 32-bit fold ([`v6_fold`], the XOR of its
//! four 32-bit words); the layer's `v6` flag says so. See [`Tuple`], [`class_key`] and
//! [`LookTables::lookup`] for what that allows.
//!
//! Drop causes, in the order they are decided:
//! 1. `BadFrame`: the MAC marked the frame bad (`tuser` on its last beat).
//! 2. `Truncated`: the frame ends before a header the parser read, or before an IPv4 datagram's
//!    total length. Only headers up to the first other cause count.
//! 3. The first cause met while reading the headers outer to inner, in this order per layer:
//!    `NotIp` (ethertype neither IPv4 nor IPv6), `Malformed` (IP version not 4 (6), IHL below
//!    5, total length below the headers it carries; IPv6 payload length above 65,495; TCP data
//!    offset below 5; UDP length below 8 or past the datagram; UDP to port 4791 (RoCEv2) with no
//!    room in the datagram for a BTH and an ICRC), `IpOptions` (IHL above 5; an
//!    IPv6 extension header: next header 0, 43, 50 is not one (ESP is a payload), 51, 60, 135,
//!    139, 140, 253 or 254), `BadIpChecksum` (IPv4), `Fragment` (MF set or a fragment offset;
//!    IPv6 next header 44), and for VXLAN `BadVxlan` (the I flag clear).

/// The UDP destination ports the parser knows.
pub const VXLAN_PORT: u16 = 4789;
pub const ROCE_PORT: u16 = 4791;
/// Bytes a RoCEv2 datagram carries after its UDP header at least: the BTH (12) and the ICRC (4).
pub const ROCE_MIN: usize = 16;
/// Header bytes the parser reads at most (two 512-bit beats).
pub const EM_WINDOW: usize = 128;

/// Why the EM parser dropped a frame (the counter index is the discriminant).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum EmDrop {
    BadFrame = 1,
    Truncated = 2,
    NotIp = 3,
    Malformed = 4,
    IpOptions = 5,
    BadIpChecksum = 6,
    Fragment = 7,
    BadVxlan = 8,
}

impl EmDrop {
    pub const ALL: [EmDrop; 8] = [
        EmDrop::BadFrame,
        EmDrop::Truncated,
        EmDrop::NotIp,
        EmDrop::Malformed,
        EmDrop::IpOptions,
        EmDrop::BadIpChecksum,
        EmDrop::Fragment,
        EmDrop::BadVxlan,
    ];
    pub fn from_code(c: u8) -> Option<EmDrop> {
        EmDrop::ALL.iter().copied().find(|d| *d as u8 == c)
    }
    /// The counter's name.
    pub fn name(self) -> &'static str {
        match self {
            EmDrop::BadFrame => "bad_frame",
            EmDrop::Truncated => "truncated",
            EmDrop::NotIp => "not_ip",
            EmDrop::Malformed => "malformed",
            EmDrop::IpOptions => "ip_options",
            EmDrop::BadIpChecksum => "bad_ip_checksum",
            EmDrop::Fragment => "fragment",
            EmDrop::BadVxlan => "bad_vxlan",
        }
    }
}

/// One Ethernet/IP/L4 layer as the parser reads it. Offsets are from the frame's first byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EmL3 {
    /// The 802.1Q VLAN id, if tagged.
    pub vlan: Option<u16>,
    /// IPv6 (else IPv4).
    pub v6: bool,
    /// Offset of the IP header.
    pub l3: usize,
    /// The addresses (IPv6: their [`v6_fold`]s).
    pub src: u32,
    pub dst: u32,
    /// The protocol (IPv6: the next header), TOS (traffic class) and TTL (hop limit).
    pub proto: u8,
    pub tos: u8,
    pub ttl: u8,
    /// The datagram's length: the IPv4 total length, or 40 + the IPv6 payload length.
    pub tot: u16,
    /// TCP/UDP ports (0 for other protocols).
    pub sport: u16,
    pub dport: u16,
}

/// What the parser hands on for an accepted frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EmParsed {
    /// Frame bytes.
    pub len: usize,
    pub outer: EmL3,
    /// VXLAN (wire side only): the VNI and the inner frame's layer.
    pub vni: Option<u32>,
    pub inner: Option<EmL3>,
    /// UDP to port 4791 (the RoCEv2 layer; outer, or inner under VXLAN), and its BTH's
    /// destination QP.
    pub roce: bool,
    pub dqpn: u32,
}

fn b8(b: &[u8], o: usize) -> u8 {
    b.get(o).copied().unwrap_or(0)
}
fn b16(b: &[u8], o: usize) -> u16 {
    (b8(b, o) as u16) << 8 | b8(b, o + 1) as u16
}
fn b32(b: &[u8], o: usize) -> u32 {
    (b16(b, o) as u32) << 16 | b16(b, o + 2) as u32
}

/// RFC 1071: the ones' complement sum of a 20-byte IPv4 header's words is 0xffff. (Computed
/// here on the raw bytes: etherparse's header struct drops the reserved flag bit, so its
/// recomputed checksum differs when that bit is set; the tests check this against etherparse
/// on every other header, and tshark checks every accepted frame.)
pub fn ipv4_checksum_ok(h: &[u8; 20]) -> bool {
    ones_fold((0..10).map(|i| (h[2 * i] as u32) << 8 | h[2 * i + 1] as u32).sum()) == 0xffff
}

/// A 32-bit sum of 16-bit words folded to their ones' complement sum (end-around carries).
pub fn ones_fold(mut s: u32) -> u16 {
    while s >> 16 != 0 {
        s = (s & 0xffff) + (s >> 16);
    }
    s as u16
}

/// An IPv6 address's 32-bit fold: the XOR of its four 32-bit words (the tables' key for it).
pub fn v6_fold(a: u128) -> u32 {
    (a >> 96) as u32 ^ (a >> 64) as u32 ^ (a >> 32) as u32 ^ a as u32
}

/// IPv6 next headers the parser does not read past (extension headers other than the fragment
/// header, which is `Fragment`).
pub const V6_EXT: [u8; 9] = [0, 43, 51, 60, 135, 139, 140, 253, 254];
/// The IPv6 fragment header.
pub const V6_FRAG: u8 = 44;
/// The largest IPv6 payload length whose datagram length (40 + it) fits 16 bits.
pub const V6_MAX_PLEN: u16 = 65495;

/// One layer from offset `e` (its Ethernet header): the layer, and the end of the last header
/// read; or the cause, and that end.
fn layer(b: &[u8], e: usize) -> (Result<EmL3, EmDrop>, usize) {
    let tagged = b16(b, e + 12) == 0x8100;
    let l3 = if tagged { e + 18 } else { e + 14 };
    let et = b16(b, l3 - 2);
    let mut x = EmL3 { vlan: tagged.then(|| b16(b, e + 14) & 0xfff), l3, ..Default::default() };
    let vi = b8(b, l3);
    let (hl, tot) = match et {
        0x0800 => {
            let need = l3 + 20;
            let tot = b16(b, l3 + 2);
            if vi >> 4 != 4 || vi & 15 < 5 || tot < 20 {
                return (Err(EmDrop::Malformed), need);
            }
            if vi & 15 > 5 {
                return (Err(EmDrop::IpOptions), need);
            }
            let hdr: [u8; 20] = std::array::from_fn(|i| b8(b, l3 + i));
            if !ipv4_checksum_ok(&hdr) {
                return (Err(EmDrop::BadIpChecksum), need);
            }
            if b16(b, l3 + 6) & 0x3fff != 0 {
                return (Err(EmDrop::Fragment), need);
            }
            x.src = b32(b, l3 + 12);
            x.dst = b32(b, l3 + 16);
            x.proto = b8(b, l3 + 9);
            x.tos = b8(b, l3 + 1);
            x.ttl = b8(b, l3 + 8);
            (20, tot)
        }
        0x86dd => {
            let need = l3 + 40;
            let plen = b16(b, l3 + 4);
            let nh = b8(b, l3 + 6);
            if vi >> 4 != 6 || plen > V6_MAX_PLEN {
                return (Err(EmDrop::Malformed), need);
            }
            if V6_EXT.contains(&nh) {
                return (Err(EmDrop::IpOptions), need);
            }
            if nh == V6_FRAG {
                return (Err(EmDrop::Fragment), need);
            }
            let a = |o: usize| (b32(b, o) as u128) << 96 | (b32(b, o + 4) as u128) << 64 | (b32(b, o + 8) as u128) << 32 | b32(b, o + 12) as u128;
            x.v6 = true;
            x.src = v6_fold(a(l3 + 8));
            x.dst = v6_fold(a(l3 + 24));
            x.proto = nh;
            x.tos = (b16(b, l3) >> 4) as u8;
            x.ttl = b8(b, l3 + 7);
            (40, plen + 40)
        }
        _ => return (Err(EmDrop::NotIp), l3),
    };
    x.tot = tot;
    let l4 = l3 + hl;
    match x.proto {
        6 => {
            if (tot as usize) < hl + 20 || b8(b, l4 + 12) >> 4 < 5 {
                return (Err(EmDrop::Malformed), l4 + 20);
            }
            (x.sport, x.dport) = (b16(b, l4), b16(b, l4 + 2));
            (Ok(x), l4 + 20)
        }
        17 => {
            let ulen = b16(b, l4 + 4) as usize;
            // a RoCEv2 datagram must hold its BTH and ICRC: NAT updates the ICRC in place
            let roce_short = b16(b, l4 + 2) == ROCE_PORT && (tot as usize) < hl + 8 + ROCE_MIN;
            if (tot as usize) < hl + 8 || ulen < 8 || ulen > tot as usize - hl || roce_short {
                return (Err(EmDrop::Malformed), l4 + 8);
            }
            (x.sport, x.dport) = (b16(b, l4), b16(b, l4 + 2));
            (Ok(x), l4 + 8)
        }
        _ => (Ok(x), l4),
    }
}

/// What the parser's header stage decides from the first 128 bytes alone (bytes past the frame's
/// end read as zero): the first header cause, the bytes the frame must have (`need`: the headers
/// read, and the IPv4 datagrams' ends), and the fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EmExtract {
    pub cause: Option<EmDrop>,
    pub need: usize,
    pub p: EmParsed,
}

/// The header stage (see [`EmExtract`]). `wire`: the frame came from a wire port (VXLAN is read
/// only there).
pub fn em_extract(window: &[u8], wire: bool) -> EmExtract {
    let b = &window[..window.len().min(EM_WINDOW)];
    let (o, need) = layer(b, 0);
    let fail = |cause, need| EmExtract { cause: Some(cause), need, p: EmParsed::default() };
    let outer = match o {
        Ok(x) => x,
        Err(c) => return fail(c, need),
    };
    let mut p = EmParsed { outer, ..Default::default() };
    let mut need = need.max(outer.l3 + outer.tot as usize);
    let mut last = outer;
    if wire && !outer.v6 && outer.proto == 17 && outer.dport == VXLAN_PORT {
        let vx = outer.l3 + 28;
        need = need.max(vx + 8);
        if outer.tot < 36 {
            return fail(EmDrop::Malformed, need);
        }
        if b8(b, vx) & 0x08 == 0 {
            return fail(EmDrop::BadVxlan, need);
        }
        p.vni = Some(b32(b, vx + 4) >> 8);
        let (i, ineed) = layer(b, vx + 8);
        need = need.max(ineed);
        let inner = match i {
            Ok(x) => x,
            Err(c) => return fail(c, need),
        };
        need = need.max(inner.l3 + inner.tot as usize);
        p.inner = Some(inner);
        last = inner;
    }
    if last.proto == 17 && last.dport == ROCE_PORT {
        p.roce = true;
        let bth = last.l3 + if last.v6 { 48 } else { 28 };
        need = need.max(bth + 12);
        p.dqpn = b32(b, bth + 4) & 0xff_ffff;
    }
    EmExtract { cause: None, need, p }
}

/// Parse a frame as the EM parser does. `wire`: it came from a wire port; `mac_bad`: the MAC
/// marked it bad.
pub fn em_parse(frame: &[u8], wire: bool, mac_bad: bool) -> Result<EmParsed, EmDrop> {
    let x = em_extract(frame, wire);
    if mac_bad {
        return Err(EmDrop::BadFrame);
    }
    if frame.len() < x.need {
        return Err(EmDrop::Truncated);
    }
    if let Some(c) = x.cause {
        return Err(c);
    }
    Ok(EmParsed { len: frame.len(), ..x.p })
}

/// The named fields of a frame, in order, as byte ranges: Ethernet (and its 802.1Q tag), IPv4 or
/// IPv6, TCP or UDP, VXLAN and the inner frame (`wire`: read VXLAN as the wire side does), the
/// BTH and ICRC of RoCEv2, the payload and any bytes past the datagram. Inner fields are named
/// `inner.<field>`. For mismatch reports: a byte offset into the field it falls in.
pub fn em_fields(frame: &[u8], wire: bool) -> Vec<(std::ops::Range<usize>, String)> {
    let mut v: Vec<(std::ops::Range<usize>, String)> = vec![];
    let mut put = |at: usize, n: usize, name: String| {
        if at < frame.len() && n > 0 {
            v.push((at..(at + n).min(frame.len()), name));
        }
    };
    let mut e = 0;
    let mut pre = "";
    loop {
        put(e, 6, format!("{pre}eth.dst"));
        put(e + 6, 6, format!("{pre}eth.src"));
        let tagged = b16(frame, e + 12) == 0x8100;
        if tagged {
            put(e + 12, 4, format!("{pre}vlan.tag"));
        }
        let l3 = if tagged { e + 18 } else { e + 14 };
        put(l3 - 2, 2, format!("{pre}eth.type"));
        let (hl, tot, proto) = match b16(frame, l3 - 2) {
            0x0800 => {
                for (o, n, f) in [(0, 1, "version_ihl"), (1, 1, "tos"), (2, 2, "total_length"), (4, 2, "id"), (6, 2, "flags_fragment"), (8, 1, "ttl"), (9, 1, "protocol"), (10, 2, "checksum"), (12, 4, "src"), (16, 4, "dst")] {
                    put(l3 + o, n, format!("{pre}ip.{f}"));
                }
                let hl = (b8(frame, l3) as usize & 15) * 4;
                put(l3 + 20, hl.saturating_sub(20), format!("{pre}ip.options"));
                (hl.max(20), b16(frame, l3 + 2) as usize, b8(frame, l3 + 9))
            }
            0x86dd => {
                for (o, n, f) in [(0, 4, "version_class_flow"), (4, 2, "payload_length"), (6, 1, "next_header"), (7, 1, "hop_limit"), (8, 16, "src"), (24, 16, "dst")] {
                    put(l3 + o, n, format!("{pre}ipv6.{f}"));
                }
                (40, b16(frame, l3 + 4) as usize + 40, b8(frame, l3 + 6))
            }
            _ => {
                put(l3, frame.len() - l3.min(frame.len()), format!("{pre}eth.payload"));
                break;
            }
        };
        let (l4, end) = (l3 + hl, l3 + tot.max(hl));
        let mut body = l4;
        match proto {
            6 => {
                for (o, n, f) in [(0, 2, "sport"), (2, 2, "dport"), (4, 4, "seq"), (8, 4, "ack"), (12, 2, "offset_flags"), (14, 2, "window"), (16, 2, "checksum"), (18, 2, "urgent")] {
                    put(l4 + o, n, format!("{pre}tcp.{f}"));
                }
                let thl = (b8(frame, l4 + 12) as usize >> 4) * 4;
                put(l4 + 20, thl.saturating_sub(20), format!("{pre}tcp.options"));
                body = l4 + thl.max(20);
            }
            17 => {
                for (o, n, f) in [(0, 2, "sport"), (2, 2, "dport"), (4, 2, "length"), (6, 2, "checksum")] {
                    put(l4 + o, n, format!("{pre}udp.{f}"));
                }
                body = l4 + 8;
                let dport = b16(frame, l4 + 2);
                if wire && pre.is_empty() && hl == 20 && dport == VXLAN_PORT {
                    put(body, 4, "vxlan.flags".into());
                    put(body + 4, 4, "vxlan.vni".into());
                    // the inner frame, by the same rules
                    e = body + 8;
                    pre = "inner.";
                    continue;
                }
                if dport == ROCE_PORT {
                    for (o, n, f) in [(0, 1, "opcode"), (1, 1, "se_m_pad_tver"), (2, 2, "pkey"), (4, 1, "fecn_becn"), (5, 3, "dest_qp"), (8, 1, "ackreq"), (9, 3, "psn")] {
                        put(body + o, n, format!("{pre}bth.{f}"));
                    }
                    body += 12;
                    let icrc = end.saturating_sub(4).max(body);
                    put(body, icrc - body, format!("{pre}roce.payload"));
                    put(icrc, 4, format!("{pre}roce.icrc"));
                    body = icrc + 4;
                }
            }
            _ => {}
        }
        put(body, end.saturating_sub(body), format!("{pre}payload"));
        put(end.max(body), frame.len().saturating_sub(end.max(body)), format!("{pre}past the datagram (padding)"));
        break;
    }
    v
}

/// The field (see [`em_fields`]) byte `at` of `frame` falls in, with its range; past the frame's
/// end: "past the end".
pub fn em_field_at(frame: &[u8], wire: bool, at: usize) -> (String, std::ops::Range<usize>) {
    em_fields(frame, wire).into_iter().rev().find(|(r, _)| r.contains(&at)).map_or(("past the end".into(), at..at), |(r, n)| (n, r))
}

/// An Ethernet/IPv4/UDP frame (etherparse): `payload` from `sport` to `dport`.
pub fn ipv4_udp_frame(src: u32, dst: u32, sport: u16, dport: u16, payload: &[u8]) -> Vec<u8> {
    let mut v = vec![];
    etherparse::PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
        .ipv4(src.to_be_bytes(), dst.to_be_bytes(), 64)
        .udp(sport, dport)
        .write(&mut v, payload)
        .expect("a frame below 64 KiB");
    v
}

/// Bytes VXLAN encapsulation adds (RFC 7348): outer Ethernet 14, IPv4 20, UDP 8, VXLAN 8.
pub const VXLAN_OVERHEAD: usize = 50;

/// A tenant's overlay tunnel: the outer addresses, TTL and TOS, and the VNI.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VxlanTunnel {
    pub dmac: [u8; 6],
    pub smac: [u8; 6],
    pub sip: u32,
    pub dip: u32,
    pub ttl: u8,
    pub tos: u8,
    pub vni: u32,
}

/// The outer UDP source port: a hash of the inner 5-tuple in 49152..=65535 (RFC 7348 §5: for
/// ECMP entropy). The hash folds the tuple's 16-bit words with XOR and a rotation per word.
pub fn vxlan_sport(src: u32, dst: u32, proto: u8, sport: u16, dport: u16) -> u16 {
    let words = [(src >> 16) as u16, src as u16, (dst >> 16) as u16, dst as u16, proto as u16, sport, dport];
    let h = words.iter().enumerate().fold(0u16, |a, (i, w)| a ^ w.rotate_left(3 * i as u32));
    0xc000 | (h & 0x3fff)
}

/// Encapsulate `inner` (an Ethernet frame) for tunnel `t`, with outer UDP source port `sport`.
/// The outer IPv4 header (no options, DF clear, ID 0) and the UDP header (checksum 0, as RFC
/// 7348 allows over IPv4) are written by etherparse.
pub fn vxlan_encap(inner: &[u8], t: &VxlanTunnel, sport: u16) -> Vec<u8> {
    use etherparse::{Ethernet2Header, EtherType, IpNumber, Ipv4Header, UdpHeader};
    let ulen = (8 + 8 + inner.len()) as u16;
    let mut ip = Ipv4Header::new(ulen, t.ttl, IpNumber::UDP, t.sip.to_be_bytes(), t.dip.to_be_bytes()).expect("an IPv4 payload below 64 KiB");
    ip.dont_fragment = false;
    ip.dscp = etherparse::Ipv4Dscp::try_new(t.tos >> 2).unwrap();
    ip.ecn = etherparse::Ipv4Ecn::try_new(t.tos & 3).unwrap();
    ip.header_checksum = ip.calc_header_checksum();
    let udp = UdpHeader { source_port: sport, destination_port: VXLAN_PORT, length: ulen, checksum: 0 };
    let mut v = vec![];
    Ethernet2Header { destination: t.dmac, source: t.smac, ether_type: EtherType::IPV4 }.write(&mut v).unwrap();
    ip.write(&mut v).unwrap();
    udp.write(&mut v).unwrap();
    v.extend([0x08, 0, 0, 0, (t.vni >> 16) as u8, (t.vni >> 8) as u8, t.vni as u8, 0]);
    v.extend_from_slice(inner);
    v
}

/// RFC 1071 checksum of an IPv4 header (its checksum field taken as zero).
pub fn ipv4_checksum(h: &[u8]) -> u16 {
    !ones_fold((0..10).filter(|i| *i != 5).map(|i| (h[2 * i] as u32) << 8 | h[2 * i + 1] as u32).sum())
}

/// The TCP or UDP checksum `seg` (its checksum field at `at`) should carry between `src` and
/// `dst`: etherparse's ones' complement sum over the IPv4 pseudo-header and the segment, the
/// field taken as zero. Any bytes will do: a damaged segment has a right checksum too.
fn l4_checksum(src: [u8; 4], dst: [u8; 4], proto: u8, seg: &[u8], at: usize) -> u16 {
    let mut s = seg.to_vec();
    s[at..at + 2].fill(0);
    etherparse::checksum::Sum16BitWords::new()
        .add_4bytes(src)
        .add_4bytes(dst)
        .add_2bytes([0, proto])
        .add_2bytes((seg.len() as u16).to_be_bytes())
        .add_slice(&s)
        .ones_complement()
        .to_be() // (etherparse sums native-endian words)
}

/// A checksum field after NAT: the right new value, off by `error`, as much as the old field
/// was off from the right old value ([`ones_error`]). A frame that arrived damaged stays
/// damaged, so its receiver still drops it: a middlebox must not launder corruption (RFC 1624
/// updates a checksum this way). With an undamaged frame this is the right new value.
fn carry_error(error: u32, right_new: u16) -> u16 {
    ((error + right_new as u32 % 0xffff) % 0xffff) as u16
}

/// How far a checksum field is off from the right value, in ones' complement (mod 0xffff, so
/// 0 and 0xffff are one value): 0 for a right checksum.
fn ones_error(field: u16, right: u16) -> u32 {
    (field as u32 % 0xffff + 0xffff - right as u32 % 0xffff) % 0xffff
}

/// NAT (VIP <-> PIP): `frame` (an IPv4 frame the parser accepts, not VXLAN) with its source
/// and/or destination address replaced, the IPv4 header checksum recomputed (RFC 1071: the
/// parser dropped any frame whose header checksum was wrong), and the TCP or UDP checksum set
/// by [`carry_error`]: right (by etherparse) for a frame that arrived right, as wrong as it
/// was for one that did not. A UDP checksum of 0 (none) stays 0; a computed 0 is sent as
/// 0xffff (RFC 768). Other protocols carry no L4 checksum here.
pub fn nat_rewrite(frame: &[u8], new_src: Option<u32>, new_dst: Option<u32>) -> Vec<u8> {
    let p = em_parse(frame, false, false).expect("an IPv4 frame the parser accepts");
    let l3 = p.outer.l3;
    let mut f = frame.to_vec();
    if let Some(a) = new_src {
        f[l3 + 12..l3 + 16].copy_from_slice(&a.to_be_bytes());
    }
    if let Some(a) = new_dst {
        f[l3 + 16..l3 + 20].copy_from_slice(&a.to_be_bytes());
    }
    let c = ipv4_checksum(&f[l3..l3 + 20]).to_be_bytes();
    f[l3 + 10..l3 + 12].copy_from_slice(&c);
    let Some(l4) = L4Sum::of(frame, &p) else { return f };
    let mut c = carry_error(l4.error(frame), l4.right(&f));
    if p.outer.proto == 17 && c == 0 {
        c = 0xffff;
    }
    f[l4.at..l4.at + 2].copy_from_slice(&c.to_be_bytes());
    f
}

/// Where an IPv4 frame's TCP or UDP checksum is and what it covers; None for other protocols
/// and for UDP without a checksum (0).
struct L4Sum {
    l3: usize,
    proto: u8,
    /// The segment the checksum covers (TCP: to the datagram's end; UDP: its length).
    seg: std::ops::Range<usize>,
    /// The checksum field's offset in the frame.
    at: usize,
}

impl L4Sum {
    fn of(frame: &[u8], p: &EmParsed) -> Option<L4Sum> {
        let (l3, proto) = (p.outer.l3, p.outer.proto);
        let l4 = l3 + 20;
        let (end, at) = match proto {
            6 => (l3 + p.outer.tot as usize, 16),
            17 if frame[l4 + 6] | frame[l4 + 7] != 0 => (l4 + b16(frame, l4 + 4) as usize, 6),
            _ => return None,
        };
        Some(L4Sum { l3, proto, seg: l4..end, at: l4 + at })
    }
    /// How far `f`'s checksum field is off ([`ones_error`]).
    fn error(&self, f: &[u8]) -> u32 {
        ones_error(b16(f, self.at), self.right(f))
    }
    /// The right checksum of `f` (this frame, its addresses perhaps rewritten).
    fn right(&self, f: &[u8]) -> u16 {
        let a = |o: usize| -> [u8; 4] { f[self.l3 + o..self.l3 + o + 4].try_into().unwrap() };
        l4_checksum(a(12), a(16), self.proto, &f[self.seg.clone()], self.at - self.seg.start)
    }
}

/// An IPv4 frame the parser accepts arrived damaged where NAT keeps damage: its TCP or UDP
/// checksum is wrong (residues mod 0xffff: 0xffff and 0 are one), or it is untagged RoCEv2 (NAT
/// drops tagged RoCEv2) and its ICRC is wrong.
pub fn nat_damaged(frame: &[u8]) -> bool {
    let Ok(p) = em_parse(frame, false, false) else { return false };
    if p.outer.v6 {
        return false;
    }
    let bad_sum = L4Sum::of(frame, &p).is_some_and(|l4| l4.error(frame) != 0);
    let bad_icrc = p.roce && p.outer.vlan.is_none() && icrc_error(frame, &p).1 != 0;
    bad_sum || bad_icrc
}

/// NAT as the EM does it: [`nat_rewrite`], and for an untagged RoCEv2 frame the ICRC updated,
/// because it covers the addresses (the frame ends at the ICRC: Ethernet padding after it is
/// dropped). Like the checksums, the new ICRC is the right one (by the `crc` crate) XOR the old
/// frame's error: a frame that arrived with a wrong ICRC leaves with one. None for a tagged
/// RoCEv2 frame, which the EM drops (its ICRC generator takes untagged frames only).
pub fn nat_rewrite_icrc(frame: &[u8], new_src: Option<u32>, new_dst: Option<u32>) -> Option<Vec<u8>> {
    let p = em_parse(frame, false, false).expect("an IPv4 frame the parser accepts");
    if !p.roce {
        return Some(nat_rewrite(frame, new_src, new_dst));
    }
    if p.outer.vlan.is_some() {
        return None;
    }
    let (end, error) = icrc_error(frame, &p);
    let mut f = nat_rewrite(frame, new_src, new_dst);
    f.truncate(end);
    f.extend((error ^ right_icrc(&f)).to_le_bytes());
    Some(f)
}

/// The right ICRC of a RoCEv2 frame cut before its ICRC (the `crc` crate's, `icrc::icrc_of`).
fn right_icrc(body: &[u8]) -> u32 {
    crate::icrc::icrc_of(body).expect("a RoCEv2 frame with its BTH")
}

/// An untagged RoCEv2 frame's ICRC field: where it starts (`l3 + tot - 4`), and how far it is
/// off from the right ICRC (XOR; 0 for a frame that arrived right).
fn icrc_error(frame: &[u8], p: &EmParsed) -> (usize, u32) {
    let end = p.outer.l3 + p.outer.tot as usize - crate::roce::ICRC_LEN;
    let field = u32::from_le_bytes(frame[end..end + 4].try_into().unwrap());
    (end, field ^ right_icrc(&frame[..end]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use etherparse::PacketBuilder;

    fn udp(sport: u16, dport: u16, payload: &[u8]) -> Vec<u8> {
        let mut v = vec![];
        PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
            .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .udp(sport, dport)
            .write(&mut v, payload)
            .unwrap();
        v
    }

    /// NAT of undamaged TCP and UDP frames leaves checksums etherparse accepts; NAT of a frame
    /// whose L4 checksum was off by some amount leaves it off by the same amount.
    /// A RoCEv2 frame's ICRC after NAT: right (the `crc` crate's check) when it arrived right;
    /// wrong when it arrived wrong, by the same bits. A datagram too short for a BTH and an ICRC
    /// is malformed.
    #[test]
    fn nat_keeps_a_right_icrc_right_and_a_wrong_one_wrong() {
        use crate::icrc::check_icrc;
        use crate::roce::{opcode, IpHdr, RoceHeaders};
        let ip = IpHdr::V4 { src: [172, 16, 1, 2], dst: [192, 168, 1, 3], dscp: 0, ecn: 0, ttl: 64, id: 0 };
        for n in [0, 1, 3, 64, 1000] {
            let f = RoceHeaders::new(ip, opcode::SEND_ONLY, 0x12, 7).build(&vec![0x5a; n]);
            let g = nat_rewrite_icrc(&f, Some(0x0a01_0105), Some(0x0a01_0003)).unwrap();
            assert_eq!(&g[26..34], &[10, 1, 1, 5, 10, 1, 0, 3]);
            assert!(check_icrc(&g).unwrap().ok(), "payload {n}");
            assert!(!nat_damaged(&f) && !nat_damaged(&g));
            let mut d = f.clone();
            let at = d.len() - 2;
            d[at] ^= 0x24;
            let h = nat_rewrite_icrc(&d, Some(0x0a01_0105), Some(0x0a01_0003)).unwrap();
            let v = check_icrc(&h).unwrap();
            assert_eq!(v.expected ^ v.found, 0x24 << 16, "payload {n}: the error is kept");
            assert!(nat_damaged(&d) && nat_damaged(&h));
        }
        // UDP to 4791 with 15 bytes after the UDP header: no room for BTH + ICRC
        let short = ipv4_udp_frame(1, 2, 5, ROCE_PORT, &[0; 15]);
        assert_eq!(em_parse(&short, false, false), Err(EmDrop::Malformed));
        assert!(em_parse(&ipv4_udp_frame(1, 2, 5, ROCE_PORT, &[0; 16]), false, false).is_ok());
        assert!(em_parse(&ipv4_udp_frame(1, 2, 5, 4792, &[0; 15]), false, false).is_ok());
    }

    /// Mismatch reports name fields: Ethernet, IPv4, UDP, BTH, ICRC, padding; VXLAN and the
    /// inner frame on the wire side.
    #[test]
    fn a_byte_offset_names_its_field() {
        use crate::roce::{opcode, IpHdr, RoceHeaders};
        let ip = IpHdr::V4 { src: [1, 2, 3, 4], dst: [5, 6, 7, 8], dscp: 0, ecn: 0, ttl: 64, id: 0 };
        let mut f = RoceHeaders::new(ip, opcode::SEND_ONLY, 0x12, 7).build(&[1; 8]);
        let n = f.len();
        f.extend([0; 6]);
        let name = |f: &[u8], wire: bool, at: usize| em_field_at(f, wire, at).0;
        for (at, want) in [(0, "eth.dst"), (11, "eth.src"), (13, "eth.type"), (24, "ip.checksum"), (29, "ip.src"), (33, "ip.dst"), (36, "udp.dport"), (42, "bth.opcode"), (48, "bth.dest_qp"), (54, "roce.payload"), (n - 1, "roce.icrc"), (n + 2, "past the datagram (padding)"), (n + 9, "past the end")] {
            assert_eq!(name(&f, false, at), want, "byte {at}");
        }
        assert_eq!(em_field_at(&f, false, n - 3).1, n - 4..n);
        let t = VxlanTunnel { dmac: [2; 6], smac: [3; 6], sip: 9, dip: 10, ttl: 64, tos: 0, vni: 1001 };
        let v = vxlan_encap(&f[..n], &t, 5000);
        for (at, want) in [(42, "vxlan.flags"), (47, "vxlan.vni"), (50, "inner.eth.dst"), (50 + 26, "inner.ip.src"), (50 + 42, "inner.bth.opcode")] {
            assert_eq!(name(&v, true, at), want, "byte {at}");
        }
        assert_eq!(name(&v, false, 42), "payload");
    }

    #[test]
    fn nat_keeps_right_checksums_right_and_wrong_ones_wrong() {
        use etherparse::{SlicedPacket, TransportSlice};
        let mut x: u64 = 7;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for i in 0..4000 {
            let n = (next() % 300) as usize;
            let payload: Vec<u8> = (0..n).map(|_| next() as u8).collect();
            let b = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]).ipv4([10, 1, 0, 2], [10, 1, 1, 3], 64);
            let mut f = vec![];
            if i % 2 == 0 {
                b.tcp(next() as u16, next() as u16, next() as u32, 1000).write(&mut f, &payload).unwrap();
            } else {
                b.udp(next() as u16, 80).write(&mut f, &payload).unwrap();
            }
            let (src, dst) = (next() as u32, next() as u32);
            let at = if i % 2 == 0 { 14 + 20 + 16 } else { 14 + 20 + 6 };
            let g = nat_rewrite(&f, Some(src), (i % 3 != 0).then_some(dst));
            let s = SlicedPacket::from_ethernet(&g).unwrap();
            let ip = match s.net { Some(etherparse::NetSlice::Ipv4(ip)) => ip, _ => panic!() };
            assert!(ipv4_checksum_ok(ip.header().slice().try_into().unwrap()));
            let want = match s.transport.unwrap() {
                TransportSlice::Tcp(t) => t.calc_checksum_ipv4(ip.header().source(), ip.header().destination()).unwrap(),
                TransportSlice::Udp(u) => u.to_header().calc_checksum_ipv4_raw(ip.header().source(), ip.header().destination(), u.payload()).unwrap(),
                _ => panic!(),
            };
            assert_eq!(b16(&g, at), want, "frame {i}");
            // damaged by +1 (ones' complement): still damaged by +1 after NAT
            let mut d = f.clone();
            let c = b16(&f, at) as u32 + 1;
            let c = if c > 0xffff { c - 0xffff } else { c } as u16;
            d[at..at + 2].copy_from_slice(&c.to_be_bytes());
            let h = nat_rewrite(&d, Some(src), (i % 3 != 0).then_some(dst));
            let off = (b16(&h, at) as u32 + 0xffff - want as u32) % 0xffff;
            assert_eq!(off, 1, "frame {i}");
        }
    }

    #[test]
    fn the_checksum_agrees_with_etherparse() {
        let mut x: u64 = 1;
        for _ in 0..20_000 {
            let mut h = [0u8; 20];
            for b in h.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *b = x as u8;
            }
            h[0] = 0x45;
            h[6] &= 0x7f;
            let (e, _) = etherparse::Ipv4Header::from_slice(&h).unwrap();
            let c = e.calc_header_checksum().to_be_bytes();
            assert_eq!(ipv4_checksum_ok(&h), e.header_checksum == e.calc_header_checksum());
            (h[10], h[11]) = (c[0], c[1]);
            assert!(ipv4_checksum_ok(&h));
        }
    }

    #[test]
    fn a_udp_frame_parses_and_its_damage_is_named() {
        let f = udp(1234, 80, &[7; 30]);
        let p = em_parse(&f, false, false).unwrap();
        assert_eq!((p.outer.src, p.outer.dst, p.outer.proto, p.outer.sport, p.outer.dport), (0x0a00_0001, 0x0a00_0002, 17, 1234, 80));
        assert_eq!(em_parse(&f, false, true), Err(EmDrop::BadFrame));
        assert_eq!(em_parse(&f[..40], false, false), Err(EmDrop::Truncated));
        let mut g = f.clone();
        g[14 + 10] ^= 1;
        assert_eq!(em_parse(&g, false, false), Err(EmDrop::BadIpChecksum));
        let mut g = f.clone();
        g[14] = 0x46;
        assert_eq!(em_parse(&g, false, false), Err(EmDrop::IpOptions));
        let mut g = f.clone();
        g[12] = 0x88;
        g[13] = 0xb5;
        assert_eq!(em_parse(&g, false, false), Err(EmDrop::NotIp));
        // an IPv4 header under the IPv6 ethertype: version 4
        let mut g = f;
        g[12] = 0x86;
        g[13] = 0xdd;
        assert_eq!(em_parse(&g, false, false), Err(EmDrop::Malformed));
    }

    #[test]
    fn ipv6_frames_parse_as_etherparse_reads_them() {
        let (src, dst) = ([0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0x0a, 0, 0, 1], [0xfd, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 2]);
        for tcp in [false, true] {
            let mut v = vec![];
            let b = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]).ipv6(src, dst, 33);
            if tcp {
                b.tcp(4000, 443, 7, 1000).write(&mut v, &[5; 50]).unwrap();
            } else {
                b.udp(4000, ROCE_PORT).write(&mut v, &[5; 50]).unwrap();
            }
            let p = em_parse(&v, false, false).unwrap();
            let e = etherparse::SlicedPacket::from_ethernet(&v).unwrap();
            let Some(etherparse::NetSlice::Ipv6(ip)) = e.net else { panic!("IPv6") };
            let h = ip.header();
            let o = p.outer;
            assert!(o.v6);
            assert_eq!((o.l3, o.ttl, o.proto, o.tot as usize), (14, h.hop_limit(), h.next_header().0, 40 + h.payload_length() as usize));
            assert_eq!((o.src, o.dst), (v6_fold(u128::from_be_bytes(h.source())), v6_fold(u128::from_be_bytes(h.destination()))));
            assert_eq!((o.sport, o.dport), (4000, if tcp { 443 } else { ROCE_PORT }));
            assert_eq!(p.roce, !tcp);
            assert_eq!(em_parse(&v[..v.len() - 1], false, false), Err(EmDrop::Truncated));
            // the next header: an extension header, a fragment
            for (nh, d) in [(0u8, EmDrop::IpOptions), (60, EmDrop::IpOptions), (44, EmDrop::Fragment)] {
                let mut g = v.clone();
                g[20] = nh;
                assert_eq!(em_parse(&g, false, false), Err(d));
            }
            let mut g = v.clone();
            g[14] = 0x45;
            assert_eq!(em_parse(&g, false, false), Err(EmDrop::Malformed));
        }
        assert_eq!(v6_fold(0x0000_0001_0000_0002_0000_0004_0000_0008), 15);
    }
}

// ------------------------------------------------------------------ classification and policy

/// What a frame's tenant is looked up by: its VF (host side), its VNI (a VXLAN frame from the
/// wire) or its destination address, a PIP (any other IPv4 frame from the wire, NAT mode).
/// `V6`: an IPv6 frame from the wire outside VXLAN. PIPs are IPv4 addresses, so it has no key:
/// it never hits (its tenant is `no_tenant`), and it raises no miss event (there is nothing
/// the OM could install).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyKind {
    Vf = 0,
    Vni = 1,
    Pip = 2,
    V6 = 3,
}

impl From<u8> for KeyKind {
    fn from(k: u8) -> KeyKind {
        match k & 3 {
            0 => KeyKind::Vf,
            1 => KeyKind::Vni,
            2 => KeyKind::Pip,
            _ => KeyKind::V6,
        }
    }
}

/// Ways per row of the tenant map: a key lives in one of the 4 ways of the row its hash names
/// (bounded probing: 4 places, read at once).
pub const MAP_WAYS: usize = 4;
/// Rules per ACL group, all compared at once.
pub const ACL_SLOTS: usize = 16;

/// The tenant map's row of a key: the 34-bit key `{kind, value}` folded by XOR into `bits` bits
/// (bit i of the row is the XOR of key bits i, i + bits, i + 2·bits, ...).
pub fn map_row(kind: KeyKind, value: u32, bits: u32) -> u32 {
    fold_bits((kind as u64) << 32 | value as u64, bits)
}

/// A frame's classification key.
pub fn class_key(p: &EmParsed, vf: u16, wire: bool) -> (KeyKind, u32) {
    match (wire, p.vni) {
        (false, _) => (KeyKind::Vf, vf as u32),
        (true, Some(vni)) => (KeyKind::Vni, vni),
        (true, None) if p.outer.v6 => (KeyKind::V6, p.outer.dst),
        (true, None) => (KeyKind::Pip, p.outer.dst),
    }
}

/// The 5-tuple the ACL matches: the inner frame's for VXLAN, else the frame's own. For IPv6
/// (`v6`) the addresses are their [`v6_fold`]s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tuple {
    pub src: u32,
    pub dst: u32,
    pub proto: u8,
    pub sport: u16,
    pub dport: u16,
    pub v6: bool,
}

impl Tuple {
    pub fn of(p: &EmParsed) -> Tuple {
        let l = p.inner.unwrap_or(p.outer);
        Tuple { src: l.src, dst: l.dst, proto: l.proto, sport: l.sport, dport: l.dport, v6: l.v6 }
    }
}

/// One ACL rule. It matches when the source and destination are inside its prefixes (`addr`
/// and `mask` bits equal), the protocol is equal (or `proto_any`), and both ports lie in their
/// inclusive ranges. The prefixes are IPv4 prefixes: an IPv6 frame matches only a rule whose
/// two masks are zero (any address; protocol and ports still count).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AclRule {
    pub valid: bool,
    pub allow: bool,
    /// A match ends the walk (else the walk goes on and a later match overrides).
    pub term: bool,
    pub proto_any: bool,
    pub proto: u8,
    pub src: u32,
    pub src_mask: u32,
    pub dst: u32,
    pub dst_mask: u32,
    pub sp_lo: u16,
    pub sp_hi: u16,
    pub dp_lo: u16,
    pub dp_hi: u16,
}

/// A prefix's mask: `len` leading ones.
pub fn prefix_mask(len: u32) -> u32 {
    if len == 0 { 0 } else { u32::MAX << (32 - len.min(32)) }
}

impl AclRule {
    pub fn matches(&self, t: &Tuple) -> bool {
        self.valid
            && (t.src ^ self.src) & self.src_mask == 0
            && (t.dst ^ self.dst) & self.dst_mask == 0
            && (!t.v6 || self.src_mask | self.dst_mask == 0)
            && (self.proto_any || t.proto == self.proto)
            && (self.sp_lo..=self.sp_hi).contains(&t.sport)
            && (self.dp_lo..=self.dp_hi).contains(&t.dport)
    }
}

/// The ACL verdict of a group: rules walk in slot order; a matching rule sets the verdict to its
/// action, and a terminating one ends the walk. No match: deny. Returns (allow, the deciding
/// rule's slot).
pub fn acl_eval(rules: &[AclRule], t: &Tuple) -> (bool, Option<usize>) {
    let mut v = (false, None);
    for (i, r) in rules.iter().enumerate() {
        if r.matches(t) {
            v = (r.allow, Some(i));
            if r.term {
                break;
            }
        }
    }
    v
}

/// Fractional bits of the QoS time unit (1/65536 cycle).
pub const QOS_FRAC: u32 = 16;

/// A VF's QoS profile: GCRA (ITU-T I.371 virtual scheduling), the token bucket's exact dual.
/// `t` is the time one byte takes at the rate, in 1/65536 cycles (`t = 65536 / (bytes per
/// cycle)`); `tau` the burst tolerance in the same unit (`burst bytes × t`). A frame of `len`
/// bytes at time `now` conforms when `tat <= now + tau`; a conforming frame moves the VF's
/// theoretical arrival time to `max(tat, now) + len × t`. Out of profile: dropped, or passed
/// marked when `mark`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QosCfg {
    pub enable: bool,
    pub mark: bool,
    pub t: u32,
    pub tau: u64,
}

impl QosCfg {
    /// The profile for `rate` bytes per cycle and a burst of `burst` bytes.
    pub fn from_rate(rate_bytes_per_cycle: f64, burst: u32, mark: bool) -> QosCfg {
        let t = ((1u64 << QOS_FRAC) as f64 / rate_bytes_per_cycle).round().min(u32::MAX as f64) as u32;
        QosCfg { enable: true, mark, t, tau: burst as u64 * t as u64 }
    }
}

/// GCRA: (conforms, the new TAT) for a frame of `len` bytes at cycle `now` (times in 1/65536
/// cycles, 80-bit arithmetic; the new TAT is the old one when the frame does not conform).
pub fn gcra(tat: u128, now_cycles: u64, len: u16, c: &QosCfg) -> (bool, u128) {
    let now = (now_cycles as u128) << QOS_FRAC;
    if tat <= now + c.tau as u128 {
        (true, (tat.max(now) + len as u128 * c.t as u128) & ((1 << 80) - 1))
    } else {
        (false, tat)
    }
}

/// Why the classifier drops a frame (0: it does not).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClsDrop {
    /// No tenant: the key is not in the map, or its tenant is not valid.
    NoTenant = 1,
    /// The ACL denied it.
    AclDeny = 2,
    /// Out of its VF's QoS profile, in drop mode.
    Qos = 3,
    /// The remote address has no entry (VIP -> PIP, or PIP -> VIP on NAT ingress).
    NoRoute = 4,
    /// The local address (the frame's destination from the wire) has no VF.
    NoLocal = 5,
    /// NAT egress: the source is not its VF's VIP.
    Spoof = 6,
    /// NAT mode: an IPv6 frame (VIPs and PIPs are IPv4 addresses; no IPv6 NAT).
    Ipv6 = 7,
}

impl ClsDrop {
    pub fn name(self) -> &'static str {
        match self {
            ClsDrop::NoTenant => "no_tenant",
            ClsDrop::AclDeny => "acl",
            ClsDrop::Qos => "qos",
            ClsDrop::NoRoute => "no_route",
            ClsDrop::NoLocal => "no_local",
            ClsDrop::Spoof => "spoof",
            ClsDrop::Ipv6 => "ipv6",
        }
    }
}

/// The classifier's verdict on a frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClsVerdict {
    pub tenant: u16,
    pub drop: Option<ClsDrop>,
    /// Out of profile, passed marked.
    pub marked: bool,
    /// The ACL rule that decided, if one matched.
    pub rule: Option<usize>,
}

/// A tenant map entry (one way of a row).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MapEntry {
    pub valid: bool,
    /// Never evicted by the OM's replacement (an RDMA entry).
    pub pinned: bool,
    pub kind: u8,
    pub value: u32,
    pub tenant: u16,
}

/// The classifier's tables, as the hardware holds them, and the per-VF GCRA state.
#[derive(Clone, Debug)]
pub struct ClsTables {
    pub map_bits: u32,
    pub map: Vec<[MapEntry; MAP_WAYS]>,
    /// Per tenant: valid and its ACL group.
    pub tenants: Vec<(bool, u16)>,
    pub acl: Vec<[AclRule; ACL_SLOTS]>,
    pub qos: Vec<QosCfg>,
    pub tat: Vec<u128>,
}

impl ClsTables {
    pub fn new(map_bits: u32, tenants: usize, groups: usize, vfs: usize) -> ClsTables {
        ClsTables {
            map_bits,
            map: vec![[MapEntry::default(); MAP_WAYS]; 1 << map_bits],
            tenants: vec![(false, 0); tenants],
            acl: vec![[AclRule::default(); ACL_SLOTS]; groups],
            qos: vec![QosCfg::default(); vfs],
            tat: vec![0; vfs],
        }
    }

    /// Put a key in the first free way of its row (None: the row is full).
    pub fn insert(&mut self, kind: KeyKind, value: u32, tenant: u16, pinned: bool) -> Option<(u32, usize)> {
        let row = map_row(kind, value, self.map_bits);
        let ways = &mut self.map[row as usize];
        let way = ways.iter().position(|e| e.valid && e.kind == kind as u8 && e.value == value).or_else(|| ways.iter().position(|e| !e.valid))?;
        ways[way] = MapEntry { valid: true, pinned, kind: kind as u8, value, tenant };
        Some((row, way))
    }

    /// The tenant of a key.
    pub fn lookup(&self, kind: KeyKind, value: u32) -> Option<u16> {
        if kind == KeyKind::V6 {
            return None;
        }
        let row = map_row(kind, value, self.map_bits);
        let e = self.map[row as usize].iter().find(|e| e.valid && e.kind == kind as u8 && e.value == value)?;
        self.tenants[e.tenant as usize].0.then_some(e.tenant)
    }

    /// Classify a parsed frame from VF `vf` (host side) or the wire, at cycle `now` (QoS time).
    /// Only host-side frames are policed by QoS, and only frames the ACL allows take tokens.
    pub fn classify(&mut self, p: &EmParsed, vf: u16, wire: bool, now: u64) -> ClsVerdict {
        let (kind, value) = class_key(p, vf, wire);
        let row = map_row(kind, value, self.map_bits);
        let hit = self.map[row as usize].iter().find(|e| kind != KeyKind::V6 && e.valid && e.kind == kind as u8 && e.value == value).map(|e| e.tenant);
        let mut v = ClsVerdict { tenant: hit.unwrap_or(0), ..Default::default() };
        let Some(tenant) = hit.filter(|t| self.tenants[*t as usize].0) else {
            v.drop = Some(ClsDrop::NoTenant);
            return v;
        };
        let group = self.tenants[tenant as usize].1 as usize;
        let (allow, rule) = acl_eval(&self.acl[group], &Tuple::of(p));
        v.rule = rule;
        if !allow {
            v.drop = Some(ClsDrop::AclDeny);
            return v;
        }
        let vf = vf as usize;
        if !wire && vf < self.qos.len() && self.qos[vf].enable {
            let (ok, tat) = gcra(self.tat[vf], now, p.len as u16, &self.qos[vf]);
            self.tat[vf] = tat;
            if !ok {
                if self.qos[vf].mark {
                    v.marked = true;
                } else {
                    v.drop = Some(ClsDrop::Qos);
                }
            }
        }
        v
    }
}

// ------------------------------------------------------------------ address lookups

/// A remote entry: `(kind, tenant, addr)` -> `value`. Kind 0: a remote VIP -> its PIP (the
/// VTEP in overlay mode, the rewritten destination in NAT mode); kind 1: a remote PIP -> its
/// VIP (the source rewritten on NAT ingress).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RemoteEntry {
    pub valid: bool,
    /// An RDMA entry: the OM never evicts it.
    pub pinned: bool,
    pub kind: u8,
    pub tenant: u16,
    pub addr: u32,
    pub value: u32,
    /// Kind 0: the wire port (0 or 1) the remote is preferably reached on.
    pub port: u8,
}

/// A local entry: `(tenant, addr)` -> the VF that owns the address (a VIP in overlay mode, a
/// PIP in NAT mode) and the VF's VIP.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LocalEntry {
    pub valid: bool,
    pub tenant: u16,
    pub addr: u32,
    pub vf: u16,
    pub vip: u32,
}

/// A remote key's row: `{kind, tenant, addr}` (45 bits) folded by XOR into `bits` bits.
pub fn remote_row(kind: u8, tenant: u16, addr: u32, bits: u32) -> u32 {
    fold_bits(((kind as u64 & 1) << 44) | ((tenant as u64 & 0xfff) << 32) | addr as u64, bits)
}

/// A local key's row: `{tenant, addr}` (44 bits) folded by XOR into `bits` bits.
pub fn local_row(tenant: u16, addr: u32, bits: u32) -> u32 {
    fold_bits(((tenant as u64 & 0xfff) << 32) | addr as u64, bits)
}

fn fold_bits(mut k: u64, bits: u32) -> u32 {
    let mut r = 0u64;
    while k != 0 {
        r ^= k & ((1 << bits) - 1);
        k >>= bits;
    }
    r as u32
}

/// What the lookups found for a frame: the host VF it goes to (from the wire), the NAT
/// rewrite, and the VXLAN tunnel's destination and VNI (overlay egress).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Look {
    pub vf: u16,
    pub src_rw: bool,
    pub dst_rw: bool,
    pub src: u32,
    pub dst: u32,
    pub vni: u32,
    pub dip: u32,
    /// Host side: the preferred wire port.
    pub port: u8,
}

/// The lookup tables: remote (`remote_bits` rows × 4 ways; 2^14 × 4 = 64K entries by
/// default), local (`local_bits` rows × 4 ways), per VF its VIP and PIP, per tenant its VNI.
#[derive(Clone, Debug)]
pub struct LookTables {
    pub remote_bits: u32,
    pub local_bits: u32,
    pub remote: Vec<[RemoteEntry; MAP_WAYS]>,
    pub local: Vec<[LocalEntry; MAP_WAYS]>,
    /// Per VF: (VIP, PIP).
    pub vfs: Vec<(u32, u32)>,
    pub vni: Vec<u32>,
}

/// EM mode: VXLAN overlay, or NAT (VIP <-> PIP rewrite).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmMode {
    Overlay,
    Nat,
}

impl LookTables {
    pub fn new(remote_bits: u32, local_bits: u32) -> LookTables {
        LookTables {
            remote_bits,
            local_bits,
            remote: vec![[RemoteEntry::default(); MAP_WAYS]; 1 << remote_bits],
            local: vec![[LocalEntry::default(); MAP_WAYS]; 1 << local_bits],
            vfs: vec![(0, 0); 4096],
            vni: vec![0; 4096],
        }
    }

    /// Put a remote entry in the first free way (or its own) of its row; None: the row is full.
    pub fn insert_remote(&mut self, e: RemoteEntry) -> Option<(u32, usize)> {
        let row = remote_row(e.kind, e.tenant, e.addr, self.remote_bits);
        let ways = &mut self.remote[row as usize];
        let same = |w: &RemoteEntry| w.valid && w.kind == e.kind && w.tenant == e.tenant && w.addr == e.addr;
        let way = ways.iter().position(same).or_else(|| ways.iter().position(|w| !w.valid))?;
        ways[way] = RemoteEntry { valid: true, ..e };
        Some((row, way))
    }

    pub fn insert_local(&mut self, e: LocalEntry) -> Option<(u32, usize)> {
        let row = local_row(e.tenant, e.addr, self.local_bits);
        let ways = &mut self.local[row as usize];
        let same = |w: &LocalEntry| w.valid && w.tenant == e.tenant && w.addr == e.addr;
        let way = ways.iter().position(same).or_else(|| ways.iter().position(|w| !w.valid))?;
        ways[way] = LocalEntry { valid: true, ..e };
        Some((row, way))
    }

    pub fn remote(&self, kind: u8, tenant: u16, addr: u32) -> Option<u32> {
        self.remote_entry(kind, tenant, addr).map(|w| w.value)
    }

    pub fn remote_entry(&self, kind: u8, tenant: u16, addr: u32) -> Option<&RemoteEntry> {
        let row = remote_row(kind, tenant, addr, self.remote_bits);
        self.remote[row as usize].iter().find(|w| w.valid && w.kind == kind && w.tenant == tenant && w.addr == addr)
    }

    pub fn local(&self, tenant: u16, addr: u32) -> Option<(u16, u32)> {
        let row = local_row(tenant, addr, self.local_bits);
        self.local[row as usize].iter().find(|w| w.valid && w.tenant == tenant && w.addr == addr).map(|w| (w.vf, w.vip))
    }

    /// The lookups of a classified frame (tenant `tenant`, from VF `vf` or the wire):
    /// - host side: the remote VIP (the tuple's destination) -> PIP; overlay: the tunnel to it
    ///   with the tenant's VNI; NAT: the destination rewritten to it, and the source, which must
    ///   be the VF's VIP, to the VF's PIP;
    /// - wire side: the tuple's destination -> the local VF (overlay: the inner VIP; NAT: the
    ///   PIP, rewritten to the VF's VIP); NAT also the source PIP -> its VIP.
    ///
    /// IPv6 (the tuple's layer): in overlay mode its addresses' folds are the keys, so the OM
    /// installs an IPv6 VIP by its [`v6_fold`] (two addresses of one tenant must not fold
    /// alike, nor fold to one of its IPv4 addresses). NAT mode drops it (`ipv6`), first.
    pub fn lookup(&self, p: &EmParsed, vf: u16, tenant: u16, wire: bool, mode: EmMode) -> Result<Look, ClsDrop> {
        let t = Tuple::of(p);
        let mut l = Look::default();
        if mode == EmMode::Nat && t.v6 {
            return Err(ClsDrop::Ipv6);
        }
        if !wire {
            let e = self.remote_entry(0, tenant, t.dst).ok_or(ClsDrop::NoRoute)?;
            let pip = e.value;
            match mode {
                EmMode::Overlay => {
                    l.dip = pip;
                    l.vni = self.vni[tenant as usize & 0xfff];
                }
                EmMode::Nat => {
                    let (vip, own) = self.vfs[vf as usize & 0xfff];
                    if t.src != vip {
                        return Err(ClsDrop::Spoof);
                    }
                    (l.src_rw, l.src, l.dst_rw, l.dst) = (true, own, true, pip);
                }
            }
            l.port = e.port & 1;
        } else {
            let (lvf, vip) = self.local(tenant, t.dst).ok_or(ClsDrop::NoLocal)?;
            l.vf = lvf;
            if mode == EmMode::Nat {
                let rvip = self.remote(1, tenant, t.src).ok_or(ClsDrop::NoRoute)?;
                (l.src_rw, l.src, l.dst_rw, l.dst) = (true, rvip, true, vip);
            }
        }
        Ok(l)
    }
}
