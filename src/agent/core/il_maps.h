/* il_maps.h - the IL offset of a managed frame, from the runtime's
 * native-to-IL maps: for a FunctionID and a code address in it, the IL
 * offset of the instruction there (of the call, for a return address),
 * which `clrprobe report` turns into a source line with the program's
 * PDB.  Each compiled version of a method (tiered compilation and ReJIT
 * give one method several) has its own map: the version holding the
 * address is found with GetFunctionFromIP3 (its ReJITID),
 * GetNativeCodeStartAddresses and GetCodeInfo4, and its map read with
 * GetILToNativeMapping3, once, then kept.  Runtime calls are made outside
 * the lock, so never from a signal handler nor inside a suspension: the
 * signal engine's collector, the suspend engine after the resume, the
 * threads that raise allocation, contention and exception events.  The
 * cache is emptied when a module unloads (IDs and code addresses are
 * reused) and when it holds IL_MAPS_MAX_ENTRIES map entries (bounded
 * memory: maps are read again as needed). */
#ifndef CLRPROBE_AGENT_IL_MAPS_H
#define CLRPROBE_AGENT_IL_MAPS_H

#include <stddef.h>
#include <stdint.h>

#include "trace/format.h"

typedef struct profiler profiler;
typedef struct il_maps il_maps;

#define IL_MAPS_MAX_ENTRIES (1u << 19)   /* map entries kept (12 bytes each) */
#define IL_MAPS_MAX_VERSIONS (1u << 16)  /* code versions kept */

int il_maps_create(il_maps **out);
void il_maps_free(il_maps *m);

/* The IL offset at ip in function fid: ip is the instruction itself
 * (leaf: the interrupted one) or, with is_return, a return address (the
 * call before it is meant).  TRACE_IL_NONE when it cannot be known (no
 * map, not managed code, an old runtime), TRACE_IL_PROLOG and
 * TRACE_IL_EPILOG as the map says. */
uint32_t il_maps_offset(profiler *p, il_maps *m, uint64_t fid, uintptr_t ip, int is_return);

/* The same for a stack: il[i] for fids[i] at ips[i] (0 fid: TRACE_IL_NONE),
 * leaf first; frame i > 0 is a return address, and frame 0 is one when
 * leaf_is_return. */
void il_maps_stack(profiler *p, il_maps *m, const uint64_t *fids, const uintptr_t *ips, size_t n,
                   int leaf_is_return, uint32_t *il);

#endif
