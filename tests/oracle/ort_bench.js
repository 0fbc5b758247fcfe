#!/usr/bin/env node
// tests/oracle/ort_bench.js MODEL THREADS RUNS [NAME=D0,D1,...]... [--warmup N] [--range LO,HI]
//                           [--profile] [--serve]
// Times onnxruntime (CPU) on MODEL: intraOpNumThreads=THREADS (THREADS 0: not set,
// onnxruntime's default, one per physical core), interOpNumThreads=1,
// sequential execution, default graph optimisation. Inputs are seeded uniform random
// values in [LO,HI] (default 0,1); shapes come from the NAME=dims arguments, else
// from the model (dynamic dims without a given shape are an error).
// Prints one JSON line: {"median_ms", "min_ms", "cpu_ms" (process user + system time
// per timed run), "peak_rss_kb", "runs", "threads", "times_ms" (every timed run, sorted)}.
// peak_rss_kb is the whole node process (node itself is ~40 MB of it).
// --profile: onnxruntime's own profiler on; per-op-type times and the slowest nodes
// (per-node median over the runs) go to stderr, in the layout of bench_model
// --profile. onnxruntime fuses nodes (Conv+Activation, ...), so its op types are
// those of the optimised graph. Profiling costs time: compare the breakdowns, not
// the medians of a profiled run.
// --serve: after the warm-up, per line read from stdin until the end of input,
// untimed runs for 5 ms (at least one), then RUNS timed runs and their JSON line
// (bench/turns.py's turns).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const ort = require('onnxruntime-node');

function usage() {
  process.stderr.write('usage: ort_bench.js MODEL THREADS RUNS [NAME=D0,D1,...]... ' +
    '[--warmup N] [--range LO,HI] [--profile] [--serve]\n');
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

// RUNS timed runs and their JSON line on stdout.
async function batch(sess, feeds, runs, threads) {
  const times = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    await sess.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const cpu = process.cpuUsage(cpu0);
  times.sort((a, b) => a - b);
  const mid = times.length >> 1;
  const median = times.length % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
  process.stdout.write(JSON.stringify({
    median_ms: +median.toFixed(3),
    min_ms: +times[0].toFixed(3),
    cpu_ms: +((cpu.user + cpu.system) / 1000 / runs).toFixed(3),
    peak_rss_kb: process.resourceUsage().maxRSS,
    runs,
    threads,
    times_ms: times.map((t) => +t.toFixed(4)),
  }) + '\n');
}

async function main() {
  const args = process.argv.slice(2);
  if (args.length < 3) usage();
  const [model, threadsS, runsS] = args;
  const threads = parseInt(threadsS, 10);
  const runs = parseInt(runsS, 10);
  if (!(threads >= 0) || !(runs >= 1)) usage();
  let warmup = 3;
  let lo = 0, hi = 1;
  let profile = false, serve = false;
  const shapes = {};
  for (let i = 3; i < args.length; i++) {
    const a = args[i];
    if (a === '--warmup' && i + 1 < args.length) {
      warmup = parseInt(args[++i], 10);
    } else if (a === '--range' && i + 1 < args.length) {
      [lo, hi] = args[++i].split(',').map(Number);
    } else if (a === '--profile') {
      profile = true;
    } else if (a === '--serve') {
      serve = true;
    } else if (a.includes('=')) {
      const eq = a.indexOf('=');
      shapes[a.slice(0, eq)] = a.slice(eq + 1).split(',').map(Number);
    } else {
      usage();
    }
  }
  const opts = {
    executionProviders: ['cpu'],
    ...(threads ? { intraOpNumThreads: threads } : {}),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    logSeverityLevel: 3, // errors only: UltraFace's initializer-as-input warnings are noise
  };
  let profDir = null;
  if (profile) {
    profDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ort-prof-'));
    opts.enableProfiling = true;
    opts.profileFilePrefix = path.join(profDir, 'ort');
  }
  const sess = await ort.InferenceSession.create(model, opts);
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
  if (serve) {
    const rl = require('readline').createInterface({ input: process.stdin });
    for await (const _ of rl) {
      // untimed runs for 5 ms, at least one (see bench_model.c)
      const t0 = process.hrtime.bigint();
      do await sess.run(feeds); while (process.hrtime.bigint() - t0 < 5000000n);
      await batch(sess, feeds, runs, threads);
    }
  } else {
    await batch(sess, feeds, runs, threads);
  }
  if (profile) {
    sess.endProfiling();
    const files = fs.readdirSync(profDir).filter((f) => f.endsWith('.json'));
    if (files.length) printProfile(JSON.parse(fs.readFileSync(path.join(profDir, files[0]))), runs);
    fs.rmSync(profDir, { recursive: true, force: true });
  }
}

function median(v) {
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// ORT trace events: one "<node>_kernel_time" per node per run (warm-ups included,
// so only the last `runs` samples of each node count).
function printProfile(events, runs) {
  const nodes = new Map();
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
    const name = e.name.slice(0, -'_kernel_time'.length);
    if (!nodes.has(name)) {
      const a = e.args || {};
      const shp = (l) => (l || []).map((t) => Object.values(t)[0].join('x'));
      nodes.set(name, { op: a.op_name || '?', us: [], in: shp(a.input_type_shape),
        out: shp(a.output_type_shape) });
    }
    nodes.get(name).us.push(e.dur);
  }
  const ops = new Map();
  let total = 0;
  const list = [];
  for (const [name, n] of nodes) {
    const us = median(n.us.slice(-runs));
    list.push({ name, op: n.op, us, in: n.in, out: n.out });
    total += us;
    const o = ops.get(n.op) || { count: 0, us: 0 };
    o.count++;
    o.us += us;
    ops.set(n.op, o);
  }
  const w = (s, n) => String(s).padEnd(n);
  const r = (s, n) => String(s).padStart(n);
  let t = `ort profile: ${list.length} nodes, ${(total / 1000).toFixed(3)} ms in kernels ` +
    '(sum of per-node medians)\n';
  t += `  ${w('op', 22)} ${r('nodes', 6)} ${r('ms/run', 10)} ${r('%', 6)}\n`;
  for (const [op, o] of [...ops].sort((a, b) => b[1].us - a[1].us))
    t += `  ${w(op, 22)} ${r(o.count, 6)} ${r((o.us / 1000).toFixed(3), 10)} ` +
      `${r((total ? (100 * o.us) / total : 0).toFixed(1), 5)}%\n`;
  t += '  slowest nodes:\n';
  for (const n of list.sort((a, b) => b.us - a.us).slice(0, Number(process.env.BENCH_PROFILE_LAYERS) || 10))
    t += `  ${w(n.op, 16)} ${w(n.name.slice(0, 28), 28)} ${r((n.us / 1000).toFixed(3), 9)} ms  ` +
      `${n.in[0] || '-'} -> ${n.out[0] || '-'}\n`;
  process.stderr.write(t);
}

main().catch((e) => {
  process.stderr.write(`ort_bench: ${e.message}\n`);
  process.exit(2);
});
