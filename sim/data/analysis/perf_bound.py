#!/usr/bin/env python3
"""Upper bound on the performance ANY controller can deliver on a workload
while the model's skins stay at or below a limit: a linear programme over the
same RC model, with perfect knowledge of the future demand and of when the
run ends.

The model is linear, so with device levels relaxed to time fractions (a
controller may alternate between two levels within an interval) the skin
temperatures are affine in the decision variables:
  - time is cut into intervals of DT seconds (default 10 s); the demand of
    each device is averaged over each interval;
  - x[d, l, k] >= 0 is the fraction of interval k device d spends at level
    l, with sum over l equal to 1;
  - the heat of device d in interval k is idle + demand * sum_l x power[l],
    split over its nodes by share; the node temperatures at the end of each
    interval follow from the exact discretisation exp(A DT) of the model
    (Van Loan's block matrix, as in sim/src/model.cpp), so each is an affine
    function of x;
  - maximise the workload's weighted performance, the metric of
    coolhand-sim (sum_d w_d sum_k demand * sum_l x perf[l] over
    sum_d w_d sum_k demand), subject to every skin node <= LIMIT at the end
    of every interval.
No causal controller can beat the optimum; checking the skins only at
interval ends makes the bound, if anything, generous.

Usage: python3 perf_bound.py WORKLOAD.csv [LIMIT_C [DT_S [MODEL.yaml]]]
Needs numpy, scipy and PyYAML (Debian: python3-numpy python3-scipy
python3-yaml).
"""
import os
import sys

import numpy as np
import yaml
from scipy.linalg import expm
from scipy.optimize import linprog

HERE = os.path.dirname(os.path.abspath(__file__))


def load_workload(path):
    weights, rows = {}, []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                if "weights:" in line:
                    for kv in line.split("weights:")[1].split():
                        k, v = kv.split("=")
                        weights[k] = float(v)
                continue
            rows.append(line.strip().split(","))
    header = rows[0]
    data = np.array(rows[1:], dtype=float)
    return header, data, weights


def main():
    workload = sys.argv[1]
    limit = float(sys.argv[2]) if len(sys.argv) > 2 else None
    dt = float(sys.argv[3]) if len(sys.argv) > 3 else 10.0
    model_path = sys.argv[4] if len(sys.argv) > 4 else os.path.join(
        HERE, "..", "models", "reference-umpc.yaml")
    model = yaml.safe_load(open(model_path))
    limit = limit if limit is not None else float(model["skin"]["limit_c"])

    names = [n["name"] for n in model["nodes"]]
    idx = {n: i for i, n in enumerate(names)}
    n = len(names)
    cap = np.array([x["capacity_j_per_k"] for x in model["nodes"]])
    g = np.array([x.get("to_ambient_w_per_k", 0.0) for x in model["nodes"]])
    lap = np.zeros((n, n))
    for link in model["links"]:
        a, b, w = idx[link["a"]], idx[link["b"]], link["w_per_k"]
        lap[a, a] += w
        lap[b, b] += w
        lap[a, b] -= w
        lap[b, a] -= w
    big = np.zeros((2 * n + 1, 2 * n + 1))
    big[:n, :n] = -(lap + np.diag(g)) / cap[:, None]
    big[:n, n:2 * n] = np.diag(1.0 / cap)
    big[:n, 2 * n] = g / cap
    e = expm(big * dt)
    ad, bp, ba = e[:n, :n], e[:n, n:2 * n], e[:n, 2 * n]

    header, data, wl_weights = load_workload(workload)
    steps = int(round((data[-1, 0] + 1) / dt))
    per = int(round(dt))
    devices = model["devices"]

    def mean_col(name, default):
        if name not in header:
            return np.full(steps, default)
        c = header.index(name)
        return np.array([data[k * per:(k + 1) * per, c].mean() for k in range(steps)])

    demand = {d["name"]: mean_col(d["name"], 0.0) for d in devices}
    ambient = mean_col("ambient_c", model["ambient_c"])
    weight = {d["name"]: wl_weights.get(d["name"], d.get("weight", 1.0)) for d in devices}

    var = [(di, l, k) for di, d in enumerate(devices) for l in range(len(d["power_w"]))
           for k in range(steps)]
    vi = {v: i for i, v in enumerate(var)}
    nv = len(var)
    total = sum(weight[d["name"]] * demand[d["name"]].sum() for d in devices)
    cost = np.zeros(nv)
    for (di, l, k), i in vi.items():
        d = devices[di]
        cost[i] = -weight[d["name"]] * demand[d["name"]][k] * d["performance"][l] / total

    a_eq, b_eq = [], []
    for di, d in enumerate(devices):
        for k in range(steps):
            row = np.zeros(nv)
            for l in range(len(d["power_w"])):
                row[vi[(di, l, k)]] = 1.0
            a_eq.append(row)
            b_eq.append(1.0)

    skins = [idx[s] for s in model["skin"]["nodes"]]
    t0 = np.array([x.get("initial_c", model["ambient_c"]) for x in model["nodes"]], dtype=float)
    fixed, lin = t0.copy(), np.zeros((n, nv))
    a_ub, b_ub = [], []
    for k in range(steps):
        p_fixed, p_lin = np.zeros(n), np.zeros((n, nv))
        for di, d in enumerate(devices):
            for h in d["heat"]:
                share, node = h.get("share", 1.0), idx[h["node"]]
                p_fixed[node] += d.get("idle_w", 0.0) * share
                for l, p in enumerate(d["power_w"]):
                    p_lin[node, vi[(di, l, k)]] += demand[d["name"]][k] * p * share
        fixed = ad @ fixed + bp @ p_fixed + ba * ambient[k]
        lin = ad @ lin + bp @ p_lin
        for s in skins:
            a_ub.append(lin[s])
            b_ub.append(limit - fixed[s])

    res = linprog(cost, A_ub=np.array(a_ub), b_ub=np.array(b_ub), A_eq=np.array(a_eq),
                  b_eq=np.array(b_eq), bounds=(0, 1), method="highs")
    name = os.path.basename(workload)
    if res.status != 0:
        print("%s: no feasible schedule keeps the skins <= %.2f °C (%s)" % (name, limit, res.message))
        return 1
    print("%s: best possible performance with skins <= %.2f °C: %.4f" % (name, limit, -res.fun))
    return 0


if __name__ == "__main__":
    sys.exit(main())
