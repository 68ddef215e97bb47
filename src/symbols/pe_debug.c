/* pe_debug.c - finds the debug directory of a PE/COFF file in memory
 * (through the optional header's data directory 6 and the section table)
 * and reads its CodeView and Embedded Portable PDB entries; inflates the
 * embedded PDB with zlib's raw inflate.  Every offset is checked against
 * the buffer with 64-bit arithmetic before it is read. */
#include "symbols/pe_debug.h"
#include "symbols/le_bytes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define DEBUG_TYPE_CODEVIEW 2u
#define DEBUG_TYPE_EMBEDDED_PDB 17u
#define DEBUG_ENTRY_SIZE 28u
#define DEBUG_ENTRIES_MAX 4096u     /* more entries than any compiler writes */
#define DEFLATE_RATIO_MAX 1040u     /* deflate cannot expand data more than ~1032:1 */


static int in_bounds(size_t len, uint64_t off, uint64_t n)
{
    return off <= len && n <= len - off;
}


typedef struct pe_sections {
    const uint8_t *table;
    uint32_t count;
} pe_sections;

/* The file offset of [rva, rva+n) if a section's raw data holds it all. */
static int rva_to_offset(size_t len, const pe_sections *s, uint32_t rva, uint32_t n,
                         uint64_t *off)
{
    for (uint32_t i = 0; i < s->count; i++) {
        const uint8_t *h = s->table + (size_t)i * 40;
        uint64_t va = rd32(h + 12), vsize = rd32(h + 8), raw_size = rd32(h + 16), raw = rd32(h + 20);
        uint64_t size = vsize > raw_size || vsize == 0 ? raw_size : vsize;
        if ((uint64_t)rva >= va && (uint64_t)rva + n <= va + size) {
            uint64_t o = raw + ((uint64_t)rva - va);
            if (!in_bounds(len, o, n))
                return -1;
            *off = o;
            return 0;
        }
    }
    return -1;
}

/* The data of one debug entry: by its file pointer, else by its RVA. */
static int entry_data(size_t len, const pe_sections *s, const uint8_t *e, uint64_t *off,
                      uint32_t *size)
{
    uint32_t n = rd32(e + 16), rva = rd32(e + 20), ptr = rd32(e + 24);
    if (ptr && in_bounds(len, ptr, n)) {
        *off = ptr;
        *size = n;
        return 0;
    }
    if (rva && rva_to_offset(len, s, rva, n, off) == 0) {
        *size = n;
        return 0;
    }
    return -1;
}

static void read_codeview(const uint8_t *file, const uint8_t *e, uint64_t off, uint32_t size,
                          pe_debug_info *out)
{
    const uint8_t *d = file + off;
    int portable = rd16(e + 8) == 0x0100 && rd16(e + 10) == 0x504d;
    size_t n;

    if (size < 24 || memcmp(d, "RSDS", 4) != 0)
        return;
    if (out->has_codeview && (out->codeview_portable || !portable))
        return;                     /* the first portable one wins, else the first one */
    out->has_codeview = 1;
    out->codeview_portable = portable;
    memcpy(out->pdb_id, d + 4, 16);
    memcpy(out->pdb_id + 16, e + 4, 4);     /* TimeDateStamp, as stored (little-endian) */
    out->pdb_path[0] = '\0';
    /* GUID 16, Age 4, then the NUL-terminated path */
    for (n = 0; 24 + n < size && d[24 + n]; n++)
        ;
    if (24 + n < size && n > 0 && n < sizeof(out->pdb_path)) {
        memcpy(out->pdb_path, d + 24, n);
        out->pdb_path[n] = '\0';
    }
}

int pe_debug_read(const uint8_t *file, size_t len, pe_debug_info *out, char *err, size_t errlen)
{
    uint64_t pe, opt, dirs, sect, dbg_off;
    uint32_t nsect, opt_size, ndirs, dbg_rva, dbg_size;
    uint16_t magic;
    pe_sections s;

    memset(out, 0, sizeof(*out));
    if (!file || len < 64 || file[0] != 'M' || file[1] != 'Z') {
        set_err(err, errlen, "not a PE file (no MZ header)");
        return -1;
    }
    pe = rd32(file + 0x3c);
    if (!in_bounds(len, pe, 24) || memcmp(file + pe, "PE\0\0", 4) != 0) {
        set_err(err, errlen, "not a PE file (no PE signature)");
        return -1;
    }
    nsect = rd16(file + pe + 6);
    opt_size = rd16(file + pe + 20);
    opt = pe + 24;
    if (!in_bounds(len, opt, opt_size) || opt_size < 2) {
        set_err(err, errlen, "damaged PE file (optional header)");
        return -1;
    }
    magic = rd16(file + opt);
    if (magic == 0x10b)
        dirs = 96;
    else if (magic == 0x20b)
        dirs = 112;
    else {
        set_err(err, errlen, "damaged PE file (optional header magic %#x)", magic);
        return -1;
    }
    sect = opt + opt_size;
    if (!in_bounds(len, sect, (uint64_t)nsect * 40)) {
        set_err(err, errlen, "damaged PE file (section table)");
        return -1;
    }
    s.table = file + sect;
    s.count = nsect;
    if (opt_size < dirs)
        return 0;                   /* no data directories */
    ndirs = rd32(file + opt + dirs - 4);
    if (ndirs <= 6 || (uint64_t)opt_size < dirs + 7 * 8)
        return 0;                   /* no debug directory */
    dbg_rva = rd32(file + opt + dirs + 6 * 8);
    dbg_size = rd32(file + opt + dirs + 6 * 8 + 4);
    if (!dbg_rva || !dbg_size)
        return 0;
    if (rva_to_offset(len, &s, dbg_rva, dbg_size, &dbg_off) != 0) {
        set_err(err, errlen, "damaged PE file (debug directory out of bounds)");
        return -1;
    }
    for (uint32_t i = 0; i < dbg_size / DEBUG_ENTRY_SIZE && i < DEBUG_ENTRIES_MAX; i++) {
        const uint8_t *e = file + dbg_off + (uint64_t)i * DEBUG_ENTRY_SIZE;
        uint32_t type = rd32(e + 12), size;
        uint64_t off;
        if (type != DEBUG_TYPE_CODEVIEW && type != DEBUG_TYPE_EMBEDDED_PDB)
            continue;
        if (entry_data(len, &s, e, &off, &size) != 0)
            continue;               /* an entry out of bounds is not used */
        if (type == DEBUG_TYPE_CODEVIEW)
            read_codeview(file, e, off, size, out);
        else if (!out->has_embedded && size >= 8 && memcmp(file + off, "MPDB", 4) == 0) {
            out->has_embedded = 1;
            out->embedded_off = (size_t)off;
            out->embedded_len = size;
        }
    }
    return 0;
}

int pe_debug_inflate_embedded(const uint8_t *file, size_t len, const pe_debug_info *info,
                              uint8_t **out, size_t *outlen, char *err, size_t errlen)
{
    const uint8_t *d;
    uint32_t declared;
    uint64_t packed;
    uint8_t *buf;
    z_stream z;
    int rc;

    *out = NULL;
    *outlen = 0;
    if (!info->has_embedded || !in_bounds(len, info->embedded_off, info->embedded_len) ||
        info->embedded_len < 8) {
        set_err(err, errlen, "no embedded PDB");
        return -1;
    }
    d = file + info->embedded_off;
    declared = rd32(d + 4);
    packed = info->embedded_len - 8;
    if (declared == 0 || declared > PE_DEBUG_INFLATED_MAX) {
        set_err(err, errlen, "the embedded PDB declares %u bytes (at most %u)", declared,
                PE_DEBUG_INFLATED_MAX);
        return -1;
    }
    if ((uint64_t)declared > packed * DEFLATE_RATIO_MAX + 64) {
        set_err(err, errlen, "the embedded PDB declares %u bytes from %llu compressed", declared,
                (unsigned long long)packed);
        return -1;
    }
    buf = malloc(declared);
    if (!buf) {
        set_err(err, errlen, "no memory for the embedded PDB");
        return -1;
    }
    memset(&z, 0, sizeof(z));
    if (inflateInit2(&z, -15) != Z_OK) {
        free(buf);
        set_err(err, errlen, "no memory for the embedded PDB");
        return -1;
    }
    /* the compressed size fits in uInt: it is a u32 (SizeOfData) */
    z.next_in = (Bytef *)(uintptr_t)(d + 8);
    z.avail_in = (uInt)packed;
    z.next_out = buf;
    z.avail_out = declared;
    rc = inflate(&z, Z_FINISH);
    inflateEnd(&z);
    if (rc != Z_STREAM_END || z.total_out != declared) {
        free(buf);
        set_err(err, errlen, rc == Z_STREAM_END || rc == Z_BUF_ERROR
                ? "the embedded PDB is not the size it declares" : "the embedded PDB is damaged (inflate)");
        return -1;
    }
    *out = buf;
    *outlen = declared;
    return 0;
}
