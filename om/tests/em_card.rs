//! The U55C board's EM (`em_card`: `em_node` with its M2M channel in Ethernet frames on wire
//! port 0) under Verilator. The OM's messages arrive as Ethernet frames on port 0, among the
//! fabric's other frames, with random gaps, padding of every length and random backpressure on
//! the port's TX side; the compiled policy takes effect, the acks and replies leave port 0 as
//! frames to the OM (checked with etherparse), and every way around the channel fails and is
//! counted: a bad FCS, another MAC, a frame from the host, an M2M frame inside a tenant's VXLAN
//! frame, a stale epoch, a truncated message.
use etherparse::{Ethernet2Header, PacketHeaders, TransportHeader};
use nicgen_hw::m2m::card::EmCard;
use nicgen_model::em::*;
use nicgen_model::m2m::*;
use nicgen_om::image::TableImage;
use nicgen_om::policy::compile;
use nicgen_sim::axis::*;
use nicgen_sim::*;

const CARD_MAC: u64 = 0x024e_4943_0001;
const OM_MAC: u64 = 0x0200_0000_0c0c;

struct Card {
    sim: VerilatorSim,
    b: StreamBench,
    rng: Rng,
    /// Reply frames seen on port 0 so far (the M2M ones, in order).
    replies: Vec<Vec<u8>>,
    /// Port 0's other frames, and where the scan of port 0's frames stopped.
    p0_other: Vec<Vec<u8>>,
    scanned: usize,
}

impl Card {
    fn new(seed: u64) -> Card {
        let mut sim = verilate(&mut EmCard::default());
        sim.reset(2);
        let lp = sim.port("link_up");
        sim.set_u64(lp, 3);
        let mp = sim.port("mac");
        sim.set_u64(mp, mac_wire(CARD_MAC));
        let p0 = AxisDriver::new(&sim, "s_axis_p0_rx", 80, seed);
        let host = AxisDriver::new(&sim, "s_axis_host_tx", 90, seed + 1);
        let t0 = AxisMonitor::new(&sim, "m_axis_p0_tx", 60, seed + 2);
        let t1 = AxisMonitor::new(&sim, "m_axis_p1_tx", 70, seed + 3);
        let hr = AxisMonitor::new(&sim, "m_axis_host_rx", 80, seed + 4);
        Card { sim, b: StreamBench::new(vec![p0, host], vec![t0, t1, hr]), rng: Rng::new(seed), replies: vec![], p0_other: vec![], scanned: 0 }
    }

    /// Sort port 0's new frames into M2M replies and the rest.
    fn scan(&mut self) {
        let fr = &self.b.monitors[0].frames;
        for f in &fr[self.scanned..] {
            let (h, _) = Ethernet2Header::from_slice(&f.data).expect("an Ethernet frame");
            if h.ether_type.0 == M2M_ETHERTYPE {
                self.replies.push(f.data.clone());
            } else {
                self.p0_other.push(f.data.clone());
            }
        }
        self.scanned = fr.len();
    }

    /// `msg` in a frame from the OM to `dst`, with 0..=70 bytes of padding after it (so the
    /// last beat takes every `tkeep` residue over a run), `bad` marking a bad FCS.
    fn send(&mut self, dst: u64, msg: &[u8], bad: bool) {
        let pad = self.rng.range(0, 70) as usize;
        self.send_padded(dst, msg, bad, pad);
    }

    fn send_padded(&mut self, dst: u64, msg: &[u8], bad: bool, pad: usize) {
        let mut f = eth_frame(dst, OM_MAC, msg);
        f.extend((0..pad).map(|i| i as u8 ^ 0x5a));
        self.b.drivers[0].push(AxisFrame { data: f, user: bad });
    }

    fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.b.step(&mut self.sim);
        }
        self.scan();
    }

    /// The messages of the reply frames, in order.
    fn reply_msgs(&self) -> Vec<Vec<u8>> {
        self.replies.iter().map(|f| {
            let (dst, src, m) = eth_message(f).expect("an M2M reply frame");
            assert_eq!((dst, src), (OM_MAC, CARD_MAC), "a reply goes to the OM, from the card");
            assert!(f.len() >= ETH_MIN_FRAME);
            m.to_vec()
        }).collect()
    }

    /// Send `msg` to the card and wait for its answer (an ack or reply with its `seq`; the
    /// card's events may come before it).
    fn ask(&mut self, msg: &[u8]) -> Vec<u8> {
        let seq = Header::decode(msg).seq;
        let n = self.replies.len();
        self.send(CARD_MAC, msg, false);
        let t0 = self.sim.cycle();
        loop {
            self.run(16);
            let got = self.reply_msgs()[n..].iter().find(|m| Header::decode(m).ty != MsgType::Event as u8).cloned();
            if let Some(m) = got {
                assert_eq!(Header::decode(&m).seq, seq, "the answer to this message");
                return m;
            }
            assert!(self.sim.cycle() - t0 < 40_000, "no answer from the card");
        }
    }

    fn counter(&mut self, name: &str) -> u64 {
        let p = self.sim.port(name);
        self.sim.get_u64(p)
    }
}

/// UDP frames from blue's VM (VF 2, 10.1.0.2) to its remote 10.1.1.6 (172.16.1.6, port 0, VNI 1001).
fn blue_frames(rng: &mut Rng, n: usize) -> Vec<Vec<u8>> {
    (0..n).map(|i| ipv4_udp_frame(0x0a01_0002, 0x0a01_0106, 4000 + i as u16, 5000, &rng.bytes(18 + i % 70))).collect()
}

/// Each frame on port 0 that is not M2M is blue's frame, tunnelled to 172.16.1.6 with VNI 1001.
fn check_tunnelled(out: &[Vec<u8>], sent: &[Vec<u8>]) {
    assert_eq!(out.len(), sent.len(), "every frame of the VF left port 0");
    for (o, s) in out.iter().zip(sent) {
        let h = PacketHeaders::from_ethernet_slice(o).expect("a frame etherparse reads");
        let Some(etherparse::NetHeaders::Ipv4(ip, _)) = h.net else { panic!("not IPv4") };
        assert_eq!(ip.destination, [172, 16, 1, 6]);
        let Some(TransportHeader::Udp(u)) = h.transport else { panic!("not UDP") };
        assert_eq!(u.destination_port, 4789);
        let vx = h.payload.slice();
        assert_eq!((vx[0], u32::from_be_bytes([0, vx[4], vx[5], vx[6]])), (0x08, 1001), "VXLAN flags and VNI");
        assert_eq!(&vx[8..], &s[..], "the inner frame");
    }
}

#[test]
fn the_om_programs_the_card_over_ethernet_and_nothing_else_does() {
    let path = format!("{}/examples/overlay.toml", env!("CARGO_MANIFEST_DIR"));
    let c = compile(&path, &std::fs::read_to_string(&path).unwrap()).unwrap();
    let want = c.ems[&0].image();
    let mut k = Card::new(11);
    k.run(50);
    // before the OM: the tables are empty, so the VF's frames are dropped (no tenant)
    let early = blue_frames(&mut k.rng, 4);
    let vf = k.sim.port("s_host_vf");
    k.sim.set_u64(vf, 2);
    for f in &early {
        k.b.drivers[1].push(AxisFrame::new(f.clone()));
    }
    k.run(400);
    assert!(k.p0_other.is_empty() && k.b.monitors[1].frames.is_empty(), "no frame leaves before the OM's tables");
    // the OM: profile and tables, each acked as applied
    let a = k.ask(&Msg::profile(0, 1, 1, c.ems[&0].profile).encode());
    let h = Header::decode(&a);
    assert_eq!((h.ty, h.status, h.seq, h.stored), (MsgType::Ack as u8, Status::Applied as u16, 1, 1));
    let batch = TableImage::default().diff(&want);
    let a = k.ask(&Msg::tables(0, 5, 2, batch).encode());
    assert_eq!(Header::decode(&a).status, Status::Applied as u16);
    // now the VF's frames are tunnelled; M2M frames and the fabric's frames share port 0
    let sent = blue_frames(&mut k.rng, 60);
    for f in &sent {
        k.b.drivers[1].push(AxisFrame::new(f.clone()));
    }
    k.run(3000);
    check_tunnelled(&k.p0_other, &sent);
    // around the channel: none of these is answered or applied
    let stale_free = Msg::profile(0, 9, 20, Profile::default()).encode();
    k.send(CARD_MAC, &stale_free, true); // bad FCS
    k.send(0x024e_4943_0002, &stale_free, false); // another card's MAC
    k.b.drivers[1].push(AxisFrame::new(eth_frame(CARD_MAC, OM_MAC, &stale_free))); // from the host
    // a tenant's VXLAN frame from the wire whose inner frame is an M2M frame
    let tun = VxlanTunnel { smac: [2, 0, 0, 0, 0, 0xb0], dmac: [2, 0, 0, 0, 0, 0xa0], sip: 0xac10_0105, dip: 0xc0a8_0001, ttl: 64, tos: 0, vni: 1001 };
    let inner = eth_frame(CARD_MAC, OM_MAC, &stale_free);
    k.b.drivers[0].push(AxisFrame::new(vxlan_encap(&inner, &tun, 50000)));
    k.run(2000);
    // the card's answers so far: events for the VF's frames before the tables (no tenant for
    // VF 2; the datapath holds one event at a time; the ones before the OM's first message had
    // nowhere to go), then the two acks, and nothing else
    let msgs = k.reply_msgs();
    let (ev, ans): (Vec<&Vec<u8>>, Vec<&Vec<u8>>) = msgs.iter().partition(|m| Header::decode(m).ty == MsgType::Event as u8);
    assert_eq!(ans.len(), 2, "only the two asked messages were answered");
    assert!(k.counter("m2m_replies_unsent") >= 1, "events before the OM was heard from are dropped");
    for e in &ev {
        let x = EventMsg::decode(&e[HDR_BYTES..]);
        assert_eq!((x.kind, x.value), (0, 2), "no tenant for VF 2: {x:?}");
    }
    assert!(k.b.monitors[2].frames.is_empty(), "the tunnelled M2M frame reached no VF (its inner frame is not IPv4)");
    assert_eq!(k.counter("m2m_drop_bad_fcs"), 1);
    assert_eq!(k.counter("m2m_drop_other_mac"), 1);
    // a stale epoch through the channel: refused, the stored epoch reported
    let a = k.ask(&Msg::profile(0, 0, 21, c.ems[&0].profile).encode());
    assert_eq!((Header::decode(&a).status, Header::decode(&a).stored), (Status::Stale as u16, 1));
    // a frame that ends before its message does (the header's length says 72 bytes, the
    // frame holds 40 and the zeros padding it to 60 bytes): truncated. (Bytes after a message
    // are the frame's padding, cut off; a sender that pads a short message is sending it.)
    let mut short = Msg::tables(0, 6, 22, vec![TableEntry::delete(0, 0, 1)]).encode();
    short.truncate(40);
    k.send_padded(CARD_MAC, &short, false, 0);
    k.run(500);
    // the endpoint's counters, read over the channel (a multi-beat reply)
    let t = k.ask(&Msg::tele_read(0, 23, 0, 16).encode());
    let Some(Msg { body: Body::TeleReply(v), .. }) = Msg::decode_reply(&t) else { panic!("not a telemetry reply") };
    assert_eq!(v[Ctr::Received as usize], 5, "profile, tables, stale profile, short batch, this read: {v:?}");
    assert_eq!(v[Ctr::Applied as usize], 2);
    assert_eq!(v[Ctr::Stale as usize], 1);
    assert_eq!(v[Ctr::of_drop(M2mDrop::Truncated) as usize], 1, "{v:?}");
    // the policy still holds: the VF's frames still tunnel, on the same tables
    let more = blue_frames(&mut k.rng, 40);
    for f in &more {
        k.b.drivers[1].push(AxisFrame::new(f.clone()));
    }
    k.run(3000);
    let mut all = sent.clone();
    all.extend(more);
    check_tunnelled(&k.p0_other, &all);
    assert!(k.b.monitors[1].frames.is_empty());
    assert_eq!(k.counter("m2m_frames"), 5, "profile, tables, stale profile, short batch, telemetry read");
    assert_eq!(k.counter("m2m_replies"), k.reply_msgs().len() as u64);
    assert_eq!(k.reply_msgs().len(), ev.len() + 4, "events, and the four answers");
    eprintln!("em_card: {} frames tunnelled, {} M2M frames in, {} replies out", all.len(), k.counter("m2m_frames"), k.counter("m2m_replies"));
}
