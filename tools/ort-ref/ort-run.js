#!/usr/bin/env node
// ort-run.js: onnxruntime (npm onnxruntime-node, CPU) as a reference for ovta's CPU path.
// A reference tool only: installed by tools/ort-ref/test-ort.sh into build/ort-ref/node_modules.
//
//   node ort-run.js run MODEL.onnx OUTDIR NAME=FILE.npy ...   run the model, write OUTDIR/OUT.npy
//                                                              per output (name sanitized like
//                                                              `ovta run`: [^A-Za-z0-9._-] -> _)
//   node ort-run.js time MODEL.onnx THREADS N NAME=FILE.npy ...
//                                                              one warm-up run, then N timed runs with
//                                                              THREADS intra-op threads (graph
//                                                              optimization all): prints one line
//                                                              `ort: median wall W ms, median CPU C ms`
//                                                              (CPU: process.cpuUsage, all threads)
//   node ort-run.js unit IN.npy OUT.npy                       uint8 [N,H,W] -> float32 [N,1,H,W] / 255
//   node ort-run.js compare A.npy B.npy [ATOL RTOL]           |a-b| <= atol + rtol*|b| everywhere
//                                                              and the same argmax per row (rank 2);
//                                                              prints the max difference, exit 1 if not
// .npy: format 1.0-3.0 read, 1.0 written; little-endian f4 f8 i1 u1 i2 u2 i4 u4 i8 u8 b1, C order.
'use strict';
const fs = require('fs');
const path = require('path');

const TYPES = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array], '|i1': ['int8', Int8Array],
  '|u1': ['uint8', Uint8Array], '<i2': ['int16', Int16Array], '<u2': ['uint16', Uint16Array],
  '<i4': ['int32', Int32Array], '<u4': ['uint32', Uint32Array], '<i8': ['int64', BigInt64Array],
  '<u8': ['uint64', BigUint64Array], '|b1': ['bool', Uint8Array],
};

function die(msg) {
  process.stderr.write('ort-run: error: ' + msg + '\n');
  process.exit(1);
}

function readNpy(file) {
  let buf;
  try { buf = fs.readFileSync(file); } catch (e) { die(file + ': ' + e.message); }
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') die(file + ': not a .npy file');
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const hstart = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', hstart, hstart + hlen);
  const descr = (/'descr':\s*'([^']+)'/.exec(header) || [])[1];
  const fortran = /'fortran_order':\s*True/.test(header);
  const shapeTxt = (/'shape':\s*\(([^)]*)\)/.exec(header) || [])[1];
  if (!descr || !(descr in TYPES) || fortran || shapeTxt === undefined) die(file + ': unsupported .npy header ' + header.trim());
  const shape = shapeTxt.split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const [type, Arr] = TYPES[descr];
  const n = shape.reduce((a, b) => a * b, 1);
  const off = hstart + hlen;
  if (buf.length - off < n * Arr.BYTES_PER_ELEMENT) die(file + ': truncated data');
  const data = new Arr(buf.buffer.slice(buf.byteOffset + off, buf.byteOffset + off + n * Arr.BYTES_PER_ELEMENT));
  return { type: descr === '|b1' ? 'bool' : type, descr, shape, data };
}

function writeNpy(file, descr, shape, data) {
  const sh = shape.length === 1 ? '(' + shape[0] + ',)' : '(' + shape.join(', ') + ')';
  let h = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + sh + ', }';
  const pad = 64 - ((10 + h.length + 1) % 64);
  h = h + ' '.repeat(pad % 64) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(h.length, 8);
  const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(h, 'latin1'), body]));
}

function descrOf(type) {
  for (const [d, [t]] of Object.entries(TYPES)) if (t === type) return d;
  die('output type ' + type + ' has no .npy form here');
}

function loadOrt() {
  try { return require('onnxruntime-node'); } catch (e) { die('onnxruntime-node is not installed (tools/ort-ref/test-ort.sh installs it): ' + e.message); }
}

function feedsOf(ort, inputs) {
  const feeds = {};
  for (const a of inputs) {
    const eq = a.indexOf('=');
    if (eq <= 0) die('input ' + a + ': expected NAME=FILE.npy');
    const t = readNpy(a.slice(eq + 1));
    const data = t.type === 'bool' ? Array.from(t.data, (v) => v !== 0) : t.data;
    feeds[a.slice(0, eq)] = new ort.Tensor(t.type, data, t.shape);
  }
  return feeds;
}

function median(v) {
  const s = v.slice().sort((a, b) => a - b), n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

async function time(model, threads, n, inputs) {
  const ort = loadOrt();
  const feeds = feedsOf(ort, inputs);
  let sess;
  try {
    sess = await ort.InferenceSession.create(model, { executionProviders: ['cpu'], intraOpNumThreads: threads,
      interOpNumThreads: 1, graphOptimizationLevel: 'all' });
  } catch (e) { die(model + ': ' + e.message); }
  await sess.run(feeds);
  const wall = [], cpu = [];
  for (let i = 0; i < n; i++) {
    const w0 = process.hrtime.bigint(), c0 = process.cpuUsage();
    await sess.run(feeds);
    const c = process.cpuUsage(c0);
    wall.push(Number(process.hrtime.bigint() - w0) / 1e6);
    cpu.push((c.user + c.system) / 1e3);
  }
  console.log('ort: median wall ' + median(wall).toFixed(3) + ' ms, median CPU ' + median(cpu).toFixed(3) + ' ms (' + n +
              ' runs, ' + threads + ' threads)');
}

async function run(model, outdir, inputs) {
  const ort = loadOrt();
  const feeds = feedsOf(ort, inputs);
  let sess;
  try {
    sess = await ort.InferenceSession.create(model, { executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1 });
  } catch (e) { die(model + ': ' + e.message); }
  let res;
  try { res = await sess.run(feeds); } catch (e) { die(model + ': ' + e.message); }
  fs.mkdirSync(outdir, { recursive: true });
  for (const name of sess.outputNames) {
    const t = res[name];
    const fn = path.join(outdir, name.replace(/[^A-Za-z0-9._-]/g, '_') + '.npy');
    let data = t.data;
    if (t.type === 'bool') data = Uint8Array.from(data, (v) => (v ? 1 : 0));
    writeNpy(fn, descrOf(t.type), t.dims, data);
    console.log(name + ': ' + t.type + ' ' + t.dims.join('x') + ' -> ' + fn);
  }
}

function unit(inp, out) {
  const t = readNpy(inp);
  if (t.descr !== '|u1' || t.shape.length !== 3) die(inp + ': expected uint8 [N,H,W]');
  const f = new Float32Array(t.data.length);
  for (let i = 0; i < f.length; i++) f[i] = Math.fround(t.data[i] / 255);
  writeNpy(out, '<f4', [t.shape[0], 1, t.shape[1], t.shape[2]], f);
}

function compare(fa, fb, atol, rtol) {
  const a = readNpy(fa), b = readNpy(fb);
  if (a.shape.join('x') !== b.shape.join('x')) die(fa + ' is ' + a.shape.join('x') + ' but ' + fb + ' is ' + b.shape.join('x'));
  let maxd = 0, bad = 0, flips = 0;
  const n = a.data.length;
  for (let i = 0; i < n; i++) {
    const x = Number(a.data[i]), y = Number(b.data[i]);
    const d = Math.abs(x - y);
    if (Number.isNaN(x) !== Number.isNaN(y)) { bad++; continue; }
    if (!(d <= atol + rtol * Math.abs(y)) && !Number.isNaN(x)) bad++;
    if (d > maxd) maxd = d;
  }
  if (a.shape.length === 2) {
    const [rows, cols] = a.shape;
    for (let r = 0; r < rows; r++) {
      let ia = 0, ib = 0;
      for (let c = 1; c < cols; c++) {
        if (a.data[r * cols + c] > a.data[r * cols + ia]) ia = c;
        if (b.data[r * cols + c] > b.data[r * cols + ib]) ib = c;
      }
      if (ia !== ib) flips++;
    }
  }
  console.log('max |a - b| = ' + maxd.toExponential(3) + ' over ' + n + ' values, ' + bad + ' outside ' + atol + ' + ' + rtol +
              '*|b|' + (a.shape.length === 2 ? ', top-1 differs in ' + flips + ' of ' + a.shape[0] + ' rows' : ''));
  return bad === 0 && flips === 0;
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'run' && args.length >= 2) {
  run(args[0], args[1], args.slice(2)).catch((e) => die(String(e)));
} else if (cmd === 'time' && args.length >= 3 && Number(args[1]) >= 1 && Number(args[2]) >= 1) {
  time(args[0], Number(args[1]), Number(args[2]), args.slice(3)).catch((e) => die(String(e)));
} else if (cmd === 'unit' && args.length === 2) {
  unit(args[0], args[1]);
} else if (cmd === 'compare' && (args.length === 2 || args.length === 4)) {
  const ok = compare(args[0], args[1], args.length === 4 ? Number(args[2]) : 1e-5, args.length === 4 ? Number(args[3]) : 1e-4);
  process.exit(ok ? 0 : 1);
} else {
  process.stderr.write('usage: ort-run.js run MODEL.onnx OUTDIR NAME=FILE.npy ... | time MODEL.onnx THREADS N NAME=FILE.npy ... | unit IN.npy OUT.npy | compare A.npy B.npy [ATOL RTOL]\n');
  process.exit(2);
}
