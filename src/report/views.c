/* views.c - the table of a profile's views (views.h) and how their values
 * are written for people. */
#include "report/views.h"
#include "trace/format.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const rp_view_info rp_views[RP_VIEW_COUNT] = {
    { RP_VIEW_CPU, "cpu", "nanoseconds", "CPU",
      "CPU time of threads that were on a CPU",
      "CPU samples", "--collect cpu, in the default 'all'",
      TK_SAMPLE, RP_FAMILY_TIME, 1, "cpu" },
    { RP_VIEW_WALL, "wall", "nanoseconds", "wall-clock",
      "thread time, running or waiting",
      "wall-clock samples", "--collect cpu,wall (or cpu with --sampler suspend)",
      TK_SAMPLE, RP_FAMILY_TIME, 1, "wall" },
    { RP_VIEW_ALLOC, "alloc", "bytes", "allocation",
      "bytes allocated, from sampled allocations",
      "allocation samples", "--collect alloc or live",
      TK_ALLOC_SAMPLE, RP_FAMILY_MEMORY, 0, "alloc_space" },
    { RP_VIEW_ALLOC_COUNT, "alloc-count", "objects", "allocation count",
      "objects allocated, from sampled allocations",
      "allocation samples", "--collect alloc or live",
      TK_ALLOC_SAMPLE, RP_FAMILY_MEMORY, 0, "alloc_objects" },
    { RP_VIEW_LIVE, "live", "bytes", "live",
      "bytes of sampled objects alive after the last GC",
      "followed allocation samples", "--collect live",
      TK_ALLOC_SAMPLE, RP_FAMILY_MEMORY, 0, "inuse_space" },
    { RP_VIEW_CONTENTION, "contention", "nanoseconds", "contention",
      "time threads waited for locks",
      "lock waits", "--collect contention",
      TK_CONTENTION, RP_FAMILY_CONTENTION, 0, "delay" },
    { RP_VIEW_EXCEPTIONS, "exceptions", "exceptions", "exceptions",
      "exceptions thrown, by throw stack",
      "exception stacks", "--collect exceptions",
      TK_EXCEPTION_THROWN, RP_FAMILY_EXCEPTIONS, 0, "exception" },
};

const rp_view_info *rp_view_find(const char *name)
{
    for (int v = 0; v < RP_VIEW_COUNT; v++)
        if (strcmp(rp_views[v].name, name) == 0)
            return &rp_views[v];
    return NULL;
}

const rp_view_info *rp_view_of(enum rp_view v)
{
    return &rp_views[(unsigned)v < RP_VIEW_COUNT ? v : RP_VIEW_CPU];
}

void rp_view_names(char *buf, size_t len, const char *sep)
{
    size_t used = 0;
    if (!len)
        return;
    buf[0] = '\0';
    for (int v = 0; v < RP_VIEW_COUNT && used < len; v++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", v ? sep : "", rp_views[v].name);
}

void rp_format_bytes(uint64_t b, char *buf, size_t len)
{
    if (b >= (1ull << 30))
        snprintf(buf, len, "%.2f GiB", (double)b / (1ull << 30));
    else if (b >= (1ull << 20))
        snprintf(buf, len, "%.2f MiB", (double)b / (1ull << 20));
    else if (b >= 1024)
        snprintf(buf, len, "%.1f KiB", (double)b / 1024);
    else
        snprintf(buf, len, "%" PRIu64 " B", b);
}

void rp_view_format(enum rp_view v, uint64_t value, char *buf, size_t len)
{
    const char *unit = rp_view_of(v)->unit;

    if (strcmp(unit, "bytes") == 0)
        rp_format_bytes(value, buf, len);
    else if (strcmp(unit, "objects") == 0)
        snprintf(buf, len, "%" PRIu64 " object%s", value, value == 1 ? "" : "s");
    else if (strcmp(unit, "exceptions") == 0)
        snprintf(buf, len, "%" PRIu64 " exception%s", value, value == 1 ? "" : "s");
    else if (value >= 10000000000ull)
        snprintf(buf, len, "%.1f s", (double)value / 1e9);
    else if (value >= 1000000000ull)
        snprintf(buf, len, "%.2f s", (double)value / 1e9);
    else if (value >= 1000000)
        snprintf(buf, len, "%.1f ms", (double)value / 1e6);
    else
        snprintf(buf, len, "%.1f us", (double)value / 1e3);
}
