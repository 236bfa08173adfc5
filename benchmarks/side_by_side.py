#!/usr/bin/env python3
"""Two builds of bench_models side by side in one run.

    benchmarks/side_by_side.py OLD/bin/bench_models NEW/bin/bench_models [--rounds 3] [--runs 20]
                               [--filter NAME]... [--json]

Runs both binaries with --json in alternating rounds (the first runner alternates per round,
so a slow phase of a shared machine hits both), takes each model's median_ms per round and
prints, per model, the median over rounds of each side and the median of the per-round
ratios NEW / OLD (below 1: the new build is faster). Also the arena and LOAD bytes of each
side, which a refactoring must not change. Models only one side runs are listed as such.

Exit status: 0 done, 1 a run failed, 2 usage.
"""
import argparse
import json
import statistics
import subprocess
import sys


def run(binary, runs, name_filter):
    cmd = [binary, "--json", "--runs", str(runs)]
    if name_filter:
        cmd += ["--filter", name_filter]
    p = subprocess.run(cmd, capture_output=True, text=True)
    try:
        models = json.loads(p.stdout)["models"]
    except (ValueError, KeyError):
        sys.stderr.write(p.stderr)
        raise RuntimeError(f"{' '.join(cmd)} exited with {p.returncode} without its JSON")
    # bench_models exits 1 when a model fails; the others are still timed.
    for m in models:
        if m.get("status") != "ok":
            print(f"side_by_side: {binary}: {m['name']} {m.get('status')}: {m.get('message', '')}",
                  file=sys.stderr)
    return {m["name"]: m for m in models if m.get("status") == "ok"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", help="the baseline bench_models binary")
    ap.add_argument("new", help="the bench_models binary under test")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    ap.add_argument("--runs", type=int, default=20, help="timed runs per model per round (default 20)")
    ap.add_argument("--filter", action="append", default=[],
                    help="only this model (repeatable; default: every model)")
    ap.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    a = ap.parse_args()
    if a.rounds < 1 or a.runs < 1:
        ap.error("--rounds and --runs must be at least 1")

    rounds = {"old": [], "new": []}
    try:
        for r in range(a.rounds):
            order = ["old", "new"] if r % 2 == 0 else ["new", "old"]
            for side in order:
                got = {}
                for f in a.filter or [None]:
                    got.update(run(getattr(a, side), a.runs, f))
                rounds[side].append(got)
                print(f"side_by_side: round {r + 1}/{a.rounds} {side} done", file=sys.stderr)
    except (OSError, RuntimeError, ValueError) as e:
        print(f"side_by_side: {e}", file=sys.stderr)
        return 1

    names = sorted(set(rounds["old"][0]) | set(rounds["new"][0]))
    rows = []
    for n in names:
        if not all(n in rd for rd in rounds["old"] + rounds["new"]):
            rows.append({"name": n, "only": "old" if n in rounds["old"][0] else "new"})
            continue
        old = [rd[n]["median_ms"] for rd in rounds["old"]]
        new = [rd[n]["median_ms"] for rd in rounds["new"]]
        rows.append({
            "name": n,
            "old_ms": statistics.median(old),
            "new_ms": statistics.median(new),
            "ratio": statistics.median(b / a for a, b in zip(old, new)),
            "old_arena": rounds["old"][0][n]["arena_bytes"],
            "new_arena": rounds["new"][0][n]["arena_bytes"],
            "old_load": rounds["old"][0][n]["lower_bound_bytes"],
            "new_load": rounds["new"][0][n]["lower_bound_bytes"],
        })
    timed = [r["ratio"] for r in rows if "ratio" in r]
    summary = {"rounds": a.rounds, "runs": a.runs, "models": rows,
               "median_ratio": statistics.median(timed) if timed else None,
               "max_ratio": max(timed) if timed else None}
    if a.json:
        print(json.dumps(summary, indent=1))
        return 0
    print(f"{'model':34} {'old ms':>10} {'new ms':>10} {'new/old':>8} {'arena old':>10} "
          f"{'arena new':>10} {'LOAD old':>10} {'LOAD new':>10}")
    for r in rows:
        if "only" in r:
            print(f"{r['name']:34} runs only in the {r['only']} build")
            continue
        print(f"{r['name']:34} {r['old_ms']:10.3f} {r['new_ms']:10.3f} {r['ratio']:8.3f} "
              f"{r['old_arena']:10} {r['new_arena']:10} {r['old_load']:10} {r['new_load']:10}")
    if timed:
        print(f"median new/old over {len(timed)} models: {summary['median_ratio']:.3f} "
              f"(max {summary['max_ratio']:.3f}); {a.rounds} rounds x {a.runs} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
