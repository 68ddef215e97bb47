/* symbols.h - source lines of .NET methods from portable PDBs: which PDB
 * belongs to an assembly (embedded, beside it, in a symbols directory; the
 * PDB's id checked against the assembly's), opened once per assembly path
 * and kept in a cache, and the source line of a method's IL offset.
 * Pure C, no global state, no output; everything read is bounded (see
 * docs/symbols.md).  A cache and its modules are used by one thread at a
 * time (sequence points and document names are decoded on first use). */
#ifndef CLRPROBE_SYMBOLS_H
#define CLRPROBE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#define SYM_IL_NO_MAPPING 0xFFFFFFFFu   /* (uint32_t)-1: the runtime's NO_MAPPING */
#define SYM_IL_PROLOG     0xFFFFFFFEu   /* (uint32_t)-2 */
#define SYM_IL_EPILOG     0xFFFFFFFDu   /* (uint32_t)-3 */

/* file: UTF-8 (as the PDB has it, not checked), owned by the module. */
typedef struct sym_line { const char *file; uint32_t line; uint32_t column; } sym_line;
typedef struct sym_module sym_module;
typedef struct sym_cache sym_cache;

/* symbols_dir may be NULL; NULL on OOM. */
sym_cache *sym_cache_new(const char *symbols_dir);
void sym_cache_free(sym_cache *c);

/* The symbols of the assembly at assembly_path, opened once per path and
 * cached (also a failure is cached).  NULL when there are none; then *why
 * (if why != NULL) is a short phrase owned by the cache saying why. */
sym_module *sym_cache_module(sym_cache *c, const char *assembly_path, const char **why);

/* The source line of IL offset il_offset in the method with metadata token
 * method_token (0x06xxxxxx, a MethodDef).  Returns 1 and fills *out, or 0
 * (no such method, no sequence points, SYM_IL_NO_MAPPING).  The last
 * sequence point whose IL offset <= il_offset; if it is hidden, the nearest
 * visible one before it, else the first visible after it (also when no
 * point starts at or before il_offset).  SYM_IL_PROLOG: the method's first
 * visible sequence point; SYM_IL_EPILOG: its last visible one. */
int sym_module_line(sym_module *m, uint32_t method_token, uint32_t il_offset, sym_line *out);

/* Where the PDB was found, for messages: "embedded", or the PDB file's path. */
const char *sym_module_source(const sym_module *m);

/* Additions. */

/* How many MethodDef rows the PDB describes (tokens 0x06000001 up to
 * 0x06000000 + this). */
uint32_t sym_module_method_count(const sym_module *m);

/* One sequence point of a method: hidden points have line SYM_LINE_HIDDEN. */
#define SYM_LINE_HIDDEN 0xFEEFEEu
typedef struct sym_point { uint32_t il_offset; sym_line start; uint32_t end_line, end_column; } sym_point;

/* The sequence points of a method in IL order, hidden ones included: the
 * number of them (0 when none or the method's are damaged), the first up to
 * cap copied to out (out may be NULL when cap is 0). */
size_t sym_module_points(sym_module *m, uint32_t method_token, sym_point *out, size_t cap);

/* The symbols of an assembly held in memory (pdb_data: a PDB file found for
 * it, or NULL to use only the assembly's embedded PDB; either may be NULL).
 * The bytes are copied.  NULL with *why (owned by the caller: free() it)
 * when there are none.  For tests and fuzzing; sym_module_free frees it. */
sym_module *sym_module_open_memory(const uint8_t *assembly, size_t assembly_len,
                                   const uint8_t *pdb_data, size_t pdb_len, char **why);
void sym_module_free(sym_module *m);

#endif
