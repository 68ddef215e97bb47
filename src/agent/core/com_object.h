/* com_object.h - making a profiler instance, the object the runtime holds
 * (com_object.c). */
#ifndef CLRPROBE_AGENT_COM_OBJECT_H
#define CLRPROBE_AGENT_COM_OBJECT_H

#include "agent/core/profiler.h"

/* A new instance with one reference, every service's state allocated;
 * NULL when out of memory.  on_free (may be NULL) is called once when it
 * is freed. */
profiler *profiler_create(void (*on_free)(profiler *p));

/* The complete vtable of a profiler instance (built once). */
const ICorProfilerCallbackVtbl *profiler_vtable(void);

#endif
