#!/usr/bin/python3
"""Peer benchmark of lrsdl's sparse coder against scikit-learn.

Times the Go programs built from bench/sparsecode (one per BLAS backend) and
scikit-learn's sparse_encode (lasso_cd and lasso_lars) and orthogonal_mp on
the same .npy problems, everything on one thread, alternating the sides over
the repetitions, and writes a markdown table of medians, ratios, objectives
and duality gaps. For benchmarks only: needs numpy and scikit-learn
(apt-get install -y python3-sklearn python3-numpy).

    python3 bench/sparsecode/run.py --dir out/sparsecode \
        --go gonum=out/sparsecode/bin-purego --go openblas=out/sparsecode/bin-openblas \
        --reps 3 --out bench/sparsecode/RESULTS.md
"""
import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
           "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse
import json
import platform
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np
import sklearn
from sklearn.decomposition import sparse_encode
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import orthogonal_mp

CELLS = [(300, 50, 500), (300, 500, 500), (1024, 1010, 1000)]


def name(c):
    return "d%dK%dn%d" % c


def objective(D, Y, X, lam):
    """Primal ½‖Y − DX‖²_F + λ‖X‖₁ and the dual value at the feasible point
    θ_j = r_j·min(1, λ/‖Dᵀr_j‖_∞) of every column (r = Y − DX)."""
    R = Y - D @ X
    P = 0.5 * float((R * R).sum()) + lam * float(np.abs(X).sum())
    C = np.abs(D.T @ R).max(axis=0)
    s = np.ones_like(C)
    big = C > lam
    s[big] = lam / C[big]
    T = R * s
    dual = float((T * Y).sum()) - 0.5 * float((T * T).sum())
    return P, dual


def run_go(binary, args, save):
    env = dict(os.environ, GOMAXPROCS="1")
    cmd = [binary, "-dir", args.dir, "-procs", "1", "-cells", ",".join(name(c) for c in CELLS)]
    cmd += ["-save"] if save else []
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def run_sklearn(args, save, lars):
    recs = []
    T = int(np.load(os.path.join(args.dir, "omp_T.npy"))[0])
    lambdas = [float(v) for v in np.load(os.path.join(args.dir, "lambda.npy"))]
    for c in CELLS:
        D = np.load(os.path.join(args.dir, name(c) + "_D.npy"))
        Y = np.load(os.path.join(args.dir, name(c) + "_Y.npy"))
        Dt, Yt = np.ascontiguousarray(D.T), np.ascontiguousarray(Y.T)
        for lam in lambdas:
            for algo in ["lasso_cd"] + (["lasso_lars"] if lars else []):
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    C = sparse_encode(Yt, Dt, algorithm=algo, alpha=lam)
                sec = time.perf_counter() - t0
                r = dict(backend="sklearn", cell=name(c), solver=algo, **{"lambda": lam}, seconds=sec)
                if save:
                    r["file"] = os.path.join(args.dir, "sklearn", "%s_lam%g_%s_X.npy" % (name(c), lam, algo))
                    os.makedirs(os.path.dirname(r["file"]), exist_ok=True)
                    np.save(r["file"], np.ascontiguousarray(C.T))
                recs.append(r)
                print("  sklearn %s %s λ=%g %.3fs" % (algo, name(c), lam, sec), file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        X = orthogonal_mp(D, Y, n_nonzero_coefs=T)
        sec = time.perf_counter() - t0
        r = dict(backend="sklearn", cell=name(c), solver="omp", T=T, seconds=sec)
        if save:
            r["file"] = os.path.join(args.dir, "sklearn", "%s_omp%d_X.npy" % (name(c), T))
            os.makedirs(os.path.dirname(r["file"]), exist_ok=True)
            np.save(r["file"], X.reshape(D.shape[1], Y.shape[1]))
        recs.append(r)
    return recs


def key(r):
    return (r["backend"], r["cell"], r["solver"], r.get("lambda"), r.get("T"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="out/sparsecode")
    ap.add_argument("--go", action="append", default=[], help="backend=binary")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--lars-reps", type=int, default=1, help="repetitions that also time lasso_lars")
    ap.add_argument("--out", default="bench/sparsecode/RESULTS.md")
    ap.add_argument("--cells", default="", help="comma-separated cells such as d300K50n500 (default all)")
    args = ap.parse_args()
    if args.cells:
        CELLS[:] = [c for c in CELLS if name(c) in args.cells.split(",")]
    gos = [g.split("=", 1) for g in args.go]
    times, first = {}, {}
    for rep in range(args.reps):
        sides = [("go", b, p) for b, p in gos] + [("sklearn", None, None)]
        if rep % 2 == 1:
            sides.reverse()
        for kind, backend, binary in sides:
            print("rep %d: %s" % (rep + 1, backend or kind), file=sys.stderr, flush=True)
            if kind == "go":
                recs = run_go(binary, args, rep == 0)
            else:
                recs = run_sklearn(args, rep == 0, rep < args.lars_reps)
            for r in recs:
                times.setdefault(key(r), []).append(r["seconds"])
                if rep == 0:
                    first[key(r)] = r
    write(args, gos, times, first)


def med(times, k):
    v = times.get(k)
    return statistics.median(v) if v else float("nan")


def write(args, gos, times, first):
    lambdas = [float(v) for v in np.load(os.path.join(args.dir, "lambda.npy"))]
    T = int(np.load(os.path.join(args.dir, "omp_T.npy"))[0])
    backends = [b for b, _ in gos]
    lines = []
    lines.append("# Sparse coding against scikit-learn\n")
    lines.append("Written by `make bench-sparsecode` (bench/sparsecode/run.py). Problems: D (d×K) Gaussian atoms "
                 "scaled to unit norm, Y (d×n) Gaussian columns scaled to unit norm (fixed seed, "
                 "`go run ./bench/sparsecode -gen`). Objective ½‖Y − DX‖²_F + λ‖X‖₁; sklearn's "
                 "`sparse_encode(alpha=λ)` solves the same problem. One thread on every side (GOMAXPROCS=1, "
                 "OMP/OPENBLAS/MKL_NUM_THREADS=1), the sides alternated over %d repetitions, medians; "
                 "lasso_lars timed in the first %d. Times include G = DᵀD and DᵀY on every side.\n"
                 % (args.reps, args.lars_reps))
    lines.append("Machine: %s, Python %s, numpy %s, scikit-learn %s.\n" % (
        platform.platform(), platform.python_version(), np.__version__, sklearn.__version__))
    lines.append("**rel** is (P − D*)/D* with P the solver's objective and D* the best dual value of all "
                 "solvers' residuals (each a certified lower bound on the optimum), so it bounds the "
                 "solver's relative distance to the optimum. **cd/ours** is sklearn lasso_cd's time over "
                 "ours (> 1: ours faster).\n")
    hdr = "| d,K,n | λ | ours: algorithm, stop | " + " | ".join("ours %s s" % b for b in backends) + \
          " | lasso_cd s | " + " | ".join("cd/ours %s" % b for b in backends) + \
          " | lasso_lars s | rel ours | rel lasso_cd | rel lasso_lars |"
    lines.append(hdr)
    lines.append("|" + "---|" * (hdr.count("|") - 1))
    for c in CELLS:
        D = np.load(os.path.join(args.dir, name(c) + "_D.npy"))
        Y = np.load(os.path.join(args.dir, name(c) + "_Y.npy"))
        for lam in lambdas:
            vals, duals = {}, []
            cand = [(b, "coder") for b in backends] + [("sklearn", "lasso_cd"), ("sklearn", "lasso_lars")]
            for b, s in cand:
                r = first.get((b, name(c), s, lam, None))
                if r is None or "file" not in r:
                    continue
                X = np.load(r["file"])
                P, dual = objective(D, Y, X, lam)
                vals[(b, s)] = P
                duals.append(dual)
            Dstar = max(duals) if duals else float("nan")
            rel = {k: (v - Dstar) / Dstar for k, v in vals.items()}
            ours = first.get((backends[0], name(c), "coder", lam, None), {}) if backends else {}
            algo = "%s, %s" % (ours.get("algorithm", "?"), ours.get("stop", "?"))
            if ours.get("capped"):
                algo += " (%d capped)" % ours["capped"]
            tcd = med(times, ("sklearn", name(c), "lasso_cd", lam, None))
            row = ["%d,%d,%d" % c, "%g" % lam, algo]
            row += ["%.4f" % med(times, (b, name(c), "coder", lam, None)) for b in backends]
            row += ["%.4f" % tcd]
            row += ["%.2f" % (tcd / med(times, (b, name(c), "coder", lam, None))) for b in backends]
            row += ["%.4f" % med(times, ("sklearn", name(c), "lasso_lars", lam, None))]
            rs = [rel.get((b, "coder")) for b in backends]
            rs = [v for v in rs if v is not None]
            row += ["%.1e" % max(rs) if rs else "–"]
            row += ["%.1e" % rel[k] if k in rel else "–" for k in [("sklearn", "lasso_cd"), ("sklearn", "lasso_lars")]]
            lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    lines.append("OMP with T = %d atoms per column (`core.OMP` against `orthogonal_mp(D, Y, n_nonzero_coefs=T)` "
                 "at its defaults); **max |ΔX|** is the largest difference of the codes.\n" % T)
    hdr = "| d,K,n | " + " | ".join("ours %s s" % b for b in backends) + " | orthogonal_mp s | " + \
          " | ".join("omp/ours %s" % b for b in backends) + " | max abs dX |"
    lines.append(hdr)
    lines.append("|" + "---|" * (hdr.count("|") - 1))
    for c in CELLS:
        ts = med(times, ("sklearn", name(c), "omp", None, T))
        row = ["%d,%d,%d" % c]
        row += ["%.4f" % med(times, (b, name(c), "omp", None, T)) for b in backends]
        row += ["%.4f" % ts]
        row += ["%.1f" % (ts / med(times, (b, name(c), "omp", None, T))) for b in backends]
        diff = []
        rs = first.get(("sklearn", name(c), "omp", None, T))
        for b in backends:
            r = first.get((b, name(c), "omp", None, T))
            if r and rs and "file" in r and "file" in rs:
                diff.append(float(np.abs(np.load(r["file"]) - np.load(rs["file"])).max()))
        row += ["%.1e" % max(diff) if diff else "–"]
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    with open(args.out, "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
