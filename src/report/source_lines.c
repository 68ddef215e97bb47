/* source_lines.c - managed frames' source lines from the program's PDBs
 * (source_lines.h). */
#include "report/source_lines.h"
#include "common/idmap.h"
#include "symbols/symbols.h"

#include <stdlib.h>
#include <string.h>

#define MISSING_MAX 64           /* assemblies without symbols remembered for the report's note */

typedef struct module_entry {
    const char *path;        /* the trace's (its module_load record's) */
    sym_module *sym;         /* NULL: none (or not looked for yet) */
    int looked;
} module_entry;

struct rp_lines {
    sym_cache *cache;
    idmap by_id;             /* ModuleID -> index in modules */
    module_entry *modules;
    size_t nmodules;
    const char *missing[MISSING_MAX];
    const char *missing_why[MISSING_MAX];
    size_t nmissing;
    uint64_t found;
};

rp_lines *rp_lines_new(const rp_trace *tr, const char *symbols_dir)
{
    rp_lines *L = calloc(1, sizeof(*L));
    size_t n = 0;

    if (!L)
        return NULL;
    idmap_init(&L->by_id);
    for (size_t i = 0; i < tr->nev; i++)
        n += tr->ev[i].kind == TK_MODULE_LOAD;
    L->modules = calloc(n ? n : 1, sizeof(*L->modules));
    L->cache = sym_cache_new(symbols_dir);
    if (!L->modules || !L->cache) {
        rp_lines_free(L);
        return NULL;
    }
    for (size_t i = 0; i < tr->nev; i++) {
        const rec_module_load *m = &tr->ev[i].module_load;
        if (tr->ev[i].kind != TK_MODULE_LOAD)
            continue;
        /* (an ID reused after an unload: the later module; frames of the
         * earlier one are rare and would be looked up in the later one's
         * PDB, where their tokens find nothing or another method) */
        L->modules[L->nmodules].path = m->path;
        if (idmap_put(&L->by_id, m->id, L->nmodules) < 0) {
            rp_lines_free(L);
            return NULL;
        }
        L->nmodules++;
    }
    return L;
}

void rp_lines_free(rp_lines *L)
{
    if (!L)
        return;
    if (L->cache)
        sym_cache_free(L->cache);
    idmap_free(&L->by_id);
    free(L->modules);
    free(L);
}

/* The symbols of module m, opened at its first frame. */
static sym_module *symbols_of(rp_lines *L, module_entry *m)
{
    const char *why = NULL;

    if (m->looked)
        return m->sym;
    m->looked = 1;
    /* a module with no file (a dynamic assembly's: its scope name) has no PDB */
    if (m->path[0] != '/')
        return NULL;
    m->sym = sym_cache_module(L->cache, m->path, &why);
    if (!m->sym && L->nmissing < MISSING_MAX) {
        L->missing[L->nmissing] = m->path;
        L->missing_why[L->nmissing++] = why ? why : "";
    }
    return m->sym;
}

int rp_lines_find(rp_lines *L, uint64_t module, uint32_t token, uint32_t il, rp_source_line *out)
{
    uint64_t idx;
    sym_module *sym;
    sym_line line;
    const char *slash;

    if (!L || !token || il == TRACE_IL_NONE || !idmap_get(&L->by_id, module, &idx) || idx >= L->nmodules)
        return 0;
    if ((sym = symbols_of(L, &L->modules[idx])) == NULL)
        return 0;
    if (!sym_module_line(sym, token, il, &line) || !line.file || !line.line)
        return 0;
    out->file = line.file;
    slash = strrchr(line.file, '/');
    if (!slash)
        slash = strrchr(line.file, '\\');   /* (a PDB built on Windows names its documents so) */
    out->base = slash ? slash + 1 : line.file;
    out->line = line.line;
    L->found++;
    return 1;
}

size_t rp_lines_missing(const rp_lines *L)
{
    return L ? L->nmissing : 0;
}

const char *rp_lines_missing_path(const rp_lines *L, size_t i, const char **why)
{
    if (!L || i >= L->nmissing)
        return NULL;
    if (why)
        *why = L->missing_why[i];
    return L->missing[i];
}

uint64_t rp_lines_found(const rp_lines *L)
{
    return L ? L->found : 0;
}
