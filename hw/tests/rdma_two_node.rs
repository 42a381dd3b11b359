//! Two engines under Verilator, joined by the 100G link model: RDMA WRITE and READ over several
//! QPs, every destination byte checked against its source.
use nicgen_hw::scenario::*;

fn check(o: RdmaOpts) -> RdmaReport {
    let r = rdma(&o).unwrap();
    assert!(r.errors.is_empty(), "{:#?}", r.errors);
    assert_eq!(r.mismatches, 0);
    r
}

#[test]
fn write_and_read_small() {
    let r = check(RdmaOpts { op: Op::Write, size: 1000, count: 8, qps: 2, ..Default::default() });
    println!("{r:?}");
    check(RdmaOpts { op: Op::Read, size: 5000, count: 6, qps: 3, seed: 2, ..Default::default() });
}
