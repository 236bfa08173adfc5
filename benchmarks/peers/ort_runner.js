#!/usr/bin/env node
// The ONNX Runtime side of the peer comparison (counterpart of
// bench_peer_litegraph): one ONNX model, one float32 .npy input, a
// session of --threads intra-op threads (default 1; inter-op threads 1,
// sequential execution, graph optimisations at their default "all" level);
// warm-up, N timed runs;
// writes the first output as .npy and prints one JSON line of timings.
//
//   node ort_runner.js --model M.onnx --input X.npy --output Y.npy
//                      [--runs N] [--warmup N] [--threads N] [--ort-dir DIR]
//
// onnxruntime-node is looked up in DIR/node_modules (--ort-dir, else
// $LITEGRAPH_PEERS_CACHE, else ~/.cache/litegraph-peers), then on Node's
// ordinary module path.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');

const USAGE = `usage: node ort_runner.js --model M.onnx --input X.npy --output Y.npy
                          [--runs N] [--warmup N] [--threads N] [--ort-dir DIR]

Runs M.onnx with ONNX Runtime (CPU, intraOpNumThreads --threads, interOpNumThreads 1,
sequential execution, graphOptimizationLevel "all") on X.npy (float32, fed to
the model's first input): --warmup untimed runs, then --runs timed runs.  Writes
the first output to Y.npy and prints one JSON line:
  {"runtime":"onnxruntime","median_ms":..,"min_ms":..,"times_ms":[..],
   "load_ms":..,"output":"Y.npy","output_shape":[..]}

  --runs N      timed runs (default 20)
  --warmup N    untimed runs first (default 3, at least 1)
  --threads N   intra-op threads (default 1)
  --ort-dir DIR folder whose node_modules holds onnxruntime-node
                (default $LITEGRAPH_PEERS_CACHE or ~/.cache/litegraph-peers)
`;

class UsageError extends Error {}

function parseArgs(argv) {
  const withValue = new Set(['--model', '--input', '--output', '--runs', '--warmup', '--threads', '--ort-dir']);
  const a = {};
  for (let i = 0; i < argv.length; ++i) {
    const s = argv[i];
    if (s === '--help' || s === '-h') {
      a.help = true;
    } else if (withValue.has(s)) {
      if (i + 1 >= argv.length) throw new UsageError(`option ${s} needs a value`);
      a[s.slice(2)] = argv[++i];
    } else {
      throw new UsageError(`unknown argument '${s}' (see --help)`);
    }
  }
  return a;
}

function count(name, v, fallback, lo) {
  if (v === undefined) return fallback;
  if (!/^[0-9]+$/.test(v) || Number(v) < lo)
    throw new UsageError(`--${name} expects an integer >= ${lo}, got '${v}'`);
  return Number(v);
}

// .npy version 1/2/3, little-endian float32, C order.
function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY')
    throw new Error(`${file}: not a .npy file (bad magic)`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header);
  const order = /'fortran_order'\s*:\s*(True|False)/.exec(header);
  const shape = /'shape'\s*:\s*\(([^)]*)\)/.exec(header);
  if (!descr || !order || !shape) throw new Error(`${file}: cannot parse the .npy header`);
  if (descr[1] !== '<f4') throw new Error(`${file}: dtype '${descr[1]}' (only float32 '<f4')`);
  if (order[1] !== 'False') throw new Error(`${file}: Fortran order is not supported`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const n = dims.reduce((p, d) => p * d, 1);
  const offset = start + headerLen;
  if (buf.length - offset !== n * 4)
    throw new Error(`${file}: ${buf.length - offset} data bytes, shape needs ${n * 4}`);
  const data = new Float32Array(n);
  for (let i = 0; i < n; ++i) data[i] = buf.readFloatLE(offset + 4 * i);
  return { dims, data };
}

function writeNpy(file, dims, data) {
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': ${shape}, }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  const body = Buffer.alloc(data.length * 4);
  for (let i = 0; i < data.length; ++i) body.writeFloatLE(data[i], 4 * i);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), body]));
}

function loadOrt(dir) {
  const candidates = [];
  if (dir) candidates.push(path.join(dir, 'node_modules', 'onnxruntime-node'));
  candidates.push('onnxruntime-node');
  const errors = [];
  for (const c of candidates) {
    try {
      return require(c);
    } catch (e) {
      errors.push(`${c}: ${e.message.split('\n')[0]}`);
    }
  }
  throw new Error(
    'cannot load onnxruntime-node (install it with `npm install onnxruntime-node ' +
      '--ignore-scripts` in the cache folder):\n  ' + errors.join('\n  '));
}

function median(sorted) {
  const n = sorted.length;
  return n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  if (a.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!a.model || !a.input || !a.output)
    throw new UsageError('--model, --input and --output are required (see --help)');
  const runs = count('runs', a.runs, 20, 1);
  const warmup = count('warmup', a.warmup, 3, 1);
  const threads = count('threads', a.threads, 1, 1);
  const ortDir = a['ort-dir'] || process.env.LITEGRAPH_PEERS_CACHE ||
                 path.join(os.homedir(), '.cache', 'litegraph-peers');
  const ort = loadOrt(ortDir);

  let t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(a.model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const loadMs = Number(process.hrtime.bigint() - t0) / 1e6;

  const x = readNpy(a.input);
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', x.data, x.dims) };
  const outName = session.outputNames[0];
  let result;
  for (let k = 0; k < warmup; ++k) result = await session.run(feeds);
  const times = [];
  for (let k = 0; k < runs; ++k) {
    t0 = process.hrtime.bigint();
    result = await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const out = result[outName];
  if (out.type !== 'float32') throw new Error(`output '${outName}' is ${out.type}, not float32`);
  const dims = out.dims.map(Number);
  writeNpy(a.output, dims, out.data);
  const sorted = [...times].sort((p, q) => p - q);
  console.log(JSON.stringify({
    runtime: 'onnxruntime',
    version: ort.env && ort.env.versions ? ort.env.versions.common : undefined,
    median_ms: median(sorted),
    min_ms: sorted[0],
    times_ms: times,
    load_ms: loadMs,
    runs,
    warmup,
    output: a.output,
    output_shape: dims,
  }));
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`ort_runner: ${e.message}\n`);
    process.exit(e instanceof UsageError ? 2 : 1);
  });
