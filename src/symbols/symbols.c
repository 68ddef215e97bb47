/* symbols.c - which PDB belongs to an assembly, and the cache of opened
 * ones.  The search: the PDB embedded in the assembly; the file the
 * CodeView entry names (its file name only) beside the assembly, then
 * <assembly without .dll/.exe>.pdb; in the symbols directory the CodeView
 * file name, then <assembly base name>.pdb.  A PDB file must carry the id
 * the CodeView entry records (GUID + stamp); one that does not, a Windows
 * PDB or a damaged one is refused with a reason and the search goes on.
 * Files are opened without blocking (O_NONBLOCK: a FIFO is refused, not
 * waited on), only regular files of at most SYM_FILE_MAX bytes are read
 * into memory: an assembly whole, a PDB up to the end of its last stream
 * (what follows is none of the PDB's: padding costs nothing); and all a
 * cache reads shares one budget (SYM_BUDGET: what would pass it is named
 * and skipped).  Nothing is written. */
#include "symbols/symbols.h"
#include "symbols/pdb.h"
#include "symbols/le_bytes.h"
#include "symbols/pe_debug.h"
#include "common/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define SYM_FILE_MAX (1ull << 30)   /* larger assemblies or PDBs are not read */
#define SYM_BUDGET (256ull << 20)   /* the bytes of assemblies and PDBs a cache holds at once, in all */
#define PDB_HEAD 4096               /* a PDB's first bytes: its metadata root and stream headers */
#define CACHE_BUCKETS 256
#define REASON_MAX 1024

struct sym_module {
    uint8_t *bytes;             /* the PDB's bytes (the file, or the inflated embedded PDB) */
    size_t len;
    pdb_file *pdb;
    char *source;               /* "embedded" or the PDB file's path */
};

typedef struct cache_entry {
    struct cache_entry *next;
    char *path;
    sym_module *module;         /* NULL: none, why says why */
    char *why;
} cache_entry;

struct sym_cache {
    char *dir;
    cache_entry *buckets[CACHE_BUCKETS];
    uint64_t used;              /* bytes of the PDBs kept (SYM_BUDGET) */
};

/* ---- small helpers ---- */

static char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *str_printf(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    int n;
    va_start(ap, fmt);
    n = vasprintf(&s, fmt, ap);
    va_end(ap);
    return n < 0 ? NULL : s;
}

static const char *base_name(const char *path)    /* after the last '/' or '\\' */
{
    const char *b = path;
    for (const char *p = path; *p; p++)
        if (*p == '/' || *p == '\\')
            b = p + 1;
    return b;
}

/* The length of path without a .dll or .exe ending. */
static size_t stem_len(const char *path)
{
    size_t n = strlen(path);
    if (n > 4 && (strcasecmp(path + n - 4, ".dll") == 0 || strcasecmp(path + n - 4, ".exe") == 0))
        return n - 4;
    return n;
}

/* Reads up to want bytes from fd's start: what is there (a file that
 * shrinks meanwhile: less).  0 or -1 (errno). */
static int read_prefix(int fd, uint8_t *buf, size_t want, size_t *got)
{
    ssize_t n = cp_pread_full(fd, buf, want, 0);

    *got = n > 0 ? (size_t)n : 0;
    return n < 0 ? -1 : 0;
}

/* How much of the file of size bytes open at fd a PDB reader needs: up to
 * the end of its last stream (0 when unreadable: then its head only). */
static uint64_t pdb_extent(int fd, uint64_t size)
{
    uint8_t head[PDB_HEAD];
    size_t got;
    uint64_t end;

    if (read_prefix(fd, head, size < PDB_HEAD ? (size_t)size : PDB_HEAD, &got) != 0)
        return 0;
    if (pdb_streams_end(head, got, &end) != 0)
        return got;
    return end < size ? end : size;
}

/* Reads a regular file, whole or (pdb) as far as a PDB reader needs, at
 * most budget bytes: 0 with *out (malloc'd) and *len, else -1 with errno
 * set (EINVAL: not a regular file, EFBIG: larger than SYM_FILE_MAX,
 * EDQUOT: more than budget; then *len is what it would take). */
static int read_whole(const char *path, int pdb, uint64_t budget, uint8_t **out, size_t *len)
{
    struct stat st;
    uint8_t *buf;
    uint64_t want;
    size_t got = 0;
    int fd, e;

    *out = NULL;
    *len = 0;
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0)
        goto fail;
    if (!S_ISREG(st.st_mode)) {
        errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        goto fail;
    }
    if (st.st_size < 0 || (unsigned long long)st.st_size > SYM_FILE_MAX) {
        errno = EFBIG;
        goto fail;
    }
    want = pdb ? pdb_extent(fd, (uint64_t)st.st_size) : (uint64_t)st.st_size;
    if (want > budget) {
        *len = (size_t)want;
        errno = EDQUOT;
        goto fail;
    }
    buf = malloc(want ? (size_t)want : 1);
    if (!buf) {
        errno = ENOMEM;
        goto fail;
    }
    if (read_prefix(fd, buf, (size_t)want, &got) != 0) {
        e = errno;
        free(buf);
        close(fd);
        errno = e;
        return -1;
    }
    close(fd);
    *out = buf;
    *len = got;
    return 0;
fail:
    e = errno;
    close(fd);
    errno = e;
    return -1;
}

static const char *read_error(int e)
{
    return e == EINVAL ? "not a regular file" : e == EFBIG ? "larger than 1 GiB"
         : e == EDQUOT ? "skipped: past the 256 MiB that one report reads of assemblies and PDBs in all"
         : strerror(e);
}

static uint64_t left(const sym_cache *c, uint64_t held)
{
    return c->used + held < SYM_BUDGET ? SYM_BUDGET - c->used - held : 0;
}

static sym_module *module_new(uint8_t *bytes, size_t len, const char *source, char *err, size_t errlen)
{
    sym_module *m = calloc(1, sizeof(*m));
    if (!m || !(m->source = strdup(source))) {
        free(m);
        snprintf(err, errlen, "not opened (no memory)");
        return NULL;
    }
    m->pdb = pdb_open_memory(bytes, len, err, errlen);
    if (!m->pdb) {
        free(m->source);
        free(m);
        return NULL;
    }
    m->bytes = bytes;
    m->len = len;
    return m;
}

void sym_module_free(sym_module *m)
{
    if (!m)
        return;
    pdb_close(m->pdb);
    free(m->bytes);
    free(m->source);
    free(m);
}

/* ---- the search ---- */

/* The first reason worth more than "not found". */
static void keep_reason(char *reason, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void keep_reason(char *reason, const char *fmt, ...)
{
    va_list ap;
    if (reason[0])
        return;
    va_start(ap, fmt);
    vsnprintf(reason, REASON_MAX, fmt, ap);
    va_end(ap);
}

/* The PDB file at path for the assembly: a module, or NULL (a reason kept
 * unless the file does not exist). */
static sym_module *try_file(const char *path, const char *asm_name, const pe_debug_info *dbg, uint64_t budget,
                            char *reason)
{
    uint8_t *bytes;
    size_t len;
    char err[256];
    sym_module *m;

    if (read_whole(path, 1, budget, &bytes, &len) != 0) {
        if (errno != ENOENT && errno != ENOTDIR)
            keep_reason(reason, "cannot read %s: %s", path, read_error(errno));
        return NULL;
    }
    m = module_new(bytes, len, path, err, sizeof(err));
    if (!m) {
        free(bytes);
        keep_reason(reason, "%s is %s", path, err);
        return NULL;
    }
    if (!dbg->has_codeview || !dbg->codeview_portable) {
        keep_reason(reason, "%s cannot be checked against %s (it has no CodeView entry of a portable PDB)",
                    path, asm_name);
        sym_module_free(m);
        return NULL;
    }
    if (memcmp(pdb_id(m->pdb), dbg->pdb_id, PDB_ID_SIZE) != 0) {
        keep_reason(reason, "%s does not match %s (another build)", path, asm_name);
        sym_module_free(m);
        return NULL;
    }
    return m;
}

/* The symbols of the assembly at path: a module, or NULL with *why (malloc'd). */
static sym_module *find_symbols(const sym_cache *c, const char *path, char **why)
{
    const char *dir = c->dir;
    char reason[REASON_MAX] = "", err[256];
    const char *asm_name = base_name(path);
    size_t asm_len, dir_len = (size_t)(asm_name - path);
    char *cands[4] = { NULL, NULL, NULL, NULL }, *cv_name = NULL, *stem_pdb = NULL;
    int ncand = 0;
    sym_module *m = NULL;
    pe_debug_info *dbg;
    uint8_t *file;

    *why = NULL;
    if (read_whole(path, 0, left(c, 0), &file, &asm_len) != 0) {
        *why = str_printf("cannot read %s: %s", path, read_error(errno));
        return NULL;
    }
    dbg = malloc(sizeof(*dbg));
    if (!dbg) {
        free(file);
        return NULL;
    }
    if (pe_debug_read(file, asm_len, dbg, err, sizeof(err)) != 0) {
        *why = str_printf("%s: %s", path, err);
        goto done;
    }
    /* (1) embedded */
    if (dbg->has_embedded) {
        uint8_t *pdb;
        size_t pdb_len;
        if (dbg->embedded_len >= 8 && dbg->embedded_off + 8 <= asm_len &&
            (uint64_t)rd32(file + dbg->embedded_off + 4) > left(c, asm_len))
            keep_reason(reason, "the PDB embedded in %s: %s", asm_name, read_error(EDQUOT));
        else if (pe_debug_inflate_embedded(file, asm_len, dbg, &pdb, &pdb_len, err, sizeof(err)) != 0)
            keep_reason(reason, "the PDB embedded in %s: %s", asm_name, err);
        else if (!(m = module_new(pdb, pdb_len, "embedded", err, sizeof(err)))) {
            free(pdb);
            keep_reason(reason, "the PDB embedded in %s is %s", asm_name, err);
        }
        if (m)
            goto done;
    }
    /* (2) beside the assembly, (3) in the symbols directory */
    if (dbg->has_codeview && dbg->pdb_path[0]) {
        const char *b = base_name(dbg->pdb_path);
        if (b[0] && strcmp(b, ".") != 0 && strcmp(b, "..") != 0)
            cv_name = strdup(b);
    }
    stem_pdb = str_printf("%.*s.pdb", (int)(stem_len(asm_name)), asm_name);
    if (cv_name)
        cands[ncand++] = str_printf("%.*s%s", (int)dir_len, path, cv_name);
    cands[ncand++] = str_printf("%.*s.pdb", (int)stem_len(path), path);
    if (dir && dir[0]) {
        const char *slash = dir[strlen(dir) - 1] == '/' ? "" : "/";
        if (cv_name)
            cands[ncand++] = str_printf("%s%s%s", dir, slash, cv_name);
        cands[ncand++] = str_printf("%s%s%s", dir, slash, stem_pdb ? stem_pdb : "");
    }
    for (int i = 0; i < ncand && !m; i++) {
        int seen = 0;
        if (!cands[i])
            continue;
        for (int j = 0; j < i; j++)
            seen |= cands[j] && strcmp(cands[i], cands[j]) == 0;
        if (!seen)
            m = try_file(cands[i], asm_name, dbg, left(c, asm_len), reason);
    }
    if (!m) {
        if (reason[0])
            *why = strdup(reason);
        else {
            char names[600];
            if (cv_name && stem_pdb && strcmp(cv_name, stem_pdb) != 0)
                snprintf(names, sizeof(names), "%.250s or %.250s", cv_name, stem_pdb);
            else
                snprintf(names, sizeof(names), "%.500s", cv_name ? cv_name : stem_pdb ? stem_pdb : "PDB");
            *why = str_printf("no %s beside %s, none embedded%s%s", names, path, dir && dir[0] ? ", none in " : "",
                              dir && dir[0] ? dir : "");
        }
    }
done:
    for (int i = 0; i < ncand; i++)
        free(cands[i]);
    free(cv_name);
    free(stem_pdb);
    free(dbg);
    free(file);
    return m;
}

/* ---- the cache ---- */

sym_cache *sym_cache_new(const char *symbols_dir)
{
    sym_cache *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    if (symbols_dir && !(c->dir = strdup(symbols_dir))) {
        free(c);
        return NULL;
    }
    return c;
}

void sym_cache_free(sym_cache *c)
{
    if (!c)
        return;
    for (int i = 0; i < CACHE_BUCKETS; i++)
        for (cache_entry *e = c->buckets[i], *next; e; e = next) {
            next = e->next;
            sym_module_free(e->module);
            free(e->path);
            free(e->why);
            free(e);
        }
    free(c->dir);
    free(c);
}

static unsigned path_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h % CACHE_BUCKETS;
}

sym_module *sym_cache_module(sym_cache *c, const char *assembly_path, const char **why)
{
    static const char *const no_memory = "no memory";
    unsigned h;
    cache_entry *e;

    if (why)
        *why = NULL;
    if (!c || !assembly_path) {
        if (why)
            *why = "no assembly path";
        return NULL;
    }
    h = path_hash(assembly_path);
    for (e = c->buckets[h]; e; e = e->next)
        if (strcmp(e->path, assembly_path) == 0)
            break;
    if (!e) {
        e = calloc(1, sizeof(*e));
        if (!e || !(e->path = strdup(assembly_path))) {
            free(e);
            if (why)
                *why = no_memory;
            return NULL;
        }
        e->module = find_symbols(c, assembly_path, &e->why);
        if (e->module)
            c->used += e->module->len;
        if (!e->module && !e->why) {        /* out of memory: not cached, tried again next time */
            free(e->path);
            free(e);
            if (why)
                *why = no_memory;
            return NULL;
        }
        e->next = c->buckets[h];
        c->buckets[h] = e;
    }
    if (!e->module && why)
        *why = e->why;
    return e->module;
}

/* ---- a module's answers ---- */

int sym_module_line(sym_module *m, uint32_t method_token, uint32_t il_offset, sym_line *out)
{
    return m && out ? pdb_method_line(m->pdb, method_token, il_offset, out) : 0;
}

const char *sym_module_source(const sym_module *m)
{
    return m ? m->source : "";
}

uint32_t sym_module_method_count(const sym_module *m)
{
    return m ? pdb_method_count(m->pdb) : 0;
}

size_t sym_module_points(sym_module *m, uint32_t method_token, sym_point *out, size_t cap)
{
    const pdb_point *pts;
    size_t n;

    if (!m || (method_token >> 24) != 0x06 || !pdb_method_points(m->pdb, method_token & 0x00ffffff, &pts, &n))
        return 0;
    for (size_t i = 0; i < n && i < cap; i++) {
        const char *file = pdb_document_name(m->pdb, pts[i].document);
        out[i].il_offset = pts[i].il_offset;
        out[i].start.file = file ? file : "";
        out[i].start.line = pts[i].line;
        out[i].start.column = pts[i].column;
        out[i].end_line = pts[i].end_line;
        out[i].end_column = pts[i].end_column;
    }
    return n;
}

sym_module *sym_module_open_memory(const uint8_t *assembly, size_t assembly_len,
                                   const uint8_t *pdb_data, size_t pdb_len, char **why)
{
    char err[256];
    pe_debug_info *dbg = NULL;
    sym_module *m = NULL;
    uint8_t *bytes = NULL;
    size_t len = 0;

    *why = NULL;
    if (assembly) {
        dbg = malloc(sizeof(*dbg));
        if (!dbg)
            goto oom;
        if (pe_debug_read(assembly, assembly_len, dbg, err, sizeof(err)) != 0) {
            *why = str_printf("the assembly: %s", err);
            goto done;
        }
    }
    if (pdb_data) {
        if (!(bytes = malloc(pdb_len ? pdb_len : 1)))
            goto oom;
        memcpy(bytes, pdb_data, pdb_len);
        len = pdb_len;
    } else if (dbg && dbg->has_embedded) {
        if (pe_debug_inflate_embedded(assembly, assembly_len, dbg, &bytes, &len, err, sizeof(err)) != 0) {
            *why = str_printf("the embedded PDB: %s", err);
            goto done;
        }
    } else {
        *why = strdup("no PDB given and none embedded");
        goto done;
    }
    m = module_new(bytes, len, pdb_data ? "memory" : "embedded", err, sizeof(err));
    if (!m) {
        free(bytes);
        *why = str_printf("the PDB is %s", err);
        goto done;
    }
    if (pdb_data && dbg && (!dbg->has_codeview || !dbg->codeview_portable ||
                            memcmp(pdb_id(m->pdb), dbg->pdb_id, PDB_ID_SIZE) != 0)) {
        sym_module_free(m);
        m = NULL;
        *why = strdup("the PDB does not match the assembly (another build)");
    }
done:
    free(dbg);
    return m;
oom:
    free(dbg);
    *why = strdup("no memory");
    return NULL;
}
