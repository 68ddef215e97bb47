/* attach.h - what attach.c offers besides its callbacks (callbacks.h):
 * the modules an attached agent reports after its catch-up. */
#ifndef CLRPROBE_AGENT_ATTACH_H
#define CLRPROBE_AGENT_ATTACH_H

#include "api/corprof.h"

typedef struct profiler profiler;

/* Attach mode: report a module (and its assembly and app domain) that the
 * catch-up or a lazy lookup found; call inside the gate (attach.c). */
#define CU_REPORTED_MODULE 0x1u
#define CU_REPORTED_ASSEMBLY 0x2u
unsigned catchup_module(profiler *p, ModuleID m);

/* Attach mode: lazy catch-up of a module met through a function (attach.c). */
void attach_saw_module(profiler *p, ModuleID m);

#endif
