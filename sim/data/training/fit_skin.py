#!/usr/bin/env python3
"""Fits the reference policy's virtual skin sensors (front_fir and back_fir in
config/policies/reference-umpc.yaml) to the simulated covers, the way a
vendor fits a virtual skin sensor to thermocouples taped to the covers during
characterisation.

Method (linear least squares with a small ridge penalty):
  - the training workloads from generate.py (not the evaluation suite) run in
    coolhand-sim under three controllers (none, step_wise, power_allocator),
    so throttled and unthrottled heat distributions are both seen;
  - inputs are the readings of the thermistors a policy can read without
    waking the SoC's sensors every 100 ms: skin_therm (board), battery_therm
    (fuel gauge), charger_therm and modem_therm. The 10 Hz on-die sensors
    are left out: with 1 °C steps and noise they would make the engine step
    on every sample;
  - features are each input at now, now - 8 s, ..., now - 112 s (15 taps),
    exactly the taps of the engine's `fir` sensor, plus a constant;
  - targets are the front and back skin node temperatures; samples whose
    hotter skin is above 38 °C count three times, since that is where the
    estimate decides anything; ridge lambda = 1 (constant not penalised);
  - every fourth workload is held out and reported, and so are the bundled
    suite's hot scenarios for information (they are never fitted on).

Usage:
  python3 generate.py /tmp/train
  python3 fit_skin.py BUILD/sim/coolhand-sim /tmp/train > fir.yaml
The YAML on stdout is the two `fir` sensors to paste into the policy; the
report goes to stderr. Needs numpy (Debian: python3-numpy).
"""
import csv
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np

INPUTS = ["skin_therm", "battery_therm", "charger_therm", "modem_therm"]
TAP_S = 8
TAPS = 15
RIDGE = 1.0
HOT_C = 38.0
HOT_WEIGHT = 3.0
GOVERNORS = ["none", "step_wise", "power_allocator"]
SEED = 7
HERE = os.path.dirname(os.path.abspath(__file__))


def run_trace(sim, workload, governor, tmp):
    """Runs one closed loop and returns its trace, one row per second."""
    out = os.path.join(tmp, "run")
    subprocess.run([sim, "run", "-w", workload, "-g", governor, "-o", out,
                    "--seed", str(SEED)], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "trace.csv")) as f:
        rows = csv.reader(f)
        header = next(rows)
        data = np.array([r for i, r in enumerate(rows) if i % 10 == 0], dtype=float)
    return {k: data[:, i] for i, k in enumerate(header)}


def features(trace):
    n = len(trace["time_s"])
    cols = []
    for name in INPUTS:
        x = trace[name + "_reading_c"]
        for k in range(TAPS):
            shift = k * TAP_S
            cols.append(np.concatenate([np.full(shift, x[0]), x[:n - shift]]) if shift else x)
    cols.append(np.ones(n))
    return np.stack(cols, 1)


def dataset(sim, workloads, tmp, governors=GOVERNORS):
    xs, ys = [], []
    for w in workloads:
        for g in governors:
            t = run_trace(sim, w, g, tmp)
            xs.append(features(t))
            ys.append(np.stack([t["front_skin_c"], t["back_skin_c"]], 1))
    return np.concatenate(xs), np.concatenate(ys)


def ema(x, tau_s):
    a = 1.0 - np.exp(-1.0 / tau_s)
    y = x.copy()
    for i in range(1, len(x)):
        y[i] = y[i - 1] + a * (x[i] - y[i - 1])
    return y


def report(name, w, x, y):
    """Error of max(front, back) estimate after the policy's 10 s EMA, where hot."""
    e = x @ w
    est = np.maximum(ema(e[:, 0], 10.0), ema(e[:, 1], 10.0))
    true = y.max(1)
    hot = true > 42.0
    err = (est - true)[hot]
    if err.size == 0:
        return
    print("%-28s skin > 42 °C: rms %.3f  mean %+.3f  min %+.3f  max %+.3f" %
          (name, np.sqrt((err ** 2).mean()), err.mean(), err.min(), err.max()), file=sys.stderr)


def main():
    sim, train_dir = sys.argv[1], sys.argv[2]
    files = sorted(glob.glob(os.path.join(train_dir, "train-*.csv")))
    fit_files = [f for i, f in enumerate(files) if i % 4 != 3]
    held_out = [f for i, f in enumerate(files) if i % 4 == 3]
    with tempfile.TemporaryDirectory() as tmp:
        x, y = dataset(sim, fit_files, tmp)
        weight = np.where(y.max(1) > HOT_C, HOT_WEIGHT, 1.0)[:, None]
        xw, yw = x * weight, y * weight
        reg = RIDGE * np.eye(x.shape[1])
        reg[-1, -1] = 0.0
        w = np.linalg.solve(xw.T @ xw + reg, xw.T @ yw)
        report("training", w, x, y)
        report("held-out training", w, *dataset(sim, held_out, tmp))
        suite = os.path.join(HERE, "..", "workloads")
        for name in ["gaming", "gaming-charging", "gaming-hot", "navigation"]:
            report(name + " (power_allocator)", w,
                   *dataset(sim, [os.path.join(suite, name + ".csv")], tmp, ["power_allocator"]))
    for j, name in enumerate(["front", "back"]):
        print("  %s_fir:" % name)
        print("    kind: fir")
        print("    inputs: [%s]" % ", ".join(INPUTS))
        print("    weights:")
        for i, inp in enumerate(INPUTS):
            row = w[i * TAPS:(i + 1) * TAPS, j]
            print("      - [%s]  # %s" % (", ".join("%.4f" % v for v in row), inp))
        print("    tap_period: %ds" % TAP_S)
        print("    offset_c: %.3f" % w[-1, j])


if __name__ == "__main__":
    main()
