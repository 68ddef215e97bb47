/* source_lines.h - managed frames' source lines for the report: the
 * trace's IL offsets (sample.il and the other stacks') and its methods'
 * metadata tokens (function_name.token) through the program's portable
 * PDBs (symbols/symbols.h: beside each assembly, embedded in it, or in the
 * --symbols directory).  One per report, given to the trace (rp_trace's
 * lines) before profiles are built; assemblies are looked up by the paths
 * of the trace's module_load records, each opened once, when a frame of it
 * is first met. */
#ifndef CLRPROBE_REPORT_SOURCE_LINES_H
#define CLRPROBE_REPORT_SOURCE_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "report/model.h"

typedef struct rp_lines rp_lines;

typedef struct rp_source_line {
    const char *file;        /* the document as the PDB names it (usually the path it was built from) */
    const char *base;        /* its last path component */
    uint32_t line;
} rp_source_line;

/* For tr's modules, with symbols also looked for in symbols_dir (NULL:
 * none).  NULL when out of memory. */
rp_lines *rp_lines_new(const rp_trace *tr, const char *symbols_dir);
void rp_lines_free(rp_lines *L);

/* The line of IL offset il (TRACE_IL_* as the trace has it) in the method
 * with metadata token token of module (the trace's ModuleID).  Returns 1
 * with *out filled, 0 when not known (no symbols, no such offset). */
int rp_lines_find(rp_lines *L, uint64_t module, uint32_t token, uint32_t il, rp_source_line *out);

/* The assemblies whose frames were met without symbols, and why, in the
 * order they were met: the i-th of rp_lines_missing (i < the count it
 * returns), NULL past the end. */
size_t rp_lines_missing(const rp_lines *L);
const char *rp_lines_missing_path(const rp_lines *L, size_t i, const char **why);
/* How many frames found a line (for the report's statement of coverage). */
uint64_t rp_lines_found(const rp_lines *L);

#endif
