/* clock.h - time and thread ids as the trace records them. */
#ifndef CLRPROBE_COMMON_CLOCK_H
#define CLRPROBE_COMMON_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds: event timestamps. */
uint64_t cp_monotonic_ns(void);

/* CLOCK_REALTIME in nanoseconds: wall-clock start of a trace. */
uint64_t cp_realtime_ns(void);

/* The calling thread's kernel thread id. */
uint32_t cp_gettid(void);

#endif
