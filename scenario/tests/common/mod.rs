//! Helpers shared by the EM scenario tests.
use nicgen_scenario::em::*;

/// Run `o`; check it against the model and the frame accounting: every frame out or counted
/// dropped by cause, the kept counters the model's, and the gate seeing every frame the parser
/// accepted (kept, or dropped by its verdict). The report.
pub fn run_checked(o: &EmOpts) -> EmReport {
    let r = run_em(o).unwrap();
    let what = format!("{:?} mode, {} bits, seed {}, {} frames, valid {} ready {} payload {} fuzz {}", o.mode, o.width, o.seed, o.frames, o.valid, o.ready, o.max_payload, o.fuzz);
    assert!(r.mismatches.is_empty(), "{what}: {} mismatches, the first: {:#?}", r.mismatches.len(), &r.mismatches[..r.mismatches.len().min(5)]);
    let c = |n: &str| r.counters.iter().find(|(k, _)| k == n).unwrap().1 as usize;
    let side = |side: &str| r.drops.iter().filter(|(k, _)| k.starts_with(side)).map(|(_, v)| v).sum::<usize>();
    assert_eq!(r.eg_out[0] + r.eg_out[1] + side("host"), r.eg_in, "{what}: host to wire, out or counted");
    assert_eq!(r.ig_out + side("wire"), r.ig_in, "{what}: wire to host, out or counted");
    assert_eq!((c("eg_kept"), c("ig_kept")), (r.eg_want, r.ig_want), "{what}");
    assert_eq!(c("eg_kept") + c("eg_dropped"), c("eg_parsed"), "{what}");
    assert_eq!(c("ig_kept") + c("ig_dropped"), c("ig_parsed"), "{what}");
    r
}
