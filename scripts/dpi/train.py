#!/usr/bin/env python3
"""Train the DPI file-type classifier: a fully connected ternary network over one 64-byte
payload beat (512 input bits) that tells CSV, PNG, plain text and ELF executables apart.

This is a file-type classifier, not a malware detector: it learns what the bytes of those four
formats look like, nothing about intent.

Data: CSV and PNG files it generates (seeded), text and ELF files found on the machine (Debian's
licence and copyright texts, /usr/bin and shared libraries). Files are split into training and
held-out sets by file, so no beat of a held-out file is seen in training. Beats are taken at
random byte offsets, as payload beats fall at any offset of a file.

Model (the integer form is what the hardware computes; see model/src/dpi.rs):
  x  = the 512 bits of the beat, bit 8*i + j = bit j of byte i (0/1)
  h1 = [W1 x + b1 >= 0]      W1 in {-1,0,+1}^(H1 x 512), b1 integer   (0/1 outputs)
  h2 = [W2 h1 + b2 >= 0]     W2 in {-1,0,+1}^(H2 x H1)
  s  = W3 h2 + b3            W3 in {-1,0,+1}^(4 x H2), class = first argmax of s
Training uses float shadow weights, ternarized in the forward pass (threshold 0.7 mean|w|),
with straight-through gradients for the ternarization and the step.

Writes a JSON weights file: layer sizes, classes, weights, biases, accuracy on held-out beats
and packets, and test vectors (beats with the class this script's integer inference gives)."""
import argparse, glob, json, os, struct, sys, zlib
import numpy as np

CLASSES = ["csv", "png", "text", "elf"]
BEAT = 64


def gen_csv(rng, n_rows):
    cols = int(rng.integers(2, 9))
    kinds = rng.integers(0, 6, size=cols)
    words = ["alpha", "beta", "gamma", "delta", "north", "south", "red", "blue", "ok", "fail",
             "Zurich", "Berlin", "Tokyo", "node", "qp", "link", "true", "false"]
    out = []
    if rng.random() < 0.7:
        out.append(",".join(f"col{i}" if rng.random() < 0.5 else words[int(rng.integers(len(words)))] + str(i) for i in range(cols)))
    for _ in range(n_rows):
        row = []
        for k in kinds:
            if k == 0:
                row.append(str(int(rng.integers(-100000, 100000))))
            elif k == 1:
                row.append(f"{rng.normal(0, 1000):.{int(rng.integers(1, 7))}f}")
            elif k == 2:
                row.append(f"{int(rng.integers(1990, 2030))}-{int(rng.integers(1, 13)):02d}-{int(rng.integers(1, 29)):02d}")
            elif k == 3:
                row.append(words[int(rng.integers(len(words)))])
            elif k == 4:
                row.append(f"\"{words[int(rng.integers(len(words)))]} {words[int(rng.integers(len(words)))]}\"")
            else:
                row.append(f"{rng.random():.6e}")
        out.append(",".join(row))
    return ("\r\n" if rng.random() < 0.3 else "\n").join(out).encode() + b"\n"


def png_chunk(tag, data):
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xffffffff)


def gen_png(rng):
    w, h = int(rng.integers(32, 257)), int(rng.integers(32, 257))
    ch = [1, 3, 4][int(rng.integers(3))]
    ys, xs = np.mgrid[0:h, 0:w]
    img = np.zeros((h, w, ch))
    for c in range(ch):
        a, b, f = rng.normal(0, 2, 3)
        img[..., c] = 128 + 100 * np.sin(a * xs / w * 6 + b * ys / h * 6 + f)
    img += rng.normal(0, float(rng.uniform(0, 40)), img.shape)
    for _ in range(int(rng.integers(0, 6))):  # flat shapes
        x0, y0 = int(rng.integers(w)), int(rng.integers(h))
        img[y0:y0 + int(rng.integers(4, 60)), x0:x0 + int(rng.integers(4, 60))] = rng.integers(0, 256, ch)
    img = np.clip(img, 0, 255).astype(np.uint8)
    raw = b"".join(b"\x00" + img[y].tobytes() for y in range(h))
    ctype = {1: 0, 3: 2, 4: 6}[ch]
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, ctype, 0, 0, 0))
            + png_chunk(b"IDAT", zlib.compress(raw, int(rng.integers(1, 10)))) + png_chunk(b"IEND", b""))


def found(patterns, test, limit, rng):
    files = sorted({f for p in patterns for f in glob.glob(p, recursive=True) if os.path.isfile(f) and not os.path.islink(f)})
    out = []
    for f in files:
        try:
            with open(f, "rb") as fh:
                d = fh.read(1 << 20)
        except OSError:
            continue
        if len(d) >= 4 * BEAT and test(d):
            out.append(d)
    idx = rng.permutation(len(out))[:limit]
    return [out[i] for i in sorted(idx)]


def is_text(d):
    return all(b in (9, 10, 13) or 32 <= b < 127 for b in d[:4096])


def corpus(rng, n_files):
    files = {c: [] for c in CLASSES}
    files["csv"] = [gen_csv(rng, int(rng.integers(40, 800))) for _ in range(n_files)]
    files["png"] = [gen_png(rng) for _ in range(n_files)]
    files["png"] += found(["/usr/share/icons/**/*.png", "/usr/share/pixmaps/*.png", "/usr/share/**/*.png"],
                          lambda d: d[:8] == b"\x89PNG\r\n\x1a\n", n_files, rng)
    files["text"] = found(["/usr/share/common-licenses/*", "/usr/share/doc/*/copyright", "/usr/share/doc/*/README*",
                           "/usr/lib/python3*/**/*.py"], is_text, 2 * n_files, rng)
    files["elf"] = found(["/usr/bin/*", "/usr/lib/x86_64-linux-gnu/*.so*", "/usr/lib/aarch64-linux-gnu/*.so*"],
                         lambda d: d[:4] == b"\x7fELF", 2 * n_files, rng)
    for c in CLASSES:
        if len(files[c]) < 8:
            sys.exit(f"train: only {len(files[c])} {c} files found; need 8")
    return files


def beats_of(data_list, rng, per_file):
    out = []
    for d in data_list:
        n = min(per_file, max(1, (len(d) - BEAT) // BEAT))
        offs = rng.integers(0, len(d) - BEAT + 1, size=n)
        out += [np.frombuffer(d[o:o + BEAT], dtype=np.uint8) for o in offs]
    return out


def to_bits(b):
    return np.unpackbits(b, axis=-1, bitorder="little").astype(np.float32)


def split(files, rng, frac):
    tr, te = {}, {}
    for c, fl in files.items():
        p = rng.permutation(len(fl))
        k = max(2, int(len(fl) * frac))
        te[c] = [fl[i] for i in p[:k]]
        tr[c] = [fl[i] for i in p[k:]]
    return tr, te


def dataset(files, rng, per_file, cap):
    xs, ys = [], []
    for ci, c in enumerate(CLASSES):
        b = beats_of(files[c], rng, per_file)
        b = [b[i] for i in rng.permutation(len(b))[:cap]]
        xs += b
        ys += [ci] * len(b)
    return np.array(xs, dtype=np.uint8), np.array(ys)


def ternary(w):
    d = 0.7 * np.mean(np.abs(w))
    return np.where(w > d, 1.0, np.where(w < -d, -1.0, 0.0)).astype(np.float32)


def train(x, y, sizes, rng, epochs, lr):
    ws = [rng.normal(0, 1 / np.sqrt(a), (b, a)).astype(np.float32) for a, b in zip(sizes[:-1], sizes[1:])]
    bs = [np.zeros(b, np.float32) for b in sizes[1:]]
    al = [np.float32(1.0 / np.sqrt(a)) for a in sizes[:-1]]  # fixed scale per layer (folded into b)
    m = [np.zeros_like(w) for w in ws] + [np.zeros_like(b) for b in bs]
    v = [np.zeros_like(p) for p in m]
    t = 0
    n = len(x)
    for ep in range(epochs):
        perm = rng.permutation(n)
        for s in range(0, n, 256):
            idx = perm[s:s + 256]
            a = to_bits(x[idx])
            acts, pre = [a], []
            for li, (w, b) in enumerate(zip(ws, bs)):
                z = al[li] * (acts[-1] @ ternary(w).T) + b
                pre.append(z)
                if li < len(ws) - 1:
                    acts.append((z >= 0).astype(np.float32))
            z = pre[-1] - pre[-1].max(1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(1, keepdims=True)
            g = p.copy()
            g[np.arange(len(idx)), y[idx]] -= 1
            g /= len(idx)
            grads_w, grads_b = [None] * len(ws), [None] * len(ws)
            for li in reversed(range(len(ws))):
                grads_w[li] = al[li] * g.T @ acts[li]
                grads_b[li] = g.sum(0)
                if li > 0:
                    g = al[li] * (g @ ternary(ws[li]))
                    g = g * (np.abs(pre[li - 1]) <= 1.0)  # straight-through step
            t += 1
            for k, (p_, gr) in enumerate(zip(ws + bs, grads_w + grads_b)):
                m[k] = 0.9 * m[k] + 0.1 * gr
                v[k] = 0.999 * v[k] + 0.001 * gr * gr
                p_ -= lr * (m[k] / (1 - 0.9 ** t)) / (np.sqrt(v[k] / (1 - 0.999 ** t)) + 1e-8)
        lr *= 0.85
    # integer form: z >= 0  <=>  T x + b/al >= 0; round the thresholds
    tw = [ternary(w).astype(np.int64) for w in ws]
    tb = [np.round(b / a).astype(np.int64) for b, a in zip(bs, al)]
    return tw, tb


def infer(tw, tb, beats):
    """The integer inference, as the hardware does it: bits in, class out."""
    a = np.unpackbits(beats, axis=-1, bitorder="little").astype(np.int64)
    for li, (w, b) in enumerate(zip(tw, tb)):
        z = a @ w.T + b
        a = (z >= 0).astype(np.int64) if li < len(tw) - 1 else z
    return np.argmax(a, axis=1)  # first maximum on ties


def packets(files, rng, n, beats_per_pkt):
    """Held-out packets: runs of consecutive beats from a random offset of a file."""
    xs, ys = [], []
    for ci, c in enumerate(CLASSES):
        for _ in range(n):
            d = files[c][int(rng.integers(len(files[c])))]
            k = min(beats_per_pkt, len(d) // BEAT)
            o = int(rng.integers(0, len(d) - k * BEAT + 1))
            xs.append(np.frombuffer(d[o:o + k * BEAT], dtype=np.uint8).reshape(k, BEAT))
            ys.append(ci)
    return xs, ys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="weights file (JSON)")
    ap.add_argument("--hidden", default="32,16", help="hidden layer sizes (comma-separated)")
    ap.add_argument("--files", type=int, default=120, help="generated files per class")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    files = corpus(rng, a.files)
    tr, te = split(files, rng, 0.25)
    x, y = dataset(tr, rng, 60, 12000)
    xt, yt = dataset(te, rng, 30, 3000)
    sizes = [BEAT * 8] + [int(s) for s in a.hidden.split(",")] + [len(CLASSES)]
    tw, tb = train(x, y, sizes, rng, a.epochs, 3e-3)
    acc_tr = float(np.mean(infer(tw, tb, x) == y))
    pred = infer(tw, tb, xt)
    acc = float(np.mean(pred == yt))
    per = {c: float(np.mean(pred[yt == i] == i)) for i, c in enumerate(CLASSES)}
    conf = [[int(np.sum((yt == i) & (pred == j))) for j in range(len(CLASSES))] for i in range(len(CLASSES))]
    # packets: the majority of their beats' classes (first class on ties), as the aggregator does
    pk_acc = {}
    for nb in (4, 16):
        px, py = packets(te, rng, 250, nb)
        ok = 0
        for p, c in zip(px, py):
            votes = np.bincount(infer(tw, tb, p), minlength=len(CLASSES))
            ok += int(np.argmax(votes) == c)
        pk_acc[f"{nb * BEAT}B"] = ok / len(py)
    vec_rng = np.random.default_rng(a.seed + 1000)
    vx, _ = dataset(te, vec_rng, 4, 64)
    vx = vx[vec_rng.permutation(len(vx))[:256]]
    doc = {
        "format": "nicgen-dpi-ternary-1",
        "note": "file-type classifier (CSV/PNG/text/ELF) over one 64-byte payload beat; not a malware detector",
        "classes": CLASSES,
        "sizes": sizes,
        "layers": [{"w": w.tolist(), "b": b.tolist()} for w, b in zip(tw, tb)],
        "accuracy": {"train_beats": acc_tr, "heldout_beats": acc, "heldout_per_class": per,
                     "heldout_confusion": conf, "heldout_packets": pk_acc,
                     "heldout_files": {c: len(te[c]) for c in CLASSES}, "train_files": {c: len(tr[c]) for c in CLASSES},
                     "heldout_beat_count": int(len(yt))},
        "vectors": [{"beat": bytes(b).hex(), "class": int(c)} for b, c in zip(vx, infer(tw, tb, vx))],
    }
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    nz = sum(int(np.count_nonzero(w)) for w in tw)
    print(f"dpi: {sizes} ternary network, {nz} nonzero weights; train files {doc['accuracy']['train_files']}")
    print(f"dpi: held-out beats: {acc * 100:.2f}% ({len(yt)} beats; " + ", ".join(f"{c} {v * 100:.1f}%" for c, v in per.items()) + ")")
    print("dpi: held-out packets (majority of beats): " + ", ".join(f"{k} {v * 100:.2f}%" for k, v in pk_acc.items()))
    print(f"dpi: confusion (rows true {CLASSES}, columns predicted): {conf}")
    print(f"dpi: wrote {a.out} (a file-type classifier, not a malware detector)")


if __name__ == "__main__":
    main()
