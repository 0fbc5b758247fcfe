#!/usr/bin/env node
// tests/api/make_refs.js [SHARED_DIR] — reference outputs for tests/unit/test_api_*.c.
//
// Runs mnist.onnx and multiple_input_demo.onnx with onnxruntime-node (the independent
// oracle) on inputs defined by formulas that the C tests rebuild exactly, and writes
// small little-endian binaries into tests/api/:
//   mnist_out.f32          the 10 outputs of mnist (input u8 pattern (i*37+11)%256)
//   demo_out_s97.f32       output '8' of multiple_input_demo at flat indices 0, 97, 194, ...
//   demo_out_stats.f64     [sum, sum of |x|] over the whole demo output
// The demo model itself is not committed (RKNN SDK licence, limited redistribution):
// it is read from SHARED_DIR/data/models/rknn/ (default $RT_SHARED or ../shared).
// Run: NODE_PATH=tests/oracle/node_modules node tests/api/make_refs.js
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const root = path.resolve(__dirname, '../..');
const shared = process.argv[2] || process.env.RT_SHARED || path.join(root, '../shared');

// The same formulas as tests/unit/test_api_general.c.
const mnistIn = (i) => (i * 37 + 11) % 256;
const demoIn1 = (i) => (i * 13 + 7) % 256;              // input.1 [1,1,128,128]
const demoIn2 = (c, h, w) => (c * 31 + h * 7 + w * 3) % 256; // input [1,3,128,128]

function writeF32(file, arr) {
  fs.writeFileSync(path.join(__dirname, file), Buffer.from(new Float32Array(arr).buffer));
}

async function run(model, feeds) {
  const s = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'], intraOpNumThreads: 1, logSeverityLevel: 3,
  });
  const r = await s.run(feeds);
  return r[s.outputNames[0]];
}

async function main() {
  const mn = new Float32Array(28 * 28).map((_, i) => mnistIn(i));
  const o1 = await run(path.join(root, 'tests/data/models/mnist.onnx'),
    { Input3: new ort.Tensor('float32', mn, [1, 1, 28, 28]) });
  writeF32('mnist_out.f32', o1.data);

  const a = new Float32Array(128 * 128).map((_, i) => demoIn1(i));
  const b = new Float32Array(3 * 128 * 128);
  for (let c = 0; c < 3; c++)
    for (let h = 0; h < 128; h++)
      for (let w = 0; w < 128; w++) b[(c * 128 + h) * 128 + w] = demoIn2(c, h, w);
  const o2 = await run(path.join(shared, 'data/models/rknn/multiple_input_demo.onnx'), {
    'input.1': new ort.Tensor('float32', a, [1, 1, 128, 128]),
    input: new ort.Tensor('float32', b, [1, 3, 128, 128]),
  });
  if (o2.dims.join(',') !== '1,8,128,128') throw new Error(`demo output dims ${o2.dims}`);
  const sub = [];
  for (let i = 0; i < o2.data.length; i += 97) sub.push(o2.data[i]);
  writeF32('demo_out_s97.f32', sub);
  let sum = 0, sabs = 0;
  for (const v of o2.data) { sum += v; sabs += Math.abs(v); }
  fs.writeFileSync(path.join(__dirname, 'demo_out_stats.f64'),
    Buffer.from(new Float64Array([sum, sabs]).buffer));
  console.log(`mnist: ${Array.from(o1.data).map((v) => v.toFixed(4)).join(' ')}`);
  console.log(`demo: ${sub.length} samples, sum ${sum}, sum|x| ${sabs}`);
}

main().catch((e) => { console.error(e.message); process.exit(1); });
