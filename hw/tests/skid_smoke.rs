use nicgen_hw::stream::*;
use nicgen_sim::axis::*;
use nicgen_sim::*;

fn tb<S: CycleSim>(sim: &mut S, n: usize, seed: u64) -> u64 {
    sim.reset(2);
    let mut rng = Rng::new(seed);
    let mut d = AxisDriver::new(sim, "s_axis", 70, seed);
    let m = AxisMonitor::new(sim, "m_axis", 60, seed + 1);
    let mut frames = vec![];
    for _ in 0..n {
        let len = rng.range(1, 200) as usize;
        let f = AxisFrame { data: rng.bytes(len), user: rng.chance(20) };
        frames.push(f.clone());
        d.push(f);
    }
    let mut b = StreamBench::new(vec![d], vec![m]);
    b.drain(sim, 20, 100_000);
    let got: Vec<AxisFrame> = b.monitors[0].frames.iter().map(|f| AxisFrame { data: f.data.clone(), user: f.user }).collect();
    assert_eq!(got, frames);
    b.cycles
}

#[test]
fn skid_both() {
    let t = std::time::Instant::now();
    let mut v = verilate(&mut AxisSkid512::default());
    println!("build {:?}", t.elapsed());
    let c1 = tb(&mut v, 50, 1);
    let mut r = RustHdlSim::new(AxisSkid512::default());
    let c2 = tb(&mut r, 50, 1);
    assert_eq!(c1, c2);
    let mut v = verilate(&mut AxisSkid512::default());
    let r = RustHdlSim::new(AxisSkid512::default());
    tb(&mut Diff::new(v, r), 20, 3);
}
