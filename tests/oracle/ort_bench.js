#!/usr/bin/env node
// tests/oracle/ort_bench.js MODEL THREADS RUNS [NAME=D0,D1,...]... [--warmup N] [--range LO,HI]
// Times onnxruntime (CPU) on MODEL: intraOpNumThreads=THREADS, interOpNumThreads=1,
// sequential execution, default graph optimisation. Inputs are seeded uniform random
// values in [LO,HI] (default 0,1); shapes come from the NAME=dims arguments, else
// from the model (dynamic dims without a given shape are an error).
// Prints one JSON line: {"median_ms", "min_ms", "peak_rss_kb", "runs", "threads"}.
// peak_rss_kb is the whole node process (node itself is ~40 MB of it).
'use strict';
const ort = require('onnxruntime-node');

function usage() {
  process.stderr.write('usage: ort_bench.js MODEL THREADS RUNS [NAME=D0,D1,...]... ' +
    '[--warmup N] [--range LO,HI]\n');
  process.exit(1);
}

// Small deterministic generator (xorshift32) so that runs are repeatable.
function makeRandom(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s / 4294967296;
  };
}

function fill(type, n, lo, hi, rnd) {
  switch (type) {
    case 'float32': {
      const a = new Float32Array(n);
      for (let i = 0; i < n; i++) a[i] = lo + (hi - lo) * rnd();
      return a;
    }
    case 'uint8': {
      const a = new Uint8Array(n);
      for (let i = 0; i < n; i++) a[i] = Math.floor(256 * rnd());
      return a;
    }
    case 'int64': {
      const a = new BigInt64Array(n);
      for (let i = 0; i < n; i++) a[i] = BigInt(Math.floor(lo + (hi - lo) * rnd()));
      return a;
    }
    default:
      throw new Error(`input type ${type} not supported`);
  }
}

async function main() {
  const args = process.argv.slice(2);
  if (args.length < 3) usage();
  const [model, threadsS, runsS] = args;
  const threads = parseInt(threadsS, 10);
  const runs = parseInt(runsS, 10);
  if (!(threads >= 1) || !(runs >= 1)) usage();
  let warmup = 3;
  let lo = 0, hi = 1;
  const shapes = {};
  for (let i = 3; i < args.length; i++) {
    const a = args[i];
    if (a === '--warmup' && i + 1 < args.length) {
      warmup = parseInt(args[++i], 10);
    } else if (a === '--range' && i + 1 < args.length) {
      [lo, hi] = args[++i].split(',').map(Number);
    } else if (a.includes('=')) {
      const eq = a.indexOf('=');
      shapes[a.slice(0, eq)] = a.slice(eq + 1).split(',').map(Number);
    } else {
      usage();
    }
  }
  const sess = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    logSeverityLevel: 3, // errors only: UltraFace's initializer-as-input warnings are noise
  });
  const rnd = makeRandom(12345);
  const feeds = {};
  const meta = sess.inputMetadata || [];
  sess.inputNames.forEach((name, k) => {
    const m = meta[k] || {};
    let dims = shapes[name];
    if (!dims) {
      dims = m.shape;
      if (!dims || dims.some((d) => typeof d !== 'number' || d < 0))
        throw new Error(`input '${name}' has dynamic dims: give NAME=D0,D1,...`);
    }
    const type = m.type || 'float32';
    const n = dims.reduce((a, b) => a * b, 1);
    feeds[name] = new ort.Tensor(type, fill(type, n, lo, hi, rnd), dims);
  });
  for (let i = 0; i < warmup; i++) await sess.run(feeds);
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    await sess.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  const mid = times.length >> 1;
  const median = times.length % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
  process.stdout.write(JSON.stringify({
    median_ms: +median.toFixed(3),
    min_ms: +times[0].toFixed(3),
    peak_rss_kb: process.resourceUsage().maxRSS,
    runs,
    threads,
  }) + '\n');
}

main().catch((e) => {
  process.stderr.write(`ort_bench: ${e.message}\n`);
  process.exit(2);
});
