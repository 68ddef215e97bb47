/* clock.c - monotonic/realtime clocks and the kernel thread id. */
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
