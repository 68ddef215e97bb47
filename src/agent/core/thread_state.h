/* thread_state.h - the agent's per-thread state (a trace buffer, the JIT
 * compilations and runtime suspension under way, the EventPipe and
 * exception services' own) found through the profiler instance's pthread
 * key, and the emit helpers that append a record to the calling thread's
 * buffer (thread_state.c). */
#ifndef CLRPROBE_AGENT_THREAD_STATE_H
#define CLRPROBE_AGENT_THREAD_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "agent/core/service_list.h"
#include "api/corprof.h"
#include "trace/format.h"
#include "trace/writer.h"

typedef struct profiler profiler;
typedef struct thread_state thread_state;

/* Per thread (and per profiler instance): its trace buffer and the JIT
 * compilations in progress on it. */
#define JIT_STACK_MAX 8
struct thread_state {
    profiler *p;
    thread_state *next;
    trace_buffer *buf;
    uint32_t tid;
    int jit_depth;
    struct { FunctionID fid; uint64_t t0; } jit[JIT_STACK_MAX];
    /* A runtime suspension this thread started (the same thread resumes:
     * the GC's and the sampler's suspensions can interleave otherwise). */
    uint64_t suspend_start;
    uint32_t suspend_reason;
    int suspend_open;
    /* Each service's own state of this thread (service_list.h's index),
     * made by the service when it first needs it, with malloc; freed
     * (free) with the thread's state. */
    void *service[SERVICE_COUNT];
};

/* The calling thread's state, created on first use; NULL if unavailable. */
thread_state *thread_state_get(profiler *p);
/* Frees every thread state (instance teardown, after the TLS key is gone). */
void thread_state_free_all(profiler *p);

/* Appending one record from a callback, encoded by the kind's encoder from
 * the record catalogue (trace/records.h):
 *     emit e;
 *     if (emit_begin(p, &e, TK_X)) { rec_x_put(&e.r, &(rec_x){ .field = ... }); emit_end(&e); }
 * Between begin and end the thread's buffer is locked: never call into the
 * runtime there (resolve names before emit_begin). */
typedef struct emit {
    thread_state *ts;
    trace_rec r;
} emit;

int emit_begin(profiler *p, emit *e, int kind);
/* The same with the record's time t (CLOCK_MONOTONIC ns; 0: now) instead of
 * now: the sampler gives all the records of a tick the tick's time. */
int emit_begin_at(profiler *p, emit *e, int kind, uint64_t t);
void emit_end(emit *e);

/* The same for a record learned by the attach catch-up. */
int emit_begin_catchup(profiler *p, emit *e, int kind);

/* A record whose only field is one runtime ID: TK_APPDOMAIN_SHUTDOWN,
 * TK_ASSEMBLY_UNLOAD, TK_MODULE_UNLOAD, TK_CLASS_UNLOAD, TK_THREAD_CREATE,
 * TK_THREAD_DESTROY (nothing is written for another kind). */
void emit_id(profiler *p, int kind, uint64_t id);

int thread_state_key_create(profiler *p);

/* Frees thread states whose OS thread has exited (flusher). */
void thread_state_reap(profiler *p);

/* The kernel's name (comm, at most 15 bytes) of an OS thread of this
 * process; "" if unknown. */
void thread_kernel_name(uint32_t os_tid, char *buf, size_t cap);

/* A note in the trace (the agent telling the reader something). */
void profiler_note(profiler *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
