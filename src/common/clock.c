/* clock.c - monotonic/realtime clocks, threads' CPU clocks and the kernel thread id. */
#include "common/clock.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

uint64_t cp_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t cp_realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint32_t cp_gettid(void)
{
    return (uint32_t)syscall(SYS_gettid);
}

clockid_t cp_thread_cpu_clock(uint32_t tid)
{
    /* shifted as unsigned like the kernel's macro (a left shift of a
     * negative int is undefined) */
    return (clockid_t)((~tid << 3) | 6u);
}

uint64_t cp_thread_cpu_of(uint32_t tid)
{
    struct timespec ts;
    if (clock_gettime(cp_thread_cpu_clock(tid), &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t cp_own_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
