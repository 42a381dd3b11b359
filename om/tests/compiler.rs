//! The OM's policy compiler: golden outputs for the example policies, the compiled tables'
//! behaviour on frames (through the EM's golden model), and errors that name file, line and
//! field.
use nicgen_model::m2m::EventMsg as EmEventFields;
use nicgen_model::em::*;
use nicgen_om::om::Om;
use nicgen_om::policy::{compile, dump, Compiled, PolicyError};

fn example(name: &str) -> (String, String) {
    let path = format!("{}/examples/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    (path, text)
}

/// The compiled tables of each example equal the checked-in golden dump (`NICGEN_BLESS=1`
/// rewrites them after a deliberate change; review the diff).
#[test]
fn example_policies_match_their_golden_dumps() {
    for name in ["overlay", "nat"] {
        let (path, text) = example(name);
        let c = compile(&path, &text).unwrap();
        let got = dump(&c);
        let golden = format!("{}/tests/golden/{name}.txt", env!("CARGO_MANIFEST_DIR"));
        if std::env::var("NICGEN_BLESS").is_ok() {
            std::fs::write(&golden, &got).unwrap();
        }
        let want = std::fs::read_to_string(&golden).unwrap_or_default();
        assert!(got == want, "{name}: the compiled policy differs from {golden}:\n{got}");
    }
}

fn udp(src: [u8; 4], dst: [u8; 4], dport: u16) -> EmParsed {
    em_parse(&ipv4_udp_frame(u32::from_be_bytes(src), u32::from_be_bytes(dst), 999, dport, &[0; 20]), false, false).unwrap()
}
fn tcp(src: [u8; 4], dst: [u8; 4], dport: u16) -> EmParsed {
    let mut v = vec![];
    etherparse::PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]).ipv4(src, dst, 64).tcp(4000, dport, 1, 1000).write(&mut v, &[0; 10]).unwrap();
    em_parse(&v, false, false).unwrap()
}

/// Host side of EM `em`: the verdict and the lookup for a frame from `vf`.
fn egress(c: &mut Compiled, em: u8, vf: u16, p: &EmParsed) -> Result<Look, ClsDrop> {
    let mode = c.mode;
    let plan = c.ems.get_mut(&em).unwrap();
    let v = plan.host_cls.classify(p, vf, false, 0);
    if let Some(d) = v.drop {
        return Err(d);
    }
    plan.host_look.lookup(p, vf, v.tenant, false, mode)
}

/// The overlay example's tables do what its policy says, judged by the EM's golden model.
#[test]
fn compiled_tables_behave_as_the_policy_says() {
    let (path, text) = example("overlay");
    let mut c = compile(&path, &text).unwrap();
    // blue VM on EM 0 to a remote: tunnel to its PIP on port 1, VNI 1001
    let l = egress(&mut c, 0, 2, &udp([10, 1, 0, 2], [10, 1, 1, 5], 80)).unwrap();
    assert_eq!((l.dip, l.vni, l.port), (u32::from_be_bytes([172, 16, 1, 5]), 1001, 1));
    // to the blue VM on EM 1: its PIP
    let l = egress(&mut c, 0, 2, &udp([10, 1, 0, 2], [10, 1, 0, 3], 80)).unwrap();
    assert_eq!(l.dip, u32::from_be_bytes([192, 168, 1, 3]));
    // and back from EM 1
    let l = egress(&mut c, 1, 3, &tcp([10, 1, 0, 3], [10, 1, 0, 2], 443)).unwrap();
    assert_eq!(l.dip, u32::from_be_bytes([192, 168, 1, 2]));
    // blue denies SSH
    assert_eq!(egress(&mut c, 0, 2, &tcp([10, 1, 0, 2], [10, 1, 1, 5], 22)), Err(ClsDrop::AclDeny));
    // red: UDP allowed unless to 10.2.9.0/24 (priority 6 overrides the non-terminating allow)
    assert_eq!(egress(&mut c, 0, 4, &udp([10, 2, 0, 4], [10, 2, 9, 1], 53)), Err(ClsDrop::AclDeny));
    assert_eq!(egress(&mut c, 0, 4, &tcp([10, 2, 0, 4], [10, 2, 1, 7], 80)), Err(ClsDrop::AclDeny), "red allows only UDP");
    // tenants are isolated: blue cannot reach red's remote
    assert_eq!(egress(&mut c, 0, 2, &udp([10, 1, 0, 2], [10, 2, 1, 7], 53)), Err(ClsDrop::NoRoute));
    // an unknown VF has no tenant
    assert_eq!(egress(&mut c, 0, 9, &udp([10, 1, 0, 9], [10, 1, 1, 5], 53)), Err(ClsDrop::NoTenant));
    // wire side of EM 0: VNI 1001 to the blue VM → VF 2
    let inner = ipv4_udp_frame(u32::from_be_bytes([10, 1, 1, 5]), u32::from_be_bytes([10, 1, 0, 2]), 1, 2, &[0; 16]);
    let t = VxlanTunnel { sip: u32::from_be_bytes([172, 16, 1, 5]), dip: u32::from_be_bytes([192, 168, 0, 1]), ttl: 64, vni: 1001, ..Default::default() };
    let p = em_parse(&vxlan_encap(&inner, &t, 50000), true, false).unwrap();
    let plan = c.ems.get_mut(&0).unwrap();
    let v = plan.wire_cls.classify(&p, 0, true, 0);
    assert_eq!((v.drop, v.tenant), (None, 1));
    assert_eq!(plan.wire_look.lookup(&p, 0, 1, true, EmMode::Overlay).unwrap().vf, 2);
    // the RDMA entry is pinned
    assert!(c.ems[&0].host_look.remote_entry(0, 1, u32::from_be_bytes([10, 1, 1, 6])).unwrap().pinned);
}

/// The slow path: red's on-demand RDMA peer misses until the OM sees the connection's first TCP
/// miss; then its pinned entry is in the policy for EM 0 (and nowhere else).
#[test]
fn slow_path_installs_rdma_entries_on_the_first_tcp_miss() {
    let (path, text) = example("overlay");
    let c = compile(&path, &text).unwrap();
    let dir = std::env::temp_dir().join(format!("nicgen-om-slow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut om = Om::open(dir.join("store.json"), c).unwrap();
    let peer = u32::from_be_bytes([10, 2, 1, 7]);
    let udp_miss = EmEventFields { kind: 3, value: peer, proto: 17, tenant: 2, ..Default::default() };
    assert!(!om.on_miss(0, &udp_miss), "only a TCP miss starts an RDMA connection");
    let other = EmEventFields { kind: 3, value: u32::from_be_bytes([10, 2, 1, 8]), proto: 6, tenant: 2, ..Default::default() };
    assert!(!om.on_miss(0, &other), "not an RDMA peer");
    let tcp_miss = EmEventFields { kind: 3, value: peer, proto: 6, tenant: 2, ..Default::default() };
    assert!(om.on_miss(0, &tcp_miss));
    let e = om.policy.ems[&0].host_look.remote_entry(0, 2, peer).unwrap();
    assert!(e.pinned && e.value == u32::from_be_bytes([172, 16, 2, 7]));
    assert!(om.policy.ems[&1].host_look.remote_entry(0, 2, peer).is_none());
    assert!(!om.on_miss(0, &tcp_miss), "installed once");
    std::fs::remove_dir_all(&dir).ok();
}

fn err_of(text: &str) -> PolicyError {
    compile("bad.toml", text).unwrap_err()
}

/// Invalid policies fail with the file, the line and the field of the mistake.
#[test]
fn invalid_policies_name_file_line_and_field() {
    let (_, good) = example("overlay");
    let line_of = |needle: &str, nth: usize| good.lines().enumerate().filter(|(_, l)| l.contains(needle)).nth(nth).unwrap().0 + 1;
    // a duplicate VIP in one tenant
    let t = good.replace("vip = \"10.1.1.5\"", "vip = \"10.1.0.2\"");
    let e = err_of(&t);
    assert_eq!((e.line, e.field.as_str()), (line_of("vip = \"10.1.1.5\"", 0), "remote.vip"), "{e}");
    assert!(e.msg.contains("duplicate VIP"), "{e}");
    assert!(e.to_string().starts_with(&format!("bad.toml:{}: remote.vip:", e.line)));
    // two ACL rules with one priority
    let t = good.replace("{ priority = 20, action = \"allow\" }", "{ priority = 10, action = \"allow\" }");
    let e = err_of(&t);
    assert_eq!((e.line, e.field.as_str()), (line_of("priority = 20", 0), "tenant.acl.priority"), "{e}");
    // an unknown tenant
    let t = good.replacen("tenant = \"red\"\nem = 0", "tenant = \"green\"\nem = 0", 1);
    let e = err_of(&t);
    assert_eq!((e.line, e.field.as_str()), (line_of("tenant = \"red\"", 0), "vm.tenant"), "{e}");
    assert!(e.msg.contains("unknown tenant `green`"));
    // overlay without a VNI
    let e = err_of(&good.replacen("vni = 1002\n", "", 1));
    assert_eq!(e.field, "tenant.vni");
    // a bad address, a bad MAC, a bad port range, a bad mode, an unknown field, a syntax error
    let e = err_of(&good.replace("pip = \"172.16.1.6\"", "pip = \"172.16.1.600\""));
    assert_eq!((e.line, e.field.as_str()), (line_of("pip = \"172.16.1.6\"", 0), "remote.pip"));
    let e = err_of(&good.replace("02:00:00:00:00:b1", "02:00:00:00:b1"));
    assert_eq!(e.field, "em.dmac");
    let e = err_of(&good.replace("dport = \"22\"", "dport = \"30-20\""));
    assert_eq!((e.line, e.field.as_str()), (line_of("dport = \"22\"", 0), "tenant.acl.dport"));
    let e = err_of(&good.replace("mode = \"overlay\"", "mode = \"bridge\""));
    assert_eq!((e.line, e.field.as_str()), (2, "mode"));
    let e = err_of(&good.replace("port = 1\n", "prot = 1\n"));
    assert!(e.msg.contains("unknown field `prot`") && e.line == line_of("port = 1", 0), "{e}");
    let e = err_of(&good.replace("id = 2\n", "id = \n"));
    assert_eq!(e.line, line_of("id = 2", 0), "{e}");
    // a VF used twice, an RDMA-less on_demand, a port past 1
    let e = err_of(&good.replace("vf = 4", "vf = 2"));
    assert_eq!(e.field, "vm.vf");
    let e = err_of(&good.replace("rdma = true\non_demand = true", "on_demand = true"));
    assert_eq!(e.field, "remote.on_demand");
}
