#!/usr/bin/env python3
"""litegraph against ONNX Runtime on the PP-OCR direction classifier.

With --int8 the quantized pair runs too, in the same alternating rounds:
litegraph on the slim-quant Paddle export (ppocr_mobile_v2.0_cls_slim_quant)
and ONNX Runtime on the int8 QDQ twin (ppocr_mobile_v2.0_cls_int8_qdq.onnx,
per-channel int8 weights, u8 activations); the table then also gives each
runtime's int8 / fp32.  The two int8 models are quantized independently (their
scales differ), so their outputs are held to --int8-tolerance, not to fp32's.

For each input shape: writes a deterministic input (float element i is
sin(0.37 i) cos(0.011 i), as the reference inputs), then runs litegraph
(bench_peer_litegraph on the Paddle model) and ONNX Runtime (ort_runner.js on
the ONNX twin) alternately for several rounds, each a warm-up plus N timed
runs, single thread (--threads N: ONNX Runtime with N intra-op threads, and
litegraph with --threads N when its benchmark has that option).  The median over all timed runs of all rounds is
reported per runtime, with the ratio litegraph / ONNX Runtime.  Every round's
two outputs must agree to --tolerance, else the script fails.

Only the Python standard library is needed.  ONNX Runtime comes from npm
(onnxruntime-node, installed with --ignore-scripts into a cache folder outside
the repository); node and npm must be on PATH.

Exit status: 0 done, 1 a run failed or the outputs disagree, 2 usage error,
3 node/npm missing or the install failed, 4 the model files are missing.
"""

import argparse
import json
import math
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SHARED = REPO.parent / "shared"
DEFAULT_SHAPES = ["1x3x32x100", "1x3x48x192", "8x3x48x192"]


class Failure(Exception):
    def __init__(self, message, code=1):
        super().__init__(message)
        self.code = code


def parse_shape(text):
    try:
        dims = [int(d) for d in text.lower().split("x")]
    except ValueError:
        dims = []
    if len(dims) != 4 or any(d <= 0 for d in dims) or dims[1] != 3:
        raise argparse.ArgumentTypeError(f"shape '{text}' is not NxCxHxW with C = 3 (e.g. 1x3x48x192)")
    return dims


def write_npy(path, dims, values):
    shape = "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % shape
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%df" % len(values), *values))


def read_npy(path):
    data = Path(path).read_bytes()
    if data[:6] != b"\x93NUMPY":
        raise Failure(f"{path}: not a .npy file")
    if data[6] == 1:
        hlen, start = struct.unpack("<H", data[8:10])[0], 10
    else:
        hlen, start = struct.unpack("<I", data[8:12])[0], 12
    header = data[start:start + hlen].decode("latin1")
    if "'<f4'" not in header or "'fortran_order': False" not in header:
        raise Failure(f"{path}: expected a C-order float32 .npy, header {header.strip()}")
    shape_text = header.split("'shape':")[1].split("(")[1].split(")")[0]
    dims = [int(d) for d in shape_text.split(",") if d.strip()]
    body = data[start + hlen:]
    n = math.prod(dims)
    if len(body) != 4 * n:
        raise Failure(f"{path}: {len(body)} data bytes for shape {dims}")
    return dims, struct.unpack("<%df" % n, body)


def deterministic_input(dims):
    n = math.prod(dims)
    return [math.sin(0.37 * i) * math.cos(0.011 * i) for i in range(n)]


def run_json(cmd, what):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise Failure(f"{what}: cannot start {cmd[0]}: {e}")
    if p.returncode != 0:
        raise Failure(f"{what} failed (exit {p.returncode}): {' '.join(map(str, cmd))}\n{p.stderr.strip()}")
    try:
        return json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise Failure(f"{what}: no JSON on stdout:\n{p.stdout}\n{p.stderr}")


def ensure_ort(cache, log):
    """node and npm on PATH, onnxruntime-node installed in cache and loadable."""
    node, npm = shutil.which("node"), shutil.which("npm")
    missing = [n for n, p in (("node", node), ("npm", npm)) if not p]
    if missing:
        raise Failure(f"{' and '.join(missing)} not found on PATH: the ONNX Runtime side runs on Node "
                      "(install Node.js with npm, e.g. the distribution's nodejs and npm packages)", 3)
    module = cache / "node_modules" / "onnxruntime-node"
    if not module.is_dir():
        log(f"installing onnxruntime-node into {cache} (npm install --ignore-scripts) ...")
        cache.mkdir(parents=True, exist_ok=True)
        if not (cache / "package.json").exists():
            (cache / "package.json").write_text('{"private": true}\n')
        p = subprocess.run([npm, "install", "onnxruntime-node", "--ignore-scripts", "--no-audit",
                            "--no-fund"], cwd=cache, capture_output=True, text=True)
        if p.returncode != 0:
            raise Failure(f"npm install onnxruntime-node failed in {cache} (exit {p.returncode}):\n"
                          f"{(p.stderr or p.stdout).strip()}", 3)
    probe = ("const o = require(process.argv[1]); "
             "console.log(o.env && o.env.versions ? o.env.versions.common : 'unknown')")
    p = subprocess.run([node, "-e", probe, str(module)], capture_output=True, text=True)
    if p.returncode != 0:
        raise Failure(f"node cannot load onnxruntime-node from {module}:\n{p.stderr.strip()}\n"
                      f"(remove {cache} to reinstall)", 3)
    return node, p.stdout.strip()


def litegraph_has_threads(exe):
    """Whether bench_peer_litegraph takes --threads (its --help lists it)."""
    p = subprocess.run([str(exe), "--help"], capture_output=True, text=True)
    return p.returncode == 0 and "--threads" in p.stdout


def ensure_litegraph(build_dir, native, log):
    """Builds bench_peer_litegraph.  `native` (True/False) configures build_dir
    with LITEGRAPH_NATIVE on or off; None leaves a configured folder as it is."""
    exe = build_dir / "bin" / "bench_peer_litegraph"
    if native is not None or not (build_dir / "CMakeCache.txt").exists():
        if not shutil.which("cmake"):
            raise Failure("cmake not found: build bench_peer_litegraph or give --build-dir", 1)
        flags = "-march=native" if native else "default flags, run-time SIMD dispatch"
        log(f"configuring {build_dir} (Release, {flags}) ...")
        gen = [] if (build_dir / "CMakeCache.txt").exists() else (["-G", "Ninja"] if shutil.which("ninja") else [])
        p = subprocess.run(["cmake", "-S", str(REPO), "-B", str(build_dir), *gen,
                            "-DCMAKE_BUILD_TYPE=Release", "-DLITEGRAPH_BUILD_TESTS=OFF",
                            "-DLITEGRAPH_BUILD_BENCHMARKS=ON",
                            f"-DLITEGRAPH_NATIVE={'ON' if native else 'OFF'}"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise Failure(f"cmake configure failed:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    log(f"building bench_peer_litegraph in {build_dir} ...")
    p = subprocess.run(["cmake", "--build", str(build_dir), "--target", "bench_peer_litegraph", "-j2"],
                       capture_output=True, text=True)
    if p.returncode != 0 or not exe.exists():
        raise Failure(f"building bench_peer_litegraph failed:\n{p.stdout[-4000:]}\n{p.stderr[-2000:]}")
    return exe


def compare(shape, a_path, b_path, tol):
    da, va = read_npy(a_path)
    db, vb = read_npy(b_path)
    if da != db:
        raise Failure(f"{shape}: output shapes differ: litegraph {da}, ONNX Runtime {db}")
    diff = max((abs(x - y) for x, y in zip(va, vb)), default=0.0)
    if not diff <= tol:  # also catches NaN
        raise Failure(f"{shape}: outputs disagree: max |litegraph - ONNX Runtime| = {diff:.3g} > {tol:g}")
    return diff


def main():
    ap = argparse.ArgumentParser(
        description="litegraph vs ONNX Runtime on ppocr_mobile_v2.0_cls, run alternately "
                    "(single thread unless --threads).",
        epilog="Exit status: 0 done, 1 a run failed or outputs disagree, 2 usage, "
               "3 node/npm missing or install failed, 4 model files missing.")
    ap.add_argument("--build-dir", type=Path,
                    help="a configured build folder, used as configured; bench_peer_litegraph is "
                         "built in it if needed (default: <repo>/build-bench, configured Release "
                         "as the quick start does, or <repo>/build-bench-native with --native)")
    ap.add_argument("--native", action="store_true",
                    help="build litegraph with -march=native (-DLITEGRAPH_NATIVE=ON) instead of "
                         "the default build, whose kernels pick this CPU's vector instructions "
                         "at run time (kernels/simd.hpp; LITEGRAPH_SIMD=sse2|avx2|avx512 in the "
                         "environment forces one), as ONNX Runtime does")
    ap.add_argument("--portable", action="store_true", help=argparse.SUPPRESS)  # the default now
    ap.add_argument("--threads", type=int,
                    help="ONNX Runtime's intra-op threads, and litegraph's --threads when "
                         "bench_peer_litegraph has that option (default 1)")
    ap.add_argument("--cache", type=Path,
                    default=Path(os.environ.get("LITEGRAPH_PEERS_CACHE",
                                                Path.home() / ".cache" / "litegraph-peers")),
                    help="where onnxruntime-node is installed (default $LITEGRAPH_PEERS_CACHE "
                         "or ~/.cache/litegraph-peers)")
    ap.add_argument("--shape", dest="shapes", action="append", type=parse_shape,
                    help="input shape NxCxHxW (repeatable; default %s)" % ", ".join(DEFAULT_SHAPES))
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds per shape (default 5)")
    ap.add_argument("--runs", type=int, default=20, help="timed runs per round (default 20)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed runs per round (default 3)")
    ap.add_argument("--tolerance", type=float, default=1e-4,
                    help="max |litegraph - ORT| per output element (default 1e-4)")
    ap.add_argument("--model", type=Path, default=SHARED / "models" / "ppocr_mobile_v2.0_cls",
                    help="the Paddle model folder")
    ap.add_argument("--onnx", type=Path, default=SHARED / "onnx_twins" / "ppocr_mobile_v2.0_cls.onnx",
                    help="the ONNX twin")
    ap.add_argument("--int8", action="store_true",
                    help="also run the int8 pair in the same rounds: litegraph on --int8-model, "
                         "ONNX Runtime on --int8-onnx; adds each runtime's int8 / fp32")
    ap.add_argument("--int8-model", type=Path,
                    default=SHARED / "models" / "ppocr_mobile_v2.0_cls_slim_quant",
                    help="the quantized Paddle model folder (with --int8)")
    ap.add_argument("--int8-onnx", type=Path,
                    default=SHARED / "onnx_twins" / "ppocr_mobile_v2.0_cls_int8_qdq.onnx",
                    help="the int8 QDQ ONNX twin (with --int8)")
    ap.add_argument("--int8-tolerance", type=float, default=0.15,
                    help="max |litegraph - ORT| per output element of the int8 pair (default "
                         "0.15: the two are quantized independently; seen up to 0.096)")
    ap.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    a = ap.parse_args()
    for name in ("rounds", "runs", "warmup", "threads"):
        if getattr(a, name) is not None and getattr(a, name) < 1:
            ap.error(f"--{name} must be at least 1")
    shapes = a.shapes or [parse_shape(s) for s in DEFAULT_SHAPES]

    def log(msg):
        print(f"peers: {msg}", file=sys.stderr, flush=True)

    try:
        pairs = [("fp32", a.model, a.onnx, a.tolerance)]
        if a.int8:
            pairs.append(("int8", a.int8_model, a.int8_onnx, a.int8_tolerance))
        for path, what in [(p[1], f"{p[0]} Paddle model folder") for p in pairs] + \
                          [(p[2], f"{p[0]} ONNX model") for p in pairs]:
            if not path.exists():
                raise Failure(f"the {what} {path} is absent (the shared test data sits beside the "
                              "checkout, ../shared)", 4)
        node, ort_version = ensure_ort(a.cache.resolve(), log)
        if a.build_dir:
            exe = ensure_litegraph(a.build_dir.resolve(), None, log)
        else:
            default = REPO / ("build-bench-native" if a.native else "build-bench")
            exe = ensure_litegraph(default.resolve(), a.native, log)
        ort_threads = a.threads or 1
        lg_threads = []
        if litegraph_has_threads(exe):
            lg_threads = ["--threads", str(ort_threads)]
        elif ort_threads > 1:
            log(f"bench_peer_litegraph has no --threads: litegraph runs one thread, "
                f"ONNX Runtime {ort_threads}")
        simd = "?"
        rows = []
        with tempfile.TemporaryDirectory(prefix="litegraph-peers-") as tmp:
            tmp = Path(tmp)
            for dims in shapes:
                shape = "x".join(map(str, dims))
                x = tmp / f"input_{shape}.npy"
                write_npy(x, dims, deterministic_input(dims))
                runners = [(prec, who) for prec, *_ in pairs for who in ("litegraph", "onnxruntime")]
                times = {r: [] for r in runners}
                round_medians = {r: [] for r in runners}
                max_diff = {prec: 0.0 for prec, *_ in pairs}
                common = ["--input", str(x), "--runs", str(a.runs), "--warmup", str(a.warmup)]
                cmds, out = {}, {}
                for prec, model, onnx, _ in pairs:
                    for who in ("litegraph", "onnxruntime"):
                        out[prec, who] = tmp / f"{prec}_{who}.npy"
                    cmds[prec, "litegraph"] = [str(exe), "--model", str(model), "--output",
                                               str(out[prec, "litegraph"]), *common, *lg_threads]
                    cmds[prec, "onnxruntime"] = [node, str(HERE / "ort_runner.js"), "--model",
                                                 str(onnx), "--ort-dir", str(a.cache.resolve()),
                                                 "--output", str(out[prec, "onnxruntime"]),
                                                 "--threads", str(ort_threads), *common]
                for r in range(a.rounds):
                    log(f"{shape}: round {r + 1}/{a.rounds}")
                    # Alternate the order, so no runner always runs on a cooler machine.
                    for runner in (runners if r % 2 == 0 else runners[::-1]):
                        j = run_json(cmds[runner], f"{runner[1]} ({runner[0]}) on {shape}")
                        if runner == ("fp32", "litegraph"):
                            simd = j.get("simd", simd)
                        times[runner] += j["times_ms"]
                        round_medians[runner].append(j["median_ms"])
                    for prec, _, _, tol in pairs:
                        max_diff[prec] = max(max_diff[prec],
                                             compare(f"{shape} ({prec})", out[prec, "litegraph"],
                                                     out[prec, "onnxruntime"], tol))
                median = {r: statistics.median(times[r]) for r in runners}
                for prec, *_ in pairs:
                    lg, ort = median[prec, "litegraph"], median[prec, "onnxruntime"]
                    row = {
                        "shape": dims,
                        "precision": prec,
                        "litegraph_median_ms": lg,
                        "onnxruntime_median_ms": ort,
                        "ratio": lg / ort,
                        "litegraph_min_ms": min(times[prec, "litegraph"]),
                        "onnxruntime_min_ms": min(times[prec, "onnxruntime"]),
                        "litegraph_round_medians_ms": round_medians[prec, "litegraph"],
                        "onnxruntime_round_medians_ms": round_medians[prec, "onnxruntime"],
                        "max_abs_diff": max_diff[prec],
                    }
                    if prec == "int8":
                        row["litegraph_int8_over_fp32"] = lg / median["fp32", "litegraph"]
                        row["onnxruntime_int8_over_fp32"] = ort / median["fp32", "onnxruntime"]
                    rows.append(row)
    except Failure as e:
        print(f"peers: error: {e}", file=sys.stderr)
        return e.code

    if a.json:
        print(json.dumps({
            "model": a.model.name,
            "onnxruntime_version": ort_version,
            "threads": ort_threads,
            "litegraph_threads": ort_threads if lg_threads else 1,
            "litegraph_simd": simd,
            "rounds": a.rounds,
            "runs_per_round": a.runs,
            "warmup_per_round": a.warmup,
            "tolerance": a.tolerance,
            **({"int8_model": a.int8_model.name, "int8_tolerance": a.int8_tolerance}
               if a.int8 else {}),
            "results": rows,
        }, indent=2))
    else:
        threads = ("single thread" if ort_threads == 1 else
                   f"ONNX Runtime {ort_threads} intra-op threads, litegraph "
                   + (f"{ort_threads} threads" if lg_threads else "1 thread (no --threads)"))
        models = a.model.name + (f" and {a.int8_model.name} (int8)" if a.int8 else "")
        print(f"{models}, {threads}, median of {a.rounds} rounds x {a.runs} runs "
              f"(alternating); ONNX Runtime {ort_version}; litegraph SIMD {simd}")
        print(f"{'shape':<12} {'':<5} {'litegraph ms':>13} {'ORT ms':>10} {'litegraph/ORT':>14} "
              f"{'max |diff|':>11}" + (f" {'int8/fp32: litegraph':>21} {'ORT':>6}" if a.int8 else ""))
        for r in rows:
            line = (f"{'x'.join(map(str, r['shape'])):<12} {r['precision']:<5} "
                    f"{r['litegraph_median_ms']:>13.3f} {r['onnxruntime_median_ms']:>10.3f} "
                    f"{r['ratio']:>14.2f} {r['max_abs_diff']:>11.2e}")
            if "litegraph_int8_over_fp32" in r:
                line += (f" {r['litegraph_int8_over_fp32']:>21.2f} "
                         f"{r['onnxruntime_int8_over_fp32']:>6.2f}")
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
