// chrome_read.mjs FILE — read a Trace Event Format file with
// @tracerbench/trace-model's model builder (it sorts the events, gives them
// to their processes and threads, and checks their phases), then print what
// the export test compares, as JSON: each counter's values in time order,
// the complete slices (name, start, duration) and the threads' names.
import { readFileSync } from 'node:fs'
import { buildModel } from '@tracerbench/trace-model'

const model = buildModel(JSON.parse(readFileSync(process.argv[2], 'utf8')))
const counters = {}
const slices = []
const threads = []
for (const proc of model.processes) {
  for (const thread of proc.threads) threads.push({ tid: thread.tid, name: thread.name })
  for (const e of proc.events) {  // the process's own (tid 0) and its threads'
    if (e.isCounter()) {
      for (const [k, v] of Object.entries(e.args)) (counters[`${e.name}/${k}`] ??= []).push([e.start, v])
    } else if (e.isComplete()) {
      slices.push({ name: e.name, start: e.start, duration: e.duration })
    }
  }
}
console.log(JSON.stringify({ processes: model.processes.length, threads, counters, slices }))
