/* manager.h - the process-wide list of profiler instances and the
 * constructor of one instance (profiler.c). */
#ifndef CLRPROBE_AGENT_MANAGER_H
#define CLRPROBE_AGENT_MANAGER_H

#include "agent/profiler.h"
#include "common/identity.h"   /* CLSID_clrprobe */

void manager_add(profiler *p);
void manager_remove(profiler *p);

/* A new instance with one reference (profiler.c). */
profiler *profiler_create(void);

#endif
