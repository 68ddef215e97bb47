/* ip_functions.h - the functions of a thread's own stack, from the code
 * addresses (IPs) an EventPipe event carries: IP -> FunctionID with
 * GetFunctionFromIP3, cached, and a function_name record the first time a
 * function is met (again when a dynamic method's ID is reused), as the CPU
 * sampler names its frames.  A dynamic method's name is cached too while
 * the runtime tells their unloads (its entries are forgotten at each one);
 * otherwise it is asked for each time and written when it changed.  Used on the thread that raised the event:
 * its frames are live code, so no unload can take them while we look;
 * the caches are emptied when a module unloads (IDs and code addresses are
 * reused then).  The lock guards the caches only; runtime calls are made
 * outside it (a runtime lock held by another allocating thread must never
 * wait on ours). */
#ifndef CLRPROBE_AGENT_IP_FUNCTIONS_H
#define CLRPROBE_AGENT_IP_FUNCTIONS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "api/corprof.h"
#include "common/idmap.h"

typedef struct profiler profiler;

#define IP_FUNCTIONS_OWN_MAX 256        /* frames ip_functions_own_stack walks at most */

typedef struct ip_functions {
    pthread_mutex_t lock;
    int lock_ok;
    idmap ips;                  /* IP -> FunctionID (0: not managed code), but in dynamic methods */
    idmap named;                /* FunctionID -> the key of its name written (names_function_once) */
    idmap dynamic_ips;          /* the same for dynamic methods: emptied at each of their unloads */
    idmap dynamic_named;
    uint64_t unloads;           /* the unload count the caches belong to */
    uint64_t dynamic_unloads;   /* the dynamic methods' unload count (profiler.h) theirs belong to */
} ip_functions;

int ip_functions_init(ip_functions *f);
void ip_functions_free(ip_functions *f);

/* The FunctionIDs of n IPs (innermost first) into out (0 for an IP outside
 * managed code); names the functions not named before (function_name
 * records, stamped t).  Returns n. */
size_t ip_functions_resolve(profiler *p, ip_functions *f, const UINT_PTR *ips, size_t n, uint64_t *out,
                            uint64_t t);

/* The same, and for each whether it is a dynamic method (dynamic_out[i],
 * when not NULL): a caller that caches the others' IDs names only the
 * dynamic ones again. */
size_t ip_functions_resolve_ex(profiler *p, ip_functions *f, const UINT_PTR *ips, size_t n, uint64_t *out,
                               uint8_t *dynamic_out, uint64_t t);

/* Names the functions of a stack already given as FunctionIDs (0 entries
 * skipped), as ip_functions_resolve does. */
void ip_functions_name(profiler *p, ip_functions *f, const uint64_t *fids, size_t n, uint64_t t);

/* The calling thread's managed stack (DoStackSnapshot of the current
 * thread: needs COR_PRF_ENABLE_STACK_SNAPSHOT), leaf first, at most max
 * frames (the root side is lost), a 0 for each run of native frames between
 * managed ones, and each frame's code address into ips (when not NULL).
 * Returns its depth.  ip_functions_walk_own does not name the functions;
 * ip_functions_own_stack names them as above and gives each frame's IL
 * offset into il (il_maps.h: every frame of the calling thread's own stack
 * is a caller, at a return address). */
size_t ip_functions_walk_own(profiler *p, uint64_t *frames, UINT_PTR *ips, size_t max);
size_t ip_functions_own_stack(profiler *p, ip_functions *f, uint64_t *frames, uint32_t *il, size_t max, uint64_t t);

/* The IL offsets of a stack of n frames (fids) at ips, all of them callers
 * (return addresses): what an event's stack of the runtime holds. */
void ip_functions_il(profiler *p, const uint64_t *fids, const UINT_PTR *ips, size_t n, uint32_t *il);

/* The module unload count now (the caches' key). */
uint64_t ip_functions_unloads(profiler *p);

#endif
