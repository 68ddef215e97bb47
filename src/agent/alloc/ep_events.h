/* ep_events.h - the payloads of the runtime's own EventPipe events that the
 * agent reads (provider Microsoft-Windows-DotNETRuntime).  The runtime
 * delivers its native events without field metadata, so their layouts are
 * known here, from the runtime's manifest (ClrEtwAll.man; x64: pointers are
 * 8 bytes, strings UTF-16LE and NUL-terminated, fields packed without
 * padding).  Pure code: no runtime calls, no allocation; every read is
 * bounds-checked against the payload's size, and a payload too short for
 * its fields is refused (returns -1). */
#ifndef CLRPROBE_AGENT_EP_EVENTS_H
#define CLRPROBE_AGENT_EP_EVENTS_H

#include <stddef.h>
#include <stdint.h>

/* The provider's keywords and the events' ids (docs/sampling.md). */
#define EP_KEYWORD_GC 0x1ull
#define EP_KEYWORD_CONTENTION 0x4000ull
#define EP_KEYWORD_ALLOCATION_SAMPLING 0x80000000000ull   /* .NET 10 */
#define EP_EVENT_ALLOCATION_TICK 10u
#define EP_EVENT_CONTENTION_START 81u
#define EP_EVENT_CONTENTION_STOP 91u
#define EP_EVENT_ALLOCATION_SAMPLED 303u

/* An allocation event: AllocationSampled (.NET 10) or GCAllocationTick_V2+. */
typedef struct ep_alloc {
    uint64_t class_id;          /* TypeID: the MethodTable, a ClassID */
    const uint8_t *type_utf16;  /* TypeName, in the payload (not NUL-terminated here) */
    size_t type_len;            /* its length in UTF-16 units */
    uint64_t address;           /* the object (sampled: valid; tick: not yet initialized) */
    uint64_t size;              /* ObjectSize */
    uint64_t amount;            /* sampled: SampledByteOffset; tick: AllocationAmount64 */
    uint32_t kind;              /* 0 small object heap, 1 large, 2 pinned */
} ep_alloc;

/* AllocationSampled: Kind u32, ClrInstanceID u16, TypeID ptr, TypeName,
 * Address ptr, ObjectSize u64, SampledByteOffset u64. */
int ep_parse_allocation_sampled(const uint8_t *data, size_t len, ep_alloc *out);

/* GCAllocationTick (version 2 and later): AllocationAmount u32, Kind u32,
 * ClrInstanceID u16, AllocationAmount64 u64, TypeID ptr, TypeName, then
 * (v3+) HeapIndex u32, Address ptr, (v4) ObjectSize u64. */
int ep_parse_allocation_tick(const uint8_t *data, size_t len, uint32_t version, ep_alloc *out);

/* ContentionStart_V2: Flags u8, ClrInstanceID u16, LockID ptr,
 * AssociatedObjectID ptr, LockOwnerThreadID u64.  (V1 has the flags only.) */
typedef struct ep_contention_start {
    uint32_t flags;             /* 0 managed, 1 native */
    uint64_t lock_id, object, owner_thread;
} ep_contention_start;
int ep_parse_contention_start(const uint8_t *data, size_t len, ep_contention_start *out);

/* ContentionStop_V1: Flags u8, ClrInstanceID u16, DurationNs double.
 * *duration_ns is 0 for V0 (no duration). */
int ep_parse_contention_stop(const uint8_t *data, size_t len, uint64_t *duration_ns);

#endif
