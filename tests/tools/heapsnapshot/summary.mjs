// summary.mjs FILE.heapsnapshot - loads a .heapsnapshot with Chrome DevTools' own
// heap snapshot code (heap-snapshot-toolkit) and prints, as one JSON object, what
// the Memory panel's Summary view shows: node count, total size, and per
// constructor (here: .NET type) the count, shallow size and retained size that
// DevTools computes from its own dominator tree.
import { createReadStream } from 'node:fs'
import { parse } from 'heap-snapshot-toolkit'

const snap = await parse(createReadStream(process.argv[2], 'utf-8'))
const types = {}
for (const a of Object.values(snap.aggregatesWithFilter({})))
  types[a.name] = { count: a.count, self: a.self, retained: a.maxRet }
console.log(JSON.stringify({ nodeCount: snap.nodeCount, totalSize: snap.totalSize, types }))
