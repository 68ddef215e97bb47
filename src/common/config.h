/* config.h - the agent's configuration: one line of text that travels in the
 * CLRPROBE_CONFIG environment variable (launch) and, later, in the attach
 * client data.  The CLI formats it, the agent parses it.  Format (see
 * docs/config.md):
 *
 *     v=1;output=/tmp/app.clrp;collect=jit,gc,threads;pid=1234
 *     v=1;output_fd=3;output_id=2049:1234;...;pid=1234   (`clrprobe run`: the trace
 *                                                   file is its descriptor 3, left open
 *                                                   across exec, whose device and inode
 *                                                   are 2049 and 1234)
 *     ...;pid=1234;run=/tmp/clrprobe-run-x/run      (children follow: they get their
 *                                                   trace file from the run's socket)
 *     v=1;collect=all;ctl=/tmp/clrprobe-ctl-x/ctl      (attach: the trace file's
 *                                                      descriptor comes over ctl)
 *
 * Entries are separated by ';', each is key=value.  Values are
 * percent-encoded: '%', ';', '=', space and bytes outside printable ASCII are
 * written as %XX.  Unknown keys, duplicate keys and bad values are errors: the agent
 * then cancels its activation and the program runs unprofiled. */
#ifndef CLRPROBE_COMMON_CONFIG_H
#define CLRPROBE_COMMON_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "common/control_protocol.h"   /* CP_HEAP_COUNT_MAX */
#include "common/method_pattern.h"     /* MP_MAX_TEXT */

#define CP_CONFIG_VERSION 1
#define CP_CONFIG_MAX_TEXT 8192     /* longest configuration text accepted */
#define CP_PATH_MAX 4096
#define CP_CLOCK_WHY_MAX 200        /* clock_why: a phrase */
#define CP_OUTPUT_FD_MAX 1048576    /* highest output_fd accepted (the kernel's nr_open) */

/* What the agent records; chosen with --collect. */
enum cp_collect {
    CP_COLLECT_APPDOMAINS  = 1u << 0,
    CP_COLLECT_ASSEMBLIES  = 1u << 1,
    CP_COLLECT_MODULES     = 1u << 2,
    CP_COLLECT_CLASSES     = 1u << 3,
    CP_COLLECT_JIT         = 1u << 4,
    CP_COLLECT_THREADS     = 1u << 5,
    CP_COLLECT_GC          = 1u << 6,
    CP_COLLECT_SUSPENSIONS = 1u << 7,
    CP_COLLECT_EXCEPTIONS  = 1u << 8,
    CP_COLLECT_CPU         = 1u << 9,    /* stack sampling */
    CP_COLLECT_ALLOC       = 1u << 10,   /* sampled allocations with stacks (EventPipe) */
    CP_COLLECT_LIVE        = 1u << 11,   /* the sampled objects followed through GCs (implies alloc) */
    CP_COLLECT_CONTENTION  = 1u << 12,   /* lock contention with stacks (EventPipe) */
    CP_COLLECT_ALLOC_ALL   = 1u << 13,   /* every allocation (ObjectAllocated): launch only, costly */
    CP_COLLECT_WALL        = 1u << 14,   /* signal sampler: wall-clock samples of every thread too */
};
/* "all": the kinds up to cpu (docs/config.md says why not the EventPipe ones). */
#define CP_COLLECT_ALL ((CP_COLLECT_CPU << 1) - 1)
/* The kinds an EventPipe session records. */
#define CP_COLLECT_EVENTPIPE (CP_COLLECT_ALLOC | CP_COLLECT_LIVE | CP_COLLECT_CONTENTION)
/* The kinds that record stacks. */
#define CP_COLLECT_STACKS (CP_COLLECT_CPU | CP_COLLECT_WALL | CP_COLLECT_EVENTPIPE | CP_COLLECT_ALLOC_ALL | \
                           CP_COLLECT_EXCEPTIONS)
/* Whether the agent writes module records: when asked for, and whenever it
 * records stacks (the report finds each frame's assembly by them, and the
 * assembly's PDB for its source lines). */
#define CP_RECORDS_MODULES(collect) (((collect) & (CP_COLLECT_MODULES | CP_COLLECT_STACKS)) != 0)

/* How CPU samples are taken (sampler=, --sampler; docs/sampling.md). */
enum cp_sampler {
    CP_SAMPLER_SIGNAL = 0,       /* per-thread CPU timers and a signal handler: native and managed frames */
    CP_SAMPLER_SUSPEND = 1,      /* SuspendRuntime + DoStackSnapshot of every managed thread */
    CP_SAMPLER_PERF = 2,         /* the signal engine, each thread's signals sent by a perf event on its
                                    task clock instead of a CPU timer (exact between scheduler ticks) */
    CP_SAMPLER_AUTO = 3,         /* the default: kstack where the command may hold it (percpu on a kernel
                                    without BPF ring buffers), else perf where the
                                    process may open perf events, else signal, else suspend
                                    (agent/sampling/sig_clock.h) */
    CP_SAMPLER_PERCPU = 4,       /* the signal engine, the signals sent by the command's per-CPU clock
                                    (src/cpuclock/: per-CPU events and a BPF filter, no per-thread state) */
    CP_SAMPLER_KSTACK = 5,       /* the command's per-CPU clock, each stack taken by its BPF program (the
                                    kernel's frame-pointer walk) into a ring the agent drains: no signal */
};
/* Does the command hold a per-CPU clock for this sampler (where it may)? */
#define CP_SAMPLER_WANTS_PERCPU(s) ((s) == CP_SAMPLER_AUTO || (s) == CP_SAMPLER_PERCPU || (s) == CP_SAMPLER_KSTACK)
/* Does the command's per-CPU clock take the stacks itself (no signal)? */
#define CP_SAMPLER_WANTS_KSTACK(s) ((s) == CP_SAMPLER_AUTO || (s) == CP_SAMPLER_KSTACK)
/* Does the engine sample with signals (the signal engine, by either clock)? */
#define CP_SAMPLER_BY_SIGNAL(s) ((s) != CP_SAMPLER_SUSPEND)
#define CP_SAMPLER_DEFAULT CP_SAMPLER_AUTO

#define CP_RATE_DEFAULT 100          /* samples per second */
#define CP_RATE_MIN 1
#define CP_RATE_MAX 1000

typedef struct cp_config {
    int version;                 /* format version of the text, 1 */
    char output[CP_PATH_MAX];    /* absolute path of the trace file; "" when it comes over ctl or
                                    as output_fd */
    int output_fd;               /* `clrprobe run`: the trace file is this inherited descriptor, in the
                                    process pid only (-1: none; never with output) */
    unsigned long long output_dev, output_ino;   /* output_fd's file: its device and inode (output_id) */
    uint32_t collect;            /* CP_COLLECT_* mask */
    long pid;                    /* profile only this pid (0: any) */
    char ctl[CP_PATH_MAX];       /* attach: the command's control socket ("" if none) */
    int rate;                    /* sampling rate in Hz (CP_RATE_MIN..CP_RATE_MAX) */
    int sampler;                 /* enum cp_sampler */
    char run[CP_PATH_MAX];       /* `clrprobe run`'s socket for the processes the program starts:
                                    a child (pid != pid) records only while it answers ("" : none) */
    long heap_every_ms;          /* a heap snapshot every this many ms (0: none; agent/heap/heap.h) */
    long heap_count;             /* take this many snapshots, the first at once (`clrprobe heap`),
                                    then say "heap-done" (0: every heap_every_ms until the end) */
    int heap_method;             /* CP_HEAP_METHOD_*: how snapshots are taken */
    long heap_max_objects;       /* a snapshot's walk stops after this many objects (0: no limit) */
    char trace[MP_MAX_TEXT + 1]; /* --trace: the methods whose calls are counted and timed ("" none;
                                    common/method_pattern.h) */
    long trace_calls;            /* --trace-calls: log each call, up to this many (0: none) */
    char main_profiler[CP_PATH_MAX];  /* attach beside another profiler: its library, as the command saw it
                                         mapped, for the trace to name ("" : none, or not known) */
    int clock_fd;                /* `clrprobe run`: the per-CPU clock's page (common/cpu_clock_page.h), this
                                    inherited descriptor, in the process pid only (-1: none) */
    int stack_fd;                /* and with it, for the stack engine, the ring of stacks (-1: none) */
    char clock_why[CP_CLOCK_WHY_MAX];  /* why the command holds no per-CPU clock for this process ("" : it
                                          does, or was not asked to) */
} cp_config;

#define CP_TRACE_CALLS_DEFAULT 100000
#define CP_TRACE_CALLS_MAX 100000000L

/* heap_method: auto (an induced GC with COR_PRF_MONITOR_GC; the heap
 * enumeration of ICorProfilerInfo15 when the runtime refuses GC monitoring),
 * gc (never the enumeration), enumerate (always: no GC monitoring at all). */
enum { CP_HEAP_METHOD_AUTO = 0, CP_HEAP_METHOD_GC, CP_HEAP_METHOD_ENUMERATE };

#define CP_HEAP_EVERY_MIN_MS 100
#define CP_HEAP_EVERY_MAX_MS (24L * 3600 * 1000)

/* Fills *cfg with defaults (collect everything, no output). */
void cp_config_init(cp_config *cfg);

/* Parses text into *cfg.  Returns 0, or -1 with a one-line reason in err.
 * Reasons quote the values they refuse, escaped (common/escape.h), so
 * they are safe to print or to send on as they are. */
int cp_config_parse(const char *text, cp_config *cfg, char *err, size_t errlen);

/* Writes cfg as text.  Returns the length, or -1 if buf is too small. */
int cp_config_format(const cp_config *cfg, char *buf, size_t buflen);

/* Parses a comma-separated list of collect kinds ("all" allowed) into *mask.
 * Returns 0, or -1 with a reason (naming the valid kinds) in err. */
int cp_collect_parse(const char *list, uint32_t *mask, char *err, size_t errlen);

/* Parses an engine name ("signal", "suspend").  Returns 0, or -1 with a
 * reason in err. */
int cp_sampler_parse(const char *text, int *sampler, char *err, size_t errlen);
const char *cp_sampler_name(int sampler);

/* Parses a sampling rate in Hz.  Returns 0, or -1 with a reason in err. */
int cp_rate_parse(const char *text, int *rate, char *err, size_t errlen);

/* Writes the kinds in mask as a comma-separated list. */
void cp_collect_format(uint32_t mask, char *buf, size_t buflen);

/* "appdomains, assemblies, ..." - the valid kind names, for messages. */
const char *cp_collect_valid_names(void);

#endif
