/* cpu_clock_page.h - the page the clrprobe command and the agent share
 * when the command holds the per-CPU clock for a process (docs/sampling.md,
 * "The per-CPU clock"): a BPF array map of one entry, mapped by both.  The
 * command's BPF program sends the process's running thread SIGPROF at each
 * tick of a per-CPU event while `gate` is not 0 (src/cpuclock/); the agent
 * opens the gate once its handler is installed and closes it before it
 * takes the handler away.  The program closes it too when the process
 * execs or its main thread exits.  The command reads want_period_ns (the
 * agent's: the period that would give the rate asked, after what the kernel
 * cannot deliver) and writes period_ns (what it applied, within its
 * bounds).  The agent can change nothing here but its own sampling: the
 * program's target is fixed when the command loads it.  With the stack
 * engine (docs/sampling.md, "The stack engine") the program writes the
 * stacks of threads in user code into a ring (cp_stack_record, below;
 * ring_bytes says its size once the command has put it in place) and
 * signals only threads in the kernel. */
#ifndef CLRPROBE_COMMON_CPU_CLOCK_PAGE_H
#define CLRPROBE_COMMON_CPU_CLOCK_PAGE_H

#include <stdint.h>

#define CP_CLOCK_PAGE_VERSION 2u
#define CP_CLOCK_PAGE_SIZE 64u               /* the map's value: what both map */

typedef struct cp_clock_page {
    uint32_t gate;               /* 0: no signal; 1: signal the running thread (the program reads it) */
    uint32_t version;            /* CP_CLOCK_PAGE_VERSION, the command's */
    uint64_t sent;               /* signals the program sent (it adds to it) */
    uint64_t period_ns;          /* the events' period now (the command's) */
    uint64_t asked_period_ns;    /* the period the rate asked for gives (the command's) */
    uint64_t want_period_ns;     /* the mean period the agent wants (0: the asked one; the command keeps
                                    it within [asked/2, 3 asked/2]) */
    uint64_t lost;               /* (stacks) samples the ring had no room for (the program adds to it) */
    uint64_t ring_bytes;         /* (stacks) the stack ring's size, a power of two; 0: signals, no ring */
    uint64_t reserved;
} cp_clock_page;

/* The stack engine: in place of the signal, the program writes one record
 * a period into a BPF ring buffer (its own map, mapped by the agent: the
 * consumer's position page read-write, then the producer's page and the
 * data, twice over, read-only): the thread, when, and its user stack as
 * the kernel's frame-pointer walk found it (bpf_get_stack), innermost
 * first.  A record is the ring's 8-byte header, then this. */
#define CP_STACK_AT_SP 512           /* words of the stack's top copied (4 KiB) */
#define CP_STACK_FRAMES 127          /* the kernel's walk goes no deeper (kernel.perf_event_max_stack) */
typedef struct cp_stack_record {
    uint64_t ids;                /* the thread: tgid << 32 | tid, as the process's own pid namespace numbers them */
    uint64_t t;                  /* CLOCK_MONOTONIC ns (bpf_ktime_get_ns) */
    int64_t bytes;               /* bytes of frames the walk wrote, or the kernel's error (< 0) */
    uint64_t bp, sp, ip;         /* the thread's user registers when the period ended (read from the
                                    kernel's copy when it was in a system call; 0: not known) */
    uint64_t at_sp[CP_STACK_AT_SP];     /* the stack's top then, from sp up (zeros where unreadable):
                                           the agent walks the native frames in it by their unwind
                                           tables, as the signal handler's walk does */
    uint64_t frames[CP_STACK_FRAMES];   /* the pc, then return addresses */
} cp_stack_record;

/* Offsets the BPF program uses (src/cpuclock/clock_prog.c). */
#define CP_CLOCK_PAGE_GATE_OFF 0
#define CP_CLOCK_PAGE_SENT_OFF 8
#define CP_CLOCK_PAGE_LOST_OFF 40
#define CP_STACK_RECORD_AT_SP_OFF 48
#define CP_STACK_RECORD_FRAMES_OFF (48 + 8 * CP_STACK_AT_SP)

_Static_assert(sizeof(cp_clock_page) == CP_CLOCK_PAGE_SIZE, "the page is the map's value");

#endif
