/* sig_resolve.h - the code addresses of a signal sample to the IDs of the
 * trace's sample records, on the collector thread (never in the handler):
 *   - managed code (JIT-compiled, ReadyToRun, dynamic methods): the
 *     FunctionID by GetFunctionFromIP3 (ip_functions.h, cached, named with
 *     function_name records as the other samplers do);
 *   - native code: "library!symbol" from the ELF object's symbols, else
 *     "library+0xOFFSET" with the offset of the function's start (from its
 *     unwind information) or of the address;
 *   - the runtime's generated code that is no method: "[stub: ...]";
 *   - code the map does not know: "[unknown code]";
 *   - a sample whose signal waited while the runtime handled a hardware
 *     fault (sig_engine.h: SIGPROF is blocked from a NullReferenceException's
 *     fault until the agent's ExceptionThrown unblocks it, where the signal
 *     then arrives): the agent's and libc's frames of that unblocking are
 *     one frame, "[CPU since a hardware fault ...]", on the runtime's
 *     exception dispatch.
 * Frames that are not managed get IDs of their own, SIG_NATIVE_ID_BIT set
 * (a FunctionID is a user-space address, below it), one per function, each
 * named once by a function_name record: the report reads them as it reads
 * any function. */
#ifndef CLRPROBE_AGENT_SIG_RESOLVE_H
#define CLRPROBE_AGENT_SIG_RESOLVE_H

#include <stddef.h>
#include <stdint.h>

#include "agent/core/service.h"
#include "common/idmap.h"
#include "unwind/code_map.h"

typedef struct profiler profiler;

#define SIG_NATIVE_ID_BIT (1ull << 63)

typedef struct sig_resolver {
    profiler *p;
    ip_functions managed;        /* managed code addresses -> FunctionIDs */
    int managed_ok;
    idmap functions;             /* a native function's key -> its ID */
    idmap addresses;             /* an address -> its ID (dynamic methods' excepted), for one code map and
                                    one unload count */
    idmap il_at;                 /* (an address, bit 63: a return address) -> its IL offset + 1, as long as
                                    addresses (il_maps.h's lookup takes a lock and a search) */
    uint64_t map_serial;         /* the code map `addresses` was found in (a later one that kept every
                                    range of it: code_map.h's kept_since) */
    uint64_t unloads;            /* and the runtime's unload count */
    uint64_t next_id;
    uint64_t stub_id, hijack_id, unknown_id, deferred_id, collected_id;   /* the fixed names, once named */
    char agent[256];             /* the agent's own library's file name (libclrprobe.so) */
} sig_resolver;

int sig_resolver_init(sig_resolver *r, profiler *p);
void sig_resolver_free(sig_resolver *r);

/* The IDs of n frames (stack_walk.h's addresses and marks, innermost
 * first) into out, naming the functions met for the first time (records
 * stamped t), and each ID's IL offset into il (il_maps.h; TRACE_IL_NONE
 * for native code and dynamic methods; il may be NULL).  dynamic_gone: a
 * dynamic method was collected since the sample was taken, so a frame in
 * a dynamic method's code is named as such, not by the method there now
 * (the runtime reuses the ID and the code's place).  The caller holds the
 * unload gate.
 * Returns the number of IDs (an OSR mark's frame is kept only where it
 * belongs). */
size_t sig_resolve(sig_resolver *r, const code_map *m, const uintptr_t *frames, size_t n, uint64_t *out,
                   uint32_t *il, int dynamic_gone, uint64_t t);

/* The name of a native frame (exposed for the unit tests): "lib!sym",
 * "lib+0x1f40", "[stub: ...]" into buf. */
void sig_native_name(const cm_range *range, uintptr_t at, char *buf, size_t cap, uint64_t *key);

#endif
