// tests/oracle/npy.js — minimal .npy (format 1.0/2.0/3.0) reader and writer for the
// onnxruntime oracle. Little-endian, C order only: what our dump writer and numpy
// produce by default.
'use strict';
const fs = require('fs');

// numpy descr (without byte order) -> [onnxruntime type, TypedArray, element size]
const TYPES = {
  f4: ['float32', Float32Array, 4],
  f8: ['float64', Float64Array, 8],
  i1: ['int8', Int8Array, 1],
  u1: ['uint8', Uint8Array, 1],
  i2: ['int16', Int16Array, 2],
  u2: ['uint16', Uint16Array, 2],
  i4: ['int32', Int32Array, 4],
  u4: ['uint32', Uint32Array, 4],
  i8: ['int64', BigInt64Array, 8],
  u8: ['uint64', BigUint64Array, 8],
  b1: ['bool', Uint8Array, 1],
};

function fail(path, msg) {
  throw new Error(`${path}: ${msg}`);
}

function npyRead(path) {
  const buf = fs.readFileSync(path);
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY')
    fail(path, 'not a .npy file');
  const major = buf[6];
  let hlen, hoff;
  if (major === 1) {
    hlen = buf.readUInt16LE(8);
    hoff = 10;
  } else if (major === 2 || major === 3) {
    if (buf.length < 12) fail(path, 'truncated header');
    hlen = buf.readUInt32LE(8);
    hoff = 12;
  } else {
    fail(path, `unsupported .npy version ${major}`);
  }
  if (hoff + hlen > buf.length) fail(path, 'truncated header');
  const header = buf.toString(major === 3 ? 'utf8' : 'latin1', hoff, hoff + hlen);
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header);
  const order = /'fortran_order'\s*:\s*(True|False)/.exec(header);
  const shape = /'shape'\s*:\s*\(([^)]*)\)/.exec(header);
  if (!descr || !order || !shape) fail(path, `bad header ${header.trim()}`);
  if (order[1] === 'True') fail(path, 'fortran order not supported');
  let d = descr[1];
  if (d[0] === '>' && d.slice(1) !== 'i1' && d.slice(1) !== 'u1' && d.slice(1) !== 'b1')
    fail(path, `big-endian dtype ${d} not supported`);
  if ('<|='.includes(d[0]) || d[0] === '>') d = d.slice(1);
  const t = TYPES[d];
  if (!t) fail(path, `unsupported dtype ${descr[1]}`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length)
    .map((s) => Number(s));
  const n = dims.reduce((a, b) => a * b, 1);
  const off = hoff + hlen;
  if (buf.length - off < n * t[2]) fail(path, `truncated data (${n} elements expected)`);
  // copy into a fresh aligned buffer
  const ab = new ArrayBuffer(n * t[2]);
  new Uint8Array(ab).set(buf.subarray(off, off + n * t[2]));
  let data = new t[1](ab);
  if (d === 'b1') data = Array.from(data, (v) => v !== 0);
  return { type: t[0], dims, data };
}

const DESCR = {
  float32: '<f4', float64: '<f8', int8: '|i1', uint8: '|u1', int16: '<i2',
  uint16: '<u2', int32: '<i4', uint32: '<u4', int64: '<i8', uint64: '<u8', bool: '|b1',
};

function npyWrite(path, type, dims, data) {
  const descr = DESCR[type];
  if (!descr) throw new Error(`${path}: cannot write dtype ${type}`);
  const shp = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shp}, }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  let body;
  if (type === 'bool') body = Buffer.from(Array.from(data, (v) => (v ? 1 : 0)));
  else body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  fs.writeFileSync(path, Buffer.concat([pre, Buffer.from(header, 'latin1'), body]));
}

module.exports = { npyRead, npyWrite };
