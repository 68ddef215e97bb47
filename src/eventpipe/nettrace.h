/* nettrace.h - a streaming reader of the nettrace format (version 5), the
 * runtime's EventPipe output that a session sends on its diagnostics
 * connection: bytes go in as they arrive, each whole event comes out with
 * the metadata that describes it (provider, event id and name, version,
 * fields).  Stacks and sequence points are skipped.  Pure and bounded:
 * every length is checked against the bytes there, an object may not exceed
 * NT_MAX_OBJECT, nor the metadata NT_MAX_RECORDS records or NT_MAX_METADATA
 * ids; a malformed or oversized stream is an error, never a crash.  Layout: docs/counters.md, "The nettrace stream". */
#ifndef CLRPROBE_EVENTPIPE_NETTRACE_H
#define CLRPROBE_EVENTPIPE_NETTRACE_H

#include <stddef.h>
#include <stdint.h>

#define NT_MAX_OBJECT   (16u << 20)   /* a block (the runtime writes them of ~100 KiB) */
#define NT_MAX_METADATA (1u << 20)    /* the highest metadata id */
#define NT_MAX_RECORDS  4096          /* metadata records kept (a session's events are a few dozen) */
#define NT_MAX_FIELDS   64

/* System.TypeCode values the metadata uses for a field (plus EventPipe's
 * Guid 17 and Array 19). */
enum {
    NT_TYPE_OBJECT = 1, NT_TYPE_BOOLEAN = 3, NT_TYPE_CHAR = 4, NT_TYPE_SBYTE = 5, NT_TYPE_BYTE = 6,
    NT_TYPE_INT16 = 7, NT_TYPE_UINT16 = 8, NT_TYPE_INT32 = 9, NT_TYPE_UINT32 = 10, NT_TYPE_INT64 = 11,
    NT_TYPE_UINT64 = 12, NT_TYPE_SINGLE = 13, NT_TYPE_DOUBLE = 14, NT_TYPE_DECIMAL = 15,
    NT_TYPE_DATETIME = 16, NT_TYPE_GUID = 17, NT_TYPE_STRING = 18, NT_TYPE_ARRAY = 19,
};

typedef struct nt_field {
    char name[64];
    int  type;                  /* NT_TYPE_*; a nested object or array ends what can be located */
} nt_field;

typedef struct nt_metadata {
    uint32_t id;
    char    *provider;          /* UTF-8 */
    char    *event_name;        /* UTF-8, "" when the runtime gave none */
    uint32_t event_id;
    uint32_t version;
    uint32_t nfields;
    nt_field *fields;           /* nfields of them (at most NT_MAX_FIELDS kept) */
} nt_metadata;

typedef struct nt_event {
    const nt_metadata *meta;    /* NULL when no metadata has that id (the event is skipped then) */
    uint64_t thread_id;
    uint64_t timestamp;         /* the runtime's clock (nanoseconds on Linux) */
    const uint8_t *payload;
    uint32_t payload_len;
} nt_event;

/* Called for each event, in stream order; a non-zero return stops the
 * reader (nt_feed returns NT_STOPPED). */
typedef int (*nt_event_fn)(void *ctx, const nt_event *ev);

enum { NT_OK = 0, NT_END = 1, NT_STOPPED = 2, NT_ERROR = -1 };

typedef struct nt_reader nt_reader;

nt_reader *nt_reader_new(nt_event_fn fn, void *ctx);
void nt_reader_free(nt_reader *r);

/* Adds len bytes of the stream and hands out every event now whole:
 * NT_OK (more may come), NT_END (the stream's end mark was read),
 * NT_STOPPED, or NT_ERROR with nt_reader_error() saying what. */
int nt_feed(nt_reader *r, const void *data, size_t len);
const char *nt_reader_error(const nt_reader *r);

/* The trace's facts, once its Trace object has been read (else 0). */
uint64_t nt_reader_qpc_frequency(const nt_reader *r);
uint32_t nt_reader_process_id(const nt_reader *r);

/* Locates the fields of an event's payload: off[i] and len[i] for the
 * first fields that can be located (strings are UTF-16LE with their NUL;
 * located stops at a nested object, an array or the payload's end).
 * Returns how many. */
uint32_t nt_locate_fields(const nt_metadata *meta, const uint8_t *payload, uint32_t len,
                          uint32_t off[NT_MAX_FIELDS], uint32_t flen[NT_MAX_FIELDS]);

/* The field called name: its index, or -1. */
int nt_field_index(const nt_metadata *meta, const char *name);

#endif
