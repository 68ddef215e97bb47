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
 * program's target is fixed when the command loads it. */
#ifndef CLRPROBE_COMMON_CPU_CLOCK_PAGE_H
#define CLRPROBE_COMMON_CPU_CLOCK_PAGE_H

#include <stdint.h>

#define CP_CLOCK_PAGE_VERSION 1u
#define CP_CLOCK_PAGE_SIZE 64u               /* the map's value: what both map */

typedef struct cp_clock_page {
    uint32_t gate;               /* 0: no signal; 1: signal the running thread (the program reads it) */
    uint32_t version;            /* CP_CLOCK_PAGE_VERSION, the command's */
    uint64_t sent;               /* signals the program sent (it adds to it) */
    uint64_t period_ns;          /* the events' period now (the command's) */
    uint64_t asked_period_ns;    /* the period the rate asked for gives (the command's) */
    uint64_t want_period_ns;     /* the mean period the agent wants (0: the asked one; the command keeps
                                    it within [asked/2, 3 asked/2]) */
    uint64_t reserved[3];
} cp_clock_page;

/* Offsets the BPF program uses (src/cpuclock/clock_prog.c). */
#define CP_CLOCK_PAGE_GATE_OFF 0
#define CP_CLOCK_PAGE_SENT_OFF 8

_Static_assert(sizeof(cp_clock_page) == CP_CLOCK_PAGE_SIZE, "the page is the map's value");

#endif
