// summary.mjs FILE.json - loads a Trace Event Format file with the trace model of
// Chrome DevTools' Performance panel (@paulirish/trace_engine: the panel's own
// TraceModel, built for Node) and prints, as one JSON object, what the panel would
// show for a trace that is not a browser's: each thread (pid, tid, the name its
// metadata gives) with the slices of its track as the panel nests them (how many,
// by name, the deepest nesting), and the exception slices found inside other
// exception slices (the innermost such ancestor's name > the slice's name).  A slice that does not nest on its
// track is left out of the tree by the model, so a caller that compares these
// counts with the file's own finds them.
import { analyzeTrace } from '@paulirish/trace_engine/analyze-trace.mjs'

const { parsedTrace } = await analyzeTrace(process.argv[2])
const out = { generic: parsedTrace.data.Meta.traceIsGeneric, threads: [], nested: [] }
for (const [pid, proc] of parsedTrace.data.Renderer.processes) {
  for (const [tid, thread] of proc.threads) {
    const t = { pid, tid, name: thread.name, nodes: 0, depth: 0, names: {} }
    // (exc: the innermost exception slice the node lies in, whatever slices
    // lie between: a CPU sample or a JIT slice may cover the nested one)
    const walk = (node, depth, exc) => {
      t.nodes++
      t.depth = Math.max(t.depth, depth)
      const name = node.entry.name
      t.names[name] = (t.names[name] ?? 0) + 1
      const isExc = name.startsWith('Exception: ')
      if (exc && isExc)
        out.nested.push(`${exc} > ${name}`)
      for (const child of node.children) walk(child, depth + 1, isExc ? name : exc)
    }
    for (const root of thread.tree?.roots ?? []) walk(root, 1, null)
    out.threads.push(t)
  }
}
console.log(JSON.stringify(out))
