/* sig_ring.h - the buffer between a thread's signal handler (the one
 * writer, on that thread) and the signal sampler's collector thread (the
 * one reader): a ring of 8-byte words, allocated before any signal can
 * reach it, holding one entry per sample (a header, then the frames' code
 * addresses).  The writer reserves room for the most frames a sample can
 * have, walks the stack straight into it and commits what it used, so the
 * handler needs no buffer on the stack it interrupted.  Lock-free: the
 * writer publishes with a release store of head, the reader frees with a
 * release store of tail; a full ring drops the sample (counted). */
#ifndef CLRPROBE_AGENT_SIG_RING_H
#define CLRPROBE_AGENT_SIG_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* One entry: this header, then nframes words. */
typedef struct sig_entry {
    uint32_t words;          /* the entry's length in words, header included */
    uint16_t nframes;
    uint16_t flags;          /* SIG_SAMPLE_* (sig_engine.h) | the walk's SW_* flags << 8 */
    uint64_t t;              /* CLOCK_MONOTONIC ns */
    uint64_t cpu_ns;         /* (CPU) the thread's CPU time since its previous CPU sample; 0 (wall) */
    uint32_t unloads;        /* the runtime's module unload count when it was taken (its low bits) */
    uint32_t dynamic_unloads;   /* and its dynamic methods' (profiler.h; its low bits) */
} sig_entry;

#define SIG_ENTRY_WORDS (sizeof(sig_entry) / sizeof(uint64_t))
#define SIG_ENTRY_PAD 0xffffu    /* nframes of a filler entry up to the ring's end */

typedef struct sig_ring {
    uint64_t *w;             /* cap words */
    uint32_t cap;            /* a power of two */
    _Atomic uint64_t head;   /* words written (the writer's) */
    _Atomic uint64_t tail;   /* words consumed (the reader's) */
} sig_ring;

/* Allocates a ring of cap_words (a power of two).  0, or -1. */
int sig_ring_init(sig_ring *r, uint32_t cap_words);
void sig_ring_free(sig_ring *r);
/* Empties it (only while no writer and no reader use it). */
void sig_ring_reset(sig_ring *r);

/* The writer: room for a header and max_frames frames, contiguous; the
 * entry's header and its frames' place, or NULL when the ring is full. */
sig_entry *sig_ring_reserve(sig_ring *r, size_t max_frames, uintptr_t **frames);
/* Publishes the entry reserved last, with its nframes set. */
void sig_ring_commit(sig_ring *r, sig_entry *e);

/* The reader: the oldest entry (its frames follow it), or NULL when empty;
 * sig_ring_pop frees it. */
const sig_entry *sig_ring_peek(sig_ring *r);
void sig_ring_pop(sig_ring *r, const sig_entry *e);

#endif
