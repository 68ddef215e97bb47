/* hash.h - FNV-1a, the one hash of the in-memory tables of agent and
 * command (names, stacks, heap paths): 64 bits, with the published offset
 * basis and prime.  Its values only find entries again in the process that
 * computed them: none is written to a trace, and no output is ordered by
 * one (a table's order is the order entries were added in). */
#ifndef CLRPROBE_COMMON_HASH_H
#define CLRPROBE_COMMON_HASH_H

#include <stdint.h>

#define CP_FNV1A_BASIS 14695981039346656037ULL
#define CP_FNV1A_PRIME 1099511628211ULL

/* One step: v is a byte in the standard hash of bytes; a key made of
 * numbers (a stack's frames, a path's type indexes) mixes in a whole one
 * at a time, which is as good for a table and a quarter of the steps. */
static inline uint64_t cp_fnv1a_step(uint64_t h, uint64_t v)
{
    return (h ^ v) * CP_FNV1A_PRIME;
}

/* h continued over the bytes of the string s (without its NUL). */
static inline uint64_t cp_fnv1a_str_from(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = cp_fnv1a_step(h, (unsigned char)*s);
    return h;
}

/* The FNV-1a hash of the string s. */
static inline uint64_t cp_fnv1a_str(const char *s)
{
    return cp_fnv1a_str_from(CP_FNV1A_BASIS, s);
}

#endif
