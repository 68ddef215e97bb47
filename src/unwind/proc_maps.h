/* proc_maps.h - the memory mappings of this process, as /proc/self/maps
 * lists them: what the signal sampler's code map (code_map.h) is made of,
 * and where it finds a thread's stack.  Read on a normal thread (it
 * allocates), never in a signal handler. */
#ifndef CLRPROBE_UNWIND_PROC_MAPS_H
#define CLRPROBE_UNWIND_PROC_MAPS_H

#include <stddef.h>
#include <stdint.h>

#define PM_READ 0x1u
#define PM_WRITE 0x2u
#define PM_EXEC 0x4u
#define PM_PRIVATE 0x8u

typedef struct pm_entry {
    uintptr_t start, end;        /* [start, end) */
    uint64_t offset;             /* in the file mapped */
    uint64_t inode;
    unsigned dev_major, dev_minor;
    unsigned perms;              /* PM_* */
    const char *path;            /* "" (anonymous), "[vdso]", "[stack]", "/memfd:doublemapper (deleted)",
                                    "/usr/lib/x86_64-linux-gnu/libc.so.6", ... (points into text) */
} pm_entry;

typedef struct pm_maps {
    pm_entry *v;                 /* in address order, as the kernel lists them */
    size_t n;
    char *text;                  /* the file's text, which the paths point into */
} pm_maps;

/* Reads /proc/self/maps.  0, or -1 (out of memory, unreadable). */
int pm_read_self(pm_maps *out);

/* Parses the text of a maps file (len bytes; a copy is kept).  Lines that
 * do not parse are skipped.  0, or -1 (out of memory). */
int pm_parse(const char *text, size_t len, pm_maps *out);

void pm_free(pm_maps *m);

/* The mapping that holds addr, or NULL. */
const pm_entry *pm_find(const pm_maps *m, uintptr_t addr);

/* One mapping asked of the kernel (PROCMAP_QUERY, Linux 6.11): the one that
 * holds addr, its path (as the maps file names it) copied into path (cap
 * bytes, "" when it has none), without the whole file made and read (a
 * .NET process has a thousand mappings: 2-4 ms a read).  1 found (*e
 * filled, e->path = path), 0 no mapping holds addr, -1 failed, -2 the
 * kernel has no such query (read the file). */
int pm_query_self(uintptr_t addr, pm_entry *e, char *path, size_t cap);

#endif
