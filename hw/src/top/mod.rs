//! Top levels: every block that `nicgen verilog` emits, with its clean-port wrapper, file
//! list and register map. Add a block here and it is emitted, linted and reported.
use crate::crc::icrc::{IcrcCheck, IcrcGen, IcrcRx};
use crate::roce::rx::parse::RoceRxParse;
use crate::roce::rx::responder::RoceResponder500;
use crate::roce::rx::requester::RoceRequester500;
use crate::roce::tx::build::RoceTxBuild;
use crate::em::parse::{EmParse, EmParse1024, EM_PARSE_COUNTERS};
use crate::em::classify::{EmClassify, EM_CLASSIFY_COUNTERS};
use crate::em::lookup::{EmLookup, EM_LOOKUP_COUNTERS};
use crate::em::nat::EmNat;
use crate::em::forward::{EmForward, EM_FORWARD_COUNTERS};
use crate::em::front::{EmDatapath, EmDatapath1024, EM_DATAPATH_COUNTERS};
use crate::em::vxlan::{EmVxlanDecap, EmVxlanEncap};
use crate::roce::tx::engine::RoceTx500;
use crate::roce::engine::{reg, RoceEngine500, RoceEngineAes, ENGINE_COUNTERS};
use crate::roce::ctrl::STAGE_FIELDS;
use crate::service::aes_ctr::{self as aes, AesCipher4};
use crate::service::slot::{AesSlot, DlrmSlot, DpiTap9, PayloadSlot11, TapJoin8};
use crate::service::sniffer::{self as sniff, Sniffer512};
use crate::stream::*;
use crate::m2m::endpoint::M2mEndpoint;
use crate::m2m::node::EmNode;
use crate::m2m::eth::M2mEth;
use crate::m2m::card::EmCard;
use crate::board::cdc::{CdcAxisFifo, CdcSyncBits};
use crate::board::regs::BoardRegs;
use nicgen_hdl::{top_ports, verilog_named, Dir, PortInfo};
use rust_hdl::prelude::*;
use serde::Serialize;

/// A status register of a top level: a counter port, read-only.
#[derive(Clone, Debug, Serialize)]
pub struct Reg {
    pub name: String,
    /// The top-level port that carries it.
    pub port: String,
    /// Byte offset in the block's status window.
    pub offset: u32,
    pub width: usize,
    pub access: &'static str,
    pub doc: &'static str,
}

/// An emitted top level.
pub struct Top {
    pub name: &'static str,
    pub about: &'static str,
    /// Verilog with the root module named `<name>_core`.
    pub verilog: String,
    pub ports: Vec<PortInfo>,
    pub regs: Vec<Reg>,
    /// The registers are also served read-only on the block's `s_axil` AXI4-Lite port.
    pub axil: bool,
}

fn make<T: Block>(name: &'static str, about: &'static str, mut uut: T, regs: &[(&str, &'static str)]) -> Top {
    uut.connect_all();
    let verilog = verilog_named(&uut, &format!("{name}_core"));
    let ports = top_ports(&uut);
    let regs = regs
        .iter()
        .enumerate()
        .map(|(i, (port, doc))| {
            let p = ports.iter().find(|p| p.name == *port).unwrap_or_else(|| panic!("{name}: no port {port}"));
            Reg { name: p.clean_name(), port: p.name.clone(), offset: 4 * i as u32, width: p.width, access: "ro", doc }
        })
        .collect();
    let axil = ports.iter().any(|p| p.name.starts_with("s_axil$"));
    Top { name, about, verilog, ports, regs, axil }
}

const ICRC_COUNTERS: [(&str, &str); 6] = [
    ("cnt$frames", "frames seen"),
    ("cnt$roce", "RoCEv2 frames seen"),
    ("cnt$bad_icrc", "RoCEv2 frames with a wrong ICRC"),
    ("cnt$truncated", "frames shorter than their IP length, or ending inside the IP/UDP headers"),
    ("cnt$bad_length", "RoCEv2 frames longer than their IP length (not Ethernet padding) or shorter than the headers"),
    ("cnt$user_flagged", "frames flagged bad by the MAC (tuser)"),
];

const RESPONDER_COUNTERS: [(&str, &str); 15] = [
    ("cnt$headers", "request and response headers seen"),
    ("cnt$unknown_qp", "dropped: QPN beyond the QP table"),
    ("cnt$qp_not_ready", "dropped: QP in RESET or INIT"),
    ("cnt$qp_error", "dropped: QP in ERROR"),
    ("cnt$malformed", "dropped: unknown opcode, or a pad that does not fit"),
    ("cnt$duplicate", "dropped: PSN behind the expected PSN"),
    ("cnt$psn_out_of_window", "PSN ahead of the expected PSN (one NAK 0x60 per gap)"),
    ("cnt$bad_opcode_seq", "NAK 0x61: opcode out of sequence or not served"),
    ("cnt$length_error", "NAK 0x61: packet or message length wrong"),
    ("cnt$rkey_violation", "NAK 0x62: rkey, access right or address range wrong"),
    ("cnt$writes", "WRITE packets accepted"),
    ("cnt$reads", "READ requests accepted"),
    ("cnt$acks", "ACKs requested"),
    ("cnt$naks", "NAKs requested"),
    ("cnt$to_requester", "responses passed to the requester"),
];

/// The engine's register map: counters, control registers and QP staging words.
fn engine_top() -> Top {
    engine_regs(make("roce_engine", "RoCEv2 RC engine: RX check/parse/responder/requester, TX, control (500 QPs)", RoceEngine500::default(), &[]), 0)
}

/// The engine with AES-CTR in its payload slots, and its service window.
fn engine_aes_top() -> Top {
    engine_regs(make("roce_engine_aes", "RoCEv2 RC engine (500 QPs) with services: AES-CTR on the data path (TX encrypts, RX decrypts), then DLRM preprocessing on RX for the QPs bound to it; DPI file-type classifier on the parallel tap with per-QP pass/flag/drop", RoceEngineAes::new(500), &[]), aes::kind::ALL)
}

/// The engine with a chosen set of services (`nicgen verilog --services aes,dpi`): top
/// `roce_engine_svc_<names>` (`roce_engine_aes` is the services engine, all of them).
pub fn engine_services_top(svc: usize) -> Top {
    struct M(usize);
    impl crate::roce::engine::WithEngine for M {
        type Out = Top;
        fn with<T: Block>(self, e: T) -> Top {
            let name: &'static str = Box::leak(format!("roce_engine_svc_{}", aes::kind::name(self.0)).into_boxed_str());
            let about: &'static str = Box::leak(format!("RoCEv2 RC engine (500 QPs) with the services {}", aes::kind::name(self.0).replace('_', ", ")).into_boxed_str());
            engine_regs(make(name, about, e, &[]), self.0)
        }
    }
    crate::roce::engine::engine_with(svc, M(svc & aes::kind::ALL))
}

fn engine_regs(mut t: Top, svc: usize) -> Top {
    let mut regs: Vec<Reg> = ENGINE_COUNTERS
        .iter()
        .enumerate()
        .map(|(i, (n, doc))| Reg { name: n.to_string(), port: String::new(), offset: 4 * i as u32, width: 32, access: "ro", doc })
        .collect();
    let ctl: [(&str, u16, usize, &'static str, &'static str); 16] = [
        ("qp_sel", reg::QP_SEL, 24, "rw", "QPN the next QP_CMD acts on"),
        ("qp_cmd", reg::QP_CMD, 2, "rw", "write 1: write the staged QP; 2: read the QP into staging; read: bit 0 busy"),
        ("num_qps", reg::NUM_QPS, 24, "ro", "QPs in the tables"),
        ("ack_every", reg::ACK_EVERY, 8, "rw", "responder ACK coalescing: an ACK at least every N WRITE packets (0: only on AckReq)"),
        ("tx_window", reg::TX_WINDOW, 8, "rw", "packets a QP may have outstanding (ACK-clocked window), 1..=16; 0 or more than 16: 16"),
        ("tx_start", reg::TX_START, 8, "rw", "TX cut-through start threshold in beats (16 after reset; 255: store and forward); reads give the value now, which each underrun doubles (2t + 1)"),
        ("rx_cut", reg::RX_CUT, 3, "rw", "RX cut-through: bit 0 WRITE MIDDLE/LAST and READ RESPONSE, bit 2 WRITE FIRST/ONLY held to their verdict, bit 1 those placed before it (5 after reset)"),
        ("arp_who_has", reg::ARP_WHO_HAS, 32, "rw", "write an IPv4 address: the card broadcasts an ARP request for it"),
        ("neigh_ip", reg::NEIGH_IP, 32, "rw", "the IPv4 address neigh_mac_lo/hi look up in the neighbour table"),
        ("neigh_mac_lo", reg::NEIGH_MAC_LO, 32, "ro", "the neighbour's MAC, bits 31:0"),
        ("neigh_mac_hi", reg::NEIGH_MAC_HI, 32, "ro", "the neighbour's MAC, bits 47:32; bit 31 set when the table holds the address"),
        ("local_mac_lo", reg::LOCAL_MAC_LO, 32, "rw", "local MAC address, bits 31:0"),
        ("local_mac_hi", reg::LOCAL_MAC_HI, 16, "rw", "local MAC address, bits 47:32"),
        ("local_ip0", reg::LOCAL_IP, 32, "rw", "local IP address bits 31:0 (IPv4 address)"),
        ("local_ip1", reg::LOCAL_IP + 4, 32, "rw", "local IP address bits 63:32"),
        ("local_ip2", reg::LOCAL_IP + 8, 32, "rw", "local IP address bits 95:64 (and 127:96 at +4)"),
    ];
    for (n, o, w, a, doc) in ctl {
        regs.push(Reg { name: n.into(), port: String::new(), offset: o as u32, width: w, access: a, doc });
    }
    regs.push(Reg { name: "local_ip3".into(), port: String::new(), offset: reg::LOCAL_IP as u32 + 12, width: 32, access: "rw", doc: "local IP address bits 127:96" });
    let docs = ["staged QP configuration (QpCfg, packed from bit 0)", "staged responder state (QpRq, packed from bit 0)", "staged send PSN"];
    for ((base, bits), doc) in STAGE_FIELDS.iter().zip(docs) {
        for w in 0..bits.div_ceil(32) {
            regs.push(Reg { name: format!("stage_{:03x}", base + 4 * w as u16), port: String::new(), offset: (*base + 4 * w as u16) as u32, width: (bits - 32 * w).min(32), access: "rw", doc });
        }
    }
    let b = reg::SVC_BASE as u32;
    if svc & aes::kind::AES != 0 {
        use crate::service::aes_ctr::reg as a;
        for i in 0..8u8 {
            regs.push(Reg { name: format!("aes_key{i}"), port: String::new(), offset: b + (a::KEY_W0 + 4 * i) as u32, width: 32, access: "wo", doc: "AES key staging word (word 0: the key's first 4 bytes, big-endian); never readable" });
        }
        let svc_regs: [(&str, u8, usize, &'static str, &'static str); 6] = [
            ("aes_key_cmd", a::KEY_CMD, 9, "wo", "write slot | aes256 << 8: the staged key into key slot `slot` (256 slots)"),
            ("aes_qp_key", a::QP_KEY, 10, "wo", "staged QP context: key id (7:0), enable (8), connection side (9)"),
            ("aes_qp_peer_qpn", a::QP_PEER_QPN, 24, "wo", "staged QP context: the peer's QPN"),
            ("aes_qp_peer_gen", a::QP_PEER_GEN, 24, "wo", "staged QP context: the peer's generation"),
            ("aes_qp_cmd", a::QP_CMD, 32, "wo", "write QPN (| 1 << 31: keep the generation): the QP's context takes the staged values; its generation advances"),
            ("aes_qp_gen", a::QP_GEN, 24, "ro", "the generation the last aes_qp_cmd gave"),
        ];
        for (n, o, w, acc, doc) in svc_regs {
            regs.push(Reg { name: n.into(), port: String::new(), offset: b + o as u32, width: w, access: acc, doc });
        }
    }
    if svc & aes::kind::DLRM != 0 {
        use crate::service::dlrm::reg as d;
        let dlrm_regs: [(&str, u8, &'static str); 4] = [
            ("dlrm_qp_op", d::QP_OP, "write qpn | op << 24: the QP's DLRM operation on RX (0 pass, 1 Neg2Zero, 2 ln(1+x), 3 both, 4 modulus)"),
            ("dlrm_mod_m", d::MOD_M, "DLRM modulus M (0: pass, 1: zero)"),
            ("dlrm_mod_r_lo", d::MOD_R_LO, "DLRM reciprocal floor(2^64 / M), bits 31:0"),
            ("dlrm_mod_r_hi", d::MOD_R_HI, "DLRM reciprocal, bits 63:32"),
        ];
        for (n, o, doc) in dlrm_regs {
            regs.push(Reg { name: n.into(), port: String::new(), offset: b + o as u32, width: 32, access: "wo", doc });
        }
    }
    if svc & aes::kind::DPI != 0 {
        use crate::service::dpi::reg as p;
        let dpi_regs: [(&str, u8, &'static str); 2] = [
            ("dpi_qp_policy", p::QP_POLICY, "write qpn | policy << 24: the QP's DPI policy (0 pass, 1 flag: counted in rx_tap_flag, 2 drop: counted in rx_tap_drop)"),
            ("dpi_class_mask", p::CLASS_MASK, "DPI classes whose frames take their QP's policy, a bit per class of hw/dpi/weights.json (csv 0, png 1, text 2, elf 3; reset: elf)"),
        ];
        for (n, o, doc) in dpi_regs {
            regs.push(Reg { name: n.into(), port: String::new(), offset: b + o as u32, width: 32, access: "wo", doc });
        }
    }
    t.regs = regs;
    t.axil = true;
    t
}

/// The sniffer and its register window.
fn sniffer_top() -> Top {
    use sniff::reg as r;
    let mut t = make("sniffer", "traffic sniffer at the MAC: RX and TX taps, field filter (IP, UDP port, BTH opcode and QPN), snap length, ns timestamps, capture records that never backpressure", Sniffer512::default(), &[]);
    let cfg: [(&str, u16, usize, &'static str, &'static str); 10] = [
        ("ctrl", r::CTRL, 2, "rw", "bit 0: capture RX, bit 1: capture TX (taken at a frame's first beat)"),
        ("snaplen", r::SNAPLEN, 16, "rw", "bytes captured per frame (reset 65535); 0: descriptors only"),
        ("filter_ip", r::IP, 32, "rw", "IPv4 address matched against source or destination"),
        ("filter_ip_mask", r::IP_MASK, 32, "rw", "IPv4 address mask (0: any frame)"),
        ("filter_port", r::PORT, 32, "rw", "UDP port (15:0) matched against source or destination, mask (31:16; 0: any frame)"),
        ("filter_opcode", r::OPCODE, 16, "rw", "BTH opcode (7:0) of RoCEv2 frames, mask (15:8; 0: any frame)"),
        ("filter_qpn", r::QPN, 24, "rw", "BTH destination QPN of RoCEv2 frames"),
        ("filter_qpn_mask", r::QPN_MASK, 24, "rw", "QPN mask (0: any frame)"),
        ("ts_lo", r::TS_LO, 32, "ro", "nanosecond counter, bits 31:0; reading latches bits 63:32"),
        ("ts_hi", r::TS_HI, 32, "ro", "nanosecond counter, bits 63:32, as latched"),
    ];
    let mut regs: Vec<Reg> = cfg.iter().map(|(n, o, w, a, doc)| Reg { name: n.to_string(), port: String::new(), offset: *o as u32, width: *w, access: a, doc }).collect();
    let docs: [&'static str; 4] = ["frames seen on the tap", "records captured", "frames the filter passed over", "records dropped: no room in the data ring or descriptor queue"];
    for (dir, base) in [("rx", r::RX_COUNTERS), ("tx", r::TX_COUNTERS)] {
        for (i, (n, doc)) in r::COUNTERS.iter().zip(docs).enumerate() {
            regs.push(Reg { name: format!("{dir}_{n}"), port: String::new(), offset: (base + 4 * i as u16) as u32, width: 32, access: "ro", doc });
        }
    }
    t.regs = regs;
    t
}

/// Every top level, in emission order.
pub fn all_tops() -> Vec<Top> {
    let mut rx_regs = ICRC_COUNTERS.to_vec();
    rx_regs.push(("dropped", "flagged frames dropped"));
    rx_regs.push(("overflow", "frames dropped for lack of buffer room"));
    vec![
        make("icrc_gen", "RoCEv2 ICRC generator (appends 4 bytes)", IcrcGen::default(), &[]),
        make("icrc_check", "RoCEv2 ICRC checker (strips, flags and counts)", IcrcCheck::default(), &ICRC_COUNTERS),
        make("icrc_rx", "ICRC checker and dropping frame FIFO, next to a MAC", IcrcRx::default(), &rx_regs),
        make("axis_skid", "AXI4-Stream register slice", AxisSkid512::default(), &[]),
        make("axis_fifo", "AXI4-Stream FIFO, 512 beats, BRAM", AxisFifo512::default(), &[]),
        make("axis_frame_fifo", "store-and-forward frame FIFO that drops flagged frames", AxisFrameFifo512::default(), &[("drop_bad", "flagged frames dropped"), ("drop_overflow", "frames dropped for lack of room")]),
        make("axis_rx_fifo", "RX frame FIFO: stores frames, or cuts them through (s_cut) and passes their verdict in tuser", AxisRxFifo512::default(), &[("drop_bad", "stored frames dropped for tuser"), ("drop_overflow", "frames dropped or cut short for lack of room")]),
        make("axis_cut_fifo", "cut-through TX FIFO, 128 beats: a frame starts at a beat threshold, an underrun ends it with an abort beat", AxisCutFifo512::default(), &[("aborts", "frames ended by an abort beat (underrun)"), ("thr_now", "start threshold now, in beats")]),
        make("axis_strip", "header stripper (removes N bytes per frame)", AxisStrip::default(), &[("runts", "frames no longer than the bytes to strip")]),
        make("axis_insert", "header inserter (prepends up to 128 bytes per frame)", AxisInsert::default(), &[]),
        make("axis_limit", "frame length limiter (keeps the first N bytes per frame)", AxisLimit::default(), &[]),
        make("arp_icmp", "ARP responder and resolver, ICMP echo responder, and the merge of their replies into the TX stream", crate::roce::arp_icmp::ArpIcmp::default(), &[("arp_replies", "ARP replies sent"), ("arp_requests", "ARP requests sent"), ("arp_learned", "neighbour entries written"), ("arp_dropped", "ARP frames not answered: bad, or a reply waiting"), ("echo_replies", "ICMP echo replies sent"), ("echo_dropped", "echo requests not answered: bad, or no room")]),
        make("roce_rx_parse", "RoCEv2 RX parser: header channel and payload stream", RoceRxParse::default(), &[("frames", "RoCEv2 frames parsed"), ("not_roce", "frames that are not RoCEv2, dropped")]),
        engine_top(),
        engine_aes_top(),
        make("roce_responder", "RoCEv2 responder: QP tables (500 QPs), request checks, DMA writes, ACK/NAK and READ jobs", RoceResponder500::default(), &RESPONDER_COUNTERS),
        make("roce_requester", "RoCEv2 requester completion side: outstanding rings, ACK/NAK/READ response matching, completions", RoceRequester500::default(), &[("cnt$acks", "ACKs matched"), ("cnt$ack_out_of_window", "ACKs ignored: outside the outstanding window or nothing outstanding"), ("cnt$nak_seq", "NAK 0x60 (PSN sequence error)"), ("cnt$nak_fatal", "NAK 0x61-0x63: the QP's requester went to ERROR"), ("cnt$read_resp", "READ response packets placed"), ("cnt$resp_unexpected", "responses dropped: out of order, unexpected opcode or QP in error"), ("cnt$completions", "completions posted")]),
        make("roce_tx", "RoCEv2 TX: requester, READ responder, ACK generator, arbiter, addressing, deparser", RoceTx500::default(), &[("cnt$frames", "frames sent"), ("cnt$acks", "ACK/NAK packets"), ("cnt$read_resp", "READ RESPONSE packets"), ("cnt$requests", "request packets"), ("cnt$messages", "messages sent")]),
        make("roce_tx_build", "RoCEv2 TX deparser: Ethernet/IP/UDP/BTH/RETH/AETH, pad, ICRC", RoceTxBuild::default(), &[]),
        make("payload_slot", "service payload slot: credit shell and an 11-cycle pass-through core (AES-class latency)", PayloadSlot11::default(), &[("overrun", "beats the core returned without room (must stay 0)")]),
        make("aes_slot", "AES-CTR service in a payload slot: QP contexts, 256 keys, PSN wrap tracking, 4 AES blocks per beat (AES-128/256), 18 cycles", AesSlot::default(), &[("overrun", "beats the core returned without room (must stay 0)")]),
        make("dlrm_slot", "DLRM preprocessing in the application slot: per-QP Neg2Zero, ln(1+x) (f32, 0.54 ulp) and Modulus by reciprocal multiply on 16 lanes, RX side, 15 cycles", DlrmSlot::default(), &[("overrun", "beats the core returned without room (must stay 0)")]),
        make("aes_cipher4", "AES-128/256 encryption of 4 consecutive counter blocks per cycle, 15-cycle pipeline, round keys expanded on the fly", AesCipher4::<{ aes::kind::AES }>::default(), &[]),
        make("tap_join", "parallel tap: frame copy to a tap core, per-frame verdict joined before the RX buffer (8-cycle core)", TapJoin8::default(), &[("drops", "good frames dropped by verdict"), ("flags", "frames flagged by verdict"), ("overrun", "beats the delay returned without room (must stay 0)")]),
        make("dpi_tap", "DPI on the parallel tap: a ternary file-type classifier (CSV/PNG/text/ELF) generated from hw/dpi/weights.json per beat, per-frame vote, per-QP policy (pass/flag/drop) joined before the RX buffer, 16 cycles", DpiTap9::default(), &[("drops", "good frames dropped by verdict"), ("flags", "frames flagged by verdict"), ("overrun", "beats the delay returned without room (must stay 0)")]),
        sniffer_top(),
        make("em_parse", "EM parser: Ethernet/802.1Q/IPv4/TCP/UDP/VXLAN header channel, drops by cause", EmParse::default(), &EM_PARSE_COUNTERS),
        make("em_parse_1024", "EM parser on the 1024-bit datapath (2x200G): the same header channel and drops, the 128-byte window in one beat", EmParse1024::default(), &EM_PARSE_COUNTERS),
        make("em_vxlan_encap", "EM VXLAN encapsulation: 50 outer bytes (Ethernet, IPv4 with checksum, UDP 4789 with a hashed source port, VXLAN)", EmVxlanEncap::default(), &[]),
        make("em_vxlan_decap", "EM VXLAN decapsulation: the outer bytes of VXLAN frames removed, other frames unchanged", EmVxlanDecap::default(), &[]),
        make("em_classify", "EM classification and policy: tenant map (VF/VNI/PIP, 4K keys), tenant table, ACL (1K rules, 16 per group), per-VF QoS (GCRA), miss events", EmClassify::default(), &EM_CLASSIFY_COUNTERS),
        make("em_lookup", "EM address lookups: remote VIP<->PIP hash (64K entries, 4-way bounded probing), local address -> VF, VF VIP/PIP, tenant VNI; miss events", EmLookup::default(), &EM_LOOKUP_COUNTERS),
        make("em_nat", "EM NAT rewrite: source/destination IPv4 address, IPv4 and TCP/UDP checksums updated incrementally (RFC 1624)", EmNat::default(), &[]),
        make("em_nat_path", "EM NAT with RoCEv2: addresses and checksums rewritten, the ICRC updated in place (CRC delta of the addresses), tagged RoCEv2 frames dropped", crate::em::nat_wide::EmNatPathInc::default(), &[("drop_roce_vlan", "VLAN-tagged RoCEv2 frames dropped (the ICRC delta takes untagged frames only)")]),
        make("em_nat_path_1024", "EM NAT with RoCEv2 at 1024 bits: addresses and checksums rewritten, the ICRC updated in place (CRC delta of the addresses), tagged RoCEv2 frames dropped", crate::em::nat_wide::EmNatPath1024::default(), &[("drop_roce_vlan", "VLAN-tagged RoCEv2 frames dropped (as at 512 bits)")]),
        make("em_forward", "EM egress to two wire ports with dual-port failover at frame boundaries", EmForward::default(), &EM_FORWARD_COUNTERS),
        make("em_datapath", "the DistDPU execution module: host side and wire side (parse, classify, policy, lookups, VXLAN or NAT), dual-port forwarding with failover", EmDatapath::default(), &EM_DATAPATH_COUNTERS),
        make("em_datapath_1024", "the execution module on the 1024-bit datapath (2x200G): the same blocks at 1024 bits, NAT with the ICRC updated in place", EmDatapath1024::default(), &EM_DATAPATH_COUNTERS),
        make("m2m_endpoint", "M2M management endpoint: epoch-checked typed messages, relay to downstream EMs, atomic table batches (shadow bank, swap), telemetry, host window of device registers only", M2mEndpoint::default(), &[]),
        make("em_node", "one EM: the datapath with its M2M endpoint as the only writer of its tables (atomic batches over two banks), profile and telemetry", EmNode::default(), &[]),
        make("m2m_eth", "M2M in Ethernet frames on a wire port: M2M frames split off before the EM (FCS-checked, cut to their message, 512->64 bits), replies framed and merged with the EM's frames", M2mEth::default(), &[("frames", "M2M frames handed to the endpoint"), ("drop_bad_fcs", "M2M frames with a bad FCS"), ("drop_overflow", "M2M frames dropped for lack of room"), ("drop_other_mac", "M2M frames for another MAC"), ("replies", "reply frames sent"), ("replies_unsent", "reply frames dropped: no OM heard from yet")]),
        make("em_card", "the EM as the U55C board carries it: em_node with its M2M channel in Ethernet frames on wire port 0", EmCard::default(), &[]),
        make("cdc_axis_fifo", "clock-domain crossing: asynchronous 512-bit frame FIFO, 128 beats (MAC clock <-> core clock), whole frames only, drops counted", CdcAxisFifo::default(), &[("drops", "frames dropped on the write side (no room, or longer than the FIFO)")]),
        make("cdc_sync_bits", "clock-domain crossing: 8 two-flop level synchronizers", CdcSyncBits::default(), &[]),
        make("board_regs", "board register window: AXI4-Lite router (engine below 64 KiB), identity, build stamp, status, host SQ/CQ staging and doorbell", BoardRegs::default(), &[]),
        make("axis_arb4", "four-input frame arbiter, round robin", AxisArb4::default(), &[]),
        make("bram_64x512", "simple dual-port BRAM, output register", Ram::<64, 9>::new(RamStyle::Block, true), &[]),
        make("uram_72x4k", "simple dual-port URAM, output register", Ram::<72, 12>::new(RamStyle::Ultra, true), &[]),
    ]
}

/// Wrapper module `<name>` with Vivado-friendly port names around `<name>_core`.
pub fn clean_wrapper(top: &Top) -> String {
    let mut s = format!("// generated by nicgen: clean-port wrapper of {name}_core\n// {about}\nmodule {name} (\n", name = top.name, about = top.about);
    let decls: Vec<String> = top
        .ports
        .iter()
        .map(|p| {
            let dir = if p.dir == Dir::In { "input  wire" } else { "output wire" };
            let rng = if p.width > 1 { format!("[{}:0] ", p.width - 1) } else { String::new() };
            format!("    {dir} {rng}{}", p.clean_name())
        })
        .collect();
    s += &decls.join(",\n");
    s += &format!("\n);\n  {}_core u_core (\n", top.name);
    let conns: Vec<String> = top.ports.iter().map(|p| format!("    .{}({})", p.name, p.clean_name())).collect();
    s += &conns.join(",\n");
    s += "\n  );\nendmodule\n";
    s
}

pub fn regmap_json(top: &Top) -> String {
    #[derive(Serialize)]
    struct Map<'a> {
        block: &'a str,
        about: &'a str,
        note: &'a str,
        registers: &'a [Reg],
    }
    serde_json::to_string_pretty(&Map {
        block: top.name,
        about: top.about,
        note: if top.axil {
            "status counters: read-only over AXI4-Lite (s_axil) at these byte offsets, and as ports; reads elsewhere and all writes return SLVERR"
        } else {
            "status counters: read-only ports of the top level; offsets are their slots in the block's status window"
        },
        registers: &top.regs,
    })
    .unwrap()
}

pub fn regmap_header(top: &Top) -> String {
    let up = top.name.to_uppercase();
    let mut s = format!("/* generated by nicgen: status registers of {} ({}) */\n#ifndef NICGEN_{up}_REGMAP_H\n#define NICGEN_{up}_REGMAP_H\n\n", top.name, top.about);
    for r in &top.regs {
        s += &format!("/* {} ({} bits, {}) */\n#define {up}_{}_OFFSET 0x{:04x}u\n", r.doc, r.width, r.access, r.name.to_uppercase(), r.offset);
    }
    s += &format!("\n#endif /* NICGEN_{up}_REGMAP_H */\n");
    s
}

pub mod au55c;
