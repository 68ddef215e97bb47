/* reader.h - reading a clrprobe trace: validates the header, walks the
 * chunks checking each checksum, and says what was wrong with the file: a
 * corrupted chunk is skipped (and counted) and the rest read; a file that
 * ends inside a chunk, or without the end record, was cut short. */
#ifndef CLRPROBE_TRACE_READER_H
#define CLRPROBE_TRACE_READER_H

#include <stddef.h>
#include <stdint.h>

typedef struct trace_file {
    uint8_t *data;               /* trace_open_memory: the whole file (a malloc'd block); trace_open: NULL */
    size_t size;                 /* the file's size when it was opened */
    int fd;                      /* trace_open: the file, read a window at a time as it is walked; else -1 */
    uint32_t version;
    uint32_t pid;
    uint32_t flags;              /* TRACE_FLAG_* */
    uint64_t start_realtime_ns;
    uint64_t start_monotonic_ns;
    char *runtime_version;       /* NUL-terminated copies (trace_str_copy) */
    char *command_line;
    size_t body_offset;          /* first chunk */
} trace_file;

/* A string of the trace as a C string: trace_str_size is the size of the
 * copy (terminator included), trace_str_copy writes it.  A NUL inside the
 * string (a program can put one in a thread name) becomes the two bytes
 * C0 80, the "modified UTF-8" convention, so that the copy is not cut
 * there (see report/model.h). */
size_t trace_str_size(const char *s, size_t n);
void trace_str_copy(char *dst, const char *s, size_t n);

/* Errors trace_open() can give, so callers can choose words and exit codes. */
enum trace_open_error {
    TRACE_OK = 0,
    TRACE_E_IO = 1,              /* cannot open or read the file */
    TRACE_E_NOT_TRACE = 2,       /* wrong magic: not a clrprobe trace */
    TRACE_E_NEWER = 3,           /* a format version newer than this reader */
    TRACE_E_BAD_HEADER = 4,      /* the header is damaged */
};

/* Opens path (a regular file; opening never blocks) and reads its header;
 * the chunks are read as they are walked (trace_next_chunk), never mapped,
 * so that a file shortened meanwhile reads as cut short (never a SIGBUS).
 * Returns TRACE_OK or an error with a message. */
int trace_open(const char *path, trace_file *tf, char *err, size_t errlen);

/* Parses a trace already in memory (takes ownership of data, a malloc'd block). */
int trace_open_memory(uint8_t *data, size_t size, trace_file *tf, char *err, size_t errlen);

/* The chunks have been walked: the file is closed, the header's fields stay
 * (a report of many traces keeps them all without a descriptor each). */
void trace_done_reading(trace_file *tf);

void trace_close(trace_file *tf);

typedef struct trace_chunk {
    const uint8_t *payload;
    uint32_t len;
    uint32_t nrecords;
    uint64_t seq;
    size_t offset;               /* of the chunk header in the file */
} trace_chunk;

/* State of a walk over the chunks, with what went wrong on the way. */
typedef struct trace_scan {
    size_t pos;
    uint64_t chunks;             /* good chunks returned */
    uint64_t corrupt_chunks;     /* damaged regions skipped */
    uint64_t corrupt_bytes;
    size_t first_corrupt_offset;
    int truncated;               /* the file ends inside a chunk */
    size_t truncated_bytes;      /* bytes of that incomplete chunk */
    size_t end;                  /* where the file ends: its size at open, or where a read came up
                                    short because it shrank since */
    int shrank;                  /* it did (then it reads as cut short) */
    int read_errno;              /* a read failed there (EIO...): it reads as cut short too, 0 if none */
    uint8_t *buf;                /* trace_open's file: the window read (one chunk at most) */
    size_t buf_off, buf_len, buf_cap;
} trace_scan;

void trace_scan_init(const trace_file *tf, trace_scan *s);

/* Next good chunk into *c: 1, or 0 at the end of the file (then the scan's
 * window is freed).  A chunk of a file opened with trace_open is in the
 * scan's window: it may be used until the next chunk is asked for. */
int trace_next_chunk(const trace_file *tf, trace_scan *s, trace_chunk *c);

/* Frees the window of a scan left before its end (trace_next_chunk frees it
 * at the end); the counters stay. */
void trace_scan_done(trace_scan *s);



/* A record inside a chunk payload. */
typedef struct trace_record {
    int kind;
    unsigned flags;              /* TRACE_REC_* */
    uint32_t tid;
    uint64_t t;
    const uint8_t *fields;       /* after the record header */
    size_t fields_len;
} trace_record;

/* Walks the records of a chunk: *off starts at 0.  1 = got one, 0 = end,
 * -1 = a malformed record (the rest of the chunk is unusable). */
int trace_next_record(const trace_chunk *c, size_t *off, trace_record *r);

/* Field cursor over a record; reads past the end yield zeros / empty
 * strings and set the bad flag, so a short record never reads out of bounds. */
typedef struct trace_fields {
    const uint8_t *p, *end;
    int bad;
} trace_fields;

void trace_fields_init(trace_fields *f, const trace_record *r);
uint16_t trace_field_u16(trace_fields *f);
uint32_t trace_field_u32(trace_fields *f);
uint64_t trace_field_u64(trace_fields *f);
/* A field added at the end of a record by a later agent: a record that ends
 * where the field would start is an older record of its documented length,
 * not a malformed one, so the field reads as 0 without setting bad.  (A
 * record that ends inside the field is still malformed.) */
uint64_t trace_field_u64_opt(trace_fields *f);
/* A string field: pointer into the record (not NUL-terminated) and length. */
const char *trace_field_str(trace_fields *f, size_t *len);

#endif
