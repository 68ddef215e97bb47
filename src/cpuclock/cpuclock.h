/* cpuclock.h - the per-CPU clock the clrprobe command holds for a process
 * it profiles (docs/sampling.md, "The per-CPU clock"): a cpu-clock perf
 * event on each CPU the process may run on, each with the BPF sampler of
 * clock_prog.h, which sends the process's running thread SIGPROF at each
 * period; the guard on the process's exec and exit; and the page
 * (common/cpu_clock_page.h) that the agent maps to open and close the gate.
 *
 * Why the command holds it: a per-CPU event has no per-thread state, so
 * the kernel does no work for it when the process's threads switch (a
 * per-thread event is scheduled out and in at every switch: a fifth of the
 * CPU of a request loop whose threads switch all the time); and loading
 * BPF and opening per-CPU events needs CAP_BPF and CAP_PERFMON (root),
 * which `clrprobe attach`, `serve` and a root `run` have and the profiled
 * process most often has not.  The events live as long as the command
 * holds them: when it exits, so do they.
 *
 * Each CPU's event has a period of its own within 1.7% of the mean (none a
 * round figure: a program's own periodic work is not met at one phase).
 * The command applies the period the agent asks for (within [P/2, 3P/2] of
 * the asked one P): the kernel delivers no sample in the moments a thread
 * is going to sleep with interrupts held off (tens of microseconds a
 * wake-up in a VM), and the agent, which counts both, asks for the period
 * that makes up for them (cpu_clock_tune).
 *
 * The stack engine (stacks): the program on the events is the stacker,
 * which writes the stacks of threads in user code into a BPF ring buffer
 * (ring_fd, given to the agent with the page) and signals only threads in
 * the kernel; where the kernel refuses it (before Linux 5.8) the sampler
 * instead, and the page's ring_bytes stays 0 (the agent then takes the
 * signals). */
#ifndef CLRPROBE_CPUCLOCK_CPUCLOCK_H
#define CLRPROBE_CPUCLOCK_CPUCLOCK_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/cpu_clock_page.h"

#define CPU_CLOCK_MAX_CPUS 4096

typedef struct cpu_clock {
    pid_t pid;                    /* the process, as this process sees it */
    int map_fd;                   /* the page's map: what the agent is given */
    int stacks;                   /* the stack engine: the stacker and its ring, no signal */
    int ring_fd;                  /* (stacks) the ring's map: given to the agent too */
    uint64_t ring_bytes;
    volatile cp_clock_page *page; /* mapped here too */
    int sampler_fd, guard_fd;     /* the programs */
    int exec_link, exit_link;     /* the guard attached to sched_process_exec and _exit */
    int *events;                  /* the per-CPU events */
    int nevents;
    uint64_t asked_ns;            /* the period the rate asks for */
    uint64_t period_ns;           /* the events' mean period now */
    /* the thread that applies the agent's period (cpu_clock_watch) */
    pthread_t watcher;
    int watching;
    int stop_fd[2];
} cpu_clock;

/* A clock that holds nothing (cpu_clock_close does nothing to it). */
void cpu_clock_init(cpu_clock *c);

/* Sets up the clock for the process pid at period_ns (gate closed), for
 * the CPUs pid may run on, with a thread (every signal blocked) that
 * applies the agent's period every 200 ms (cpu_clock_tune).  0, or -1 with
 * a phrase in why saying what was refused and what would allow it
 * ("loading BPF needs CAP_BPF and CAP_PERFMON (...): run clrprobe as
 * root").  Nothing is left open on failure. */
int cpu_clock_open(cpu_clock *c, pid_t pid, uint64_t period_ns, int stacks, char *why, size_t why_len);

/* The same in two steps, for a process not started yet (`clrprobe run`):
 * the page first (map_fd, for the process to inherit), then the rest once
 * its pid is known.  Each: 0, or -1 with why, the clock closed.
 * stacks: the stack engine (the stacker writes each period's stack into a
 * ring the agent maps, ring_fd; no signal), else the signal one. */
int cpu_clock_create(cpu_clock *c, uint64_t period_ns, int stacks, char *why, size_t why_len);
int cpu_clock_start(cpu_clock *c, pid_t pid, char *why, size_t why_len);

/* Applies the period the agent wants, if it differs (by 1% or more) from
 * the one in force, bounded to [asked/2, 3 asked/2].  1 when it changed. */
int cpu_clock_tune(cpu_clock *c);

/* Closes the gate, stops the thread, closes everything. */
void cpu_clock_close(cpu_clock *c);

#endif
