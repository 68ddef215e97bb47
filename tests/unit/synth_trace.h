/* synth_trace.h - small traces made by hand for the unit tests of the
 * report: records written with the catalogue's encoders through the real
 * trace writer into a file under /tmp, then loaded with rp_load.  Times are
 * given relative to the trace's start (as the report shows them). */
#ifndef CLRPROBE_UNIT_SYNTH_TRACE_H
#define CLRPROBE_UNIT_SYNTH_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "report/model.h"
#include "trace/records.h"
#include "trace/writer.h"

typedef struct synth {
    trace_writer *w;
    trace_buffer *buf;
    char path[128];
} synth;

/* Starts the trace /tmp/clrprobe-unit-PID-NAME. */
void synth_begin(synth *s, const char *name);
/* One record of kind at time t. */
void synth_put(synth *s, uint64_t t, int kind, const rec_any *v);
/* function_name: function is called name from t on. */
void synth_name(synth *s, uint64_t t, uint64_t function, const char *name);
/* thread_create, thread_os and thread_name of a managed thread. */
void synth_thread(synth *s, uint64_t t, uint64_t managed, uint32_t os_tid, const char *name);
/* An alloc_sample; frames leaf first. */
void synth_alloc(synth *s, uint64_t t, uint64_t thread, uint32_t os_tid, uint32_t method, const char *type,
                 uint64_t size, uint64_t count, uint64_t amount, uint64_t id, const uint64_t *frames, uint16_t n);
/* A live_gc record. */
void synth_live_gc(synth *s, uint64_t t, uint32_t gc, uint32_t alive, uint32_t more, const uint64_t *dead,
                   uint16_t n);
/* A contention record (a managed lock). */
void synth_contention(synth *s, uint64_t t, uint64_t thread, uint32_t os_tid, uint64_t duration_ns,
                      const char *type, const uint64_t *frames, uint16_t n);
/* A CPU sample and its tick. */
void synth_sample(synth *s, uint64_t t, uint64_t thread, uint32_t os_tid, uint64_t cpu_ns, const uint64_t *frames,
                  uint16_t n);
/* Closes the trace and loads it into tr; returns rp_load's result. */
int synth_load(synth *s, rp_trace *tr);
/* Frees tr and removes the file. */
void synth_done(synth *s, rp_trace *tr);

/* Runs `clrprobe report ARGS...` (cmd_report, in this process) with its
 * standard output and error captured: *out (length *outlen: pprof is
 * binary) and *err, NUL-terminated, to be freed.  Returns its exit
 * status.  args ends with NULL.  With SYNTH_DUMP set in the environment,
 * what it wrote is printed too. */
int synth_report(const char *const *args, char **out, size_t *outlen, char **err);

#endif
