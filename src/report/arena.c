/* arena.c - bump allocation in 1 MiB blocks (see arena.h). */
#include "report/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_BYTES (1u << 20)

struct rp_arena {
    rp_arena *next;
    size_t used, cap;            /* in bytes */
    uint64_t data[];             /* 8-byte aligned */
};

void *arena_alloc(rp_arena **a, size_t bytes)
{
    rp_arena *b = *a;
    size_t need = (bytes + 7) & ~(size_t)7;
    void *r;

    if (!b || b->cap - b->used < need) {
        size_t cap = need > BLOCK_BYTES ? need : BLOCK_BYTES;
        b = malloc(sizeof(*b) + cap);
        if (!b)
            return NULL;
        b->next = *a;
        b->used = 0;
        b->cap = cap;
        *a = b;
    }
    r = (char *)b->data + b->used;
    b->used += need;
    return r;
}

const char *arena_strndup(rp_arena **a, const char *s, size_t n)
{
    char *d;
    if (n == 0 || (d = arena_alloc(a, n + 1)) == NULL)
        return "";
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

void arena_free(rp_arena **a)
{
    rp_arena *b = *a, *next;
    for (; b; b = next) {
        next = b->next;
        free(b);
    }
    *a = NULL;
}
