//! `EmNatPathIncW`: NAT with RoCEv2, the EM datapath's at either width (`EmNatPathInc` at 512
//! bits, `EmNatPath1024` at 1024). The ICRC is updated in place,
//! not cut and generated again: CRC-32 is affine, so a frame whose covered bytes change by `e`
//! (the IPv4 source and destination addresses, 8 bytes that `n` covered bytes follow) has the
//! raw CRC register changed by `A^n · M8 · e`, and its ICRC field (the inverted register,
//! little-endian) by the same 32 bits. `IcrcDelta` computes that from the frame's header and
//! translation alone, in 15 pipeline stages (`M8`, then `A^(2^k)` for each set bit k of `n`);
//! `IcrcPatch` XORs it into the frame's ICRC bytes at `l3 + tot - 4` (the field may straddle
//! two beats). A frame that arrives with a bad ICRC leaves with a bad one: the update keeps the
//! error, where generating anew would hide it.
//!
//! ```text
//! s_axis ─► AxisLimit1024 (RoCE: to l3 + tot, padding cut) ─► EmNat1024 ─► FIFO (32 beats) ─► IcrcPatch ─► m_axis
//! s_hdr, s_xl ─┬─► skids ─────────────────────────────────────┘                                 │
//!              └─► IcrcDelta (15 stages) ─► delta FIFO (64) ─────────────────────────────────────┘
//! ```
//! A VLAN-tagged RoCEv2 frame is dropped whole and counted
//! (`drop_roce_vlan`), so both widths treat every frame alike. The frame FIFO gives the delta
//! its 15 cycles: one-beat frames pass at one per cycle once it has filled.
use super::nat::{EmNatW, NatFrontW, NatXlate};
use super::EmHdr;
use crate::crc::gf2::{crc32_raw, shift_matrix, Gf2Matrix};
use crate::crc::matrix::XorMatrix;
use crate::record::FromBits;
use crate::stream::*;
use rust_hdl::prelude::*;

/// Stages of `n`'s shift: covered bytes after the addresses, below 2^14 (a 9 KiB frame).
pub const DELTA_BITS: usize = 14;
const _: () = assert!(DELTA_BITS == 14, "IcrcDelta's output reads stage 14 by a literal index");
/// `IcrcDelta`'s latency in cycles.
pub const ICRC_DELTA_LATENCY: usize = DELTA_BITS + 1;

/// `M8`: the raw CRC register's change (from a zero state) for a change `e` of the 8 address
/// bytes: input bits 0..31 are the source address's XOR (bit j of the 32-bit value, in wire
/// byte 3 - j/8), 32..63 the destination's.
pub fn addr_matrix() -> Gf2Matrix {
    Gf2Matrix::from_fn(64, 32, |j| {
        let mut b = [0u8; 8];
        let (word, bit) = (j / 32, j % 32);
        b[4 * word + 3 - bit / 8] = 1 << (bit % 8);
        crc32_raw(0, &b) as u64
    })
}

/// The ICRC field's change for address changes `sd`, `dd` followed by `n` covered bytes (the
/// model of `IcrcDelta`).
pub fn icrc_delta(sd: u32, dd: u32, n: usize) -> u32 {
    let e = sd as u64 | (dd as u64) << 32;
    shift_matrix(n).apply(&[addr_matrix().apply(&[e])]) as u32
}

/// The delta pipeline: `in_valid` with the address changes (`e`: source XOR in bits 31:0,
/// destination XOR in 63:32), the covered bytes after them (`n`) and a tag that rides along;
/// [`ICRC_DELTA_LATENCY`] cycles later `out_valid` with the ICRC field's change and the tag.
/// It never stalls.
#[derive(LogicBlock)]
pub struct IcrcDelta {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub e: Signal<In, Bits<64>>,
    pub n: Signal<In, Bits<DELTA_BITS>>,
    pub tag: Signal<In, Bits<17>>,
    pub out_valid: Signal<Out, Bit>,
    pub delta: Signal<Out, Bits<32>>,
    pub out_tag: Signal<Out, Bits<17>>,
    m8: XorMatrix<64, 32>,
    sh: [XorMatrix<32, 32>; DELTA_BITS],
    v: [DFF<Bits<32>>; ICRC_DELTA_LATENCY],
    nn: [DFF<Bits<DELTA_BITS>>; DELTA_BITS],
    tg: [DFF<Bits<17>>; ICRC_DELTA_LATENCY],
    vl: [DFF<Bit>; ICRC_DELTA_LATENCY],
    /// The last stage reads only its own bit of `n`.
    unused: Signal<Local, Bit>,
}

impl Default for IcrcDelta {
    fn default() -> Self {
        IcrcDelta {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            e: Default::default(),
            n: Default::default(),
            tag: Default::default(),
            out_valid: Default::default(),
            delta: Default::default(),
            out_tag: Default::default(),
            m8: XorMatrix::new(addr_matrix()),
            sh: std::array::from_fn(|k| XorMatrix::new(shift_matrix(1 << k))),
            v: Default::default(),
            nn: Default::default(),
            tg: Default::default(),
            vl: Default::default(),
            unused: Default::default(),
        }
    }
}

impl Logic for IcrcDelta {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..DELTA_BITS {
            self.nn[i].clock.next = self.clock.val();
        }
        for i in 0..ICRC_DELTA_LATENCY {
            self.v[i].clock.next = self.clock.val();
            self.tg[i].clock.next = self.clock.val();
            self.vl[i].clock.next = self.clock.val();
        }
        self.m8.x.next = self.e.val();
        self.v[0].d.next = self.m8.y.val();
        self.nn[0].d.next = self.n.val();
        self.tg[0].d.next = self.tag.val();
        self.vl[0].d.next = self.in_valid.val();
        for k in 0..DELTA_BITS {
            self.sh[k].x.next = self.v[k].q.val();
            self.v[k + 1].d.next = self.v[k].q.val();
            if self.nn[k].q.val().get_bit(k) {
                self.v[k + 1].d.next = self.sh[k].y.val();
            }
            self.tg[k + 1].d.next = self.tg[k].q.val();
            self.vl[k + 1].d.next = self.vl[k].q.val();
        }
        for k in 0..(DELTA_BITS - 1usize) {
            self.nn[k + 1].d.next = self.nn[k].q.val();
        }
        self.unused.next = self.nn[13].q.val().any();
        self.out_valid.next = self.vl[14].q.val();
        self.delta.next = self.v[14].q.val();
        self.out_tag.next = self.tg[14].q.val();
        if self.reset.val() {
            for i in 0..ICRC_DELTA_LATENCY {
                self.vl[i].d.next = false;
            }
        }
    }
}

/// The XOR masks that put the 4 bytes of `d` (least significant first) at byte `q` of a
/// `K`-byte beat when `en`: `here` for this beat, `after` for the bytes past its end (the low
/// 3 bytes of the next beat). Generated Verilog: a one-hot decode of `q`, then per byte an OR of
/// four terms.
#[derive(LogicBlock, Default)]
pub struct DeltaPlace<const D: usize, const CB: usize> {
    pub q: Signal<In, Bits<CB>>,
    pub en: Signal<In, Bit>,
    pub d: Signal<In, Bits<32>>,
    pub here: Signal<Out, Bits<D>>,
    pub after: Signal<Out, Bits<32>>,
}

impl<const D: usize, const CB: usize> Logic for DeltaPlace<D, CB> {
    fn update(&mut self) {
        let k = D / 8;
        let (q, d) = (u64::from(self.q.val()) as usize, u64::from(self.d.val()) as u32);
        let mut here = vec![0u8; k];
        let mut next = [0u8; 4];
        if self.en.val() {
            for (i, b) in d.to_le_bytes().iter().enumerate() {
                if q + i < k {
                    here[q + i] = *b;
                } else {
                    next[q + i - k] = *b;
                }
            }
        }
        self.here.next = crate::crc::fields::bits_of::<D>(&here);
        self.after.next = (u32::from_le_bytes(next) as u64).into();
    }
    fn connect(&mut self) {
        self.here.connect();
        self.after.connect();
    }
    fn hdl(&self) -> Verilog {
        let k = D / 8;
        assert_eq!(k, 1 << CB);
        let db = |i: usize| format!("d[{}:{}]", 8 * i + 7, 8 * i);
        let mut v = format!("wire [{}:0] oh = en ? ({k}'d1 << q) : {k}'d0;\nalways @(*) begin\n", k - 1);
        for j in 0..k {
            let t: Vec<String> = (0..4.min(j + 1)).map(|i| format!("({{8{{oh[{}]}}}} & {})", j - i, db(i))).collect();
            v += &format!("  here[{}:{}] = {};\n", 8 * j + 7, 8 * j, t.join(" | "));
        }
        for m in 0..4 {
            let t: Vec<String> = (m + 1..4).map(|i| format!("({{8{{oh[{}]}}}} & {})", k + m - i, db(i))).collect();
            let e = if t.is_empty() { "8'd0".to_string() } else { t.join(" | ") };
            v += &format!("  after[{}:{}] = {e};\n", 8 * m + 7, 8 * m);
        }
        v += "end\n";
        Verilog::Custom(v)
    }
}

crate::record!(
    /// One delta per frame (`patch`, the ICRC's offset `p`, the delta), in frame order, and
    /// `p0`: `p` falls in the frame's first beat.
    IcrcFix,
    IcrcFixFields {
        delta: u32 = 32,
        p: u16 = 16,
        patch: bool = 1,
        p0: bool = 1,
    }
);
const FIX_BITS: usize = IcrcFixFields::BITS;
const FIX_W: usize = FIX_BITS + 3;

/// `IcrcPatch`: XORs each frame's delta (from `s_fix`, one per frame, taken at its last beat)
/// into its bytes `p..p+4` when `patch`; other frames pass unchanged. A frame's first beat
/// waits for its delta.
///
/// `K` is a power of two, so the field starts at byte `p mod K` of beat `p / K`: the byte
/// offset is the same for every beat, and only which beat is counted. `p0` (in the record)
/// says beat 0; after it, `rem` counts down to the field's beat and `hit` is registered the
/// beat before. No per-beat arithmetic sits in front of the data's XOR.
#[derive(LogicBlock)]
pub struct IcrcPatch<const D: usize, const K: usize, const CB: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisSink<D, K>,
    pub m_axis: AxisSource<D, K>,
    pub s_fix: Signal<In, IcrcFix>,
    pub s_fix_valid: Signal<In, Bit>,
    pub s_fix_ready: Signal<Out, Bit>,
    place: DeltaPlace<D, CB>,
    /// The next carry: `place.after` on a beat taken, else the carry held (a block of its own,
    /// so that this block's logic reads `place`'s outputs only in plain assignments and
    /// Verilator sees no loop through it).
    csel: Sel<32>,
    skid: AxisSkid<D, K>,
    in_frame: DFF<Bit>,
    /// The field's beat minus the next beat's index (wraps once past it).
    rem: DFF<Bits<16>>,
    /// The next beat is the field's.
    hit: DFF<Bit>,
    carry: DFF<Bits<32>>,
    /// The field's beat index, `p / K`.
    p_hi: Signal<Local, Bits<16>>,
    take: Signal<Local, Bit>,
    c1: Constant<Bits<16>>,
    c_cb: Constant<Bits<16>>,
}

impl<const D: usize, const K: usize, const CB: usize> Default for IcrcPatch<D, K, CB> {
    fn default() -> Self {
        assert!(D == 8 * K && K == 1 << CB);
        IcrcPatch {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            s_fix: Default::default(),
            s_fix_valid: Default::default(),
            s_fix_ready: Default::default(),
            place: Default::default(),
            csel: Default::default(),
            skid: Default::default(),
            in_frame: Default::default(),
            rem: Default::default(),
            hit: Default::default(),
            carry: Default::default(),
            p_hi: Default::default(),
            take: Default::default(),
            c1: Constant::new(1u64.into()),
            c_cb: Constant::new((CB as u64).into()),
        }
    }
}

impl<const D: usize, const K: usize, const CB: usize> Logic for IcrcPatch<D, K, CB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_frame, rem, hit, carry);
        clock!(self, clock, skid);
        self.skid.reset.next = self.reset.val();
        self.p_hi.next = self.s_fix.val().p >> self.c_cb.val();
        self.place.q.next = bit_cast::<CB, 16>(self.s_fix.val().p);
        self.place.en.next = self.s_fix.val().patch & self.s_fix.val().p0;
        if self.in_frame.q.val() {
            self.place.en.next = self.s_fix.val().patch & self.hit.q.val();
        }
        self.place.d.next = self.s_fix.val().delta;
        self.s_axis.tready.next = self.skid.s_axis.tready.val() & self.s_fix_valid.val();
        self.take.next = self.s_axis.tvalid.val() & self.s_axis.tready.val();
        self.skid.s_axis.tvalid.next = self.s_axis.tvalid.val() & self.s_fix_valid.val();
        self.skid.s_axis.tdata.next = self.s_axis.tdata.val() ^ self.place.here.val() ^ bit_cast::<D, 32>(self.carry.q.val());
        self.skid.s_axis.tkeep.next = self.s_axis.tkeep.val();
        self.skid.s_axis.tlast.next = self.s_axis.tlast.val();
        self.skid.s_axis.tuser.next = self.s_axis.tuser.val();
        self.s_fix_ready.next = self.take.val() & self.s_axis.tlast.val();
        // (`after` is zero on a frame's last beat: the ICRC ends inside the frame)
        self.csel.a.next = self.carry.q.val();
        self.csel.b.next = self.place.after.val();
        self.csel.sel.next = self.take.val();
        self.carry.d.next = self.csel.y.val();
        if self.take.val() {
            self.in_frame.d.next = !self.s_axis.tlast.val();
            if self.in_frame.q.val() {
                self.rem.d.next = self.rem.q.val() - self.c1.val();
                self.hit.d.next = self.rem.q.val() == self.c1.val();
            } else {
                self.rem.d.next = self.p_hi.val() - self.c1.val();
                self.hit.d.next = self.p_hi.val() == self.c1.val();
            }
        }
        AxisSource::<D, K>::link(&mut self.m_axis, &mut self.skid.m_axis);
        if self.reset.val() {
            self.in_frame.d.next = false;
            self.carry.d.next = 0.into();
        }
    }
}

/// The NAT path with the ICRC updated in place, at `D` bits (`K` = `D`/8, `FW` = `D` + `K` + 2,
/// `CB` = log2 `K`, `C` = `CB` + 1).
#[derive(LogicBlock)]
pub struct EmNatPathIncW<const D: usize, const K: usize, const FW: usize, const CB: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisSink<D, K>,
    pub m_axis: AxisSource<D, K>,
    pub s_hdr: Signal<In, EmHdr>,
    pub s_hdr_valid: Signal<In, Bit>,
    pub s_hdr_ready: Signal<Out, Bit>,
    pub s_xl: Signal<In, NatXlate>,
    pub s_xl_valid: Signal<In, Bit>,
    pub s_xl_ready: Signal<Out, Bit>,
    pub drop_roce_vlan: Signal<Out, Bits<32>>,
    front: NatFrontW<D, K, C>,
    nat: EmNatW<D, K>,
    dly: AxisFifo<D, K, FW, 5>,
    del: IcrcDelta,
    fixq: AxisFifo<FIX_BITS, 1, FIX_W, 6>,
    fix_out: FromBits<IcrcFix, FIX_BITS>,
    patch: IcrcPatch<D, K, CB>,
    sd: Signal<Local, Bits<32>>,
    dd: Signal<Local, Bits<32>>,
    l3w: Signal<Local, Bits<16>>,
    /// The delta FIFO's room for new frames, registered (`room_at` allows for its cycle).
    room: DFF<Bit>,
    /// The delta leaving the pipeline is for a frame whose ICRC starts in its first beat.
    p0: Signal<Local, Bit>,
    unused: Signal<Local, Bit>,
    c4: Constant<Bits<16>>,
    c24: Constant<Bits<16>>,
    c0_32: Constant<Bits<32>>,
    c_cb: Constant<Bits<16>>,
    room_at: Constant<Bits<16>>,
}

/// The in-place NAT path at 512 bits (the EM datapath's).
pub type EmNatPathInc = EmNatPathIncW<DATA_W, KEEP_W, 578, 6, 7>;
/// The in-place NAT path at 1024 bits.
pub type EmNatPath1024 = EmNatPathIncW<1024, 128, 1154, 7, 8>;

impl<const D: usize, const K: usize, const FW: usize, const CB: usize, const C: usize> Default for EmNatPathIncW<D, K, FW, CB, C> {
    fn default() -> Self {
        assert!(D == 8 * K && K == 1 << CB && C == CB + 1 && FW == D + K + 2);
        assert_eq!(
            (IcrcFixFields::slot("delta"), IcrcFixFields::slot("p"), IcrcFixFields::slot("patch"), IcrcFixFields::slot("p0")),
            ((0, 32), (32, 16), (48, 1), (49, 1))
        );
        EmNatPathIncW {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            s_hdr: Default::default(),
            s_hdr_valid: Default::default(),
            s_hdr_ready: Default::default(),
            s_xl: Default::default(),
            s_xl_valid: Default::default(),
            s_xl_ready: Default::default(),
            drop_roce_vlan: Default::default(),
            // RoCEv2 frames keep their ICRC (cut 0): it is updated, not generated
            front: NatFrontW::new(0),
            nat: Default::default(),
            dly: AxisFifo::new(),
            del: Default::default(),
            fixq: AxisFifo::new(),
            fix_out: Default::default(),
            patch: Default::default(),
            sd: Default::default(),
            dd: Default::default(),
            l3w: Default::default(),
            room: Default::default(),
            p0: Default::default(),
            unused: Default::default(),
            c4: Constant::new(4.into()),
            c24: Constant::new(24.into()),
            c0_32: Constant::new(0.into()),
            c_cb: Constant::new((CB as u64).into()),
            // entries the delta FIFO must still take: the frames in the delta pipeline, and one
            // more for the cycle `room` is registered
            room_at: Constant::new(((1u64 << 6) - ICRC_DELTA_LATENCY as u64 - 3).into()),
        }
    }
}

impl<const D: usize, const K: usize, const FW: usize, const CB: usize, const C: usize> Logic for EmNatPathIncW<D, K, FW, CB, C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, room);
        clock!(self, clock, front, nat, dly, del, fixq, patch);
        self.front.reset.next = self.reset.val();
        self.nat.reset.next = self.reset.val();
        self.dly.reset.next = self.reset.val();
        self.del.reset.next = self.reset.val();
        self.fixq.reset.next = self.reset.val();
        self.patch.reset.next = self.reset.val();
        // new frames wait while the delta FIFO could not take every delta in flight
        self.room.d.next = self.fixq.level.val() < self.room_at.val();
        self.front.room.next = self.room.q.val();
        AxisSink::<D, K>::link(&mut self.s_axis, &mut self.front.s_axis);
        self.front.s_hdr.next = self.s_hdr.val();
        self.front.s_hdr_valid.next = self.s_hdr_valid.val();
        self.s_hdr_ready.next = self.front.s_hdr_ready.val();
        self.front.s_xl.next = self.s_xl.val();
        self.front.s_xl_valid.next = self.s_xl_valid.val();
        self.s_xl_ready.next = self.front.s_xl_ready.val();
        self.nat.s_hdr.next = self.front.m_hdr.val();
        self.nat.s_hdr_valid.next = self.front.m_hdr_valid.val();
        self.front.m_hdr_ready.next = self.nat.s_hdr_ready.val();
        self.nat.s_xl.next = self.front.m_xl.val();
        self.nat.s_xl_valid.next = self.front.m_xl_valid.val();
        self.front.m_xl_ready.next = self.nat.s_xl_ready.val();
        self.drop_roce_vlan.next = self.front.drop_roce_vlan.val();
        // the ICRC's change, for every frame handed on (zero and unused for the others)
        self.sd.next = self.c0_32.val();
        self.dd.next = self.c0_32.val();
        if self.s_xl.val().src_rw {
            self.sd.next = self.s_hdr.val().src ^ self.s_xl.val().src;
        }
        if self.s_xl.val().dst_rw {
            self.dd.next = self.s_hdr.val().dst ^ self.s_xl.val().dst;
        }
        self.l3w.next = bit_cast::<16, 8>(self.s_hdr.val().l3);
        self.del.in_valid.next = self.front.kept.val();
        self.del.e.next = bit_cast::<64, 32>(self.sd.val()) | (bit_cast::<64, 32>(self.dd.val()) << 32);
        self.del.n.next = bit_cast::<DELTA_BITS, 16>(self.s_hdr.val().tot - self.c24.val());
        self.del.tag.next = bit_cast::<17, 16>(self.l3w.val() + self.s_hdr.val().tot - self.c4.val()) | (bit_cast::<17, 1>(self.s_hdr.val().roce.into()) << 16);
        // {p0, patch, p, delta} (`IcrcFix`'s layout, checked in `default`)
        self.p0.next = !(bit_cast::<16, 17>(self.del.out_tag.val()) >> self.c_cb.val()).any();
        self.fixq.s_axis.tdata.next = bit_cast::<FIX_BITS, 32>(self.del.delta.val())
            | (bit_cast::<FIX_BITS, 17>(self.del.out_tag.val()) << 32)
            | (bit_cast::<FIX_BITS, 1>(self.p0.val().into()) << 49);
        self.fixq.s_axis.tkeep.next = true.into();
        self.fixq.s_axis.tlast.next = true;
        self.fixq.s_axis.tuser.next = false;
        self.fixq.s_axis.tvalid.next = self.del.out_valid.val();
        self.fix_out.bits.next = self.fixq.m_axis.tdata.val();
        self.patch.s_fix.next = self.fix_out.fields.val();
        self.patch.s_fix_valid.next = self.fixq.m_axis.tvalid.val();
        self.fixq.m_axis.tready.next = self.patch.s_fix_ready.val();
        AxisSource::<D, K>::join(&mut self.front.m_axis, &mut self.nat.s_axis);
        AxisSource::<D, K>::join(&mut self.nat.m_axis, &mut self.dly.s_axis);
        AxisSource::<D, K>::join(&mut self.dly.m_axis, &mut self.patch.s_axis);
        AxisSource::<D, K>::link(&mut self.m_axis, &mut self.patch.m_axis);
        self.unused.next = self.fixq.m_axis.tkeep.val().any() | self.fixq.m_axis.tlast.val() | self.fixq.m_axis.tuser.val() | self.fixq.s_axis.tready.val()
            | self.dly.level.val().any();
    }
}

nicgen_hdl::impl_ports!([EmNatPathInc, EmNatPath1024], clock = clock, [clock, reset,
    s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tuser, s_axis.tvalid, s_axis.tready,
    m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tuser, m_axis.tvalid, m_axis.tready,
    s_hdr, s_hdr_valid, s_hdr_ready, s_xl, s_xl_valid, s_xl_ready, drop_roce_vlan]);
