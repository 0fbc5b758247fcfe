#!/usr/bin/env node
// tests/oracle/ort_run.js MODEL OUTDIR NAME=FILE.npy...
// Runs MODEL with onnxruntime (CPU) on the given .npy inputs and writes every graph
// output to OUTDIR/<sanitized name>.npy plus OUTDIR/outputs.json ({name: file}).
// This is the independent reference the end-to-end tests compare against.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');
const { npyRead, npyWrite } = require('./npy');

function sanitize(name) {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

async function main() {
  const args = process.argv.slice(2);
  if (args.length < 2) {
    process.stderr.write('usage: ort_run.js MODEL OUTDIR NAME=FILE.npy...\n');
    process.exit(1);
  }
  const [model, outdir, ...specs] = args;
  const feeds = {};
  for (const s of specs) {
    const eq = s.indexOf('=');
    if (eq <= 0) throw new Error(`bad input spec '${s}' (want NAME=FILE.npy)`);
    const a = npyRead(s.slice(eq + 1));
    feeds[s.slice(0, eq)] = new ort.Tensor(a.type, a.data, a.dims);
  }
  const sess = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    logSeverityLevel: 3, // errors only: UltraFace's initializer-as-input warnings are noise
  });
  for (const n of sess.inputNames)
    if (!(n in feeds)) throw new Error(`missing input '${n}'`);
  const res = await sess.run(feeds);
  fs.mkdirSync(outdir, { recursive: true });
  const index = {};
  const used = new Set();
  for (const name of sess.outputNames) {
    const t = res[name];
    let file = sanitize(name) + '.npy';
    for (let k = 1; used.has(file); k++) file = `${sanitize(name)}_${k}.npy`;
    used.add(file);
    npyWrite(path.join(outdir, file), t.type, t.dims, t.data);
    index[name] = file;
  }
  fs.writeFileSync(path.join(outdir, 'outputs.json'), JSON.stringify(index, null, 1) + '\n');
}

main().catch((e) => {
  process.stderr.write(`ort_run: ${e.message}\n`);
  process.exit(2);
});
