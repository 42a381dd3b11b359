#!/usr/bin/env python3
"""Run the workspace's test binaries (built by `cargo test --no-run`) on a pool of lanes.

`cargo test` runs one test binary at a time, so a binary whose last test is long leaves the
other core idle (the CLI's bench smoke test ran alone for twenty minutes). Here every lane takes
the next binary as soon as its last one ends, the longest first, and each binary still runs its
own tests on two threads. A binary's output is printed whole when it ends, with its time. The
order is scripts/test-order.txt's (measured on a fresh clone, where the Verilator builds are part
of each binary's time); binaries it does not list start last.

At the end it prints where the time went: the slowest tests (libtest's `--report-time`, which
stable toolchains allow with RUSTC_BOOTSTRAP=1 in the tests' environment) and the costliest
Verilator builds of the run (from the model cache's builds.log, sim/src/verilator.rs).

Usage: run_tests.py [--jobs N] < cargo-messages.json
"""
import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def binaries(messages):
    """(name, executable, package folder) of every test binary in cargo's JSON messages."""
    out = []
    for line in messages:
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if m.get("reason") != "compiler-artifact" or not m.get("profile", {}).get("test") or not m.get("executable"):
            continue
        kind = m["target"]["kind"][0]
        name = m["target"]["name"] if kind == "test" else f"{m['target']['name']} ({kind})"
        out.append((name, m["executable"], os.path.dirname(m["manifest_path"])))
    return out


def cargo_env():
    """The [env] table of .cargo/config.toml, which `cargo test` gives the tests it runs (the
    stack size the big designs need)."""
    path = os.path.join(ROOT, ".cargo", "config.toml")
    try:
        import tomllib
        with open(path, "rb") as f:
            env = tomllib.load(f).get("env", {})
    except ImportError:
        # Python before 3.11: the plain `KEY = "value"` lines of the [env] table
        env, table = {}, None
        for line in open(path):
            line = line.split("#")[0].strip()
            if line.startswith("["):
                table = line
            elif table == "[env]" and (m := re.match(r'(\w+)\s*=\s*"([^"]*)"', line)):
                env[m.group(1)] = m.group(2)
    except (OSError, ValueError):
        return {}
    return {k: str(v["value"] if isinstance(v, dict) else v) for k, v in env.items() if k not in os.environ}


def build_log():
    """The Verilator model cache's build log (sim/src/verilator.rs: NICGEN_VLCACHE, else the
    target folder's vlcache)."""
    cache = os.environ.get("NICGEN_VLCACHE") or os.path.join(os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target"), "vlcache")
    return os.path.join(cache, "builds.log")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("NICGEN_TEST_JOBS", "2")))
    a = ap.parse_args()
    bins = binaries(sys.stdin)
    if not bins:
        print("run_tests: no test binaries in cargo's output", file=sys.stderr)
        return 2
    order = []
    try:
        with open(os.path.join(ROOT, "scripts", "test-order.txt")) as f:
            order = [l.split("#")[0].strip() for l in f if l.split("#")[0].strip()]
    except OSError:
        pass

    # the listed binaries in their order, then the others in cargo's order (a stable sort)
    queue = sorted(bins, key=lambda b: order.index(b[0]) if b[0] in order else len(order))
    env = dict(os.environ, **cargo_env())
    env["RUSTC_BOOTSTRAP"] = "1"
    lock = threading.Lock()
    failed, start = [], time.time()
    tests = []
    log = build_log()
    log_start = os.path.getsize(log) if os.path.exists(log) else 0

    def lane():
        while True:
            with lock:
                if not queue:
                    return
                name, exe, cwd = queue.pop(0)
            t = time.time()
            p = subprocess.run([exe, "-Z", "unstable-options", "--report-time"], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            dt = time.time() - t
            text = p.stdout.decode(errors="replace")
            with lock:
                if p.returncode != 0:
                    failed.append(name)
                for m in re.finditer(r"^test (\S+) \.\.\. \w+ <([0-9.]+)s>", text, re.M):
                    tests.append((float(m.group(2)), f"{name}::{m.group(1)}"))
                sys.stdout.write(f"\n     Running {name} ({os.path.relpath(exe, ROOT)}): {dt:.0f} s, ended at {time.time() - start:.0f} s\n")
                sys.stdout.write(text)
                sys.stdout.flush()

    lanes = [threading.Thread(target=lane) for _ in range(max(1, a.jobs))]
    for l in lanes:
        l.start()
    for l in lanes:
        l.join()
    print(f"\nrun_tests: {len(bins)} test binaries in {time.time() - start:.0f} s on {a.jobs} lanes")
    tests.sort(reverse=True)
    print(f"run_tests: the slowest tests (of {len(tests)}, {sum(t for t, _ in tests):.0f} s in all):")
    for t, n in tests[:15]:
        print(f"  {t:7.1f} s  {n}")
    builds = []
    if os.path.exists(log):
        with open(log) as f:
            f.seek(log_start)
            builds = [l.rstrip("\n").split("\t") for l in f if l.count("\t") >= 4]
    builds.sort(key=lambda b: -float(b[0]))
    print(f"run_tests: {len(builds)} Verilator models built, {sum(float(b[0]) for b in builds):.0f} s of wall time; the costliest:")
    for b in builds[:15]:
        print(f"  {float(b[0]):7.1f} s  {b[1]} ({int(b[2]) // 1000} kB of Verilog) for {b[3].split('-')[0]}::{b[4]}")
    if failed:
        print("run_tests: failed: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
