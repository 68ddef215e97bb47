/* clock_prog.h - the two BPF programs of the per-CPU clock, written out
 * instruction by instruction (no compiler, no BTF: they run on any kernel
 * with the helpers they call).  Pure: they are only built here; cpuclock.c
 * loads them, the unit tests run them on a small interpreter.
 *
 * The sampler (BPF_PROG_TYPE_PERF_EVENT, on each CPU's cpu-clock event):
 * when the thread running on that CPU belongs to the target and the page's
 * gate is open, it counts a signal in the page and sends the thread SIGPROF
 * (bpf_send_signal_thread: the thread itself, si_code SI_KERNEL).
 *
 * The stacker (the same place, the stack engine): no signal; when the
 * thread belongs to the target and the gate is open, it writes a stack
 * record (cpu_clock_page.h) into the ring and counts it in the page's
 * `sent`, or counts it in `lost` when the ring is full.
 *
 * The guard (BPF_PROG_TYPE_RAW_TRACEPOINT, on sched_process_exec and
 * sched_process_exit): when the target's main thread execs (another
 * program, whose SIGPROF would kill it) or exits (its pid may then go to
 * another process), it closes the gate for good.
 *
 * The target is named by its thread-group id: as the kernel's first pid
 * namespace numbers it (bpf_get_current_pid_tgid), or as the namespace
 * (dev, ino) numbers it (bpf_get_ns_current_pid_tgid, Linux 5.7) when the
 * command does not see the first one. */
#ifndef CLRPROBE_CPUCLOCK_CLOCK_PROG_H
#define CLRPROBE_CPUCLOCK_CLOCK_PROG_H

#include <linux/bpf.h>
#include <stddef.h>
#include <stdint.h>

#define CLOCK_PROG_MAX 128           /* instructions, at most, of any program */

typedef struct clock_target {
    uint32_t tgid;                   /* the process, in the namespace below (or the first) */
    int ns;                          /* 1: numbered in the pid namespace (dev, ino) */
    uint64_t ns_dev, ns_ino;         /* that namespace: stat() of /proc/PID/ns/pid */
    int map_fd;                      /* the page's map (cpu_clock_page.h) */
    int ring_fd;                     /* (the stacker) the stack ring's map */
    int signal;                      /* the signal sent (SIGPROF) */
} clock_target;

/* The sampler's instructions into prog (CLOCK_PROG_MAX): their count. */
size_t clock_prog_sampler(const clock_target *t, struct bpf_insn *prog);

/* The stacker's instructions into prog (CLOCK_PROG_MAX): their count.
 * t must number the target in its own pid namespace (t->ns): the records'
 * thread ids are the agent's. */
size_t clock_prog_stacker(const clock_target *t, struct bpf_insn *prog);
/* The guard's instructions into prog (CLOCK_PROG_MAX): their count. */
size_t clock_prog_guard(const clock_target *t, struct bpf_insn *prog);

#endif
