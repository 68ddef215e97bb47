/* heap_fields.h - which field of an object holds each of its references,
 * so that a root path reads `Type.field -> Type` (report --why).
 *
 * The runtime's ObjectReferences gives an object's references without the
 * fields they are in.  During the snapshot's GC (objects do not move while
 * it walks them) the agent finds each reference's word in the object
 * (heap_fields_slots: a read of the object's own memory, nothing called),
 * and writes it beside the reference (HEAP_OBJ_SLOTS, trace/heap_codec.h).
 * Arrays are left out: an element is an element.  After the GC, on the
 * heap service's thread, each type whose objects carried slots is named
 * once per trace: its instance fields and those of its base types, at
 * their offsets (GetClassLayout, GetClassIDInfo2 for the base, metadata
 * for the names), as heap_field records.  The report names a slot by the
 * field at that offset, or the struct field that holds it.  An
 * auto-property's backing field (`<Name>k__BackingField`) is written as
 * the property's name. */
#ifndef CLRPROBE_AGENT_HEAP_FIELDS_H
#define CLRPROBE_AGENT_HEAP_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "api/corprof.h"

typedef struct profiler profiler;

/* Longest reference list given slots (an object with more has none). */
#define HEAP_FIELDS_MAX_REFS 4096

/* The word of obj (nwords words; word 0 is the MethodTable, not searched)
 * that holds each of refs[0..nrefs), into slots (0 when not found).  Looks
 * on from after the previous reference's word, wrapping once, so that the
 * runtime's order (by offset) costs one pass over the object, and two
 * fields holding the same object get their own words. */
void heap_fields_slots(const uint64_t *obj, size_t nwords, const uint64_t *refs, size_t nrefs, uint32_t *slots);

/* The name a report shows for a field: an auto-property's backing field
 * `<Name>k__BackingField` becomes Name; other names as they are. */
void heap_fields_display_name(const char *field, char *out, size_t cap);

/* Writes heap_field records for type index `type`, whose ClassID is c: its
 * instance fields and its base types' (outside any GC; allocates).  The
 * number written. */
size_t heap_fields_name_type(profiler *p, uint32_t type, ClassID c);

#endif
