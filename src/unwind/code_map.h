/* code_map.h - a snapshot of where code lives in this process, made from
 * /proc/self/maps for the signal sampler: every executable mapping, sorted,
 * with what it holds (an ELF object, with its unwind table and symbols; a
 * .NET image whose precompiled code is managed; anonymous memory: the JIT's
 * code and the runtime's stubs).  The signal handler searches a snapshot
 * without a lock: a snapshot is never changed once built; a newer one
 * replaces it (the sampler swaps a pointer) and the old one is freed only
 * when no handler can still be reading it.  The ELF objects are shared by
 * snapshots and kept in a cache until the sampler stops.  Built on a normal
 * thread (it reads files and allocates). */
#ifndef CLRPROBE_UNWIND_CODE_MAP_H
#define CLRPROBE_UNWIND_CODE_MAP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind/cfi.h"
#include "unwind/elf_image.h"
#include "unwind/proc_maps.h"

enum cm_kind {
    CM_NATIVE = 1,          /* an ELF object's code: unwound with its table, named by its symbols */
    CM_MANAGED_IMAGE,       /* a .NET (PE) image mapped by the runtime: ReadyToRun code */
    CM_ANON,                /* anonymous or memfd memory: JIT-compiled code and runtime stubs */
};

typedef struct cm_object {
    char *path;             /* as /proc/self/maps names it, without " (deleted)" */
    const char *name;       /* its last component: libcoreclr.so */
    uint64_t dev, inode;
    elf_image img;
    cfi_table cfi;
    int ok;                 /* img was read (else: no table, no names) */
    atomic_int cfi_ready;   /* cfi is built (cm_object_prepare): the walk uses it from then on */
    int file_kind;          /* CM_NATIVE (ELF), CM_MANAGED_IMAGE (a PE file), CM_ANON (neither, unreadable) */
    int is_runtime;         /* libcoreclr.so: where the runtime's return-address hijack stub lives */
    uint32_t serial;        /* 1, 2, ... in its cache: a short name for it */
    struct cm_object *next;
} cm_object;

typedef struct cm_range {
    uintptr_t start, end;
    uintptr_t bias;         /* CM_NATIVE: an object address a is at a + bias */
    uint8_t kind;           /* enum cm_kind */
    const cm_object *obj;   /* CM_NATIVE (may be !ok); CM_MANAGED_IMAGE: NULL */
    const char *image;      /* CM_MANAGED_IMAGE: the image's file name (points into the map's names) */
} cm_range;

typedef struct code_map {
    cm_range *r;            /* sorted by start, not overlapping */
    size_t n;
    char *names;            /* CM_MANAGED_IMAGE names */
    size_t names_len;       /* the bytes of names used */
    uint64_t serial;        /* which snapshot this is (1, 2, ...) */
    uint64_t kept_since;    /* the first snapshot whose every range this one still has, as it was
                               (cm_keep; its own serial until then): what was found of an address in
                               any snapshot from that one on still holds */
    struct code_map *retired;   /* the owner's list of replaced snapshots */
} code_map;

/* The ELF objects read so far (one per file), shared by snapshots. */
typedef struct cm_objects {
    cm_object *head;
    size_t count;
} cm_objects;

/* A snapshot of maps; objects not in the cache are read (their headers) and
 * added.  NULL when out of memory. */
code_map *cm_build(cm_objects *cache, const pm_maps *maps, uint64_t serial);

/* old with one more executable anonymous mapping e (a JIT code heap found
 * by pm_query_self when a walk met its code), replacing old's anonymous
 * ranges wholly inside e; kept_since old's.  NULL when e is not such a
 * mapping, meets another range of old (a cm_build is needed) or out of
 * memory. */
code_map *cm_add_anon(const code_map *old, const pm_entry *e, uint64_t serial);

/* Sets m->kept_since from the snapshot m replaces: old's when every range
 * of old is within a range of m of the same kind and object (code was only
 * added: a JIT heap grown, a library loaded), else m's own serial. */
void cm_keep(code_map *m, const code_map *old);

/* An object's unwind table and symbols, built when first needed (a sample
 * met its code): until then the walk goes through its frames by their frame
 * pointers.  Call on the thread that owns the cache; a handler walking at
 * the same time sees the table only once it is whole. */
void cm_object_prepare(cm_object *o);
/* Every object's (tests, and what must be ready at once). */
void cm_objects_prepare_all(cm_objects *cache);

void cm_free(code_map *m);
void cm_objects_free(cm_objects *cache);

/* The range that holds pc, or NULL.  No allocation, no lock: safe in a
 * signal handler on a snapshot it was given. */
const cm_range *cm_find(const code_map *m, uintptr_t pc);

#endif
