// Runs an ONNX model in ONNX Runtime on inputs given as JSON, and prints
// its outputs as JSON: the check of package onnx's exports in the real
// runtime.
//
//   node run.js MODEL.onnx < inputs.json > outputs.json
//   node run.js < jobs.json > outputs.json
//
// inputs.json maps each input's name to {"type": "double" | "float" |
// "int64" | "string", "dims": [...], "data": [...]}, the data flat in row
// order; null stands for NaN, which JSON cannot hold. The outputs come in
// the same form. Numbers are printed in the shortest form that reads back
// as the same double, so the comparison sees every bit. Without a model,
// jobs.json is an array of {"model": PATH, "inputs": {...}}, and the
// outputs an array with those of each: one process, which takes most of
// a second to load the runtime, runs many models.
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

// The JSON's types, ONNX's names, and ONNX Runtime's names and arrays.
const types = {
  double: ['float64', Float64Array],
  float: ['float32', Float32Array],
  int64: ['int64', BigInt64Array],
};
const jsonTypes = { float64: 'double', float32: 'float', int64: 'int64', string: 'string' };

function toTensor(name, v) {
  if (v.type === 'string') return new ort.Tensor('string', v.data, v.dims);
  if (!types[v.type]) throw new Error(`input ${name}: unknown type ${v.type}`);
  const [type, Data] = types[v.type];
  const data = v.type === 'int64'
    ? Data.from(v.data, (x) => BigInt(x))
    : Data.from(v.data, (x) => (x === null ? NaN : x));
  return new ort.Tensor(type, data, v.dims);
}

function fromTensor(t) {
  let data;
  switch (t.type) {
    case 'string':
      data = Array.from(t.data);
      break;
    case 'int64':
      data = Array.from(t.data, (x) => Number(x));
      break;
    default:
      data = Array.from(t.data, (x) => (Number.isFinite(x) ? x : null));
  }
  return { type: jsonTypes[t.type] || t.type, dims: Array.from(t.dims), data };
}

async function run(model, inputs) {
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
  });
  const feeds = {};
  for (const [name, v] of Object.entries(inputs)) feeds[name] = toTensor(name, v);
  const results = await session.run(feeds);
  const out = {};
  for (const name of session.outputNames) out[name] = fromTensor(results[name]);
  return out;
}

async function main() {
  if (process.argv.length > 3) {
    process.stderr.write('usage: node run.js [MODEL.onnx] < inputs.json\n');
    process.exit(2);
  }
  const input = JSON.parse(fs.readFileSync(0, 'utf8'));
  let out;
  if (process.argv.length === 3) {
    out = await run(process.argv[2], input);
  } else {
    out = [];
    for (const job of input) out.push(await run(job.model, job.inputs));
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((err) => {
  process.stderr.write(`run.js: ${err.message || err}\n`);
  process.exit(1);
});
