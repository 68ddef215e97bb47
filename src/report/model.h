/* model.h - a trace loaded for analysis: every record decoded into an
 * rp_event, sorted by time, plus what the reader found wrong with the file
 * and the per-thread facts (OS thread id, name) gathered from all records.
 *
 * Strings (names, paths, the header's strings) are NUL-terminated C
 * strings, kept as the trace has them: they may hold control characters or
 * invalid UTF-8, so every printer must escape them (common/escape.h for
 * text, json_string for JSON).  A NUL byte inside a string of the trace (a
 * program can put one in a thread name) is stored as the two bytes C0 80,
 * the "modified UTF-8" convention, so that the string is not cut there;
 * the text escaper shows it as \0 and json_string writes \u0000. */
#ifndef CLRPROBE_REPORT_MODEL_H
#define CLRPROBE_REPORT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "trace/reader.h"

typedef struct rp_event {
    int kind;                /* TK_* */
    uint32_t tid;            /* OS thread that recorded it */
    uint64_t t;              /* ns since the trace started */
    uint64_t id;             /* the main runtime ID of the record */
    uint64_t id2, id3;       /* secondary IDs (module, assembly, appdomain) */
    uint64_t duration_ns;    /* jit, suspend */
    uint32_t u1, u2;         /* flags/hr/reason/generation mask/os tid */
    const char *s1, *s2;     /* names and paths (never NULL); for jit, precompiled and
                                class_load s2 is the module's file name */
    int thread;              /* thread-create/destroy/name/os: index into threads, else -1 */
    size_t order;            /* position in the file, to keep sorting stable */
    int catchup;             /* learned by the attach catch-up (TRACE_REC_CATCHUP) */
    const uint64_t *frames;  /* sample: nframes FunctionIDs, leaf first (0 = native frames) */
    uint32_t nframes;
    int dropped;             /* merged into a later record for the same ID (not reported) */
} rp_event;

typedef struct rp_thread {
    uint64_t id;             /* managed ThreadID */
    uint32_t os_tid;         /* 0 if never assigned */
    const char *name;        /* last managed name given ("" if none) */
    const char *os_name;     /* the kernel's name of its OS thread ("" if unknown) */
    uint64_t created_t, destroyed_t;
    int destroyed;
    int seen_create;         /* its thread_create record was seen */
} rp_thread;

typedef struct rp_trace {
    trace_file file;
    trace_scan scan;         /* corruption / truncation found while reading */
    rp_event *ev;
    size_t nev;
    rp_thread *threads;
    size_t nthreads;
    int complete;            /* the end record is present */
    uint64_t bad_records;    /* malformed records inside good chunks */
    uint64_t end_t;          /* time of the last record */
    struct rp_arena *arena;  /* storage of names and frames (arena.h) */
} rp_trace;

/* Loads and analyses path.  Returns TRACE_OK or a trace_open_error with a
 * message in err. */
int rp_load(const char *path, rp_trace *tr, char *err, size_t errlen);
void rp_free(rp_trace *tr);

/* Marks catch-up records that a later live event for the same ID replaces
 * (the "dropped" flag); see model.c.  Events must be in time order. */
void rp_merge_catchup(rp_event *ev, size_t n);

/* Name of a kind as used in jsonl ("jit", "module_load", ...). */
const char *rp_kind_name(int kind);

/* One line describing problems with the file, or NULL if it is whole. */
const char *rp_problem(const rp_trace *tr, char *buf, size_t buflen);

#endif
