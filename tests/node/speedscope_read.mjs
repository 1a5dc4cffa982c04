// speedscope_read.mjs FILE — validate a speedscope file against the schema
// speedscope's npm package ships (dist/release/file-format-schema.json) with
// ajv, then print each profile's name, unit, endValue and the sum of its
// weights, and the frames, as JSON. Exit 1 when the file does not validate.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import Ajv from 'ajv'

const require = createRequire(import.meta.url)
const schema = JSON.parse(readFileSync(require.resolve('speedscope/dist/release/file-format-schema.json'), 'utf8'))
const file = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const ajv = new Ajv({ strict: false, allErrors: true })
const validate = ajv.compile(schema)
if (!validate(file)) {
  console.error(JSON.stringify(validate.errors.slice(0, 5)))
  process.exit(1)
}
const frames = file.shared.frames
console.log(JSON.stringify({
  profiles: file.profiles.map((p) => ({
    name: p.name, unit: p.unit, endValue: p.endValue,
    total: p.weights.reduce((a, b) => a + b, 0),
    samples: p.samples.length,
    leaves: p.samples.map((s, i) => [frames[s[s.length - 1]].name, p.weights[i]]),
  })),
  frames: frames.length,
  with_lines: frames.filter((f) => f.file && f.line).length,
}))
