//! The DPI golden model (BALBOA §5.2): a fully connected ternary network over one 64-byte
//! payload beat, and the per-packet aggregator and policy. The hardware
//! (`nicgen_hw::service::dpi`) is generated from the same weights file and matches this model
//! bit for bit.
//!
//! The network is a **file-type classifier** (CSV, PNG, text, ELF executable), trained offline
//! by `scripts/dpi/train.py`; it is not a malware detector.
//!
//! Integer inference: `x` is the beat's 512 bits (bit `8i + j` = bit `j` of byte `i`); each
//! hidden layer is `h = [W·a + b ≥ 0]` with `W` in {-1, 0, +1} (0/1 outputs); the output layer
//! gives the scores `s = W·h + b`, and the beat's class is the first maximum.
//!
//! Aggregation (per frame, as the parallel tap sees it: the whole Ethernet frame after the ICRC
//! check): a beat votes when it is full (64 bytes) and lies past the headers (beat 1 on, or
//! beat 2 on for IPv6). The frame's class is the class with the most votes (the first on
//! ties); a frame without votes has none. The verdict is the QP's policy when the frame's class
//! is in the class mask, otherwise pass.
use serde::Deserialize;

/// The committed weights (`hw/dpi/weights.json`, written by `scripts/dpi/train.py`).
pub const WEIGHTS_JSON: &str = include_str!("../../hw/dpi/weights.json");

pub const BEAT: usize = 64;

/// Verdicts (as `nicgen_hw::service::slot::verdict`).
pub mod verdict {
    pub const PASS: u8 = 0;
    pub const FLAG: u8 = 1;
    pub const DROP: u8 = 2;
}

#[derive(Deserialize, Clone, Debug)]
pub struct Layer {
    /// `w[n][i]`: the weight of input `i` in neuron `n`.
    pub w: Vec<Vec<i8>>,
    pub b: Vec<i64>,
}

#[derive(Deserialize, Clone, Debug)]
pub struct Vector {
    /// A beat (128 hex digits) and the class the training script's own inference gives.
    pub beat: String,
    pub class: u8,
}

#[derive(Deserialize, Clone, Debug)]
pub struct Net {
    pub classes: Vec<String>,
    pub sizes: Vec<usize>,
    pub layers: Vec<Layer>,
    #[serde(default)]
    pub vectors: Vec<Vector>,
    #[serde(default)]
    pub accuracy: serde_json::Value,
}

impl Net {
    pub fn from_json(s: &str) -> anyhow::Result<Net> {
        let n: Net = serde_json::from_str(s)?;
        anyhow::ensure!(n.sizes.first() == Some(&(BEAT * 8)), "the input layer must be {} bits", BEAT * 8);
        anyhow::ensure!(n.layers.len() + 1 == n.sizes.len() && n.layers.len() >= 1, "layer count");
        anyhow::ensure!(n.classes.len() == *n.sizes.last().unwrap() && n.classes.len() <= 8, "classes");
        for (l, layer) in n.layers.iter().enumerate() {
            anyhow::ensure!(layer.w.len() == n.sizes[l + 1] && layer.b.len() == n.sizes[l + 1], "layer {l}: sizes");
            for row in &layer.w {
                anyhow::ensure!(row.len() == n.sizes[l], "layer {l}: row length");
                anyhow::ensure!(row.iter().all(|w| (-1..=1).contains(w)), "layer {l}: weights must be -1, 0 or +1");
            }
        }
        Ok(n)
    }

    /// The committed network.
    pub fn builtin() -> Net {
        Net::from_json(WEIGHTS_JSON).expect("hw/dpi/weights.json")
    }

    /// The output scores of one beat.
    pub fn scores(&self, beat: &[u8; BEAT]) -> Vec<i64> {
        let mut a: Vec<i64> = (0..BEAT * 8).map(|i| (beat[i / 8] >> (i % 8) & 1) as i64).collect();
        for (l, layer) in self.layers.iter().enumerate() {
            let z: Vec<i64> = layer.w.iter().zip(&layer.b).map(|(row, b)| row.iter().zip(&a).map(|(w, x)| *w as i64 * x).sum::<i64>() + b).collect();
            a = if l + 1 < self.layers.len() { z.iter().map(|z| (*z >= 0) as i64).collect() } else { z };
        }
        a
    }

    /// The beat's class: the first maximum of its scores.
    pub fn classify(&self, beat: &[u8; BEAT]) -> u8 {
        let s = self.scores(beat);
        let mut best = 0;
        for (i, v) in s.iter().enumerate() {
            if *v > s[best] {
                best = i;
            }
        }
        best as u8
    }

    /// The class index of a name (`"elf"`).
    pub fn class(&self, name: &str) -> Option<u8> {
        self.classes.iter().position(|c| c == name).map(|i| i as u8)
    }
}

/// Whether beat `k` of a frame votes (see the module comment).
pub fn votes(frame: &[u8], k: usize) -> bool {
    let v6 = frame.len() >= 14 && frame[12..14] == [0x86, 0xdd];
    (k + 1) * BEAT <= frame.len() && k >= if v6 { 2 } else { 1 }
}

/// The frame's class (`None` when no beat votes), from the classes of its beats.
pub fn frame_class(net: &Net, frame: &[u8]) -> Option<u8> {
    let mut n = vec![0usize; net.classes.len()];
    for k in 0..frame.len() / BEAT {
        if votes(frame, k) {
            n[net.classify(frame[k * BEAT..(k + 1) * BEAT].try_into().unwrap()) as usize] += 1;
        }
    }
    let best = (0..n.len()).fold(0, |b, i| if n[i] > n[b] { i } else { b });
    (n[best] > 0).then_some(best as u8)
}

/// The verdict for a frame: `policy` (the QP's) when its class is in `class_mask`, else pass.
pub fn frame_verdict(net: &Net, frame: &[u8], policy: u8, class_mask: u8) -> u8 {
    match frame_class(net, frame) {
        Some(c) if class_mask >> c & 1 == 1 => policy,
        _ => verdict::PASS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> [u8; BEAT] {
        let v: Vec<u8> = (0..BEAT).map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap()).collect();
        v.try_into().unwrap()
    }

    /// The training script's numpy inference (an implementation we did not share code with)
    /// wrote these vectors; the Rust inference must give the same class for each.
    #[test]
    fn rust_inference_agrees_with_the_training_script() {
        let net = Net::builtin();
        assert!(net.vectors.len() >= 200);
        for (i, v) in net.vectors.iter().enumerate() {
            assert_eq!(net.classify(&hex(&v.beat)), v.class, "vector {i}");
        }
        // the vectors cover every class
        for c in 0..net.classes.len() as u8 {
            assert!(net.vectors.iter().any(|v| v.class == c), "no vector of class {c}");
        }
    }

    #[test]
    fn text_and_elf_are_told_apart() {
        let net = Net::builtin();
        let text = b"The quick brown fox jumps over the lazy dog, and then it runs away again.";
        assert_eq!(net.classify(text[..64].try_into().unwrap()), net.class("text").unwrap());
        let csv = b"12,-3.25,2021-04-05,alpha\n13,4.5,2022-01-02,beta\n14,-0.75,2023-1";
        assert_eq!(net.classify(csv[..64].try_into().unwrap()), net.class("csv").unwrap());
    }

    #[test]
    fn aggregation_skips_headers_and_partial_beats() {
        let net = Net::builtin();
        let mut f = vec![0u8; 64 * 3 + 10];
        f[12] = 0x08;
        assert!(!votes(&f, 0) && votes(&f, 1) && votes(&f, 2) && !votes(&f, 3));
        f[12..14].copy_from_slice(&[0x86, 0xdd]);
        assert!(!votes(&f, 1) && votes(&f, 2));
        assert_eq!(frame_class(&net, &f[..100]), None);
        assert_eq!(frame_verdict(&net, &f[..100], verdict::DROP, 0xff), verdict::PASS);
    }

    #[test]
    fn weights_are_checked() {
        let bad = WEIGHTS_JSON.replacen("\"w\":[[", "\"w\":[[2,", 1);
        assert!(Net::from_json(&bad).is_err());
    }
}
