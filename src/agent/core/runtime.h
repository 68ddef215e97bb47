/* runtime.h - what the agent asks the runtime and the OS once, when a
 * session opens (session.c): the highest ICorProfilerInfoN, the runtime's
 * version, the event mask for a configuration, the process's command line.
 * A leaf: it calls nothing else of the agent. */
#ifndef CLRPROBE_AGENT_RUNTIME_H
#define CLRPROBE_AGENT_RUNTIME_H

#include <stddef.h>

#include "api/corprof.h"
#include "common/config.h"

/* The oldest ICorProfilerInfoN the agent works with (SetEventMask2), at
 * launch and after an attach alike. */
#define MIN_INFO_VERSION 5

/* The number of methods in ICorProfilerInfoN (for INFO_HAS, profiler.h). */
int info_slots(int version);

/* The highest ICorProfilerInfoN the runtime answers (0 if none). */
int query_info(IUnknown *unk, ICorProfilerInfo15 **out);

/* What GetRuntimeInformation says (all 0, text "unknown", when it fails). */
typedef struct runtime_version {
    USHORT instance, major, minor, build, qfe;
    COR_PRF_RUNTIME_TYPE type;
    char text[64];
} runtime_version;

void read_runtime_version(ICorProfilerInfo15 *info, runtime_version *v);

/* The command line of this process, arguments joined by spaces. */
void read_command_line(char *buf, size_t len);

#endif
