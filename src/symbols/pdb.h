/* pdb.h - a portable PDB read from memory: the ECMA-335 metadata root and
 * streams (#Pdb, #~, #Blob, #GUID, #Strings), the Document and
 * MethodDebugInformation tables, and each method's sequence points,
 * decoded on first use (and each document's name, once).  The bytes are
 * the caller's and must outlive the pdb_file; nothing is written to them. */
#ifndef CLRPROBE_SYMBOLS_PDB_H
#define CLRPROBE_SYMBOLS_PDB_H

#include <stddef.h>
#include <stdint.h>

#include "symbols/symbols.h"

#define PDB_ID_SIZE 20
#define PDB_DOC_NAME_MAX 65536       /* a longer document name is damage */

typedef struct pdb_file pdb_file;

/* One sequence point as decoded; hidden ones have line and end_line
 * SYM_LINE_HIDDEN and columns 0.  document: a Document row (1-based). */
typedef struct pdb_point {
    uint32_t il_offset, line, column, end_line, end_column, document;
} pdb_point;

/* 1 if data starts like a Windows (MSF 7.00) PDB. */
int pdb_is_windows_pdb(const uint8_t *data, size_t len);

/* Where the last stream of a portable PDB ends, from its first len bytes
 * (its metadata root and stream headers must be among them): 0 with *end,
 * or -1 when they are not a portable PDB's.  The bytes past it are none of
 * the PDB's: a reader need not read them. */
int pdb_streams_end(const uint8_t *data, size_t len, uint64_t *end);

/* Opens the portable PDB data[0..len): NULL with a short reason in err
 * that follows "FILE is": ("not a portable PDB (a Windows PDB?)", "a damaged portable PDB (...)",
 * "not opened (no memory)") when it cannot. */
pdb_file *pdb_open_memory(const uint8_t *data, size_t len, char *err, size_t errlen);
void pdb_close(pdb_file *p);

/* The PDB id of the #Pdb stream: the GUID (16 bytes) then the stamp (4). */
const uint8_t *pdb_id(const pdb_file *p);
/* Rows of MethodDebugInformation (= the MethodDef rows it describes) and of Document. */
uint32_t pdb_method_count(const pdb_file *p);
uint32_t pdb_document_count(const pdb_file *p);

/* The sequence points of MethodDef row method_row (1-based), in IL order:
 * 1 with *pts (owned by p) and *n (> 0), or 0 when the method has none, is
 * out of range or its blob is damaged. */
int pdb_method_points(pdb_file *p, uint32_t method_row, const pdb_point **pts, size_t *n);

/* The name of Document row doc (1-based), UTF-8 as stored, owned by p; NULL
 * when out of range or damaged. */
const char *pdb_document_name(pdb_file *p, uint32_t doc);

/* Where the parts are, as offsets in the data (for the fuzzer's targeted
 * mutations and for tests): the streams, the two tables and their rows. */
typedef struct pdb_layout {
    size_t strings, blob, guid, tables, pdb;            /* stream offsets */
    uint32_t blob_size;
    size_t doc_table, mdi_table;                        /* 0 when the table is empty */
    uint32_t doc_rows, mdi_rows, doc_row_size, mdi_row_size;
    unsigned blob_w, doc_w;                             /* index widths */
} pdb_layout;
void pdb_get_layout(const pdb_file *p, pdb_layout *out);

/* sym_module_line's rule (symbols.h) on this PDB. */
int pdb_method_line(pdb_file *p, uint32_t method_token, uint32_t il_offset, sym_line *out);

#endif
