/* arena.h - a bump allocator for the report's many small, long-lived
 * pieces (names, frame arrays): freed all at once with the trace or
 * profile that owns them. */
#ifndef CLRPROBE_REPORT_ARENA_H
#define CLRPROBE_REPORT_ARENA_H

#include <stddef.h>

typedef struct rp_arena rp_arena;

/* bytes of 8-byte aligned memory from *a, or NULL (out of memory). */
void *arena_alloc(rp_arena **a, size_t bytes);

/* A NUL-terminated copy of s[0..n) ("" when n is 0 or out of memory). */
const char *arena_strndup(rp_arena **a, const char *s, size_t n);

/* Frees every block; *a becomes NULL. */
void arena_free(rp_arena **a);

#endif
