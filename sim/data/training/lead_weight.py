#!/usr/bin/env python3
"""What weight the reference policy's lead term should have.

The lead term is L = skin_therm - EMA_tau(skin_therm), the board
thermistor's excess over its own slow average; the policy adds w * L to its
skin estimate as a forecast of how far the covers will still rise. This
script fits w by least squares: for each sample of the training sessions
(sim/data/training/generate.py, never the evaluation suite) run open loop,
w minimises the squared error of w * L(t) against the covers' rise
max_skin(t + H) - max_skin(t), for several horizons H. A weight is then a
horizon: the weight the policy uses says how far ahead it forecasts
(docs/results.md, status lines; config/policies/reference-umpc.yaml).

Usage (traces from `coolhand-sim run -g none --seed 7 -w train-NN.csv`):
    python3 lead_weight.py [--tau S] [--horizons 60,110,120,150] TRACE.csv...
"""
import argparse
import csv
import math
import sys


def read_trace(path):
    t, skin, therm = [], [], []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            t.append(float(row["time_s"]))
            skin.append(float(row["max_skin_c"]))
            therm.append(float(row["skin_therm_reading_c"]))
    if len(t) < 2:
        sys.exit(f"{path}: fewer than two rows")
    return t, skin, therm


def ema(values, dt_s, tau_s):
    # The engine's ema: y += (x - y)(1 - exp(-dt/tau)), starting at the first value.
    a = 1.0 - math.exp(-dt_s / tau_s)
    y = values[0]
    out = []
    for x in values:
        y += (x - y) * a
        out.append(y)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tau", type=float, default=180.0, help="EMA time constant, s")
    ap.add_argument("--horizons", default="60,90,110,120,130,150", help="H in s, comma-separated")
    ap.add_argument("--min-skin", type=float, default=0.0,
                    help="only samples whose max skin is at least this, °C")
    ap.add_argument("traces", nargs="+")
    args = ap.parse_args()
    horizons = [float(h) for h in args.horizons.split(",")]
    sessions = []
    for path in args.traces:
        t, skin, therm = read_trace(path)
        dt = t[1] - t[0]
        slow = ema(therm, dt, args.tau)
        sessions.append((dt, skin, [a - b for a, b in zip(therm, slow)]))
    print(f"tau {args.tau:.0f} s, {len(sessions)} sessions, samples with skin >= {args.min_skin} °C")
    for h in horizons:
        sxy = sxx = 0.0
        n = 0
        for dt, skin, lead in sessions:
            k = int(round(h / dt))
            for i in range(len(skin) - k):
                if skin[i] < args.min_skin:
                    continue
                sxy += lead[i] * (skin[i + k] - skin[i])
                sxx += lead[i] * lead[i]
                n += 1
        if sxx == 0:
            sys.exit("no samples with a lead signal")
        print(f"H = {h:5.0f} s: w = {sxy / sxx:.3f}  ({n} samples)")


if __name__ == "__main__":
    main()
