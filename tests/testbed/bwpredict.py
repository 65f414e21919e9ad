#!/usr/bin/env python3
"""What the shaped links of a testbed allow a checkpoint burst, against what gpufeed
measured: one row of the table the testbed tests print.

    bwpredict.py LABEL RATES SUMMARY KIND SERVER=BYTES[,SERVER=BYTES...]

RATES is the testbed's rates file (host role address bit/s), SUMMARY a results folder's
summary.json, KIND write or restore, and SERVER=BYTES how many bytes of the checkpoint
sit on each server host (counted on the bricks, or all of it on the one S3 host).

The arithmetic. A link of R bit/s carries R/8 bytes/s on the wire; TCP over Ethernet
with the MTU of 1500 and timestamps carries 1448 bytes of payload in a 1514-byte frame,
and tbf counts every frame (a GSO packet as its segments), so the payload rate is
g(R) = R/8 * 1448/1514. Every client host moves the same share of the checkpoint (the
same number of equal shards per host), every server host the bytes placed on it. A burst
cannot end before the busiest link has moved its bytes:
    T = max( max over clients of B_c / g(R_c), max over servers of B_s / g(R_s) )
and the predicted bandwidth is total / T. With an even placement this is the naive
min(sum of g(R_c), sum of g(R_s)); GlusterFS places whole files by hash, so with a few
files per brick the placement is rarely even and the placement-aware figure is the one
that holds. Exit 0 when the measured burst bandwidth is within 20% of the prediction.
"""
import json
import sys

WIRE = 1448.0 / 1514.0
TOLERANCE = 0.20


def main():
    label, rates_file, summary_file, kind, placement = sys.argv[1:6]
    role, bits = {}, {}
    with open(rates_file) as f:
        for line in f:
            h, r, _, b = line.split()
            role[h], bits[h] = r, float(b)
    with open(summary_file) as f:
        s = json.load(f)
    bursts = [b for b in s["checkpoint"]["bursts"] if b["kind"] == kind]
    if not bursts:
        print("%s: no %s burst in %s" % (label, kind, summary_file))
        return 1
    total = float(bursts[0]["bytes"])
    measured = sum(b["bytes_per_s"] for b in bursts) / len(bursts)
    good = {h: bits[h] / 8 * WIRE for h in bits}
    clients = s["environment"]["hosts"]
    servers = {}
    for item in placement.split(","):
        h, v = item.split("=")
        servers[h] = total if v == "ALL" else float(v)
    t_client = max(total / len(clients) / good[c] for c in clients)
    t_server = max(servers[h] / good[h] for h in servers)
    predicted = total / max(t_client, t_server)
    naive = min(sum(good[c] for c in clients), sum(good[h] for h in servers))
    bound = "clients" if t_client >= t_server else "servers"
    ratio = measured / predicted
    ok = abs(ratio - 1) <= TOLERANCE
    spread = " ".join("%s:%.0f%%" % (h, 100 * servers[h] / total) for h in sorted(servers))
    print("%-26s %-7s %-7s %9.1f %9.1f %9.1f %6.2f  %-4s %s" % (
        label, kind, bound, naive / 1e6, predicted / 1e6, measured / 1e6, ratio,
        "ok" if ok else "FAIL", spread))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
