/* pe_debug.h - a PE/COFF file's debug directory, read from memory: the
 * CodeView entry (type 2, "RSDS": the PDB's GUID, the entry's stamp, the
 * PDB's path) that names a portable PDB, and the Embedded Portable PDB
 * entry (type 17, "MPDB": the PDB deflated), inflated on request. */
#ifndef CLRPROBE_SYMBOLS_PE_DEBUG_H
#define CLRPROBE_SYMBOLS_PE_DEBUG_H

#include <stddef.h>
#include <stdint.h>

#define PE_DEBUG_PATH_MAX 1024             /* longer CodeView paths are not used */
#define PE_DEBUG_INFLATED_MAX (512u << 20) /* an embedded PDB's largest inflated size */

typedef struct pe_debug_info {
    int has_codeview;          /* a CodeView (RSDS) entry was found */
    int codeview_portable;     /* its version is a portable PDB's (0x0100, 0x504d) */
    uint8_t pdb_id[20];        /* its GUID then the entry's TimeDateStamp (little-endian) */
    char pdb_path[PE_DEBUG_PATH_MAX];   /* the PDB path it names, "" if none or too long */
    int has_embedded;          /* an Embedded Portable PDB entry was found */
    size_t embedded_off;       /* its data: offset and length in the file */
    size_t embedded_len;
} pe_debug_info;

/* Reads the debug directory of the PE file file[0..len).  Returns 0 and
 * fills *out (a file without a debug directory is fine: nothing found), or
 * -1 with a short reason in err when the file is not a PE file or its
 * headers are out of bounds. */
int pe_debug_read(const uint8_t *file, size_t len, pe_debug_info *out, char *err, size_t errlen);

/* Inflates the embedded PDB that info found in file: 0 with *out (malloc'd,
 * the caller frees it) and *outlen, or -1 with a reason in err (damaged,
 * larger than PE_DEBUG_INFLATED_MAX, not the size it declares, no memory). */
int pe_debug_inflate_embedded(const uint8_t *file, size_t len, const pe_debug_info *info,
                              uint8_t **out, size_t *outlen, char *err, size_t errlen);

#endif
