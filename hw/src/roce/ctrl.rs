//! Control plane of the engine (`s_axil_ctrl`): the QP staging registers and their word map.
//!
//! A QP is set up by writing its fields into the staging words, its number into `QP_SEL`, and
//! 1 into `QP_CMD`; writing 2 reads the QP's configuration and responder state back into the
//! staging words. The staging words hold [`QpCfg`] at 0x200, [`QpRq`] at 0x240 and the send PSN
//! at 0x260, each packed from bit 0 of its first word.
use crate::crc::fields::bits_of;
use crate::roce::qp::*;
use nicgen_hdl::StructWords;
use rust_hdl::prelude::*;

pub const STAGE_CFG: u16 = 0x200;
pub const STAGE_RQ: u16 = 0x240;
pub const STAGE_SQ_PSN: u16 = 0x260;

/// (base byte address, bits) of each staging field: configuration, responder state, send PSN.
pub const STAGE_FIELDS: [(u16, usize); 3] = [(STAGE_CFG, QP_CFG_BITS), (STAGE_RQ, QP_RQ_BITS), (STAGE_SQ_PSN, 24)];

/// Every staging word: (byte address, field index, first bit, width).
pub fn stage_words() -> Vec<(u16, usize, usize, usize)> {
    let mut v = vec![];
    for (f, (base, bits)) in STAGE_FIELDS.iter().enumerate() {
        for w in 0..bits.div_ceil(32) {
            v.push((base + 4 * w as u16, f, 32 * w, (bits - 32 * w).min(32)));
        }
    }
    v
}

#[derive(LogicBlock, Default)]
pub struct QpStage {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub wr_en: Signal<In, Bit>,
    pub wr_addr: Signal<In, Bits<16>>,
    pub wr_data: Signal<In, Bits<32>>,
    /// `wr_addr` is a staging word.
    pub wr_hit: Signal<Out, Bit>,
    pub rd_en: Signal<In, Bit>,
    pub rd_addr: Signal<In, Bits<16>>,
    /// The word read, and whether `rd_addr` was a staging word, one cycle after `rd_en`.
    pub rd_data: Signal<Out, Bits<32>>,
    pub rd_hit: Signal<Out, Bit>,
    pub ld_en: Signal<In, Bit>,
    pub ld_cfg: Signal<In, QpCfg>,
    pub ld_rq: Signal<In, QpRq>,
    pub cfg: Signal<Out, QpCfg>,
    pub rq: Signal<Out, QpRq>,
    pub sq_psn: Signal<Out, Bits<24>>,
    _words: Vec<u32>,
    _rd: (u32, bool),
}

impl QpStage {
    fn field_words(&self, f: usize) -> Vec<u32> {
        stage_words().iter().enumerate().filter(|(_, w)| w.1 == f).map(|(i, _)| self._words[i]).collect()
    }
}

impl Logic for QpStage {
    fn update(&mut self) {
        let words = stage_words();
        if self._words.len() != words.len() {
            self._words = vec![0; words.len()];
        }
        if self.clock.pos_edge() {
            let ra: u64 = self.rd_addr.val().into();
            if self.rd_en.val() {
                self._rd = words.iter().position(|w| w.0 as u64 == ra).map_or((0, false), |i| (self._words[i], true));
            }
            if self.reset.val() {
                self._words.iter_mut().for_each(|w| *w = 0);
            } else if self.ld_en.val() {
                let (c, r) = (self.ld_cfg.val().to_words(), self.ld_rq.val().to_words());
                for (i, w) in words.iter().enumerate() {
                    match w.1 {
                        0 => self._words[i] = c[w.2 / 32],
                        1 => self._words[i] = r[w.2 / 32],
                        _ => {}
                    }
                }
            } else if self.wr_en.val() {
                let wa: u64 = self.wr_addr.val().into();
                let d: u64 = self.wr_data.val().into();
                if let Some(i) = words.iter().position(|w| w.0 as u64 == wa) {
                    let width = words[i].3;
                    self._words[i] = (d as u32) & if width == 32 { u32::MAX } else { (1 << width) - 1 };
                }
            }
        }
        let wa: u64 = self.wr_addr.val().into();
        self.wr_hit.next = words.iter().any(|w| w.0 as u64 == wa);
        self.rd_data.next = (self._rd.0 as u64).into();
        self.rd_hit.next = self._rd.1;
        self.cfg.next = QpCfg::from_words(&self.field_words(0));
        self.rq.next = QpRq::from_words(&self.field_words(1));
        let p = self.field_words(2);
        self.sq_psn.next = bits_of(&p[0].to_le_bytes()[..3]);
    }
    fn connect(&mut self) {
        self.wr_hit.connect();
        self.rd_data.connect();
        self.rd_hit.connect();
        self.cfg.connect();
        self.rq.connect();
        self.sq_psn.connect();
    }
    fn hdl(&self) -> Verilog {
        let names = ["cfg_r", "rq_r", "psn_r"];
        let mut v = String::new();
        for (n, (_, bits)) in names.iter().zip(STAGE_FIELDS) {
            v += &format!("reg [{}:0] {n};\n", bits - 1);
        }
        v += "reg [31:0] rd_q;\nreg rd_hit_q;\nassign cfg = cfg_r;\nassign rq = rq_r;\nassign sq_psn = psn_r;\nassign rd_data = rd_q;\nassign rd_hit = rd_hit_q;\n";
        let words = stage_words();
        v += "reg hit_w;\nalways @(*) begin\n  case (wr_addr)\n";
        for w in &words {
            v += &format!("    16'h{:04x}: hit_w = 1'b1;\n", w.0);
        }
        v += "    default: hit_w = 1'b0;\n  endcase\nend\nassign wr_hit = hit_w;\n";
        v += "always @(posedge clock) begin\n  if (rd_en) begin\n    case (rd_addr)\n";
        for w in &words {
            let src = format!("{}[{}:{}]", names[w.1], w.2 + w.3 - 1, w.2);
            let e = if w.3 == 32 { src } else { format!("{{{}'d0, {src}}}", 32 - w.3) };
            v += &format!("      16'h{:04x}: begin rd_q <= {e}; rd_hit_q <= 1'b1; end\n", w.0);
        }
        v += "      default: begin rd_q <= 32'd0; rd_hit_q <= 1'b0; end\n    endcase\n  end\n";
        v += "  if (reset) begin\n    cfg_r <= 0;\n    rq_r <= 0;\n    psn_r <= 0;\n  end else if (ld_en) begin\n    cfg_r <= ld_cfg;\n    rq_r <= ld_rq;\n  end else if (wr_en) begin\n    case (wr_addr)\n";
        for w in &words {
            v += &format!("      16'h{:04x}: {}[{}:{}] <= wr_data[{}:0];\n", w.0, names[w.1], w.2 + w.3 - 1, w.2, w.3 - 1);
        }
        v += "      default: ;\n    endcase\n  end\nend\n";
        v += "initial begin\n  rd_q = 32'd0;\n  rd_hit_q = 1'b0;\nend\n";
        let unused: Vec<String> = words.iter().filter(|w| w.3 < 32).map(|w| format!("wr_data[31:{}]", w.3)).collect();
        v += &format!("wire unused_wr = ^{{{}}};\n", unused.join(", "));
        Verilog::Custom(v)
    }
}
