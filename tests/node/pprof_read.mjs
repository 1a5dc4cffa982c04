// pprof_read.mjs FILE.pb.gz — decode a pprof profile with pprof-format (after
// node's gunzip) and print what the export test compares, as JSON: the sample
// types, each type's total, the samples' innermost function names with their
// values, the functions, files and mappings (with build ids).
import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { Profile } from 'pprof-format'

const p = Profile.decode(gunzipSync(readFileSync(process.argv[2])))
const str = (i) => p.stringTable.strings[Number(i)]
const types = p.sampleType.map((t) => `${str(t.type)}/${str(t.unit)}`)
const totals = types.map(() => 0n)
const fn = new Map(p.function.map((f) => [String(f.id), f]))
const loc = new Map(p.location.map((l) => [String(l.id), l]))
const leaves = []
for (const s of p.sample) {
  s.value.forEach((v, i) => { totals[i] += BigInt(v) })
  const l = loc.get(String(s.locationId[0]))
  const line = l.line[0]  // the innermost function at the innermost frame
  leaves.push({ function: str(fn.get(String(line.functionId)).name), values: s.value.map(String) })
}
console.log(JSON.stringify({
  types,
  default: str(p.defaultSampleType),
  totals: totals.map(String),
  samples: p.sample.length,
  leaves,
  functions: p.function.map((f) => str(f.name)),
  files: [...new Set(p.function.map((f) => str(f.filename)).filter((f) => f))],
  lines: p.location.reduce((n, l) => n + l.line.filter((x) => Number(x.line) > 0).length, 0),
  mappings: p.mapping.map((m) => ({ file: str(m.filename), build_id: str(m.buildId) })),
  comments: p.comment.map(str),
}))
