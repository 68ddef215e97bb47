/* pdb.c - reads a portable PDB from memory (format: dotnet/runtime's
 * PortablePdb-Metadata.md on top of ECMA-335 II.24; docs/symbols.md says
 * what is relied on).  Opening checks the metadata root, the stream headers,
 * the #Pdb stream and the #~ table stream (the sizes of every table before
 * Document and MethodDebugInformation, with index widths from the #~ row
 * counts and, for the type-system tables, #Pdb's); sequence points and
 * document names are decoded on first use and kept.  Every read is checked
 * against its stream with 64-bit arithmetic; nothing recurses. */
#include "symbols/pdb.h"
#include "symbols/le_bytes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_DOCUMENT 0x30
#define TABLE_METHOD_DEBUG 0x31
#define ROWS_MAX 0x00FFFFFFu        /* a row id has 24 bits */
#define LINE_LIMIT 0x20000000u      /* lines are below this, columns below 0x10000 */
#define COLUMN_LIMIT 0x10000u
#define IL_LIMIT 0x20000000u

enum { M_BAD = 1 };                 /* a method or document whose decoding failed */

typedef struct span { const uint8_t *p; uint32_t size; } span;

typedef struct method_sp {          /* a method's decoded sequence points */
    uint32_t n;
    pdb_point pts[];
} method_sp;

struct pdb_file {
    const uint8_t *data;
    size_t len;
    uint8_t id[PDB_ID_SIZE];
    span strings, blob, guid, tables, pdb;
    uint32_t doc_rows, mdi_rows;
    const uint8_t *doc_table, *mdi_table;
    uint32_t doc_row_size, mdi_row_size;
    uint8_t blob_w, guid_w, doc_w;       /* index widths: #Blob, #GUID, Document */
    method_sp **methods;                 /* per MethodDebugInformation row, decoded on use */
    uint8_t *method_state;
    char **doc_names;                    /* per Document row, decoded on use */
    uint8_t *doc_state;
};


static uint32_t rd_index(const uint8_t *p, unsigned w) { return w == 2 ? rd16(p) : rd32(p); }

/* ECMA-335 II.23.2 compressed unsigned integer: 1, 2 or 4 bytes. */
static int rd_cu(const uint8_t **pp, const uint8_t *end, uint32_t *v)
{
    const uint8_t *p = *pp;
    if (p >= end)
        return -1;
    if ((p[0] & 0x80) == 0) {
        *v = p[0];
        *pp = p + 1;
    } else if ((p[0] & 0xc0) == 0x80) {
        if (end - p < 2)
            return -1;
        *v = (uint32_t)(p[0] & 0x3f) << 8 | p[1];
        *pp = p + 2;
    } else if ((p[0] & 0xe0) == 0xc0) {
        if (end - p < 4)
            return -1;
        *v = (uint32_t)(p[0] & 0x1f) << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        *pp = p + 4;
    } else
        return -1;
    return 0;
}

/* The signed form: the value rotated left by one within its 6, 13 or 28
 * bits (the sign in bit 0). */
static int rd_cs(const uint8_t **pp, const uint8_t *end, int32_t *v)
{
    const uint8_t *start = *pp;
    uint32_t u, bits;
    if (rd_cu(pp, end, &u) != 0)
        return -1;
    bits = *pp - start == 1 ? 6 : *pp - start == 2 ? 13 : 28;
    if (u & 1)
        *v = (int32_t)(u >> 1) - (int32_t)(1u << bits);
    else
        *v = (int32_t)(u >> 1);
    return 0;
}

/* A blob of #Blob: its bytes and length; index 0 is the empty blob. */
static int blob_at(const pdb_file *p, uint32_t idx, const uint8_t **b, uint32_t *n)
{
    const uint8_t *q, *end = p->blob.p + p->blob.size;
    uint32_t len;
    if (idx == 0) {
        *b = p->blob.p;
        *n = 0;
        return 0;
    }
    if (idx >= p->blob.size)
        return -1;
    q = p->blob.p + idx;
    if (rd_cu(&q, end, &len) != 0 || len > (uint64_t)(end - q))
        return -1;
    *b = q;
    *n = len;
    return 0;
}

/* ---- the table schema (ECMA-335 II.22, PortablePdb-Metadata.md) ---- */

/* Column kinds: 0..63 a simple index into that table, then coded indexes,
 * then fixed sizes and heap indexes; END ends a table's columns. */
enum {
    CI_TYPEDEFORREF = 64, CI_HASCONSTANT, CI_HASCUSTOMATTRIBUTE, CI_HASFIELDMARSHAL, CI_HASDECLSECURITY,
    CI_MEMBERREFPARENT, CI_HASSEMANTICS, CI_METHODDEFORREF, CI_MEMBERFORWARDED, CI_IMPLEMENTATION,
    CI_CUSTOMATTRIBUTETYPE, CI_RESOLUTIONSCOPE, CI_TYPEORMETHODDEF, CI_HASCUSTOMDEBUGINFORMATION,
    CI_END_,
    C_U16 = 100, C_U32, C_STR, C_GUID, C_BLOB, END = 0xff
};
#define NO_TABLE 0xff

typedef struct coded_kind { uint8_t tag_bits; uint8_t n; uint8_t tables[27]; } coded_kind;

static const coded_kind coded_kinds[CI_END_ - CI_TYPEDEFORREF] = {
    [CI_TYPEDEFORREF - 64] = { 2, 3, { 0x02, 0x01, 0x1b } },
    [CI_HASCONSTANT - 64] = { 2, 3, { 0x04, 0x08, 0x17 } },
    [CI_HASCUSTOMATTRIBUTE - 64] = { 5, 22, { 0x06, 0x04, 0x01, 0x02, 0x08, 0x09, 0x0a, 0x00, 0x0e, 0x17, 0x14,
                                              0x11, 0x1a, 0x1b, 0x20, 0x23, 0x26, 0x27, 0x28, 0x2a, 0x2c, 0x2b } },
    [CI_HASFIELDMARSHAL - 64] = { 1, 2, { 0x04, 0x08 } },
    [CI_HASDECLSECURITY - 64] = { 2, 3, { 0x02, 0x06, 0x20 } },
    [CI_MEMBERREFPARENT - 64] = { 3, 5, { 0x02, 0x01, 0x1a, 0x06, 0x1b } },
    [CI_HASSEMANTICS - 64] = { 1, 2, { 0x14, 0x17 } },
    [CI_METHODDEFORREF - 64] = { 1, 2, { 0x06, 0x0a } },
    [CI_MEMBERFORWARDED - 64] = { 1, 2, { 0x04, 0x06 } },
    [CI_IMPLEMENTATION - 64] = { 2, 3, { 0x26, 0x23, 0x27 } },
    [CI_CUSTOMATTRIBUTETYPE - 64] = { 3, 5, { NO_TABLE, NO_TABLE, 0x06, 0x0a, NO_TABLE } },
    [CI_RESOLUTIONSCOPE - 64] = { 2, 4, { 0x00, 0x1a, 0x23, 0x01 } },
    [CI_TYPEORMETHODDEF - 64] = { 1, 2, { 0x02, 0x06 } },
    [CI_HASCUSTOMDEBUGINFORMATION - 64] = { 5, 27, { 0x06, 0x04, 0x01, 0x02, 0x08, 0x09, 0x0a, 0x00, 0x0e, 0x17,
                                                     0x14, 0x11, 0x1a, 0x1b, 0x20, 0x23, 0x26, 0x27, 0x28, 0x2a,
                                                     0x2c, 0x2b, 0x30, 0x32, 0x33, 0x34, 0x35 } },
};

/* Each known table's columns; an unknown table (no columns) before the
 * ones read makes the stream unreadable. */
static const uint8_t schema[64][10] = {
    [0x00] = { C_U16, C_STR, C_GUID, C_GUID, C_GUID, END },                       /* Module */
    [0x01] = { CI_RESOLUTIONSCOPE, C_STR, C_STR, END },                           /* TypeRef */
    [0x02] = { C_U32, C_STR, C_STR, CI_TYPEDEFORREF, 0x04, 0x06, END },           /* TypeDef */
    [0x03] = { 0x04, END },                                                       /* FieldPtr */
    [0x04] = { C_U16, C_STR, C_BLOB, END },                                       /* Field */
    [0x05] = { 0x06, END },                                                       /* MethodPtr */
    [0x06] = { C_U32, C_U16, C_U16, C_STR, C_BLOB, 0x08, END },                   /* MethodDef */
    [0x07] = { 0x08, END },                                                       /* ParamPtr */
    [0x08] = { C_U16, C_U16, C_STR, END },                                        /* Param */
    [0x09] = { 0x02, CI_TYPEDEFORREF, END },                                      /* InterfaceImpl */
    [0x0a] = { CI_MEMBERREFPARENT, C_STR, C_BLOB, END },                          /* MemberRef */
    [0x0b] = { C_U16, CI_HASCONSTANT, C_BLOB, END },                              /* Constant (type, pad) */
    [0x0c] = { CI_HASCUSTOMATTRIBUTE, CI_CUSTOMATTRIBUTETYPE, C_BLOB, END },      /* CustomAttribute */
    [0x0d] = { CI_HASFIELDMARSHAL, C_BLOB, END },                                 /* FieldMarshal */
    [0x0e] = { C_U16, CI_HASDECLSECURITY, C_BLOB, END },                          /* DeclSecurity */
    [0x0f] = { C_U16, C_U32, 0x02, END },                                         /* ClassLayout */
    [0x10] = { C_U32, 0x04, END },                                                /* FieldLayout */
    [0x11] = { C_BLOB, END },                                                     /* StandAloneSig */
    [0x12] = { 0x02, 0x14, END },                                                 /* EventMap */
    [0x13] = { 0x14, END },                                                       /* EventPtr */
    [0x14] = { C_U16, C_STR, CI_TYPEDEFORREF, END },                              /* Event */
    [0x15] = { 0x02, 0x17, END },                                                 /* PropertyMap */
    [0x16] = { 0x17, END },                                                       /* PropertyPtr */
    [0x17] = { C_U16, C_STR, C_BLOB, END },                                       /* Property */
    [0x18] = { C_U16, 0x06, CI_HASSEMANTICS, END },                               /* MethodSemantics */
    [0x19] = { 0x02, CI_METHODDEFORREF, CI_METHODDEFORREF, END },                 /* MethodImpl */
    [0x1a] = { C_STR, END },                                                      /* ModuleRef */
    [0x1b] = { C_BLOB, END },                                                     /* TypeSpec */
    [0x1c] = { C_U16, CI_MEMBERFORWARDED, C_STR, 0x1a, END },                     /* ImplMap */
    [0x1d] = { C_U32, 0x04, END },                                                /* FieldRVA */
    [0x1e] = { C_U32, C_U32, END },                                               /* EncLog */
    [0x1f] = { C_U32, END },                                                      /* EncMap */
    [0x20] = { C_U32, C_U16, C_U16, C_U16, C_U16, C_U32, C_BLOB, C_STR, C_STR, END },    /* Assembly */
    [0x21] = { C_U32, END },                                                      /* AssemblyProcessor */
    [0x22] = { C_U32, C_U32, C_U32, END },                                        /* AssemblyOS */
    [0x23] = { C_U16, C_U16, C_U16, C_U16, C_U32, C_BLOB, C_STR, C_STR, C_BLOB, END },   /* AssemblyRef */
    [0x24] = { C_U32, 0x23, END },                                                /* AssemblyRefProcessor */
    [0x25] = { C_U32, C_U32, C_U32, 0x23, END },                                  /* AssemblyRefOS */
    [0x26] = { C_U32, C_STR, C_BLOB, END },                                       /* File */
    [0x27] = { C_U32, C_U32, C_STR, C_STR, CI_IMPLEMENTATION, END },              /* ExportedType */
    [0x28] = { C_U32, C_U32, C_STR, CI_IMPLEMENTATION, END },                     /* ManifestResource */
    [0x29] = { 0x02, 0x02, END },                                                 /* NestedClass */
    [0x2a] = { C_U16, C_U16, CI_TYPEORMETHODDEF, C_STR, END },                    /* GenericParam */
    [0x2b] = { CI_METHODDEFORREF, C_BLOB, END },                                  /* MethodSpec */
    [0x2c] = { 0x2a, CI_TYPEDEFORREF, END },                                      /* GenericParamConstraint */
    [0x30] = { C_BLOB, C_GUID, C_BLOB, C_GUID, END },                             /* Document */
    [0x31] = { 0x30, C_BLOB, END },                                               /* MethodDebugInformation */
    [0x32] = { 0x06, 0x35, 0x33, 0x34, C_U32, C_U32, END },                       /* LocalScope */
    [0x33] = { C_U16, C_U16, C_STR, END },                                        /* LocalVariable */
    [0x34] = { C_STR, C_BLOB, END },                                              /* LocalConstant */
    [0x35] = { 0x35, C_BLOB, END },                                               /* ImportScope */
    [0x36] = { 0x06, 0x06, END },                                                 /* StateMachineMethod */
    [0x37] = { CI_HASCUSTOMDEBUGINFORMATION, C_GUID, C_BLOB, END },               /* CustomDebugInformation */
};

typedef struct widths {
    const uint32_t *rows;       /* row counts that size the indexes */
    unsigned str, guid, blob;
} widths;

static unsigned column_width(const widths *w, uint8_t c)
{
    if (c < 64)
        return w->rows[c] < 0x10000 ? 2 : 4;
    if (c < CI_END_) {
        const coded_kind *k = &coded_kinds[c - 64];
        uint32_t max = 0;
        for (unsigned i = 0; i < k->n; i++)
            if (k->tables[i] != NO_TABLE && w->rows[k->tables[i]] > max)
                max = w->rows[k->tables[i]];
        return max < (1u << (16 - k->tag_bits)) ? 2 : 4;
    }
    switch (c) {
    case C_U16: return 2;
    case C_U32: return 4;
    case C_STR: return w->str;
    case C_GUID: return w->guid;
    default: return w->blob;
    }
}

/* A table's row size, 0 for a table of unknown layout. */
static unsigned row_size(const widths *w, unsigned table)
{
    unsigned size = 0;
    if (schema[table][0] == 0)          /* no columns: a table this reader does not know */
        return 0;
    for (unsigned i = 0; i < sizeof(schema[table]) && schema[table][i] != END; i++)
        size += column_width(w, schema[table][i]);
    return size;
}

/* ---- opening ---- */

int pdb_is_windows_pdb(const uint8_t *data, size_t len)
{
    static const char msf[] = "Microsoft C/C++ MSF 7.00\r\n\x1a";
    return data && len >= sizeof(msf) - 1 && memcmp(data, msf, sizeof(msf) - 1) == 0;
}

int pdb_streams_end(const uint8_t *d, size_t len, uint64_t *end)
{
    uint64_t off, vlen, last;
    uint32_t nstreams;

    if (len < 20 || rd32(d) != 0x424a5342)
        return -1;
    vlen = rd32(d + 12);
    off = 16 + vlen;
    if (vlen > 256 || off + 4 > len)
        return -1;
    nstreams = rd16(d + off + 2);
    off += 4;
    last = off;
    for (uint32_t i = 0; i < nstreams; i++) {
        size_t nlen;

        if (off + 8 > len)
            return -1;
        for (nlen = 0; nlen < 32 && off + 8 + nlen < len && d[off + 8 + nlen]; nlen++)
            ;
        if (nlen == 32 || off + 8 + nlen >= len)
            return -1;
        if ((uint64_t)rd32(d + off) + rd32(d + off + 4) > last)
            last = (uint64_t)rd32(d + off) + rd32(d + off + 4);
        off += 8 + ((nlen + 4) & ~(size_t)3);
    }
    *end = last > off ? last : off;
    return 0;
}

static int read_streams(pdb_file *p, int *have_tables, char *err, size_t errlen)
{
    const uint8_t *d = p->data;
    uint64_t off, vlen;
    uint32_t nstreams;

    if (p->len < 20 || rd32(d) != 0x424a5342) {
        set_err(err, errlen, pdb_is_windows_pdb(d, p->len) ? "not a portable PDB (a Windows PDB?)"
                                                           : "not a portable PDB (no metadata signature)");
        return -1;
    }
    vlen = rd32(d + 12);
    off = 16 + vlen;
    if (vlen > 256 || off + 4 > p->len) {
        set_err(err, errlen, "a damaged portable PDB (metadata root)");
        return -1;
    }
    nstreams = rd16(d + off + 2);
    off += 4;
    for (uint32_t i = 0; i < nstreams; i++) {
        uint32_t s_off, s_size;
        size_t nlen;
        const char *name;
        span *dst = NULL;

        if (off + 8 > p->len) {
            set_err(err, errlen, "a damaged portable PDB (stream headers)");
            return -1;
        }
        s_off = rd32(d + off);
        s_size = rd32(d + off + 4);
        name = (const char *)d + off + 8;
        for (nlen = 0; nlen < 32 && off + 8 + nlen < p->len && name[nlen]; nlen++)
            ;
        if (nlen == 32 || off + 8 + nlen >= p->len) {
            set_err(err, errlen, "a damaged portable PDB (stream name)");
            return -1;
        }
        off += 8 + ((nlen + 4) & ~(size_t)3);
        if ((uint64_t)s_off + s_size > p->len) {
            set_err(err, errlen, "a damaged portable PDB (stream %.*s out of bounds)", (int)nlen, name);
            return -1;
        }
        if (strcmp(name, "#Strings") == 0)
            dst = &p->strings;
        else if (strcmp(name, "#Blob") == 0)
            dst = &p->blob;
        else if (strcmp(name, "#GUID") == 0)
            dst = &p->guid;
        else if (strcmp(name, "#~") == 0) {
            dst = &p->tables;
            *have_tables = 1;
        } else if (strcmp(name, "#Pdb") == 0)
            dst = &p->pdb;
        if (dst && !dst->p) {           /* the first of a name counts */
            dst->p = d + s_off;
            dst->size = s_size;
        }
    }
    if (!p->pdb.p) {
        set_err(err, errlen, "not a portable PDB (no #Pdb stream: an assembly's metadata?)");
        return -1;
    }
    if (!*have_tables) {
        set_err(err, errlen, "a damaged portable PDB (no #~ stream)");
        return -1;
    }
    if (!p->blob.p || p->blob.size == 0) {
        static const uint8_t empty_blob_heap[1] = { 0 };
        p->blob.p = empty_blob_heap;
        p->blob.size = 1;
    }
    return 0;
}

/* #Pdb: the id, the entry point, then the type-system tables' row counts. */
static int read_pdb_stream(pdb_file *p, uint32_t *ts_rows, char *err, size_t errlen)
{
    const uint8_t *s = p->pdb.p;
    uint64_t referenced, need = 32;

    if (p->pdb.size < 32) {
        set_err(err, errlen, "a damaged portable PDB (#Pdb stream too short)");
        return -1;
    }
    memcpy(p->id, s, PDB_ID_SIZE);
    referenced = rd64(s + 24);
    for (unsigned t = 0; t < 64; t++)
        if (referenced >> t & 1) {
            if (need + 4 > p->pdb.size) {
                set_err(err, errlen, "a damaged portable PDB (#Pdb row counts)");
                return -1;
            }
            ts_rows[t] = rd32(s + need);
            need += 4;
        }
    return 0;
}

/* #~: the heap sizes, row counts, and where Document and
 * MethodDebugInformation start; every table before them must be known. */
static int read_table_stream(pdb_file *p, const uint32_t *ts_rows, char *err, size_t errlen)
{
    const uint8_t *s = p->tables.p;
    uint32_t own[64] = { 0 }, rows[64];
    uint64_t valid, off;
    uint8_t heaps;
    widths w;

    if (p->tables.size < 24) {
        set_err(err, errlen, "a damaged portable PDB (#~ header)");
        return -1;
    }
    heaps = s[6];
    valid = rd64(s + 8);
    off = 24;
    for (unsigned t = 0; t < 64; t++)
        if (valid >> t & 1) {
            if (off + 4 > p->tables.size) {
                set_err(err, errlen, "a damaged portable PDB (#~ row counts)");
                return -1;
            }
            own[t] = rd32(s + off);
            off += 4;
            if (own[t] > ROWS_MAX) {
                set_err(err, errlen, "a damaged portable PDB (%u rows in table %#x)", own[t], t);
                return -1;
            }
        }
    if (heaps & 0x40)                   /* extra data: 4 bytes after the row counts */
        off += 4;
    /* the PDB's own tables, else the type-system tables' counts of #Pdb */
    for (unsigned t = 0; t < 64; t++)
        rows[t] = (valid >> t & 1) ? own[t] : ts_rows[t];
    w.rows = rows;
    w.str = heaps & 0x01 ? 4 : 2;
    w.guid = heaps & 0x02 ? 4 : 2;
    w.blob = heaps & 0x04 ? 4 : 2;
    p->blob_w = (uint8_t)w.blob;
    p->guid_w = (uint8_t)w.guid;
    p->doc_w = (uint8_t)column_width(&w, TABLE_DOCUMENT);

    for (unsigned t = 0; t <= TABLE_METHOD_DEBUG; t++) {
        unsigned size;
        uint64_t bytes;
        if (!(valid >> t & 1))
            continue;
        size = row_size(&w, t);
        if (size == 0) {
            set_err(err, errlen, "a damaged portable PDB (table %#x of unknown layout)", t);
            return -1;
        }
        bytes = (uint64_t)size * own[t];
        if (off + bytes > p->tables.size) {
            set_err(err, errlen, "a damaged portable PDB (table %#x out of bounds)", t);
            return -1;
        }
        if (t == TABLE_DOCUMENT) {
            p->doc_table = s + off;
            p->doc_rows = own[t];
            p->doc_row_size = size;
        } else if (t == TABLE_METHOD_DEBUG) {
            p->mdi_table = s + off;
            p->mdi_rows = own[t];
            p->mdi_row_size = size;
        }
        off += bytes;
    }
    return 0;
}

pdb_file *pdb_open_memory(const uint8_t *data, size_t len, char *err, size_t errlen)
{
    pdb_file *p;
    uint32_t ts_rows[64] = { 0 };
    int have_tables = 0;

    if (!data) {
        set_err(err, errlen, "not a portable PDB (empty)");
        return NULL;
    }
    p = calloc(1, sizeof(*p));
    if (!p) {
        set_err(err, errlen, "not opened (no memory)");
        return NULL;
    }
    p->data = data;
    p->len = len;
    if (read_streams(p, &have_tables, err, errlen) != 0 || read_pdb_stream(p, ts_rows, err, errlen) != 0 ||
        read_table_stream(p, ts_rows, err, errlen) != 0) {
        free(p);
        return NULL;
    }
    if (p->mdi_rows) {
        p->methods = calloc(p->mdi_rows, sizeof(*p->methods));
        p->method_state = calloc(p->mdi_rows, 1);
    }
    if (p->doc_rows) {
        p->doc_names = calloc(p->doc_rows, sizeof(*p->doc_names));
        p->doc_state = calloc(p->doc_rows, 1);
    }
    if ((p->mdi_rows && (!p->methods || !p->method_state)) || (p->doc_rows && (!p->doc_names || !p->doc_state))) {
        pdb_close(p);
        set_err(err, errlen, "not opened (no memory)");
        return NULL;
    }
    return p;
}

void pdb_close(pdb_file *p)
{
    if (!p)
        return;
    for (uint32_t i = 0; p->methods && i < p->mdi_rows; i++)
        free(p->methods[i]);
    for (uint32_t i = 0; p->doc_names && i < p->doc_rows; i++)
        free(p->doc_names[i]);
    free(p->methods);
    free(p->method_state);
    free(p->doc_names);
    free(p->doc_state);
    free(p);
}

const uint8_t *pdb_id(const pdb_file *p) { return p->id; }
uint32_t pdb_method_count(const pdb_file *p) { return p->mdi_rows; }
uint32_t pdb_document_count(const pdb_file *p) { return p->doc_rows; }

void pdb_get_layout(const pdb_file *p, pdb_layout *out)
{
    memset(out, 0, sizeof(*out));
    out->strings = p->strings.p ? (size_t)(p->strings.p - p->data) : 0;
    out->blob = p->blob.p && p->blob.size > 1 ? (size_t)(p->blob.p - p->data) : 0;
    out->blob_size = p->blob.size;
    out->guid = p->guid.p ? (size_t)(p->guid.p - p->data) : 0;
    out->tables = (size_t)(p->tables.p - p->data);
    out->pdb = (size_t)(p->pdb.p - p->data);
    out->doc_table = p->doc_table ? (size_t)(p->doc_table - p->data) : 0;
    out->mdi_table = p->mdi_table ? (size_t)(p->mdi_table - p->data) : 0;
    out->doc_rows = p->doc_rows;
    out->mdi_rows = p->mdi_rows;
    out->doc_row_size = p->doc_row_size;
    out->mdi_row_size = p->mdi_row_size;
    out->blob_w = p->blob_w;
    out->doc_w = p->doc_w;
}

/* ---- sequence points ---- */

/* Decodes the SequencePoints blob of MethodDebugInformation row `row`
 * (1-based): NULL with *bad set when damaged, NULL alone when empty. */
static method_sp *decode_points(const pdb_file *p, uint32_t row, int *bad)
{
    const uint8_t *r = p->mdi_table + (uint64_t)(row - 1) * p->mdi_row_size;
    uint32_t doc = rd_index(r, p->doc_w), blob_idx = rd_index(r + p->doc_w, p->blob_w);
    const uint8_t *b, *end;
    uint32_t blen, v, n = 0;
    uint64_t il = 0, line = 0, col = 0;
    int first = 1, have_visible = 0;
    method_sp *m;

    *bad = 0;
    if (blob_at(p, blob_idx, &b, &blen) != 0) {
        *bad = 1;
        return NULL;
    }
    if (blen == 0)
        return NULL;
    end = b + blen;
    if (rd_cu(&b, end, &v) != 0)                /* LocalSignature */
        goto damaged;
    if (doc == 0 && rd_cu(&b, end, &doc) != 0)  /* InitialDocument */
        goto damaged;
    if (doc == 0 || doc > p->doc_rows)
        goto damaged;
    /* a record takes 2 bytes at least: at most blen/2 points */
    m = malloc(sizeof(*m) + (size_t)(blen / 2 + 1) * sizeof(pdb_point));
    if (!m) {
        *bad = 1;
        return NULL;
    }
    while (b < end) {
        uint32_t d_il, d_lines;
        pdb_point *pt;

        if (rd_cu(&b, end, &d_il) != 0)
            goto damaged_m;
        if (!first && d_il == 0) {              /* document-record */
            if (rd_cu(&b, end, &doc) != 0 || doc == 0 || doc > p->doc_rows)
                goto damaged_m;
            continue;
        }
        il = first ? d_il : il + d_il;
        if (il >= IL_LIMIT || n > blen / 2)
            goto damaged_m;
        if (rd_cu(&b, end, &d_lines) != 0)
            goto damaged_m;
        pt = &m->pts[n];
        pt->il_offset = (uint32_t)il;
        pt->document = doc;
        if (d_lines == 0) {
            uint32_t d_cols;
            if (rd_cu(&b, end, &d_cols) != 0)
                goto damaged_m;
            if (d_cols == 0) {                  /* hidden */
                pt->line = pt->end_line = SYM_LINE_HIDDEN;
                pt->column = pt->end_column = 0;
                n++;
                first = 0;
                continue;
            }
            pt->end_column = d_cols;            /* start added below */
        } else {
            int32_t d_cols;
            if (rd_cs(&b, end, &d_cols) != 0)
                goto damaged_m;
            pt->end_column = (uint32_t)d_cols;  /* two's complement, start added below */
        }
        if (!have_visible) {
            uint32_t l, c;
            if (rd_cu(&b, end, &l) != 0 || rd_cu(&b, end, &c) != 0)
                goto damaged_m;
            line = l;
            col = c;
        } else {
            int32_t dl, dc;
            int64_t l, c;
            if (rd_cs(&b, end, &dl) != 0 || rd_cs(&b, end, &dc) != 0)
                goto damaged_m;
            l = (int64_t)line + dl;
            c = (int64_t)col + dc;
            if (l < 0 || c < 0)
                goto damaged_m;
            line = (uint64_t)l;
            col = (uint64_t)c;
        }
        {
            int64_t end_col = (int64_t)col + (int32_t)pt->end_column;
            uint64_t end_line = line + d_lines;
            if (line >= LINE_LIMIT || line == SYM_LINE_HIDDEN || col >= COLUMN_LIMIT || end_line >= LINE_LIMIT ||
                end_col < 0 || end_col >= (int64_t)COLUMN_LIMIT)
                goto damaged_m;
            pt->line = (uint32_t)line;
            pt->column = (uint32_t)col;
            pt->end_line = (uint32_t)end_line;
            pt->end_column = (uint32_t)end_col;
        }
        have_visible = 1;
        first = 0;
        n++;
    }
    if (n == 0) {
        free(m);
        return NULL;
    }
    m->n = n;
    return m;

damaged_m:
    free(m);
damaged:
    *bad = 1;
    return NULL;
}

int pdb_method_points(pdb_file *p, uint32_t method_row, const pdb_point **pts, size_t *n)
{
    uint32_t i;
    if (method_row == 0 || method_row > p->mdi_rows)
        return 0;
    i = method_row - 1;
    if (!p->methods[i] && !p->method_state[i]) {
        int bad;
        p->methods[i] = decode_points(p, method_row, &bad);
        if (!p->methods[i])
            p->method_state[i] = M_BAD;     /* damaged or empty: not decoded again */
    }
    if (!p->methods[i])
        return 0;
    *pts = p->methods[i]->pts;
    *n = p->methods[i]->n;
    return 1;
}

/* ---- document names ---- */

/* A Document row's Name blob: a separator byte, then compressed #Blob
 * indexes of the UTF-8 parts (0: an empty part), joined by the separator. */
static char *decode_name(const pdb_file *p, uint32_t doc)
{
    const uint8_t *r = p->doc_table + (uint64_t)(doc - 1) * p->doc_row_size;
    const uint8_t *b, *end, *q;
    uint32_t blen, total = 0, parts = 0, v;
    uint8_t sep;
    char *name, *w;

    if (blob_at(p, rd_index(r, p->blob_w), &b, &blen) != 0 || blen == 0)
        return NULL;
    end = b + blen;
    sep = *b++;
    if (sep > 0x7f)
        return NULL;
    /* first pass: the length, bounded */
    for (q = b; q < end; parts++) {
        const uint8_t *part;
        uint32_t plen;
        if (rd_cu(&q, end, &v) != 0 || blob_at(p, v, &part, &plen) != 0)
            return NULL;
        total += plen + (parts > 0 && sep ? 1 : 0);
        if (plen > PDB_DOC_NAME_MAX || total > PDB_DOC_NAME_MAX)
            return NULL;
    }
    name = malloc((size_t)total + 1);
    if (!name)
        return NULL;
    w = name;
    parts = 0;
    for (q = b; q < end; parts++) {
        const uint8_t *part;
        uint32_t plen;
        rd_cu(&q, end, &v);
        blob_at(p, v, &part, &plen);
        if (parts > 0 && sep)
            *w++ = (char)sep;
        memcpy(w, part, plen);
        w += plen;
    }
    *w = '\0';
    return name;
}

const char *pdb_document_name(pdb_file *p, uint32_t doc)
{
    if (doc == 0 || doc > p->doc_rows)
        return NULL;
    if (!p->doc_names[doc - 1] && !p->doc_state[doc - 1]) {
        p->doc_names[doc - 1] = decode_name(p, doc);
        if (!p->doc_names[doc - 1])
            p->doc_state[doc - 1] = M_BAD;
    }
    return p->doc_names[doc - 1];
}

/* ---- the line of an IL offset ---- */

static int visible(const pdb_point *pt) { return pt->line != SYM_LINE_HIDDEN; }

int pdb_method_line(pdb_file *p, uint32_t method_token, uint32_t il_offset, sym_line *out)
{
    const pdb_point *pts;
    size_t n, k, lo, hi;
    const char *file;
    int found = 0;

    if ((method_token >> 24) != 0x06 || il_offset == SYM_IL_NO_MAPPING ||
        !pdb_method_points(p, method_token & 0x00ffffff, &pts, &n))
        return 0;
    if (il_offset == SYM_IL_EPILOG) {
        for (k = n; k-- > 0;)
            if (visible(&pts[k])) {
                found = 1;
                break;
            }
    } else {
        /* the last point at or before il_offset (none: k = n, start at the first) */
        k = n;
        if (il_offset != SYM_IL_PROLOG) {
            lo = 0;
            hi = n;
            while (lo < hi) {               /* the first point after il_offset */
                size_t mid = lo + (hi - lo) / 2;
                if (pts[mid].il_offset <= il_offset)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo > 0)
                k = lo - 1;
        }
        if (k < n) {
            for (size_t j = k + 1; j-- > 0;)   /* it, else the nearest visible before it */
                if (visible(&pts[j])) {
                    k = j;
                    found = 1;
                    break;
                }
            if (!found)
                for (size_t j = k + 1; j < n; j++)     /* else the first visible after it */
                    if (visible(&pts[j])) {
                        k = j;
                        found = 1;
                        break;
                    }
        } else
            for (k = 0; k < n; k++)
                if (visible(&pts[k])) {
                    found = 1;
                    break;
                }
    }
    if (!found || !(file = pdb_document_name(p, pts[k].document)))
        return 0;
    out->file = file;
    out->line = pts[k].line;
    out->column = pts[k].column;
    return 1;
}
