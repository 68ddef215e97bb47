/* format.h - the clrprobe trace file format (version 1), shared by the
 * agent's writer and the report's reader.  docs/trace-format.md is the prose
 * description; this file is the source of truth for numbers.
 *
 * A trace is a file header followed by chunks, appended and never rewritten:
 *
 *   header:  "CLRPROBE" u32 version, u32 header_len, u32 pid, u32 flags,
 *            u64 start_realtime_ns, u64 start_monotonic_ns,
 *            str runtime_version, str command_line, u32 crc32(all before)
 *   chunk:   u32 magic "CPCK", u32 payload_len, u64 seq, u32 nrecords,
 *            u32 crc32(the 20 header bytes before it + payload), payload
 *   record:  u8 kind, u8 flags, u16 length (whole record), u32 tid,
 *            u64 t (CLOCK_MONOTONIC ns), then the kind's fields (records.def)
 *
 * Integers are little-endian; a "str" is a u16 byte count then UTF-8 bytes.
 * A chunk holds the records one thread buffered, in time order; chunks from
 * different threads interleave, so readers sort records by t. */
#ifndef CLRPROBE_TRACE_FORMAT_H
#define CLRPROBE_TRACE_FORMAT_H

#include <stdint.h>
#include <string.h>

#define TRACE_MAGIC "CLRPROBE"
#define TRACE_MAGIC_LEN 8
#define TRACE_FORMAT_VERSION 1
#define TRACE_CHUNK_MAGIC 0x4b435043u        /* "CPCK" little-endian */
#define TRACE_CHUNK_HEADER_LEN 24
#define TRACE_RECORD_HEADER_LEN 16
#define TRACE_MAX_RECORD 8192                /* longest record the writer makes */
#define TRACE_MAX_CHUNK_PAYLOAD (1u << 20)   /* readers reject larger chunks */
#define TRACE_MAX_STR 2048                   /* strings are cut to this many bytes */

/* A TK_NOTE whose text starts with this says the agent stopped recording
 * early, and why (a full disk, the file size limit, a refused detach). */
#define TRACE_STOP_NOTE "recording stopped: "
#define TRACE_STOP_NOTE_LEN (sizeof(TRACE_STOP_NOTE) - 1)
#define TRACE_HEADER_FIXED_LEN 40            /* magic..start_monotonic_ns */

/* Header flags. */
#define TRACE_FLAG_ATTACHED 0x1u             /* the agent attached to a running process */
#define TRACE_FLAG_NOTIFICATION 0x2u         /* ... as a notification profiler, beside the process's main one */

/* Record flags (the byte after the kind). */
#define TRACE_REC_CATCHUP 0x1u               /* learned by the attach catch-up, not from a live event */

/* module_load.flags: the runtime's COR_PRF_MODULE_* as it gives them
 * (api/corprof.h); the bits the report reads. */
#define TRACE_MODULE_DYNAMIC 0x4u            /* Reflection.Emit, no file */
#define TRACE_MODULE_COLLECTIBLE 0x8u        /* in a collectible AssemblyLoadContext */

/* sample.flags: how a sample was taken (docs/sampling.md).  0: the suspend
 * engine (its cpu_ns is the thread's CPU since its previous sample, and the
 * CPU view keeps it when that is a quarter of the time between). */
#define SAMPLE_FLAG_CPU_TIMER 0x1u   /* the signal engine's CPU timer: the thread used cpu_ns of CPU
                                        (its periods) up to here; always in the CPU view */
#define SAMPLE_FLAG_WALL 0x2u        /* the signal engine's wall-clock tick: in the wall view only */
#define SAMPLE_FLAG_WAITING 0x4u     /* (wall) the thread was blocked in a system call */
#define SAMPLE_FLAG_TRUNCATED 0x8u   /* the walk stopped before the thread's first frame */

/* The IL offsets of a stack's frames (sample.il, alloc_sample.il,
 * contention.il, exception_thrown.il: one per frame, in the frames' order):
 * the runtime's native-to-IL map's values (CorDebugIlToNativeMappingTypes),
 * the offset of the instruction (of the call, in a caller's frame) in the
 * method's IL, which `clrprobe report` turns into a source line. */
#define TRACE_IL_NONE 0xFFFFFFFFu    /* not known: a native frame, no map (NO_MAPPING) */
#define TRACE_IL_PROLOG 0xFFFFFFFEu  /* in the method's prolog */
#define TRACE_IL_EPILOG 0xFFFFFFFDu  /* in an epilog */

/* sample.thread of a thread the runtime has no Thread for (the signal
 * engine samples every thread): this bit and the OS thread id; a
 * thread_os record names it. */
#define TRACE_NATIVE_THREAD_BIT (1ull << 63)

/* sampler_tick.engine */
#define SAMPLER_ENGINE_SUSPEND 0u
#define SAMPLER_ENGINE_SIGNAL 1u
/* What sends the signal engine's CPU samples (sampler_tick.clock). */
#define SAMPLER_CLOCK_TIMER 0u       /* a CPU-clock timer per thread (checked at the scheduler tick) */
#define SAMPLER_CLOCK_PERF 1u        /* a perf event per thread on its task clock (exact) */
#define SAMPLER_CLOCK_PERCPU 2u      /* the clrprobe command's per-CPU events, a BPF filter signalling the
                                        process's running thread (exact; no per-thread state) */
#define SAMPLER_CLOCK_KSTACK 3u      /* the same events, their BPF program taking the running thread's stack
                                        itself (the kernel's frame-pointer walk): no signal */
/* sampler_start.flags */
#define SAMPLER_FLAG_USER_ONLY 0x1u  /* perf events of user time only (exclude_kernel): the time threads
                                        spend in the kernel is not sampled */

/* alloc_sample.method: how the allocation was recorded (docs/trace-format.md,
 * "Allocations"). */
#define ALLOC_METHOD_SAMPLED 1u   /* .NET 10's AllocationSampled: each byte sampled with probability
                                     1/ALLOC_SAMPLING_MEAN_BYTES, so the record stands for
                                     size / (1 - (1 - 1/MEAN)^size) bytes (unbiased) */
#define ALLOC_METHOD_TICK 2u      /* AllocationTick (earlier runtimes): every ~100 KB, the object that
                                     crossed the threshold; not upscaled honestly (amount is the bytes
                                     since the previous tick, on any type) */
#define ALLOC_METHOD_EXACT 3u     /* ObjectAllocated for every object (--collect alloc-all): exact */
#define ALLOC_SAMPLING_MEAN_BYTES 102400.0

/* traced_method.how: how a traced method's calls are counted. */
#define TRACE_HOW_NONE 0u         /* not traced (reason says why: precompiled code, refused...) */
#define TRACE_HOW_HOOKS 1u        /* the runtime's enter/leave hooks (at launch) */
#define TRACE_HOW_IL 2u           /* probes in its rewritten IL (after an attach) */
/* call.flags */
#define CALL_FLAG_EXCEPTION 0x1u  /* left by an exception */

/* exception_unhandled.outcome: why no managed catch clause takes it
 * (agent/exceptions/exc_machine.h) */
#define EXC_OUTCOME_UNHANDLED 1u  /* no catcher on the whole stack: the process is ending */
#define EXC_OUTCOME_NATIVE 2u     /* left managed code: handled by native code or the runtime */
#define EXC_OUTCOME_FILTER 3u     /* thrown in a filter and escaped it (the filter counts as false) */
#define EXC_OUTCOME_SUPERSEDED 4u /* a nested exception escaped the finally running for it */
/* exception_handled.il_offset when it is not known */
#define EXC_IL_UNKNOWN 0xFFFFFFFFu
/* exception_thrown.message: bytes kept (UTF-8, cut at a character boundary) */
#define EXC_MESSAGE_MAX 512

/* Record kinds: TK_RUNTIME_START = 1 up to TK_KIND_MAX, the highest (raised
 * with each new kind).  Each kind's number, name and fields are in the
 * record catalogue, trace/records.def; trace/records.h makes its struct,
 * encoder and decoder from there. */
enum trace_kind {
#define RECORD(NAME, num, name, fields, report) TK_##NAME = num,
#include "trace/records.def"
#undef RECORD
    TK_KIND_MAX = 46          /* the highest number in records.def */
};

/* --- little-endian helpers ------------------------------------------- */

static inline void trace_put_u16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void trace_put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void trace_put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t trace_get_u16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t trace_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t trace_get_u64(const uint8_t *p)
{
    return (uint64_t)trace_get_u32(p) | (uint64_t)trace_get_u32(p + 4) << 32;
}

/* --- record encoding --------------------------------------------------
 * A cursor over space reserved for one record.  Writers call
 * trace_rec_begin(), then the kind's encoder (rec_KIND_put, records.h: the
 * field functions below in the catalogue's order), then trace_rec_finish()
 * which stores the length.  Strings that do not fit are
 * cut at a UTF-8 boundary; the cursor never writes past end. */
typedef struct trace_rec {
    uint8_t *start, *p, *end;
} trace_rec;

static inline void trace_rec_begin(trace_rec *r, uint8_t *buf, size_t cap, int kind, uint32_t tid,
                                   uint64_t t)
{
    r->start = buf;
    r->p = buf + TRACE_RECORD_HEADER_LEN;
    r->end = buf + cap;
    buf[0] = (uint8_t)kind;
    buf[1] = 0;
    trace_put_u16(buf + 2, 0);
    trace_put_u32(buf + 4, tid);
    trace_put_u64(buf + 8, t);
}
static inline void trace_rec_flags(trace_rec *r, uint8_t flags) { r->start[1] = flags; }
static inline void trace_rec_u16(trace_rec *r, uint16_t v)
{
    if (r->end - r->p >= 2) { trace_put_u16(r->p, v); r->p += 2; }
}
static inline void trace_rec_u32(trace_rec *r, uint32_t v)
{
    if (r->end - r->p >= 4) { trace_put_u32(r->p, v); r->p += 4; }
}
static inline void trace_rec_u64(trace_rec *r, uint64_t v)
{
    if (r->end - r->p >= 8) { trace_put_u64(r->p, v); r->p += 8; }
}
static inline void trace_rec_strn(trace_rec *r, const char *s, size_t n)
{
    size_t room, full = n;
    if (r->end - r->p < 2)
        return;
    room = (size_t)(r->end - r->p) - 2;
    if (!s) full = n = 0;
    if (n > TRACE_MAX_STR) n = TRACE_MAX_STR;
    if (n > room) n = room;
    /* do not cut a UTF-8 sequence in half */
    if (n < full)
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80) n--;
    trace_put_u16(r->p, (uint16_t)n);
    if (n) memcpy(r->p + 2, s, n);
    r->p += 2 + n;
}
static inline void trace_rec_str(trace_rec *r, const char *s)
{
    trace_rec_strn(r, s, s ? strlen(s) : 0);
}
/* Returns the record's length. */
static inline size_t trace_rec_finish(trace_rec *r)
{
    size_t len = (size_t)(r->p - r->start);
    trace_put_u16(r->start + 2, (uint16_t)len);
    return len;
}

#endif
