//! A table image: every entry the OM wants in one EM, keyed as the EM's table port addresses
//! it, and the batch that turns one image into another.
use nicgen_hw::em::classify::{table_writes, EmTblWrFields};
use nicgen_hw::em::lookup::lookup_writes;
use nicgen_model::em::{ClsTables, LookTables};
use nicgen_model::m2m::TableEntry;
use std::collections::BTreeMap;

/// `dest` of the EM's table port: bit 0 the block (0 classifier, 1 lookups), bit 1 the side
/// (0 host, 1 wire).
pub fn dest(lookups: bool, wire: bool) -> u8 {
    lookups as u8 | (wire as u8) << 1
}

/// The entries of one EM: `(dest, table, index)` → data `(d0, d1)`. Absent means zero (an empty
/// or deleted entry).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableImage {
    pub entries: BTreeMap<(u8, u8, u16), (u128, u128)>,
}

impl TableImage {
    /// Add the writes of one block and side.
    pub fn add(&mut self, dest: u8, writes: &[EmTblWrFields]) {
        for w in writes {
            if (w.d0, w.d1) != (0, 0) {
                self.entries.insert((dest, w.table, w.index), (w.d0, w.d1));
            }
        }
    }
    /// The image of a side's classifier and lookup tables (the models the hardware mirrors).
    pub fn add_side(&mut self, cls: &ClsTables, look: &LookTables, wire: bool) {
        self.add(dest(false, wire), &table_writes(cls));
        self.add(dest(true, wire), &lookup_writes(look));
    }
    /// The batch that turns `self` into `new`: a write for every new or changed entry, then a
    /// delete for every entry `new` no longer has.
    pub fn diff(&self, new: &TableImage) -> Vec<TableEntry> {
        let mut v: Vec<TableEntry> = new
            .entries
            .iter()
            .filter(|(k, d)| self.entries.get(k) != Some(d))
            .map(|(&(dest, table, index), &(d0, d1))| TableEntry::write(dest, table, index, d0, d1))
            .collect();
        v.extend(self.entries.keys().filter(|k| !new.entries.contains_key(k)).map(|&(dest, table, index)| TableEntry::delete(dest, table, index)));
        v
    }
    /// Apply a batch (what the EM's tables hold after it).
    pub fn apply(&mut self, batch: &[TableEntry]) {
        for e in batch {
            let (d0, d1) = e.effective();
            if (d0, d1) == (0, 0) {
                self.entries.remove(&(e.dest, e.table, e.index));
            } else {
                self.entries.insert((e.dest, e.table, e.index), (d0, d1));
            }
        }
    }
}
