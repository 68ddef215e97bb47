/* test_fuzz_pdb.c - a deterministic mutation fuzzer of the portable-PDB
 * reader (src/symbols).  The seeds: the PDB of tests/data/pdb/portable, the
 * same PDB as the embedded build carries it (inflated), the embedded
 * build's DLL, and the portable build's DLL (checked against its PDB).  Each
 * case mutates one seed with a fixed seed of its own: bit flips, interesting
 * byte values, truncation, inserted and deleted bytes, random runs, and
 * mutations aimed at the header fields: the metadata root's version length,
 * stream offsets and sizes, #Pdb's referenced tables and row counts, #~'s
 * heap-size flags, valid mask and row counts, the Document and
 * MethodDebugInformation rows' indexes, blob lengths and compressed
 * integers inside sequence-points and document-name blobs; in a DLL the PE
 * headers, the debug directory's entries and the embedded PDB's size.  Each
 * case is opened from memory (sym_module_open_memory) and every method's
 * line looked up at several IL offsets, its points listed.  Asserted: no
 * crash (run under ASan/UBSan to see every out-of-bounds read), termination
 * (a watchdog per case), answers inside the limits (lines, columns, IL
 * order, file names NUL-terminated within PDB_DOC_NAME_MAX).  A failure
 * prints the case number: FUZZ_CASE=N reruns it alone; FUZZ_VERBOSE=1
 * prints each case's number first; FUZZ_CASES=N runs N cases instead of
 * make check's budget, FUZZ_SECONDS=S stops after S seconds, FUZZ_FIRST=N
 * starts at case N. */
#include "unit.h"
#include "symbols/pdb.h"
#include "symbols/pe_debug.h"
#include "symbols/symbols.h"

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define FUZZ_SEED 0x70646272656164ull      /* "pdbread" */
#define FUZZ_CASES 20000                   /* make check's budget: a tenth of a second, a second under ASan */
#define MAX_FIELDS 4096

static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static size_t below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

typedef struct bytes { uint8_t *d; size_t n, cap; } bytes;

/* A header field a targeted mutation aims at: its offset and width (1, 2, 4, 8). */
typedef struct field { size_t off; unsigned width; } field;

enum { SEED_PDB, SEED_EMBEDDED_PDB, SEED_EMBEDDED_DLL, SEED_PORTABLE_DLL, NSEEDS };

typedef struct seed {
    bytes b;
    field fields[MAX_FIELDS];
    size_t nfields;
} seed;

static void add_field(seed *s, size_t off, unsigned width)
{
    if (s->nfields < MAX_FIELDS && off + width <= s->b.n)
        s->fields[s->nfields++] = (field){ off, width };
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr(uint8_t *p, unsigned width, uint64_t v)
{
    for (unsigned i = 0; i < width; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static bytes slurp(const char *path)
{
    bytes b = { NULL, 0, 0 };
    FILE *f = fopen(path, "rb");
    long n;
    if (!f)
        return b;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (b.d = malloc((size_t)n)) && fread(b.d, 1, (size_t)n, f) == (size_t)n)
        b.n = b.cap = (size_t)n;
    fclose(f);
    return b;
}

/* The header fields of a PDB seed, found by walking it (it is a good one). */
static void pdb_fields(seed *s)
{
    const uint8_t *d = s->b.d;
    uint32_t vlen = rd32(d + 12), nstreams;
    size_t off = 16 + vlen;
    pdb_layout lay;
    pdb_file *p;
    char err[128];

    add_field(s, 12, 4);                        /* version length */
    add_field(s, off + 2, 2);                   /* stream count */
    nstreams = (uint32_t)(d[off + 2] | d[off + 3] << 8);
    off += 4;
    for (uint32_t i = 0; i < nstreams && off + 8 < s->b.n; i++) {
        size_t nlen = strlen((const char *)d + off + 8);
        add_field(s, off, 4);                   /* offset */
        add_field(s, off + 4, 4);               /* size */
        add_field(s, off + 8, 1);               /* name */
        off += 8 + ((nlen + 4) & ~(size_t)3);
    }
    p = pdb_open_memory(d, s->b.n, err, sizeof(err));
    if (!p)
        return;
    pdb_get_layout(p, &lay);
    add_field(s, lay.pdb + 20, 4);              /* entry point */
    add_field(s, lay.pdb + 24, 8);              /* referenced type-system tables */
    for (size_t o = lay.pdb + 32; o + 4 <= lay.tables && o < lay.pdb + 32 + 4 * 64; o += 4)
        add_field(s, o, 4);                     /* their row counts (and what follows) */
    add_field(s, lay.tables + 6, 1);            /* heap sizes */
    add_field(s, lay.tables + 8, 8);            /* valid */
    add_field(s, lay.tables + 16, 8);           /* sorted */
    for (unsigned t = 0; t < 16; t++)
        add_field(s, lay.tables + 24 + 4 * t, 4);       /* row counts */
    for (uint32_t r = 0; r < lay.doc_rows && lay.doc_table; r++) {
        size_t row = lay.doc_table + (size_t)r * lay.doc_row_size;
        add_field(s, row, lay.blob_w);          /* name blob */
        uint32_t name = lay.blob_w == 2 ? (uint32_t)(d[row] | d[row + 1] << 8) : rd32(d + row);
        if (name && lay.blob + name < s->b.n) {
            add_field(s, lay.blob + name, 1);   /* its length */
            add_field(s, lay.blob + name + 1, 1);       /* the separator */
            add_field(s, lay.blob + name + 2, 1);       /* a part's index */
            add_field(s, lay.blob + name + 3, 1);
        }
    }
    for (uint32_t r = 0; r < lay.mdi_rows && lay.mdi_table; r++) {
        size_t row = lay.mdi_table + (size_t)r * lay.mdi_row_size;
        uint32_t sp;
        add_field(s, row, lay.doc_w);           /* document */
        add_field(s, row + lay.doc_w, lay.blob_w);      /* sequence points blob */
        sp = lay.blob_w == 2 ? (uint32_t)(d[row + lay.doc_w] | d[row + lay.doc_w + 1] << 8)
                             : rd32(d + row + lay.doc_w);
        if (sp && lay.blob + sp < s->b.n) {
            size_t len = d[lay.blob + sp];
            add_field(s, lay.blob + sp, 1);     /* its length */
            for (size_t k = 1; k <= len && k < 24; k++)
                add_field(s, lay.blob + sp + k, 1);     /* its compressed integers */
        }
    }
    pdb_close(p);
}

/* The header fields of a DLL seed. */
static void dll_fields(seed *s)
{
    const uint8_t *d = s->b.d;
    uint32_t pe = rd32(d + 0x3c), nsect, opt_size;
    size_t opt, dirs, sect;
    pe_debug_info info;
    char err[128];

    add_field(s, 0x3c, 4);
    add_field(s, pe, 4);
    add_field(s, pe + 6, 2);                    /* sections */
    add_field(s, pe + 20, 2);                   /* optional header size */
    nsect = (uint32_t)(d[pe + 6] | d[pe + 7] << 8);
    opt_size = (uint32_t)(d[pe + 20] | d[pe + 21] << 8);
    opt = pe + 24;
    add_field(s, opt, 2);                       /* magic */
    dirs = (d[opt] | d[opt + 1] << 8) == 0x20b ? 112 : 96;
    add_field(s, opt + dirs - 4, 4);            /* number of data directories */
    add_field(s, opt + dirs + 48, 4);           /* debug directory RVA */
    add_field(s, opt + dirs + 52, 4);           /* and size */
    sect = opt + opt_size;
    for (uint32_t i = 0; i < nsect; i++)
        for (unsigned k = 8; k < 24; k += 4)
            add_field(s, sect + 40 * i + k, 4);         /* virtual size, address, raw size, raw pointer */
    if (pe_debug_read(d, s->b.n, &info, err, sizeof(err)) != 0)
        return;
    /* the debug entries: 28 bytes whose raw pointer leads to RSDS or MPDB */
    for (size_t o = 0; o + 28 <= s->b.n; o += 4) {
        uint32_t ptr = rd32(d + o + 24), type = rd32(d + o + 12);
        if ((type == 2 || type == 17 || type == 16 || type == 19) && ptr && ptr + 4 <= s->b.n &&
            (memcmp(d + ptr, "RSDS", 4) == 0 || memcmp(d + ptr, "MPDB", 4) == 0)) {
            for (unsigned k = 0; k < 28; k += 4)
                add_field(s, o + k, 4);
            add_field(s, ptr, 4);
            add_field(s, ptr + 4, 4);           /* GUID start, or the declared size */
            add_field(s, ptr + 8, 2);           /* the deflate stream's first bytes */
        }
    }
}

static void reserve(bytes *b, size_t n)
{
    if (n > b->cap) {
        size_t cap = n + n / 2 + 64;
        uint8_t *d = realloc(b->d, cap);
        if (!d)
            abort();
        b->d = d;
        b->cap = cap;
    }
}

static uint64_t interesting(const field *f, uint64_t old, size_t len)
{
    static const uint64_t vals[] = { 0, 1, 2, 3, 4, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000,
                                     0x7fffffff, 0x80000000u, 0xffffffffu, 0xfffffffeu, 0xffffff, 0x1000000,
                                     0xffffffffffffffffull, 0x8000000000000000ull };
    switch (below(6)) {
    case 0: return vals[below(sizeof(vals) / sizeof(vals[0]))];
    case 1: return old + 1 + below(4);
    case 2: return old - 1 - below(4);
    case 3: return old ^ (1ull << below(f->width * 8));
    case 4: return len - below(16);
    default: return rnd();
    }
}

static void mutate_once(seed *s, bytes *b)
{
    size_t n = b->n, at = below(n);
    switch (below(12)) {
    case 0:                                             /* bit flip */
        if (n)
            b->d[at] ^= (uint8_t)(1u << below(8));
        break;
    case 1: {                                           /* interesting byte */
        static const uint8_t v[] = { 0, 1, 0x7f, 0x80, 0x81, 0xbf, 0xc0, 0xc1, 0xdf, 0xe0, 0xff, 0x40, 0x3f };
        if (n)
            b->d[at] = v[below(sizeof(v))];
        break;
    }
    case 2:                                             /* truncate */
        b->n = below(n + 1);
        break;
    case 3: {                                           /* insert bytes */
        size_t k = 1 + below(16);
        reserve(b, n + k);
        memmove(b->d + at + k, b->d + at, n - at);
        for (size_t i = 0; i < k; i++)
            b->d[at + i] = (uint8_t)rnd();
        b->n = n + k;
        break;
    }
    case 4: {                                           /* delete bytes */
        size_t k = 1 + below(16);
        if (at + k <= n) {
            memmove(b->d + at, b->d + at + k, n - at - k);
            b->n = n - k;
        }
        break;
    }
    case 5:                                             /* a random run */
        for (size_t i = 0, k = 1 + below(32); i < k && at + i < n; i++)
            b->d[at + i] = (uint8_t)rnd();
        break;
    default:                                            /* a header field */
        if (s->nfields) {
            const field *f = &s->fields[below(s->nfields)];
            uint64_t old = 0;
            if (f->off + f->width > b->n)
                break;
            for (unsigned i = 0; i < f->width; i++)
                old |= (uint64_t)b->d[f->off + i] << (8 * i);
            if (f->width == 1 && below(2)) {            /* a compressed integer's lead byte */
                static const uint8_t lead[] = { 0x00, 0x01, 0x3f, 0x40, 0x7f, 0x80, 0x81, 0xbf, 0xc0, 0xdf, 0xe0 };
                b->d[f->off] = lead[below(sizeof(lead))];
            } else
                wr(b->d + f->off, f->width, interesting(f, old, b->n));
        }
        break;
    }
}

static long current_case = -1;

static void watchdog(int sig)
{
    static const char msg[] = "    fuzz_pdb: a case did not finish within its time limit (hang): case ";
    char num[32], rev[32];
    int n = 0;
    long c = current_case;
    (void)sig;
    if (write(1, msg, sizeof(msg) - 1) < 0) { }
    do { rev[n++] = (char)('0' + c % 10); c /= 10; } while (c > 0 && n < 30);
    for (int i = 0; i < n; i++) num[i] = rev[n - 1 - i];
    num[n++] = '\n';
    if (write(1, num, (size_t)n) < 0) { }
    _exit(2);
}

typedef struct outcome { int opened; uint64_t lines; } outcome;

/* Every method's lines and points: within the limits. */
static outcome exercise(sym_module *m)
{
    static const uint32_t offsets[] = { 0, 1, 2, 3, 5, 8, 17, 100, 144, 0x7fffffff, 0x1fffffff,
                                        SYM_IL_PROLOG, SYM_IL_EPILOG, SYM_IL_NO_MAPPING };
    static sym_point pts[4096];
    outcome o = { 1, 0 };
    uint32_t count = sym_module_method_count(m);

    for (uint32_t r = 0; r <= count + 2 && r < 4096; r++) {
        uint32_t token = 0x06000000 | r;
        size_t n = sym_module_points(m, token, pts, 4096);
        for (size_t i = 0; i < n && i < 4096; i++) {
            if (i > 0 && pts[i].il_offset <= pts[i - 1].il_offset)
                unit_fail(__FILE__, __LINE__, "points out of IL order in %#x", token);
            if (pts[i].start.line != SYM_LINE_HIDDEN &&
                (pts[i].start.line >= 0x20000000 || pts[i].start.column >= 0x10000 ||
                 pts[i].end_line < pts[i].start.line || pts[i].end_column >= 0x10000))
                unit_fail(__FILE__, __LINE__, "a point out of the limits in %#x", token);
            if (strnlen(pts[i].start.file, PDB_DOC_NAME_MAX + 1) > PDB_DOC_NAME_MAX)
                unit_fail(__FILE__, __LINE__, "a file name too long in %#x", token);
        }
        for (size_t k = 0; k < sizeof(offsets) / sizeof(offsets[0]); k++) {
            sym_line l = { NULL, 0, 0 };
            if (!sym_module_line(m, token, offsets[k], &l))
                continue;
            o.lines++;
            if (offsets[k] == SYM_IL_NO_MAPPING)
                unit_fail(__FILE__, __LINE__, "a line for NO_MAPPING in %#x", token);
            if (!l.file || strnlen(l.file, PDB_DOC_NAME_MAX + 1) > PDB_DOC_NAME_MAX || l.line == SYM_LINE_HIDDEN ||
                l.line >= 0x20000000 || l.column >= 0x10000)
                unit_fail(__FILE__, __LINE__, "a line out of the limits in %#x", token);
        }
    }
    sym_module_line(m, 0x02000001, 0, &(sym_line){ NULL, 0, 0 });
    return o;
}

static outcome run_case(int kind, const bytes *b, const bytes *pdb)
{
    sym_module *m = NULL;
    char *why = NULL;
    outcome o = { 0, 0 };

    switch (kind) {
    case SEED_PDB:
    case SEED_EMBEDDED_PDB:
        m = sym_module_open_memory(NULL, 0, b->d, b->n, &why);
        break;
    case SEED_EMBEDDED_DLL:
        m = sym_module_open_memory(b->d, b->n, NULL, 0, &why);
        break;
    default:
        m = sym_module_open_memory(b->d, b->n, pdb->d, pdb->n, &why);
        break;
    }
    if (m) {
        o = exercise(m);
        sym_module_free(m);
    } else if (!why || !why[0])
        unit_fail(__FILE__, __LINE__, "no module and no reason");
    free(why);
    return o;
}

static long env_long(const char *name, long def)
{
    const char *v = getenv(name);
    return v && *v ? atol(v) : def;
}

TEST(fuzz_pdb_mutated)
{
    static seed seeds[NSEEDS];
    const char *only = getenv("FUZZ_CASE");
    long first = env_long("FUZZ_FIRST", 0), ncases = env_long("FUZZ_CASES", FUZZ_CASES), last, ran = 0;
    long seconds = env_long("FUZZ_SECONDS", 0);
    time_t deadline = seconds > 0 ? time(NULL) + seconds : 0;
    uint64_t opened[NSEEDS] = { 0 }, with_lines = 0;
    int verbose = getenv("FUZZ_VERBOSE") != NULL;
    bytes b = { NULL, 0, 0 };
    struct sigaction sa, old_sa;
    pe_debug_info info;
    char err[128];

    seeds[SEED_PDB].b = slurp("tests/data/pdb/portable/PdbLib.pdb");
    seeds[SEED_EMBEDDED_DLL].b = slurp("tests/data/pdb/embedded/PdbLib.dll");
    seeds[SEED_PORTABLE_DLL].b = slurp("tests/data/pdb/portable/PdbLib.dll");
    if (seeds[SEED_EMBEDDED_DLL].b.d &&
        pe_debug_read(seeds[SEED_EMBEDDED_DLL].b.d, seeds[SEED_EMBEDDED_DLL].b.n, &info, err, sizeof(err)) == 0)
        pe_debug_inflate_embedded(seeds[SEED_EMBEDDED_DLL].b.d, seeds[SEED_EMBEDDED_DLL].b.n, &info,
                                  &seeds[SEED_EMBEDDED_PDB].b.d, &seeds[SEED_EMBEDDED_PDB].b.n, err, sizeof(err));
    for (int i = 0; i < NSEEDS; i++)
        if (!seeds[i].b.d || seeds[i].b.n < 1000) {
            unit_fail(__FILE__, __LINE__, "seed %d was not read", i);
            goto out;
        }
    pdb_fields(&seeds[SEED_PDB]);
    pdb_fields(&seeds[SEED_EMBEDDED_PDB]);
    dll_fields(&seeds[SEED_EMBEDDED_DLL]);
    dll_fields(&seeds[SEED_PORTABLE_DLL]);
    CHECK(seeds[SEED_PDB].nfields > 60);
    CHECK(seeds[SEED_EMBEDDED_DLL].nfields > 20);
    CHECK(seeds[SEED_PORTABLE_DLL].nfields > 20);
    for (int i = 0; i < NSEEDS; i++) {              /* the seeds themselves: every line found */
        outcome o = run_case(i, &seeds[i].b, &seeds[SEED_PDB].b);
        CHECK_EQ(o.opened, 1);
        CHECK(o.lines > 50);
    }
    if (unit_failures())
        goto out;
    if (only)
        first = atol(only), ncases = 1;
    last = first + ncases - 1;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = watchdog;
    sigaction(SIGALRM, &sa, &old_sa);
    for (long i = first; i <= last && (!deadline || time(NULL) < deadline); i++) {
        int kind = (int)(i % NSEEDS), before = unit_failures();
        seed *s = &seeds[kind];
        struct itimerval limit = { { 0, 0 }, { 10, 0 } };
        outcome o;

        current_case = i;
        if (verbose)
            fprintf(stderr, "fuzz_pdb case %ld\n", i);
        rng_state = FUZZ_SEED ^ ((uint64_t)i * 0x2545f4914f6cdd1dull);
        b.n = 0;
        reserve(&b, s->b.n);
        memcpy(b.d, s->b.d, s->b.n);
        b.n = s->b.n;
        for (int k = 1 + (int)below(3); k > 0; k--)
            mutate_once(s, &b);
        setitimer(ITIMER_REAL, &limit, NULL);
        o = run_case(kind, &b, &seeds[SEED_PDB].b);
        ran++;
        opened[kind] += (uint64_t)o.opened;
        with_lines += o.lines > 0;
        if (unit_failures() != before) {
            printf("    fuzz_pdb: case %ld failed (rerun it alone with FUZZ_CASE=%ld)\n", i, i);
            break;
        }
    }
    {
        struct itimerval off = { { 0, 0 }, { 0, 0 } };
        setitimer(ITIMER_REAL, &off, NULL);
    }
    sigaction(SIGALRM, &old_sa, NULL);
    if (!only && unit_failures() == 0) {
        printf("    fuzz_pdb: %ld cases: opened %llu of the PDB's, %llu of the embedded PDB's, %llu of the "
               "embedded DLL's, %llu of the portable DLL's; %llu with lines\n", ran,
               (unsigned long long)opened[0], (unsigned long long)opened[1], (unsigned long long)opened[2],
               (unsigned long long)opened[3], (unsigned long long)with_lines);
        if (ran >= 1000) {      /* the mutations reach past the headers, and some stop there */
            for (int k = 0; k < NSEEDS; k++) {
                CHECK(opened[k] > (uint64_t)ran / NSEEDS / 5);
                CHECK(opened[k] < (uint64_t)ran / NSEEDS);
            }
            CHECK(with_lines > (uint64_t)ran / 5);
        }
    }
out:
    free(b.d);
    for (int i = 0; i < NSEEDS; i++)
        free(seeds[i].b.d);
}
