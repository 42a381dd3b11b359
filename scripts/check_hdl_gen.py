#!/usr/bin/env python3
"""Reject the two silent hazards of rust-hdl's #[hdl_gen] (see ../shared/RUST_HDL.md):

* match guards (`1 if c => ...`): dropped from the Verilog, so simulation and hardware differ;
* dynamic array indices (`self.regs[self.sel.val().index()]`): simulate, then fail in Verilog.

An index inside #[hdl_gen] must be an integer literal or the variable of an enclosing
`for i in 0..N` loop (which the macro unrolls). Usage: check_hdl_gen.py [DIR...] (default hw/src);
--self-test checks that the checker catches both hazards.
"""
import os
import re
import sys


def hdl_gen_bodies(text):
    """Yield (line number, body) of each function marked #[hdl_gen]."""
    for m in re.finditer(r"#\[hdl_gen\]\s*(?:pub\s+)?fn\s+\w+[^{]*\{", text):
        start = m.end()
        depth, i = 1, start
        while depth and i < len(text):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
            i += 1
        yield text.count("\n", 0, start) + 1, text[start:i - 1]


def strip_comments(body):
    return re.sub(r"//[^\n]*", "", body)


def problems(text):
    out = []
    for line0, body in hdl_gen_bodies(text):
        body = strip_comments(body)
        loop_vars = set(re.findall(r"\bfor\s+(\w+)\s+in\b", body))
        for k, line in enumerate(body.split("\n")):
            n = line0 + k
            if "=>" in line:
                pat = line.split("=>")[0]
                if re.search(r"\bif\b", pat):
                    out.append((n, "match guard", line.strip()))
            for idx in re.findall(r"\[([^\[\]]+)\]", line):
                idx = idx.strip()
                if re.fullmatch(r"\d+", idx) or idx in loop_vars:
                    continue
                # a loop variable plus or minus a constant is unrolled too
                m = re.fullmatch(r"(\w+)\s*[-+]\s*\d+", idx)
                if m and m.group(1) in loop_vars:
                    continue
                out.append((n, "dynamic index [%s]" % idx, line.strip()))
    return out


SELF_TEST = '''
impl Logic for Bad {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..4 { self.r[i].d.next = self.r[i].q.val(); }
        self.x.next = self.regs[3].q.val();
        match self.s.val() {
            1 if self.c.val() => self.y.next = true,
            _ => {}
        }
        self.z.next = self.regs[self.sel.val().index()].q.val();
    }
}
'''


def main(args):
    if args == ["--self-test"]:
        p = problems(SELF_TEST)
        kinds = sorted(k.split(" ")[0] for _, k, _ in p)
        assert kinds == ["dynamic", "match"], p
        print("check_hdl_gen self-test: both hazards caught, literal and loop indices allowed")
        return 0
    roots = args or ["hw/src"]
    bad, files, fns = 0, 0, 0
    for root in roots:
        for dirpath, _, names in os.walk(root):
            for name in sorted(names):
                if not name.endswith(".rs"):
                    continue
                path = os.path.join(dirpath, name)
                text = open(path, encoding="utf-8").read()
                files += 1
                fns += len(list(hdl_gen_bodies(text)))
                for n, kind, line in problems(text):
                    print("%s:%d: %s: %s" % (path, n, kind, line))
                    bad += 1
    print("check_hdl_gen: %d #[hdl_gen] functions in %d files, %d problems" % (fns, files, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
