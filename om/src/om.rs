//! The OM's control loop state: epochs, what each EM holds, and the store that survives a crash.
//!
//! - **Epochs** come from one counter for every EM and class, so each message is newer than
//!   every message before it. The counter's high-water mark is written to the store *before* a
//!   message carrying it leaves, so after a crash the OM resumes above every epoch it used.
//! - **Store** (a JSON file, written whole through a temporary file and a rename): the epoch
//!   mark, the sequence number, and per EM the image and profile it acknowledged, the batch in
//!   flight, and whether the EM is isolated. The control logic keeps nothing else.
//! - **Resync** after a restart: a batch whose ack was lost is sent again under a new epoch (its
//!   writes are absolute, so applying it twice is harmless), then the difference from what the
//!   EM holds to the policy.
//! - **Isolation:** an EM that does not answer within the OM's patience, or answers with an
//!   epoch it was never sent, is isolated: the OM stops sending to it and carries on with the
//!   others.
use crate::image::TableImage;
use crate::policy::{on_demand_image, Compiled};
use anyhow::{Context, Result};
use nicgen_model::m2m::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct EmState {
    /// The entries the EM acknowledged: (dest, table, index, d0, d1).
    pub image: Vec<(u8, u8, u16, u128, u128)>,
    /// The profile the EM acknowledged (encoded body), if any.
    pub profile: Option<Vec<u8>>,
    /// A batch sent and not yet acknowledged: its sequence number and entries.
    pub inflight: Option<(u32, Vec<(u8, u8, u8, u16, u128, u128)>)>,
    pub isolated: bool,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct StoreState {
    /// Every epoch the OM has used is at most this.
    pub epoch_mark: u64,
    pub seq: u32,
    pub ems: BTreeMap<u8, EmState>,
    /// Restarts so far.
    pub restarts: u32,
}

fn image_of(v: &[(u8, u8, u16, u128, u128)]) -> TableImage {
    TableImage { entries: v.iter().map(|&(d, t, i, a, b)| ((d, t, i), (a, b))).collect() }
}
fn image_vec(i: &TableImage) -> Vec<(u8, u8, u16, u128, u128)> {
    i.entries.iter().map(|(&(d, t, x), &(a, b))| (d, t, x, a, b)).collect()
}
fn entries_vec(b: &[TableEntry]) -> Vec<(u8, u8, u8, u16, u128, u128)> {
    b.iter().map(|e| (e.op, e.dest, e.table, e.index, e.d0, e.d1)).collect()
}
fn entries_of(v: &[(u8, u8, u8, u16, u128, u128)]) -> Vec<TableEntry> {
    v.iter().map(|&(op, dest, table, index, d0, d1)| TableEntry { op, dest, table, index, d0, d1 }).collect()
}

/// The OM: a compiled policy and the store.
pub struct Om {
    path: PathBuf,
    pub st: StoreState,
    pub policy: Compiled,
}

impl Om {
    /// Start (or restart) with the store at `path`.
    pub fn open(path: impl Into<PathBuf>, policy: Compiled) -> Result<Om> {
        let path = path.into();
        let mut st: StoreState = if path.exists() {
            let text = std::fs::read_to_string(&path).with_context(|| format!("reading the OM store {}", path.display()))?;
            let mut s: StoreState = serde_json::from_str(&text).with_context(|| format!("parsing the OM store {}", path.display()))?;
            s.restarts += 1;
            s
        } else {
            StoreState::default()
        };
        for id in policy.ems.keys() {
            st.ems.entry(*id).or_default();
        }
        let om = Om { path, st, policy };
        om.save()?;
        Ok(om)
    }
    fn save(&self) -> Result<()> {
        let tmp = self.path.with_extension("tmp");
        std::fs::write(&tmp, serde_json::to_string(&self.st)?).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, &self.path).with_context(|| format!("renaming to {}", self.path.display()))?;
        Ok(())
    }
    /// The next epoch, recorded in the store before it is used.
    pub fn next_epoch(&mut self) -> Result<u64> {
        self.st.epoch_mark += 1;
        self.save()?;
        Ok(self.st.epoch_mark)
    }
    fn next_seq(&mut self) -> u32 {
        self.st.seq = self.st.seq.wrapping_add(1);
        self.st.seq
    }
    /// What the OM believes `em` holds.
    pub fn held(&self, em: u8) -> TableImage {
        image_of(&self.st.ems[&em].image)
    }
    pub fn isolated(&self, em: u8) -> bool {
        self.st.ems.get(&em).is_some_and(|e| e.isolated)
    }
    pub fn isolate(&mut self, em: u8) -> Result<()> {
        self.st.ems.entry(em).or_default().isolated = true;
        self.save()
    }

    /// The next message that brings `em` towards the policy, if any: a lost batch again, then
    /// the profile, then up to `MAX_ENTRIES` of the table difference. Send it and wait for its
    /// ack ([`Om::on_ack`]) before asking for the next.
    pub fn next_message(&mut self, em: u8) -> Result<Option<Vec<u8>>> {
        if self.isolated(em) {
            return Ok(None);
        }
        let Some(plan) = self.policy.ems.get(&em) else { return Ok(None) };
        let profile = plan.profile;
        let want_profile = profile.encode().to_vec();
        let want = plan.image();
        let s = &self.st.ems[&em];
        if let Some((_, b)) = s.inflight.clone() {
            // its ack was lost (a crash): send it again under a new epoch
            let batch = entries_of(&b);
            return self.send_batch(em, batch).map(Some);
        }
        if s.profile.as_deref() != Some(&want_profile[..]) {
            let epoch = self.next_epoch()?;
            let seq = self.next_seq();
            return Ok(Some(Msg::profile(em, epoch, seq, profile).encode()));
        }
        let diff = self.held(em).diff(&want);
        if diff.is_empty() {
            return Ok(None);
        }
        let batch: Vec<TableEntry> = diff.into_iter().take(MAX_ENTRIES).collect();
        self.send_batch(em, batch).map(Some)
    }
    fn send_batch(&mut self, em: u8, batch: Vec<TableEntry>) -> Result<Vec<u8>> {
        let epoch = self.next_epoch()?;
        let seq = self.next_seq();
        self.st.ems.get_mut(&em).unwrap().inflight = Some((seq, entries_vec(&batch)));
        self.save()?;
        Ok(Msg::tables(em, epoch, seq, batch).encode())
    }
    /// An ack from `em`. Applied or equal: the EM holds what the message carried. Stale: an
    /// epoch the OM never exceeded was stored there, so the EM is isolated.
    pub fn on_ack(&mut self, reply: &[u8]) -> Result<()> {
        let Some(m) = Msg::decode_reply(reply) else { return Ok(()) };
        let h = m.hdr;
        let em = h.target_em;
        let Some(s) = self.st.ems.get_mut(&em) else { return Ok(()) };
        if h.ty != MsgType::Ack as u8 {
            return Ok(());
        }
        if h.status == Status::Stale as u16 || h.stored > self.st.epoch_mark {
            s.isolated = true;
            return self.save();
        }
        match Class::from_code(h.class) {
            Some(Class::Profile) => s.profile = Some(self.policy.ems[&em].profile.encode().to_vec()),
            Some(Class::Tables) => {
                if let Some((seq, b)) = s.inflight.clone() {
                    if seq == h.seq {
                        let mut img = image_of(&s.image);
                        img.apply(&entries_of(&b));
                        s.image = image_vec(&img);
                        s.inflight = None;
                    }
                }
            }
            _ => {}
        }
        self.save()
    }
    /// The slow path: a miss event message from `em`. A TCP miss toward an on-demand RDMA remote
    /// installs that connection's entries (pinned) into the policy and returns true; the caller
    /// then syncs `em` before the connection's first RDMA data packet.
    pub fn on_miss(&mut self, em: u8, ev: &EventMsg) -> bool {
        // kind 3: no remote entry for (tenant, value) on the host side
        if ev.kind != 3 || ev.proto != 6 {
            return false;
        }
        let Some(od) = self.policy.on_demand.iter().find(|o| o.tenant == ev.tenant && o.vip == ev.value).cloned() else { return false };
        let mode = self.policy.mode;
        let Some(plan) = self.policy.ems.get_mut(&em) else { return false };
        let (host, wire) = on_demand_image(mode, &od);
        let before = plan.image();
        for e in host {
            plan.host_look.insert_remote(e);
        }
        for e in wire {
            plan.wire_look.insert_remote(e);
        }
        plan.image() != before
    }
}
