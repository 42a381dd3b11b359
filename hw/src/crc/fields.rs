//! Fixed-offset field logic of the ICRC engine, emitted as `Verilog::Custom` from tables in
//! Rust, each with a word-level Rust model:
//! * [`KeepCount`]: bytes in a contiguous `tkeep` (thermometer to binary, three LUT levels);
//! * [`IcrcClassify`]: from the first beat, IPv4/IPv6, RoCEv2 (UDP 4791) and the frame length
//!   the IP header announces;
//! * [`IcrcMask`]: the bytes the ICRC covers: Ethernet header zeroed, the variant fields set to
//!   ones, bytes outside `tkeep` zeroed.
use super::matrix::bits_to_u64s;
use num_bigint::BigUint;
use rust_hdl::prelude::*;

pub fn bytes_of<const N: usize>(b: Bits<N>) -> Vec<u8> {
    bits_to_u64s(b).iter().flat_map(|w| w.to_le_bytes()).take(N / 8).collect()
}

pub fn bits_of<const N: usize>(bytes: &[u8]) -> Bits<N> {
    Bits::<N>::from(BigUint::from_bytes_le(bytes))
}

/// Number of valid bytes in a contiguous (low-aligned) `tkeep`.
#[derive(LogicBlock, Default)]
pub struct KeepCount<const K: usize, const C: usize> {
    pub keep: Signal<In, Bits<K>>,
    pub count: Signal<Out, Bits<C>>,
}

impl<const K: usize, const C: usize> Logic for KeepCount<K, C> {
    fn update(&mut self) {
        let w = bits_to_u64s(self.keep.val());
        let n: u32 = w.iter().map(|x| x.count_ones()).sum();
        self.count.next = (n as u64).into();
    }
    fn connect(&mut self) {
        self.count.connect();
    }
    fn hdl(&self) -> Verilog {
        // one-hot edge h[p] = keep[p-1] & ~keep[p]; count bit j = OR of h[p] with bit j of p set
        let mut v = String::new();
        v += &format!("wire [{K}:1] h;\n");
        for p in 1..=K {
            if p == K {
                v += &format!("assign h[{p}] = keep[{}];\n", p - 1);
            } else {
                v += &format!("assign h[{p}] = keep[{}] & ~keep[{p}];\n", p - 1);
            }
        }
        v += "always @(*) begin\n";
        for j in 0..C {
            let t: Vec<String> = (1..=K).filter(|p| p >> j & 1 == 1).map(|p| format!("h[{p}]")).collect();
            let e = if t.is_empty() { "1'b0".into() } else { t.join(" | ") };
            v += &format!("  count[{j}] = {e};\n");
        }
        v += "end\n";
        Verilog::Custom(v)
    }
}

/// Byte offsets (from frame start) of the fields the classifier reads.
pub mod off {
    pub const ETHERTYPE: usize = 12;
    pub const V4_VER_IHL: usize = 14;
    pub const V4_TOTAL_LEN: usize = 16;
    pub const V4_PROTO: usize = 23;
    pub const V4_DPORT: usize = 36;
    pub const V6_PAYLOAD_LEN: usize = 18;
    pub const V6_NEXT_HDR: usize = 20;
    pub const V6_DPORT: usize = 56;
}

/// The smallest RoCEv2 frames: Ethernet + IP + UDP + BTH + ICRC.
pub const MIN_ROCE_V4: u16 = 14 + 20 + 8 + 12 + 4;
pub const MIN_ROCE_V6: u16 = 14 + 40 + 8 + 12 + 4;

/// Classification of a first beat (the model of [`IcrcClassify`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Class {
    pub v4: bool,
    pub v6: bool,
    pub roce: bool,
    /// Frame length the IP header announces (Ethernet header included).
    pub ip_frame_len: u16,
}

pub fn classify(b: &[u8]) -> Class {
    let be = |o: usize| u16::from_be_bytes([b[o], b[o + 1]]);
    let v4 = be(off::ETHERTYPE) == 0x0800;
    let v6 = be(off::ETHERTYPE) == 0x86dd;
    let roce4 = v4 && b[off::V4_VER_IHL] == 0x45 && b[off::V4_PROTO] == 17 && be(off::V4_DPORT) == 4791;
    let roce6 = v6 && b[off::V6_NEXT_HDR] == 17 && be(off::V6_DPORT) == 4791;
    let len = if v4 { be(off::V4_TOTAL_LEN).wrapping_add(14) } else { be(off::V6_PAYLOAD_LEN).wrapping_add(54) };
    Class { v4, v6, roce: roce4 || roce6, ip_frame_len: len }
}

#[derive(LogicBlock, Default)]
pub struct IcrcClassify {
    pub data: Signal<In, Bits<512>>,
    pub v4: Signal<Out, Bit>,
    pub v6: Signal<Out, Bit>,
    pub roce: Signal<Out, Bit>,
    pub ip_frame_len: Signal<Out, Bits<16>>,
}

impl Logic for IcrcClassify {
    fn update(&mut self) {
        let c = classify(&bytes_of(self.data.val()));
        self.v4.next = c.v4;
        self.v6.next = c.v6;
        self.roce.next = c.roce;
        self.ip_frame_len.next = (c.ip_frame_len as u64).into();
    }
    fn connect(&mut self) {
        self.v4.connect();
        self.v6.connect();
        self.roce.connect();
        self.ip_frame_len.connect();
    }
    fn hdl(&self) -> Verilog {
        let byte = |o: usize| format!("data[{}:{}]", 8 * o + 7, 8 * o);
        let be16 = |o: usize| format!("{{{}, {}}}", byte(o), byte(o + 1));
        Verilog::Custom(format!(
            "wire unused_bytes = ^data; // only the header fields below are read\n\
             wire is4 = {et} == 16'h0800;\n\
             wire is6 = {et} == 16'h86dd;\n\
             always @(*) begin\n\
             \x20 v4 = is4;\n\
             \x20 v6 = is6;\n\
             \x20 roce = (is4 & ({ihl} == 8'h45) & ({p4} == 8'h11) & ({d4} == 16'h12b7))\n\
             \x20      | (is6 & ({nh} == 8'h11) & ({d6} == 16'h12b7));\n\
             \x20 ip_frame_len = is4 ? ({l4} + 16'd14) : ({l6} + 16'd54);\n\
             end\n",
            et = be16(off::ETHERTYPE),
            ihl = byte(off::V4_VER_IHL),
            p4 = byte(off::V4_PROTO),
            d4 = be16(off::V4_DPORT),
            nh = byte(off::V6_NEXT_HDR),
            d6 = be16(off::V6_DPORT),
            l4 = be16(off::V4_TOTAL_LEN),
            l6 = be16(off::V6_PAYLOAD_LEN),
        ))
    }
}

/// Per beat position, the bits forced to one for IPv4 and IPv6 (the ICRC's variant fields),
/// as (beat, byte within beat, OR mask).
pub fn variant_masks(v6: bool) -> Vec<(usize, usize, u8)> {
    let f: Vec<(usize, u8)> = if v6 {
        // traffic class + flow label, hop limit, UDP checksum, BTH byte 4
        vec![(14, 0x0f), (15, 0xff), (16, 0xff), (17, 0xff), (21, 0xff), (60, 0xff), (61, 0xff), (66, 0xff)]
    } else {
        // TOS, TTL, header checksum, UDP checksum, BTH byte 4
        vec![(15, 0xff), (22, 0xff), (24, 0xff), (25, 0xff), (40, 0xff), (41, 0xff), (46, 0xff)]
    };
    f.into_iter().map(|(o, m)| (o / 64, o % 64, m)).collect()
}

/// The model of [`IcrcMask`]: `beat` is 0, 1 or more (≥ 2 → no variant fields).
pub fn mask_beat(data: &[u8], keep: u64, beat: usize, v6: bool) -> Vec<u8> {
    let mut out = data.to_vec();
    if beat == 0 {
        out[..14].iter_mut().for_each(|b| *b = 0);
    }
    for (bt, by, m) in variant_masks(v6) {
        if bt == beat {
            out[by] |= m;
        }
    }
    for (i, b) in out.iter_mut().enumerate() {
        if keep >> i & 1 == 0 {
            *b = 0;
        }
    }
    out
}

#[derive(LogicBlock, Default)]
pub struct IcrcMask {
    pub data: Signal<In, Bits<512>>,
    pub keep: Signal<In, Bits<64>>,
    pub first: Signal<In, Bit>,
    pub second: Signal<In, Bit>,
    pub v6: Signal<In, Bit>,
    pub masked: Signal<Out, Bits<512>>,
}

impl Logic for IcrcMask {
    fn update(&mut self) {
        let beat = if self.first.val() { 0 } else if self.second.val() { 1 } else { 2 };
        let keep: u64 = self.keep.val().into();
        let m = mask_beat(&bytes_of(self.data.val()), keep, beat, self.v6.val());
        self.masked.next = bits_of::<512>(&m);
    }
    fn connect(&mut self) {
        self.masked.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::from("always @(*) begin\n");
        let (m4, m6) = (variant_masks(false), variant_masks(true));
        for b in 0..64 {
            let x = format!("data[{}:{}]", 8 * b + 7, 8 * b);
            let or_for = |masks: &[(usize, usize, u8)], beat: usize| masks.iter().find(|(bt, by, _)| *bt == beat && *by == b).map(|m| m.2).unwrap_or(0);
            let (o4_0, o6_0, o6_1) = (or_for(&m4, 0), or_for(&m6, 0), or_for(&m6, 1));
            assert_eq!(or_for(&m4, 1), 0);
            let mut e = if b < 14 { format!("(first ? 8'h00 : {x})") } else { x.clone() };
            if o4_0 != 0 || o6_0 != 0 {
                e = format!("({e} | (first ? (v6 ? 8'h{o6_0:02x} : 8'h{o4_0:02x}) : 8'h00))");
            }
            if o6_1 != 0 {
                e = format!("({e} | ((second & v6) ? 8'h{o6_1:02x} : 8'h00))");
            }
            v += &format!("  masked[{}:{}] = keep[{b}] ? {e} : 8'h00;\n", 8 * b + 7, 8 * b);
        }
        v += "end\n";
        Verilog::Custom(v)
    }
}

/// Thermometer decode: `out[i] = x > i + OFFSET` (as integers; OFFSET may be negative).
/// Each output bit is one compare with a constant (two LUT levels), where a shifter would take
/// four. The model is the same formula.
#[derive(LogicBlock)]
pub struct Thermo<const X: usize, const N: usize> {
    pub x: Signal<In, Bits<X>>,
    pub out: Signal<Out, Bits<N>>,
    _offset: i64,
}

impl<const X: usize, const N: usize> Thermo<X, N> {
    pub fn new(offset: i64) -> Self {
        Thermo { x: Default::default(), out: Default::default(), _offset: offset }
    }
    pub fn eval(x: u64, offset: i64) -> u128 {
        (0..N).filter(|&i| x as i64 > i as i64 + offset).fold(0u128, |a, i| a | 1 << i)
    }
}

impl<const X: usize, const N: usize> Logic for Thermo<X, N> {
    fn update(&mut self) {
        let x: u64 = self.x.val().into();
        self.out.next = Bits::<N>::from(num_bigint::BigUint::from(Self::eval(x, self._offset)));
    }
    fn connect(&mut self) {
        self.out.connect();
    }
    fn hdl(&self) -> Verilog {
        assert!(N <= 128);
        let mut v = String::from("always @(*) begin\n");
        for i in 0..N {
            let c = i as i64 + self._offset;
            let e = if c < 0 {
                "1'b1".to_string()
            } else if c >= (1i64 << X) - 1 {
                "1'b0".to_string()
            } else {
                format!("x > {X}'d{c}")
            };
            v += &format!("  out[{i}] = {e};\n");
        }
        v += "end\n";
        Verilog::Custom(v)
    }
}

/// The generator's last-beat formatter: the 4 ICRC bytes (least significant first) placed right
/// after the `k` valid bytes of a beat (bytes past 64 are dropped here and sent in an extra
/// beat), and bytes past the ICRC zeroed. One 5-way byte select per output byte.
#[derive(LogicBlock, Default)]
pub struct IcrcPlace {
    pub data: Signal<In, Bits<512>>,
    pub k: Signal<In, Bits<7>>,
    pub icrc: Signal<In, Bits<32>>,
    pub out: Signal<Out, Bits<512>>,
    /// The bytes that did not fit (k > 60), at the start of the extra beat.
    pub extra: Signal<Out, Bits<32>>,
}

/// Model of [`IcrcPlace`]: (placed beat, extra bytes).
pub fn place_icrc(data: &[u8], k: usize, icrc: u32) -> (Vec<u8>, [u8; 4]) {
    let c = icrc.to_le_bytes();
    let mut out = vec![0u8; 64];
    out[..k.min(64)].copy_from_slice(&data[..k.min(64)]);
    let mut extra = [0u8; 4];
    for (i, b) in c.iter().enumerate() {
        if k + i < 64 {
            out[k + i] = *b;
        } else {
            extra[k + i - 64] = *b;
        }
    }
    (out, extra)
}

impl Logic for IcrcPlace {
    fn update(&mut self) {
        let k: u64 = self.k.val().into();
        let (out, extra) = place_icrc(&bytes_of(self.data.val()), k as usize, self.icrc.val().to_u32());
        self.out.next = bits_of::<512>(&out);
        self.extra.next = (u32::from_le_bytes(extra) as u64).into();
    }
    fn connect(&mut self) {
        self.out.connect();
        self.extra.connect();
    }
    fn hdl(&self) -> Verilog {
        let crc = |i: usize| format!("icrc[{}:{}]", 8 * i + 7, 8 * i);
        let mut v = String::from("always @(*) begin\n");
        for j in 0..64 {
            let mut e = format!("(k > 7'd{j}) ? data[{}:{}] : 8'h00", 8 * j + 7, 8 * j);
            for i in 0..4 {
                if j >= i {
                    e = format!("(k == 7'd{}) ? {} : {e}", j - i, crc(i));
                }
            }
            v += &format!("  out[{}:{}] = {e};\n", 8 * j + 7, 8 * j);
        }
        // extra beat byte m holds ICRC byte i where k + i = 64 + m
        for m in 0..4 {
            let mut e = "8'h00".to_string();
            for i in (m + 1)..4 {
                e = format!("(k == 7'd{}) ? {} : {e}", 64 + m - i, crc(i));
            }
            e = format!("(k == 7'd64) ? {} : {e}", crc(m));
            v += &format!("  extra[{}:{}] = {e};\n", 8 * m + 7, 8 * m);
        }
        v += "end\n";
        Verilog::Custom(v)
    }
}
