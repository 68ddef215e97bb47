/* clock.h - time, CPU time and thread ids as the trace records them. */
#ifndef CLRPROBE_COMMON_CLOCK_H
#define CLRPROBE_COMMON_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds: event timestamps. */
uint64_t cp_monotonic_ns(void);

/* CLOCK_REALTIME in nanoseconds: wall-clock start of a trace. */
uint64_t cp_realtime_ns(void);

/* The calling thread's kernel thread id. */
uint32_t cp_gettid(void);

/* The CPU clock of another thread of this process (the kernel's
 * MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)), and its reading in
 * nanoseconds (0 if the thread is gone). */
clockid_t cp_thread_cpu_clock(uint32_t tid);
uint64_t cp_thread_cpu_of(uint32_t tid);

/* The calling thread's CPU time in nanoseconds (a system call, and
 * async-signal-safe). */
uint64_t cp_own_cpu_ns(void);

#endif
