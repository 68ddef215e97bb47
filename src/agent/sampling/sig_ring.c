/* sig_ring.c - the single-writer, single-reader sample ring (sig_ring.h).
 * Entries never wrap: when the room left before the ring's end is too
 * small for the largest entry, the writer fills it with a pad entry and
 * starts again at the beginning.  Async-signal-safe on the writer's side. */
#include "agent/sampling/sig_ring.h"

#include <stdlib.h>
#include <string.h>

int sig_ring_init(sig_ring *r, uint32_t cap_words)
{
    memset(r, 0, sizeof(*r));
    if (cap_words < 64 || (cap_words & (cap_words - 1)))
        return -1;
    if (!(r->w = calloc(cap_words, sizeof(uint64_t))))
        return -1;
    r->cap = cap_words;
    atomic_init(&r->head, 0);
    atomic_init(&r->tail, 0);
    return 0;
}

void sig_ring_free(sig_ring *r)
{
    free(r->w);
    memset(r, 0, sizeof(*r));
}

void sig_ring_reset(sig_ring *r)
{
    atomic_store(&r->head, 0);
    atomic_store(&r->tail, 0);
}

sig_entry *sig_ring_reserve(sig_ring *r, size_t max_frames, uintptr_t **frames)
{
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    uint64_t need = SIG_ENTRY_WORDS + max_frames, free_words = r->cap - (head - tail);
    uint32_t at = (uint32_t)(head & (r->cap - 1)), to_end = r->cap - at;
    sig_entry *e;

    if (need > r->cap / 2)
        return NULL;
    if (to_end < need) {
        /* not enough before the end: pad it, start over at 0 */
        if (free_words < to_end + need)
            return NULL;
        e = (sig_entry *)&r->w[at];
        e->words = to_end;
        e->nframes = SIG_ENTRY_PAD;
        atomic_store_explicit(&r->head, head + to_end, memory_order_release);
        at = 0;
    } else if (free_words < need) {
        return NULL;
    }
    e = (sig_entry *)&r->w[at];
    *frames = (uintptr_t *)&r->w[at + SIG_ENTRY_WORDS];
    return e;
}

void sig_ring_commit(sig_ring *r, sig_entry *e)
{
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    e->words = (uint32_t)(SIG_ENTRY_WORDS + e->nframes);
    atomic_store_explicit(&r->head, head + e->words, memory_order_release);
}

const sig_entry *sig_ring_peek(sig_ring *r)
{
    for (;;) {
        uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
        uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
        const sig_entry *e;
        if (tail == head)
            return NULL;
        e = (const sig_entry *)&r->w[tail & (r->cap - 1)];
        if (e->nframes != SIG_ENTRY_PAD)
            return e;
        atomic_store_explicit(&r->tail, tail + e->words, memory_order_release);
    }
}

void sig_ring_pop(sig_ring *r, const sig_entry *e)
{
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    atomic_store_explicit(&r->tail, tail + e->words, memory_order_release);
}
