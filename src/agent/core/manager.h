/* manager.h - the process-wide list of profiler instances (manager.c). */
#ifndef CLRPROBE_AGENT_MANAGER_H
#define CLRPROBE_AGENT_MANAGER_H

#include "agent/core/profiler.h"
#include "common/identity.h"   /* CLSID_clrprobe */

void manager_add(profiler *p);
void manager_remove(profiler *p);

#endif
