/* heap_statics.h - static fields as named heap roots.  The runtime does not
 * report statics as GC roots: a class's reference statics live in slots of
 * pinned object[] buckets that one strong handle holds (docs/gc-tracking.md,
 * "Statics are not roots"), so a snapshot would show every static's object under one
 * anonymous array.  This finds, for the classes it learns of, the address
 * of each static reference field's slot (ICorProfilerInfo
 * GetAppDomainStaticAddress; metadata for the fields), and after a
 * snapshot's GC reads the slots and writes "static Namespace.Type.field"
 * roots (HEAP_ROOT_STATIC, named by heap_root_name records).
 *
 * Classes are learned from the snapshot itself (the types of its objects,
 * the classes of its stack roots' methods) and from the methods the runtime
 * has JIT-compiled (a static class's .cctor): never by loading a type,
 * which could change what the program does.  A class whose statics are not
 * initialized yet (CORPROF_E_DATAINCOMPLETE) is tried again at the next
 * snapshot.  Collectible types and thread statics are left out.  Runs on
 * the heap service's thread, outside any GC; allocates. */
#ifndef CLRPROBE_AGENT_HEAP_STATICS_H
#define CLRPROBE_AGENT_HEAP_STATICS_H

#include <stddef.h>
#include <stdint.h>

#include "api/corprof.h"

typedef struct profiler profiler;
typedef struct heap_statics heap_statics;

heap_statics *heap_statics_create(void);
void heap_statics_free(heap_statics *st);

/* Learns class c (and its base classes): records the slots of its static
 * reference fields, naming each (a heap_root_name record, once). */
void heap_statics_learn_class(heap_statics *st, profiler *p, ClassID c);

/* Learns the classes of the methods the runtime has JIT-compiled (once per
 * call: the first snapshot's). */
void heap_statics_learn_jitted(heap_statics *st, profiler *p);

/* Learns the class of a method (a stack root's frame). */
void heap_statics_learn_function(heap_statics *st, profiler *p, FunctionID f);

/* Calls put(ctx, object, name_index) for every known slot that holds an
 * object now.  Returns the number of slots read. */
size_t heap_statics_read(heap_statics *st, void (*put)(void *ctx, uint64_t object, uint32_t name), void *ctx);

#endif
