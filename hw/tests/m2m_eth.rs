//! `M2mEth` on its emitted Verilog under Verilator: the fabric's frames pass to the EM
//! unchanged, M2M frames to this card reach the endpoint as their messages (64 bits wide), the
//! others are dropped and counted, and the endpoint's messages leave as frames to the OM between
//! the EM's frames. Frames of every length residue, random gaps and backpressure everywhere.
use etherparse::Ethernet2Header;
use nicgen_hw::m2m::eth::M2mEth;
use nicgen_model::m2m::*;
use nicgen_sim::axis::*;
use nicgen_sim::*;

const CARD: u64 = 0x024e_4943_0007;
const OM: u64 = 0x0200_0000_0c0c;

/// A message-shaped byte string of `len` bytes (a multiple of 8): its `length` field says so.
fn message(rng: &mut Rng, len: usize) -> Vec<u8> {
    let mut m = rng.bytes(len);
    m[4..6].copy_from_slice(&(len as u16).to_be_bytes());
    m
}

fn run(seed: u64, valid: u32, ready: u32) {
    let mut sim = verilate(&mut M2mEth::default());
    sim.reset(2);
    let mp = sim.port("mac");
    sim.set_u64(mp, mac_wire(CARD));
    let rx = AxisDriver::new(&sim, "s_axis_rx", valid, seed);
    let tx = AxisDriver::new(&sim, "s_axis_tx", valid, seed + 1);
    let reply = AxisDriver::new(&sim, "s_axis_reply", valid, seed + 2);
    let to_em = AxisMonitor::new(&sim, "m_axis_rx", ready, seed + 3);
    let up = AxisMonitor::new(&sim, "m_axis_up", ready, seed + 4);
    let wire = AxisMonitor::new(&sim, "m_axis_tx", ready, seed + 5);
    let mut b = StreamBench::new(vec![rx, tx, reply], vec![to_em, up, wire]);
    let mut rng = Rng::new(seed);
    let (mut em_in, mut msgs_in, mut em_out, mut replies) = (vec![], vec![], vec![], vec![]);
    let (mut bad, mut other) = (0u64, 0u64);
    // an unanswered event before any message: nowhere to go
    b.drivers[2].push(AxisFrame::new(message(&mut rng, 56)));
    for _ in 0..300 {
        b.step(&mut sim);
    }
    assert!(b.monitors[2].frames.is_empty());
    // the OM's first message: from now on replies go to it
    let m = message(&mut rng, 64);
    msgs_in.push(m.clone());
    b.drivers[0].push(AxisFrame::new(eth_frame(CARD, OM, &m)));
    while b.monitors[1].frames.is_empty() {
        b.step(&mut sim);
        assert!(sim.cycle() < 5000);
    }
    for i in 0..400usize {
        match rng.range(0, 5) {
            // a fabric frame of any length (and so any last-beat residue)
            0 | 1 => {
                let mut f = rng.bytes(14 + (i * 37) % 400);
                f[12] = 0x08;
                f[13] = 0x00;
                em_in.push(f.clone());
                b.drivers[0].push(AxisFrame::new(f));
            }
            // an M2M message to this card, with padding of any length after it
            2 => {
                let n = 8 * rng.range(4, 80) as usize;
                let m = message(&mut rng, n);
                let mut f = eth_frame(CARD, OM, &m);
                f.extend(rng.bytes(i % 64));
                let is_bad = rng.range(0, 8) == 0;
                if is_bad {
                    bad += 1;
                } else {
                    msgs_in.push(m);
                }
                b.drivers[0].push(AxisFrame { data: f, user: is_bad });
            }
            // M2M to another card
            3 => {
                other += 1;
                b.drivers[0].push(AxisFrame::new(eth_frame(CARD + 1, OM, &message(&mut rng, 32))));
            }
            // the EM's frame out, and a reply from the endpoint
            _ => {
                let f = rng.bytes(60 + (i * 29) % 300);
                em_out.push(f.clone());
                b.drivers[1].push(AxisFrame::new(f));
                let n = 8 * rng.range(4, 40) as usize;
                let m = message(&mut rng, n);
                replies.push(m.clone());
                b.drivers[2].push(AxisFrame::new(m));
            }
        }
    }
    b.drain(&mut sim, 400, 2_000_000);
    // to the EM: every fabric frame, unchanged, in order
    let got: Vec<Vec<u8>> = b.monitors[0].frames.iter().map(|f| f.data.clone()).collect();
    assert_eq!(got, em_in, "the fabric's frames reach the EM unchanged");
    // to the endpoint: the good messages, cut to their length, in order
    let got: Vec<Vec<u8>> = b.monitors[1].frames.iter().map(|f| f.data.clone()).collect();
    assert_eq!(got.len(), msgs_in.len());
    assert_eq!(got, msgs_in, "the messages reach the endpoint");
    // the wire: the EM's frames in order, and a frame per reply to the OM in order
    let (mut em_seen, mut rep_seen) = (vec![], vec![]);
    for f in &b.monitors[2].frames {
        let (h, rest) = Ethernet2Header::from_slice(&f.data).unwrap();
        if h.ether_type.0 == M2M_ETHERTYPE && h.source == CARD.to_be_bytes()[2..] {
            assert_eq!(h.destination, OM.to_be_bytes()[2..], "a reply goes to the OM heard from");
            assert!(f.data.len() >= ETH_MIN_FRAME);
            let (_, _, m) = eth_message(&f.data).unwrap();
            assert!(rest[m.len()..].iter().all(|&x| x == 0), "zero padding");
            rep_seen.push(m.to_vec());
        } else {
            em_seen.push(f.data.clone());
        }
    }
    assert_eq!(em_seen, em_out, "the EM's frames leave unchanged");
    assert_eq!(rep_seen, replies, "the replies leave as frames");
    let c = |sim: &mut VerilatorSim, n: &str| {
        let p = sim.port(n);
        sim.get_u64(p)
    };
    assert_eq!(c(&mut sim, "frames"), msgs_in.len() as u64);
    assert_eq!(c(&mut sim, "drop_bad_fcs"), bad);
    assert_eq!(c(&mut sim, "drop_other_mac"), other);
    assert_eq!(c(&mut sim, "drop_overflow"), 0);
    assert_eq!(c(&mut sim, "replies"), replies.len() as u64);
    assert_eq!(c(&mut sim, "replies_unsent"), 1);
    eprintln!("m2m_eth valid {valid}% ready {ready}%: {} fabric frames, {} messages ({bad} bad FCS, {other} other MAC), {} EM frames, {} replies in {} cycles", em_in.len(), msgs_in.len(), em_out.len(), replies.len(), sim.cycle());
}

#[test]
fn m2m_frames_split_from_the_fabric_and_replies_merge_into_it() {
    run(1, 100, 100);
    run(2, 70, 60);
    run(3, 40, 90);
}
