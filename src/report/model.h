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
#include "trace/records.h"

/* One record: what every record has, then its kind's fields by name in the
 * member named after the kind (e->jit.name, e->sample.frames; the structs
 * of trace/records.def).  Strings are never NULL.  The report fills in the
 * catalogue's report-only fields (resolve_names in model.c): the module's
 * file name of a jit, precompiled or class_load record (module_name), and
 * what an unload's load record said (module_unload's path and flags,
 * assembly_unload's name and version, class_unload's name). */
typedef struct rp_event {
    int kind;                /* TK_* */
    uint32_t tid;            /* OS thread that recorded it */
    uint64_t t;              /* ns since the trace started */
    size_t order;            /* position in the file, to keep sorting stable */
    int thread;              /* thread-create/destroy/name/os: index into threads, else -1 */
    uint8_t catchup;         /* learned by the attach catch-up (TRACE_REC_CATCHUP) */
    uint8_t dropped;         /* merged into a later record for the same ID (not reported) */
    union {
        rec_any any;         /* (what the decoder fills) */
#define RECORD(NAME, num, name, fields, report) rec_##name name;
#include "trace/records.def"
#undef RECORD
    };
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
    struct rp_lines *lines;  /* the source lines of its frames (source_lines.h), set by whoever reports it
                                (NULL: none); rp_free frees it */
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

/* The library of the process's main profiler that a notification profiler
 * loaded beside (its runtime_start says), or "". */
const char *rp_main_profiler(const rp_trace *tr);

/* The agent's role, for a title: "" in the main role, else "notification
 * profiler beside LIB" (or "notification profiler" when LIB is not known). */
const char *rp_role_label(const rp_trace *tr, char *buf, size_t len);

/* The managed ThreadID of a thread_create, thread_destroy, thread_os or
 * thread_name record (0 for other kinds). */
uint64_t rp_thread_id(const rp_event *e);

/* The function a function_name, jit or precompiled record names: its name
 * ("" possibly), with its FunctionID in *function; NULL for other kinds. */
const char *rp_function_name(const rp_event *e, uint64_t *function);

/* One line describing problems with the file, or NULL if it is whole. */
const char *rp_problem(const rp_trace *tr, char *buf, size_t buflen);

#endif
