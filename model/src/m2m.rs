//! The M2M message codec and the endpoint's golden behaviour (DistDPU §4.3): typed objects with
//! a rising epoch, sent by the orchestration module (OM) to EM0 and relayed by it to EM1..EMk.
//! One codec serves the OM (`nicgen-om`), the hardware tests and this model.
//!
//! Every message is a multiple of 8 bytes (the M2M stream is 64 bits wide) and starts with a
//! 32-byte header. Multi-byte fields are big-endian.
//!
//! | bytes | field | meaning |
//! |---|---|---|
//! | 0 | `version` | 1 |
//! | 1 | `type` | 1 push (apply an object), 2 read (telemetry or table entries), 3 reply (the values read), 4 ack, 5 event (EM → OM) |
//! | 2 | `target_em` | the EM the message is for; in a reply or ack, the EM that sends it |
//! | 3 | `class` | 1 device profile, 2 CC policy, 3 table batch, 4 telemetry, 5 event |
//! | 4–5 | `length` | bytes of the whole message, header included |
//! | 6–7 | `status` | acks: 0 applied, 1 equal epoch (nothing changed), 2 stale (rejected) |
//! | 8–15 | `epoch` | the object's epoch, compared per class with 64-bit serial arithmetic |
//! | 16–19 | `seq` | the sender's sequence number, echoed in the ack |
//! | 20–23 | `count` | table batch: entries; telemetry: counters |
//! | 24–31 | `stored` | acks and replies: the EM's stored epoch for the class after this message |
//!
//! Bodies: a device profile and a CC policy are 32 bytes ([`Profile`], [`CcPolicy`]); a table
//! batch is `count` entries of 40 bytes ([`TableEntry`]); a telemetry read is 8 bytes (`start`
//! u16, `count` u16, 4 reserved) and its reply carries `count` counters of 8 bytes each; a table
//! read names `count` entries of 8 bytes (1 dest, 2 table, 4–5 index) and its reply carries them
//! as 40-byte entries (op 1) with what the live bank holds.
//!
//! Epochs: per object class (profile, CC, tables), an epoch older than the stored one is
//! rejected and the ack reports the stored epoch (as gNMI does); an equal one is accepted and
//! changes nothing (idempotent, as a P4Runtime re-write of the same election id); a newer one is
//! applied and then stored. "Older" is serial-number arithmetic on 64 bits (RFC 1982, as
//! OpenFlow's `generation_id`): `e` is newer than `s` when `e - s` (mod 2^64) is in 1..2^63.
//! Telemetry reads carry no state and are never rejected.
use std::cmp::Ordering;

pub const VERSION: u8 = 1;
pub const HDR_BYTES: usize = 32;
pub const ENTRY_BYTES: usize = 40;
pub const BODY_BYTES: usize = 32;
pub const TELE_READ_BYTES: usize = 8;
/// Entries in one table batch, at most (the endpoint buffers a whole message).
pub const MAX_ENTRIES: usize = 64;
pub const MAX_BYTES: usize = HDR_BYTES + MAX_ENTRIES * ENTRY_BYTES;
/// Counters a telemetry read can name: 0..16 the endpoint's ([`Ctr`]), 16..32 the datapath's.
pub const TELE_COUNTERS: usize = 32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum MsgType {
    Push = 1,
    Read = 2,
    Reply = 3,
    Ack = 4,
    /// A table miss, EM → OM (never accepted by an EM).
    Event = 5,
}

/// The class byte of an event message (events are not an object class an EM stores).
pub const CLASS_EVENT: u8 = 5;
pub const EVENT_BYTES: usize = 24;

/// A miss event from an EM's datapath (`EmEvent`), as the event message carries it: bytes 0
/// kind, 2–3 tenant, 4–7 the key's value, 8–11 source, 12–15 destination, 16 protocol, 18–19
/// source port, 20–21 destination port. `seq` in the header counts the EM's events (a gap is a
/// lost event).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventMsg {
    pub kind: u8,
    pub tenant: u16,
    pub value: u32,
    pub src: u32,
    pub dst: u32,
    pub proto: u8,
    pub sport: u16,
    pub dport: u16,
}

impl EventMsg {
    pub fn encode(&self) -> [u8; EVENT_BYTES] {
        let mut b = [0u8; EVENT_BYTES];
        b[0] = self.kind;
        b[2..4].copy_from_slice(&self.tenant.to_be_bytes());
        b[4..8].copy_from_slice(&self.value.to_be_bytes());
        b[8..12].copy_from_slice(&self.src.to_be_bytes());
        b[12..16].copy_from_slice(&self.dst.to_be_bytes());
        b[16] = self.proto;
        b[18..20].copy_from_slice(&self.sport.to_be_bytes());
        b[20..22].copy_from_slice(&self.dport.to_be_bytes());
        b
    }
    pub fn decode(b: &[u8]) -> EventMsg {
        let u = |o: usize, n: usize| b[o..o + n].iter().fold(0u64, |a, x| a << 8 | *x as u64);
        EventMsg { kind: b[0], tenant: u(2, 2) as u16, value: u(4, 4) as u32, src: u(8, 4) as u32, dst: u(12, 4) as u32, proto: b[16], sport: u(18, 2) as u16, dport: u(20, 2) as u16 }
    }
    /// The event message EM `em` sends as its `seq`-th event.
    pub fn message(&self, em: u8, seq: u32) -> Vec<u8> {
        let h = Header { version: VERSION, ty: MsgType::Event as u8, target_em: em, class: CLASS_EVENT, length: (HDR_BYTES + EVENT_BYTES) as u16, seq, count: 1, ..Default::default() };
        let mut v = h.encode().to_vec();
        v.extend(self.encode());
        v
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Class {
    Profile = 1,
    Cc = 2,
    Tables = 3,
    Telemetry = 4,
}

impl Class {
    pub fn from_code(c: u8) -> Option<Class> {
        [Class::Profile, Class::Cc, Class::Tables, Class::Telemetry].into_iter().find(|x| *x as u8 == c)
    }
    /// The index of the class's stored epoch (classes with state).
    pub fn slot(self) -> Option<usize> {
        match self {
            Class::Telemetry => None,
            c => Some(c as usize - 1),
        }
    }
}

/// An ack's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum Status {
    Applied = 0,
    Equal = 1,
    Stale = 2,
}

/// Why the endpoint dropped a message (counted; no reply).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum M2mDrop {
    /// The stream ended before 32 bytes, or before `length` bytes.
    Truncated = 1,
    /// More bytes than `length`; `length` not a multiple of 8, above the maximum, or not the
    /// size its class and count imply.
    BadLength = 2,
    BadVersion = 3,
    /// A type other than push and read (a reply or ack sent to an EM).
    UnknownType = 4,
    /// An unknown class, or a class the type does not take (a push of telemetry, a read of a
    /// profile).
    UnknownClass = 5,
    /// A table batch or table read with no entries, an entry with an unknown op, or a telemetry
    /// read past the last counter.
    BadEntry = 6,
}

impl M2mDrop {
    pub const ALL: [M2mDrop; 6] = [M2mDrop::Truncated, M2mDrop::BadLength, M2mDrop::BadVersion, M2mDrop::UnknownType, M2mDrop::UnknownClass, M2mDrop::BadEntry];
    pub fn name(self) -> &'static str {
        match self {
            M2mDrop::Truncated => "truncated",
            M2mDrop::BadLength => "bad_length",
            M2mDrop::BadVersion => "bad_version",
            M2mDrop::UnknownType => "unknown_type",
            M2mDrop::UnknownClass => "unknown_class",
            M2mDrop::BadEntry => "bad_entry",
        }
    }
}

/// The endpoint's counters (telemetry indices 0..16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(usize)]
pub enum Ctr {
    Received = 0,
    Applied = 1,
    Equal = 2,
    Stale = 3,
    Relayed = 4,
    Replies = 5,
    Truncated = 6,
    BadLength = 7,
    BadVersion = 8,
    UnknownType = 9,
    UnknownClass = 10,
    BadEntry = 11,
    HostReadRefused = 12,
    HostWriteRefused = 13,
    TableWrites = 14,
    TeleReads = 15,
}

impl Ctr {
    pub fn of_drop(d: M2mDrop) -> Ctr {
        match d {
            M2mDrop::Truncated => Ctr::Truncated,
            M2mDrop::BadLength => Ctr::BadLength,
            M2mDrop::BadVersion => Ctr::BadVersion,
            M2mDrop::UnknownType => Ctr::UnknownType,
            M2mDrop::UnknownClass => Ctr::UnknownClass,
            M2mDrop::BadEntry => Ctr::BadEntry,
        }
    }
}

/// `e` against the stored `s`: serial-number order on 64 bits.
pub fn epoch_cmp(e: u64, s: u64) -> Ordering {
    let d = e.wrapping_sub(s);
    if d == 0 {
        Ordering::Equal
    } else if d >> 63 == 0 {
        Ordering::Greater
    } else {
        Ordering::Less
    }
}

/// The 32-byte header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Header {
    pub version: u8,
    pub ty: u8,
    pub target_em: u8,
    pub class: u8,
    pub length: u16,
    pub status: u16,
    pub epoch: u64,
    pub seq: u32,
    pub count: u32,
    pub stored: u64,
}

impl Header {
    pub fn encode(&self) -> [u8; HDR_BYTES] {
        let mut b = [0u8; HDR_BYTES];
        b[0] = self.version;
        b[1] = self.ty;
        b[2] = self.target_em;
        b[3] = self.class;
        b[4..6].copy_from_slice(&self.length.to_be_bytes());
        b[6..8].copy_from_slice(&self.status.to_be_bytes());
        b[8..16].copy_from_slice(&self.epoch.to_be_bytes());
        b[16..20].copy_from_slice(&self.seq.to_be_bytes());
        b[20..24].copy_from_slice(&self.count.to_be_bytes());
        b[24..32].copy_from_slice(&self.stored.to_be_bytes());
        b
    }
    /// The header of `b` (at least 32 bytes).
    pub fn decode(b: &[u8]) -> Header {
        let u = |o: usize, n: usize| b[o..o + n].iter().fold(0u64, |a, x| a << 8 | *x as u64);
        Header {
            version: b[0],
            ty: b[1],
            target_em: b[2],
            class: b[3],
            length: u(4, 2) as u16,
            status: u(6, 2) as u16,
            epoch: u(8, 8),
            seq: u(16, 4) as u32,
            count: u(20, 4) as u32,
            stored: u(24, 8),
        }
    }
}

/// A device profile: the EM's addresses and mode, and its VF layout and quotas.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    pub smac: u64,
    pub dmac: u64,
    /// The local VTEP's (the EM's) PIP.
    pub sip: u32,
    pub ttl: u8,
    pub tos: u8,
    /// NAT mode (else overlay).
    pub nat: bool,
    pub vf_count: u16,
    pub vf_base: u16,
    pub tenant_quota: u16,
    pub entry_quota: u16,
}

impl Profile {
    pub fn encode(&self) -> [u8; BODY_BYTES] {
        let mut b = [0u8; BODY_BYTES];
        b[0..6].copy_from_slice(&self.smac.to_be_bytes()[2..]);
        b[6..12].copy_from_slice(&self.dmac.to_be_bytes()[2..]);
        b[12..16].copy_from_slice(&self.sip.to_be_bytes());
        b[16] = self.ttl;
        b[17] = self.tos;
        b[18] = self.nat as u8;
        b[20..22].copy_from_slice(&self.vf_count.to_be_bytes());
        b[22..24].copy_from_slice(&self.vf_base.to_be_bytes());
        b[24..26].copy_from_slice(&self.tenant_quota.to_be_bytes());
        b[26..28].copy_from_slice(&self.entry_quota.to_be_bytes());
        b
    }
    pub fn decode(b: &[u8]) -> Profile {
        let u = |o: usize, n: usize| b[o..o + n].iter().fold(0u64, |a, x| a << 8 | *x as u64);
        Profile {
            smac: u(0, 6),
            dmac: u(6, 6),
            sip: u(12, 4) as u32,
            ttl: b[16],
            tos: b[17],
            nat: b[18] & 1 == 1,
            vf_count: u(20, 2) as u16,
            vf_base: u(22, 2) as u16,
            tenant_quota: u(24, 2) as u16,
            entry_quota: u(26, 2) as u16,
        }
    }
}

/// A congestion-control policy, kept for the transport: the algorithm (0 none, 1 DCQCN) and
/// seven 32-bit parameters (for DCQCN: g, rate AI, rate HAI, minimum rate, alpha timer, rate
/// timer, byte counter).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CcPolicy {
    pub algo: u8,
    pub params: [u32; 7],
}

impl CcPolicy {
    pub fn encode(&self) -> [u8; BODY_BYTES] {
        let mut b = [0u8; BODY_BYTES];
        b[0] = self.algo;
        for (i, p) in self.params.iter().enumerate() {
            b[4 + 4 * i..8 + 4 * i].copy_from_slice(&p.to_be_bytes());
        }
        b
    }
    pub fn decode(b: &[u8]) -> CcPolicy {
        CcPolicy { algo: b[0], params: std::array::from_fn(|i| u32::from_be_bytes(b[4 + 4 * i..8 + 4 * i].try_into().unwrap())) }
    }
}

/// One table write of a batch: `op` 1 writes `data` at `(dest, table, index)`, `op` 2 deletes
/// (writes zeros). `dest` bit 0 picks the EM block (0 classifier, 1 lookups) and bit 1 the side
/// (0 host, 1 wire); bit 2 is telemetry (read-only: the EM ignores writes there, a read gets
/// the counters); `table` and `index` are the block's (see `nicgen_hw::em`). `data` is the
/// entry packed from bit 0 (224 bits; bytes 8..36 of the entry, most significant first).
///
/// | bytes | field |
/// |---|---|
/// | 0 | op |
/// | 1 | dest (bits 2:0) |
/// | 2 | table (bits 1:0) |
/// | 3 | reserved |
/// | 4–5 | index |
/// | 6–7 | reserved |
/// | 8–35 | data, 224 bits |
/// | 36–39 | reserved |
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TableEntry {
    pub op: u8,
    pub dest: u8,
    pub table: u8,
    pub index: u16,
    /// Data bits 127:0.
    pub d0: u128,
    /// Data bits 223:128.
    pub d1: u128,
}

pub const OP_WRITE: u8 = 1;
pub const OP_DELETE: u8 = 2;

impl TableEntry {
    pub fn write(dest: u8, table: u8, index: u16, d0: u128, d1: u128) -> Self {
        TableEntry { op: OP_WRITE, dest, table, index, d0, d1 }
    }
    pub fn delete(dest: u8, table: u8, index: u16) -> Self {
        TableEntry { op: OP_DELETE, dest, table, index, d0: 0, d1: 0 }
    }
    /// The data the table receives (zeros for a delete).
    pub fn effective(&self) -> (u128, u128) {
        if self.op == OP_DELETE {
            (0, 0)
        } else {
            (self.d0, self.d1 & ((1u128 << 96) - 1))
        }
    }
    pub fn encode(&self) -> [u8; ENTRY_BYTES] {
        let mut b = [0u8; ENTRY_BYTES];
        b[0] = self.op;
        b[1] = self.dest & 7;
        b[2] = self.table & 3;
        b[4..6].copy_from_slice(&self.index.to_be_bytes());
        b[8..20].copy_from_slice(&self.d1.to_be_bytes()[4..]);
        b[20..36].copy_from_slice(&self.d0.to_be_bytes());
        b
    }
    pub fn decode(b: &[u8]) -> TableEntry {
        let mut d1 = [0u8; 16];
        d1[4..].copy_from_slice(&b[8..20]);
        TableEntry {
            op: b[0],
            dest: b[1] & 7,
            table: b[2] & 3,
            index: u16::from_be_bytes([b[4], b[5]]),
            d0: u128::from_be_bytes(b[20..36].try_into().unwrap()),
            d1: u128::from_be_bytes(d1),
        }
    }
    pub fn valid(&self) -> bool {
        self.op == OP_WRITE || self.op == OP_DELETE
    }
}

/// A message's object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    Profile(Profile),
    Cc(CcPolicy),
    Tables(Vec<TableEntry>),
    /// A telemetry read of counters `start..start + count`.
    TeleRead { start: u16, count: u16 },
    /// A telemetry reply's counter values.
    TeleReply(Vec<u64>),
    /// A table read: (dest, table, index) of each entry.
    TableRead(Vec<(u8, u8, u16)>),
    /// A table read's reply.
    TableReply(Vec<TableEntry>),
    /// An ack has no body.
    Ack,
    Event(EventMsg),
}

/// A whole message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Msg {
    pub hdr: Header,
    pub body: Body,
}

impl Msg {
    fn new(ty: MsgType, target_em: u8, class: Class, epoch: u64, seq: u32, body: Body) -> Msg {
        let mut m = Msg { hdr: Header { version: VERSION, ty: ty as u8, target_em, class: class as u8, epoch, seq, ..Default::default() }, body };
        m.hdr.count = match &m.body {
            Body::Tables(e) => e.len() as u32,
            Body::TeleRead { count, .. } => *count as u32,
            Body::TeleReply(v) => v.len() as u32,
            Body::TableRead(v) => v.len() as u32,
            Body::TableReply(v) => v.len() as u32,
            _ => 0,
        };
        m.hdr.length = m.body_bytes().len() as u16 + HDR_BYTES as u16;
        m
    }
    pub fn profile(em: u8, epoch: u64, seq: u32, p: Profile) -> Msg {
        Msg::new(MsgType::Push, em, Class::Profile, epoch, seq, Body::Profile(p))
    }
    pub fn cc(em: u8, epoch: u64, seq: u32, c: CcPolicy) -> Msg {
        Msg::new(MsgType::Push, em, Class::Cc, epoch, seq, Body::Cc(c))
    }
    pub fn tables(em: u8, epoch: u64, seq: u32, e: Vec<TableEntry>) -> Msg {
        Msg::new(MsgType::Push, em, Class::Tables, epoch, seq, Body::Tables(e))
    }
    pub fn tele_read(em: u8, seq: u32, start: u16, count: u16) -> Msg {
        Msg::new(MsgType::Read, em, Class::Telemetry, 0, seq, Body::TeleRead { start, count })
    }
    /// Read table entries `(dest, table, index)` (at most 64) from an EM's live bank.
    pub fn table_read(em: u8, seq: u32, keys: Vec<(u8, u8, u16)>) -> Msg {
        Msg::new(MsgType::Read, em, Class::Tables, 0, seq, Body::TableRead(keys))
    }
    fn body_bytes(&self) -> Vec<u8> {
        match &self.body {
            Body::Profile(p) => p.encode().to_vec(),
            Body::Cc(c) => c.encode().to_vec(),
            Body::Tables(e) => e.iter().flat_map(|x| x.encode()).collect(),
            Body::TeleRead { start, count } => {
                let mut b = vec![0u8; TELE_READ_BYTES];
                b[0..2].copy_from_slice(&start.to_be_bytes());
                b[2..4].copy_from_slice(&count.to_be_bytes());
                b
            }
            Body::TeleReply(v) => v.iter().flat_map(|x| x.to_be_bytes()).collect(),
            Body::TableRead(v) => v.iter().flat_map(|&(d, t, i)| [0, d & 7, t & 3, 0, (i >> 8) as u8, i as u8, 0, 0]).collect(),
            Body::TableReply(v) => v.iter().flat_map(|e| e.encode()).collect(),
            Body::Ack => vec![],
            Body::Event(e) => e.encode().to_vec(),
        }
    }
    pub fn encode(&self) -> Vec<u8> {
        let mut b = self.hdr.encode().to_vec();
        b.extend(self.body_bytes());
        b
    }
    /// A message as the endpoint reads it, or why it drops it (the order of the checks is the
    /// endpoint's).
    pub fn decode(b: &[u8]) -> Result<Msg, M2mDrop> {
        if b.len() < HDR_BYTES {
            return Err(M2mDrop::Truncated);
        }
        let h = Header::decode(b);
        let len = h.length as usize;
        if h.version != VERSION {
            return Err(M2mDrop::BadVersion);
        }
        if b.len() < len {
            return Err(M2mDrop::Truncated);
        }
        if b.len() > len || len % 8 != 0 || len > MAX_BYTES {
            return Err(M2mDrop::BadLength);
        }
        let ty = match h.ty {
            1 => MsgType::Push,
            2 => MsgType::Read,
            _ => return Err(M2mDrop::UnknownType),
        };
        let class = match (ty, Class::from_code(h.class)) {
            (MsgType::Push, Some(c)) if c != Class::Telemetry => c,
            (MsgType::Read, Some(c)) if c == Class::Telemetry || c == Class::Tables => c,
            _ => return Err(M2mDrop::UnknownClass),
        };
        let n = h.count.min(MAX_ENTRIES as u32 + 1) as usize;
        let need = match class {
            Class::Profile | Class::Cc => HDR_BYTES + BODY_BYTES,
            Class::Tables if ty == MsgType::Read => HDR_BYTES + 8 * n,
            Class::Tables => HDR_BYTES + ENTRY_BYTES * n,
            Class::Telemetry => HDR_BYTES + TELE_READ_BYTES,
        };
        if len != need {
            return Err(M2mDrop::BadLength);
        }
        let body = &b[HDR_BYTES..];
        let body = match class {
            Class::Profile => Body::Profile(Profile::decode(body)),
            Class::Cc => Body::Cc(CcPolicy::decode(body)),
            Class::Tables if ty == MsgType::Read => {
                if n == 0 {
                    return Err(M2mDrop::BadEntry);
                }
                Body::TableRead(body.chunks(8).map(|c| (c[1] & 7, c[2] & 3, u16::from_be_bytes([c[4], c[5]]))).collect())
            }
            Class::Tables => {
                let e: Vec<TableEntry> = body.chunks(ENTRY_BYTES).map(TableEntry::decode).collect();
                if e.is_empty() || e.iter().any(|x| !x.valid()) {
                    return Err(M2mDrop::BadEntry);
                }
                Body::Tables(e)
            }
            Class::Telemetry => {
                let (start, count) = (u16::from_be_bytes([body[0], body[1]]), u16::from_be_bytes([body[2], body[3]]));
                if count == 0 || start as usize + count as usize > TELE_COUNTERS || h.count != count as u32 {
                    return Err(M2mDrop::BadEntry);
                }
                Body::TeleRead { start, count }
            }
        };
        Ok(Msg { hdr: h, body })
    }
    /// A reply or ack as the OM reads it (no checks beyond the framing).
    pub fn decode_reply(b: &[u8]) -> Option<Msg> {
        if b.len() < HDR_BYTES {
            return None;
        }
        let h = Header::decode(b);
        if h.length as usize != b.len() {
            return None;
        }
        let body = match h.ty {
            4 => Body::Ack,
            5 if b.len() == HDR_BYTES + EVENT_BYTES => Body::Event(EventMsg::decode(&b[HDR_BYTES..])),
            3 if h.class == Class::Tables as u8 => Body::TableReply(b[HDR_BYTES..].chunks(ENTRY_BYTES).map(TableEntry::decode).collect()),
            3 => Body::TeleReply(b[HDR_BYTES..].chunks(8).map(|c| c.iter().fold(0u64, |a, x| a << 8 | *x as u64)).collect()),
            _ => return None,
        };
        Some(Msg { hdr: h, body })
    }
}

/// What an endpoint does with one message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Not for this EM: sent on downstream unchanged.
    Relay(Vec<u8>),
    /// Handled: the reply (ack or telemetry values) and the table writes it made visible.
    Reply { reply: Vec<u8>, writes: Vec<TableEntry> },
    Drop(M2mDrop),
}

/// The endpoint's golden model: stored epochs and objects, and counters.
#[derive(Clone, Debug, Default)]
pub struct Endpoint {
    pub id: u8,
    /// Stored epoch per class with state (profile, CC, tables).
    pub stored: [u64; 3],
    pub profile: Profile,
    pub cc: CcPolicy,
    pub ctr: [u64; 16],
    /// The datapath's counters (telemetry 16..32), as the test sets them.
    pub dp: [u32; 16],
    /// What the EM's tables hold: (dest, table, index) → data, as written (a table read answers
    /// with it; the hardware keeps only each table's width).
    pub tables: std::collections::BTreeMap<(u8, u8, u16), (u128, u128)>,
}

impl Endpoint {
    pub fn new(id: u8) -> Endpoint {
        Endpoint { id, ..Default::default() }
    }
    fn reply(&self, ty: MsgType, class: u8, m: &Header, status: Status, stored: u64, body: Vec<u8>) -> Vec<u8> {
        let h = Header {
            version: VERSION,
            ty: ty as u8,
            target_em: self.id,
            class,
            length: (HDR_BYTES + body.len()) as u16,
            status: status as u16,
            epoch: m.epoch,
            seq: m.seq,
            count: m.count,
            stored,
        };
        let mut b = h.encode().to_vec();
        b.extend(body);
        b
    }
    /// A counter as telemetry reads it (32-bit hardware counters).
    pub fn counter(&self, i: usize) -> u64 {
        if i < 16 {
            self.ctr[i] & 0xffff_ffff
        } else {
            self.dp[i - 16] as u64
        }
    }
    pub fn receive(&mut self, b: &[u8]) -> Outcome {
        self.ctr[Ctr::Received as usize] += 1;
        let m = match Msg::decode(b) {
            Ok(m) => m,
            Err(d) => {
                self.ctr[Ctr::of_drop(d) as usize] += 1;
                return Outcome::Drop(d);
            }
        };
        if m.hdr.target_em != self.id {
            self.ctr[Ctr::Relayed as usize] += 1;
            return Outcome::Relay(b.to_vec());
        }
        self.ctr[Ctr::Replies as usize] += 1;
        let class = Class::from_code(m.hdr.class).unwrap();
        if let Body::TableRead(keys) = &m.body {
            self.ctr[Ctr::TeleReads as usize] += 1;
            let body: Vec<u8> = keys
                .iter()
                .flat_map(|&(dest, table, index)| {
                    let (d0, d1) = self.tables.get(&(dest, table, index)).copied().unwrap_or_default();
                    TableEntry::write(dest, table, index, d0, d1).encode()
                })
                .collect();
            let reply = self.reply(MsgType::Reply, m.hdr.class, &m.hdr, Status::Applied, self.stored[Class::Tables.slot().unwrap()], body);
            return Outcome::Reply { reply, writes: vec![] };
        }
        let Some(slot) = class.slot() else {
            let Body::TeleRead { start, count } = m.body else { unreachable!() };
            self.ctr[Ctr::TeleReads as usize] += 1;
            let vals: Vec<u8> = (start..start + count).flat_map(|i| self.counter(i as usize).to_be_bytes()).collect();
            let reply = self.reply(MsgType::Reply, m.hdr.class, &m.hdr, Status::Applied, self.stored[Class::Tables.slot().unwrap()], vals);
            return Outcome::Reply { reply, writes: vec![] };
        };
        let (status, writes) = match epoch_cmp(m.hdr.epoch, self.stored[slot]) {
            Ordering::Less => {
                self.ctr[Ctr::Stale as usize] += 1;
                (Status::Stale, vec![])
            }
            Ordering::Equal => {
                self.ctr[Ctr::Equal as usize] += 1;
                (Status::Equal, vec![])
            }
            Ordering::Greater => {
                self.ctr[Ctr::Applied as usize] += 1;
                self.stored[slot] = m.hdr.epoch;
                let mut w = vec![];
                match m.body {
                    Body::Profile(p) => self.profile = p,
                    Body::Cc(c) => self.cc = c,
                    Body::Tables(e) => {
                        self.ctr[Ctr::TableWrites as usize] += e.len() as u64;
                        for x in &e {
                            // telemetry (dest bit 2) is read-only: the EM ignores such writes
                            if x.dest & 4 == 0 {
                                self.tables.insert((x.dest, x.table, x.index), x.effective());
                            }
                        }
                        w = e;
                    }
                    _ => unreachable!(),
                }
                (Status::Applied, w)
            }
        };
        let reply = self.reply(MsgType::Ack, m.hdr.class, &m.hdr, status, self.stored[slot], vec![]);
        Outcome::Reply { reply, writes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_epochs() {
        assert_eq!(epoch_cmp(5, 5), Ordering::Equal);
        assert_eq!(epoch_cmp(6, 5), Ordering::Greater);
        assert_eq!(epoch_cmp(4, 5), Ordering::Less);
        // across the wrap: 1 follows u64::MAX, and u64::MAX precedes 1
        assert_eq!(epoch_cmp(1, u64::MAX), Ordering::Greater);
        assert_eq!(epoch_cmp(u64::MAX, 1), Ordering::Less);
        // half the space ahead is newer; just past half is older
        assert_eq!(epoch_cmp(1 << 63 >> 0, 1), Ordering::Greater);
        assert_eq!(epoch_cmp((1 << 63) + 1, 1), Ordering::Less);
    }

    #[test]
    fn codec_round_trips() {
        let p = Profile { smac: 0x0203_0405_0607, dmac: 0x0a0b_0c0d_0e0f, sip: 0x0a00_0001, ttl: 64, tos: 0, nat: true, vf_count: 16, vf_base: 0, tenant_quota: 8, entry_quota: 4096 };
        let e = vec![TableEntry::write(1, 0, 0x1234, u128::MAX - 7, (1 << 96) - 3), TableEntry::delete(3, 2, 9)];
        for m in [Msg::profile(2, 7, 1, p), Msg::cc(0, 1, 2, CcPolicy { algo: 1, params: [1, 2, 3, 4, 5, 6, 7] }), Msg::tables(1, 9, 3, e), Msg::tele_read(0, 4, 3, 5)] {
            let b = m.encode();
            assert_eq!(b.len(), m.hdr.length as usize);
            assert_eq!(b.len() % 8, 0);
            assert_eq!(Msg::decode(&b), Ok(m));
        }
    }

    #[test]
    fn malformed_messages_have_a_cause() {
        let good = Msg::tables(0, 1, 1, vec![TableEntry::write(0, 1, 2, 3, 4)]).encode();
        assert_eq!(Msg::decode(&good[..24]), Err(M2mDrop::Truncated));
        assert_eq!(Msg::decode(&good[..64]), Err(M2mDrop::Truncated));
        let mut long = good.clone();
        long.extend([0u8; 8]);
        assert_eq!(Msg::decode(&long), Err(M2mDrop::BadLength));
        let mut v = good.clone();
        v[0] = 2;
        assert_eq!(Msg::decode(&v), Err(M2mDrop::BadVersion));
        let mut t = good.clone();
        t[1] = 4;
        assert_eq!(Msg::decode(&t), Err(M2mDrop::UnknownType));
        let mut c = good.clone();
        c[3] = 9;
        assert_eq!(Msg::decode(&c), Err(M2mDrop::UnknownClass));
        let mut n = good.clone();
        n[23] = 2;
        assert_eq!(Msg::decode(&n), Err(M2mDrop::BadLength));
        let mut o = good.clone();
        o[HDR_BYTES] = 7;
        assert_eq!(Msg::decode(&o), Err(M2mDrop::BadEntry));
    }

    /// P4Runtime/gNMI/OVS-style epoch cases on the golden endpoint.
    #[test]
    fn endpoint_epoch_rules() {
        let mut ep = Endpoint::new(0);
        let w = |e: u64| Msg::tables(0, e, e as u32, vec![TableEntry::write(0, 1, e as u16, e as u128, 0)]).encode();
        let status = |o: &Outcome| match o {
            Outcome::Reply { reply, .. } => Header::decode(reply).status,
            _ => 99,
        };
        assert_eq!(status(&ep.receive(&w(3))), Status::Applied as u16);
        assert_eq!(status(&ep.receive(&w(3))), Status::Equal as u16);
        let o = ep.receive(&w(2));
        assert_eq!(status(&o), Status::Stale as u16);
        let Outcome::Reply { reply, writes } = o else { panic!() };
        assert_eq!(Header::decode(&reply).stored, 3, "the stale ack reports the stored epoch");
        assert!(writes.is_empty());
        // a different class has its own epoch
        assert_eq!(status(&ep.receive(&Msg::cc(0, 1, 9, CcPolicy::default()).encode())), Status::Applied as u16);
        // relayed untouched
        let other = Msg::tables(3, 1, 1, vec![TableEntry::delete(0, 0, 0)]).encode();
        assert_eq!(ep.receive(&other), Outcome::Relay(other.clone()));
    }
}

/// M2M over Ethernet, the channel of the U55C execution-module board (`em_card`): the
/// EtherType IEEE 802 reserves for local experiments. The EM's host side never sends it (its
/// parser drops everything but IPv4), so no tenant reaches this channel through an EM.
pub const M2M_ETHERTYPE: u16 = 0x88B5;
/// The shortest frame (without FCS) a MAC sends; shorter M2M frames are padded with zeros.
pub const ETH_MIN_FRAME: usize = 60;

/// MAC `m` (48-bit, the first byte on the wire most significant) as the hardware takes it
/// (`M2mEth`'s `mac`): the first byte in bits 7..0.
pub fn mac_wire(m: u64) -> u64 {
    u64::from_le_bytes(m.to_be_bytes()) >> 16
}

/// `msg` in an Ethernet II frame from MAC `src` to MAC `dst` (48-bit, the first byte on the
/// wire most significant), padded with zeros to [`ETH_MIN_FRAME`] bytes.
pub fn eth_frame(dst: u64, src: u64, msg: &[u8]) -> Vec<u8> {
    let mac = |m: u64| -> [u8; 6] { m.to_be_bytes()[2..8].try_into().unwrap() };
    let h = etherparse::Ethernet2Header { source: mac(src), destination: mac(dst), ether_type: etherparse::EtherType(M2M_ETHERTYPE) };
    let mut f = h.to_bytes().to_vec();
    f.extend_from_slice(msg);
    f.resize(f.len().max(ETH_MIN_FRAME), 0);
    f
}

/// An M2M frame's destination, source and message (its header's `length` bytes; `None` when
/// the frame is not M2M or is shorter than its message).
pub fn eth_message(frame: &[u8]) -> Option<(u64, u64, &[u8])> {
    let (h, rest) = etherparse::Ethernet2Header::from_slice(frame).ok()?;
    if h.ether_type.0 != M2M_ETHERTYPE || rest.len() < 6 {
        return None;
    }
    let len = u16::from_be_bytes([rest[4], rest[5]]) as usize;
    let mac = |m: [u8; 6]| m.iter().fold(0u64, |a, &b| a << 8 | b as u64);
    Some((mac(h.destination), mac(h.source), rest.get(..len)?))
}
