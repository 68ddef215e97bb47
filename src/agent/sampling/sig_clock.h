/* sig_clock.h - which clock signals the signal sampler's threads, and why:
 * the clrprobe command's per-CPU clock where the command holds one for the
 * process (src/cpuclock/: exact, and no work for the kernel when threads
 * switch: the default), else a perf event on each thread's task clock where
 * the process may open one (exact between the kernel's ticks), else a CPU
 * timer per thread (checked only at the tick).  The choice and its reason go into the
 * trace (sampler_start) and every report says them (docs/sampling.md,
 * "Which engine you get"). */
#ifndef CLRPROBE_AGENT_SIG_CLOCK_H
#define CLRPROBE_AGENT_SIG_CLOCK_H

#include <stddef.h>

/* What opening a perf event on this thread's task clock gave. */
enum sig_perf_probe {
    SIG_PERF_ALLOWED,          /* allowed, kernel time included */
    SIG_PERF_USER_ONLY,        /* allowed with exclude_kernel only (perf_event_paranoid 2 without CAP_PERFMON) */
    SIG_PERF_REFUSED,          /* refused (errno says how) */
};

/* What the process is allowed, as far as it can tell. */
typedef struct sig_perf_rights {
    enum sig_perf_probe probe;
    int err;                   /* the refusal's errno (SIG_PERF_REFUSED) */
    int paranoid;              /* /proc/sys/kernel/perf_event_paranoid, or -100 when unreadable */
    int seccomp;               /* the Seccomp field of /proc/self/status: 2 a filter is on */
    int perfmon;               /* CAP_PERFMON or CAP_SYS_ADMIN in the effective set */
} sig_perf_rights;

typedef struct sig_clock_choice {
    unsigned clock;            /* SAMPLER_CLOCK_* (trace/format.h) */
    unsigned flags;            /* SAMPLER_FLAG_USER_ONLY: perf events see user time only */
    char why[400];             /* the reason, a phrase: "the default: perf events are allowed here (...)" */
} sig_clock_choice;

/* What the command gave: the per-CPU clock's page, or why it holds none
 * (cfg.clock_why: "" when it was not asked to). */
typedef struct sig_percpu_offer {
    int given;
    int stacks;                /* its BPF program takes the stacks (the stack engine), with a ring mapped */
    const char *why_not;
} sig_percpu_offer;

/* Tries this thread's perf event and reads what explains the outcome. */
void sig_perf_rights_probe(sig_perf_rights *r);

/* The choice for `sampler` (CP_SAMPLER_*: auto, percpu, signal or perf)
 * given what the command offers (NULL: nothing) and the rights (not read
 * for signal, nor when the per-CPU clock is taken: may be NULL).  Pure:
 * unit-tested. */
void sig_clock_choose(int sampler, const sig_percpu_offer *o, const sig_perf_rights *r, sig_clock_choice *c);

#endif
