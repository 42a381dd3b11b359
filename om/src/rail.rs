//! Rail-aware subnetting (DistDPU Appendix A): every NIC on one rail shares one IP subnet, so a
//! subnet match tells intra-rail from cross-rail traffic in constant time, picks the local NIC in
//! the destination's subnet as the PXN relay, and lets the kernel route by longest-prefix match.
use std::net::Ipv4Addr;

/// A rail plan: `rails` rails of `nodes` nodes each; rail r is `base + r × 2^(32 - prefix)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RailPlan {
    pub base: u32,
    pub prefix: u32,
    pub rails: u32,
    pub nodes: u32,
}

/// One route of a node's table: destination prefix, length, and the local NIC (rail) to use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    pub dst: Ipv4Addr,
    pub len: u32,
    pub dev: String,
}

impl RailPlan {
    /// Rails of `nodes` NICs each from `base`, each rail the smallest subnet that holds them.
    pub fn new(base: Ipv4Addr, rails: u32, nodes: u32) -> RailPlan {
        let hosts = nodes + 2; // network and broadcast addresses
        let bits = 32 - (hosts - 1).leading_zeros();
        RailPlan { base: u32::from(base), prefix: 32 - bits, rails, nodes }
    }
    fn size(&self) -> u32 {
        1 << (32 - self.prefix)
    }
    /// The subnet of rail `r`.
    pub fn subnet(&self, r: u32) -> (Ipv4Addr, u32) {
        (Ipv4Addr::from(self.base + r * self.size()), self.prefix)
    }
    /// The address of node `n`'s NIC on rail `r`.
    pub fn addr(&self, r: u32, n: u32) -> Ipv4Addr {
        Ipv4Addr::from(self.base + r * self.size() + 1 + n)
    }
    /// The rail an address is on (a subnet match), if any.
    pub fn rail_of(&self, a: Ipv4Addr) -> Option<u32> {
        let a = u32::from(a);
        (a >= self.base && a < self.base + self.rails * self.size()).then(|| (a - self.base) / self.size())
    }
    /// The local NIC (rail) node `n` sends from to reach `dst`: the NIC in `dst`'s subnet (the
    /// PXN relay for cross-rail traffic: data moves to that rail inside the node first).
    pub fn relay_nic(&self, dst: Ipv4Addr) -> Option<u32> {
        self.rail_of(dst)
    }
    /// Whether traffic from `src` to `dst` stays on one rail.
    pub fn intra_rail(&self, src: Ipv4Addr, dst: Ipv4Addr) -> bool {
        self.rail_of(src).is_some() && self.rail_of(src) == self.rail_of(dst)
    }
    /// Node `n`'s route table: one connected route per rail, out of that rail's NIC.
    pub fn routes(&self, _n: u32) -> Vec<Route> {
        (0..self.rails)
            .map(|r| {
                let (dst, len) = self.subnet(r);
                Route { dst, len, dev: format!("rail{r}") }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_rails_of_sixteen_nodes() {
        let p = RailPlan::new(Ipv4Addr::new(10, 200, 0, 0), 8, 16);
        assert_eq!(p.prefix, 27, "18 addresses need a /27");
        assert_eq!(p.subnet(3), (Ipv4Addr::new(10, 200, 0, 96), 27));
        assert_eq!(p.addr(3, 5), Ipv4Addr::new(10, 200, 0, 102));
        assert_eq!(p.rail_of(p.addr(3, 5)), Some(3));
        assert!(p.intra_rail(p.addr(3, 0), p.addr(3, 15)));
        assert!(!p.intra_rail(p.addr(2, 0), p.addr(3, 0)));
        // cross-rail: node 0 on rail 2 reaches node 9 on rail 5 through its own rail-5 NIC (PXN)
        assert_eq!(p.relay_nic(p.addr(5, 9)), Some(5));
        let r = p.routes(0);
        assert_eq!(r.len(), 8);
        assert_eq!(r[5], Route { dst: Ipv4Addr::new(10, 200, 0, 160), len: 27, dev: "rail5".into() });
        // every address of every rail matches exactly one route by longest prefix
        for rail in 0..8 {
            for n in 0..16 {
                let a = u32::from(p.addr(rail, n));
                let m: Vec<&Route> = r.iter().filter(|x| (a ^ u32::from(x.dst)) >> (32 - x.len) == 0).collect();
                assert_eq!(m.len(), 1);
                assert_eq!(m[0].dev, format!("rail{rail}"));
            }
        }
        assert_eq!(p.rail_of(Ipv4Addr::new(10, 201, 0, 1)), None);
    }
}
