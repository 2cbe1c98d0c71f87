// Times an ONNX model in ONNX Runtime on one thread, as package bench
// times the library's workloads (bench/WORKLOADS.md): one warm-up run,
// repetitions doubled until a sample lasts 20 ms, then RUNS samples; it
// prints the median time of one run and the outputs of the last, as JSON.
//
//   node time.js MODEL.onnx INPUT.f32 DIMS RUNS
//
// The model's single input is float32, of shape DIMS (comma-separated),
// read from INPUT.f32 as little-endian float32 values in row order.
// It prints {"median_ns": ..., "reps": ..., "outputs": {NAME: {"dims":
// [...], "data": [...]}}}.
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

const minSampleNS = 20e6;

async function main() {
  if (process.argv.length !== 6) {
    process.stderr.write('usage: node time.js MODEL.onnx INPUT.f32 DIMS RUNS\n');
    process.exit(2);
  }
  const [model, inputPath, dimsText, runsText] = process.argv.slice(2);
  const dims = dimsText.split(',').map(Number);
  const runs = Number(runsText);
  const bytes = fs.readFileSync(inputPath);
  const data = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', data, dims) };
  let results = await session.run(feeds);
  const sample = async (reps) => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < reps; i++) results = await session.run(feeds);
    return Number(process.hrtime.bigint() - start);
  };
  let reps = 1;
  while ((await sample(reps)) < minSampleNS) reps *= 2;
  const times = [];
  for (let i = 0; i < runs; i++) times.push((await sample(reps)) / reps);
  times.sort((a, b) => a - b);
  const mid = Math.floor(runs / 2);
  const median = runs % 2 === 1 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
  const outputs = {};
  for (const name of session.outputNames) {
    outputs[name] = { dims: Array.from(results[name].dims), data: Array.from(results[name].data) };
  }
  process.stdout.write(JSON.stringify({ median_ns: Math.round(median), reps, outputs }) + '\n');
}

main().catch((err) => {
  process.stderr.write(`time.js: ${err.message || err}\n`);
  process.exit(1);
});
