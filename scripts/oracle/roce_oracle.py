#!/usr/bin/env python3
"""Independent RoCEv2 oracle built on scapy (scapy.contrib.roce), used by nicgen's Rust tests.

  roce_oracle.py check          stdin: one frame per line, hex (Ethernet, no FCS, with ICRC)
                                stdout: per frame "ok" or "bad <expected> <found>" (ICRC as the
                                little-endian u32 read from the wire), or "notroce"
  roce_oracle.py build N SEED   stdout: N random RoCEv2 RC frames built by scapy, hex, one per line
  roce_oracle.py request        stdin: one JSON request per line {op, dqpn, psn, ackreq, va, rkey,
                                dlen, payload (hex), src, dst, smac, dmac, sport}; stdout: the
                                frame scapy builds for each (IPv4), hex, as another RoCE stack
                                would send it
"""
import json
import random
import sys

from scapy.all import Ether, IP, IPv6, UDP, Raw, Packet, bind_layers, raw
from scapy.fields import XLongField, XIntField, IntField
from scapy.contrib.roce import BTH, AETH


class RETH(Packet):
    name = "RETH"
    fields_desc = [XLongField("va", 0), XIntField("rkey", 0), IntField("dlen", 0)]


for _op in (0x06, 0x0A, 0x0B, 0x0C):
    bind_layers(BTH, RETH, opcode=_op)
for _op in (0x0D, 0x0F, 0x10, 0x12):
    bind_layers(BTH, AETH, opcode=_op)

RC_OPCODES = [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C,
              0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17]
RETH_OPS = {0x06, 0x0A, 0x0B, 0x0C}
AETH_OPS = {0x0D, 0x0F, 0x10, 0x11, 0x12}
IMM_OPS = {0x03, 0x05, 0x09, 0x0B}
IETH_OPS = {0x16, 0x17}
NO_PAYLOAD = {0x0C, 0x11, 0x12, 0x13, 0x14}


def check(line):
    b = bytes.fromhex(line)
    p = Ether(b)
    if BTH not in p:
        return "notroce"
    found = int.from_bytes(b[-4:], "little")
    p[BTH].icrc = None
    rebuilt = raw(p)
    exp = int.from_bytes(rebuilt[-4:], "little")
    return "ok" if exp == found else "bad %08x %08x" % (exp, found)


def build(rng):
    op = rng.choice(RC_OPCODES)
    ext = b""
    if op in RETH_OPS:
        ext += raw(RETH(va=rng.getrandbits(64), rkey=rng.getrandbits(32), dlen=rng.getrandbits(31)))
    if op in AETH_OPS:
        ext += raw(AETH(syndrome=rng.getrandbits(8), msn=rng.getrandbits(24)))
    if op == 0x12:
        ext += rng.getrandbits(64).to_bytes(8, "big")
    if op in (0x13, 0x14):
        ext += bytes(rng.getrandbits(8) for _ in range(28))
    if op in IMM_OPS or op in IETH_OPS:
        ext += rng.getrandbits(32).to_bytes(4, "big")
    n = 0 if op in NO_PAYLOAD else rng.choice([rng.randint(0, 64), rng.randint(0, 300), rng.randint(0, 4096)])
    pad = (4 - n % 4) % 4
    payload = bytes(rng.getrandbits(8) for _ in range(n)) + b"\0" * pad
    bth = BTH(opcode=op, solicited=rng.getrandbits(1), migreq=rng.getrandbits(1), padcount=pad,
              pkey=rng.getrandbits(16), fecn=rng.getrandbits(1), becn=rng.getrandbits(1),
              dqpn=rng.getrandbits(24), ackreq=rng.getrandbits(1), psn=rng.getrandbits(24))
    udp = UDP(sport=rng.randint(49152, 65535), dport=4791, chksum=rng.choice([0, rng.getrandbits(16)]))
    if rng.random() < 0.5:
        ip = IP(src="10.%d.%d.%d" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(1, 254)),
                dst="10.0.0.%d" % rng.randint(1, 254), tos=rng.getrandbits(8), ttl=rng.randint(1, 255),
                id=rng.getrandbits(16), flags="DF")
    else:
        ip = IPv6(src="fd00::%x" % rng.getrandbits(16), dst="fd00::1:%x" % rng.getrandbits(16),
                  tc=rng.getrandbits(8), fl=rng.getrandbits(20), hlim=rng.randint(1, 255))
    eth = Ether(src="02:00:00:00:00:%02x" % rng.randint(0, 255), dst="02:00:00:00:01:%02x" % rng.randint(0, 255))
    return raw(eth / ip / udp / bth / Raw(ext + payload))


def request(line):
    r = json.loads(line)
    op = r["op"]
    ext = b""
    if op in RETH_OPS:
        ext += raw(RETH(va=r.get("va", 0), rkey=r.get("rkey", 0), dlen=r.get("dlen", 0)))
    payload = bytes.fromhex(r.get("payload", ""))
    pad = (4 - len(payload) % 4) % 4
    bth = BTH(opcode=op, padcount=pad, pkey=r.get("pkey", 0xFFFF), version=r.get("tver", 0), dqpn=r["dqpn"], ackreq=r.get("ackreq", 0), psn=r["psn"])
    pkt = (Ether(src=r["smac"], dst=r["dmac"]) / IP(src=r["src"], dst=r["dst"], flags="DF")
           / UDP(sport=r.get("sport", 49152), dport=4791, chksum=0) / bth / Raw(ext + payload + b"\0" * pad))
    return raw(pkt)


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "check":
        out = [check(l.strip()) for l in sys.stdin if l.strip()]
        sys.stdout.write("\n".join(out) + ("\n" if out else ""))
    elif len(sys.argv) == 4 and sys.argv[1] == "build":
        rng = random.Random(int(sys.argv[3]))
        for _ in range(int(sys.argv[2])):
            print(build(rng).hex())
    elif len(sys.argv) == 2 and sys.argv[1] == "request":
        for l in sys.stdin:
            if l.strip():
                print(request(l).hex())
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
