/* stack_walk.c - the signal-safe stack walk (stack_walk.h).
 *
 * One step goes from a frame (its pc, and the stack and frame pointers at
 * that point) to its caller's:
 *   - pc in an ELF object with a rule for it: the CFA from the rule
 *     (register + offset, or a word read at register + offset, + add); the
 *     return address and the caller's RBP where the rule says they were
 *     saved; the caller's stack pointer is the CFA;
 *   - pc in JIT-compiled or ReadyToRun code, or native code without a
 *     rule: the frame-pointer chain: [rbp] is the caller's RBP, [rbp + 8]
 *     the return address, rbp + 16 the caller's stack pointer.
 * Every step must move up the stack (the new stack pointer above the old),
 * which bounds the walk even on a corrupt stack.  Registers other than
 * RSP, RBP and the return address are known only in the interrupted frame
 * (a rule that needs one later ends the walk).
 *
 * The runtime suspends a thread running partially interruptible managed
 * code by overwriting the return address of that code's frame with its
 * hijack stub (OnHijackTripThread in libcoreclr: docs/sampling.md, "Two
 * runtime cases the walk knows").  A true return address follows a
 * call, inside a function; the stub's address is a function's first byte.
 * So a return address into libcoreclr that is the start of a function,
 * met right after a managed frame, is the hijack: it is written as
 * SW_MARK_HIJACK (the caller it replaced is unknown) and the walk goes on
 * from that caller's frame pointer, which the runtime leaves untouched.
 *
 * A method whose loop ran long in tier-0 code goes on in OSR code, whose
 * frame sits on the tier-0 frame with a return address into the tier-0
 * code and the frame pointer the tier-0 frame saved (its caller's): the
 * chain then skips the tier-0 frame's own [saved rbp][return address]
 * pair, the return into the method's caller.  That pair is the highest
 * slot between the two links that holds the next link (sampler.c's
 * suspend engine finds it the same way).  The walk cannot tell an OSR
 * frame here, so after every step between two frames of managed code it
 * looks for that pair and, when found, writes SW_MARK_OSR and the return
 * address after the next frame: the resolver keeps it only when the two
 * frames before the mark are of one method. */
#include "unwind/stack_walk.h"

#include <string.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_ASAN __attribute__((no_sanitize("address")))
#endif
#endif
#if !defined(NO_ASAN) && defined(__SANITIZE_ADDRESS__)
#define NO_ASAN __attribute__((no_sanitize_address))
#endif
#ifndef NO_ASAN
#define NO_ASAN
#endif

#define W sizeof(uintptr_t)
#define OSR_SCAN_WORDS 512          /* words of a tier-0 frame searched for its pair */

/* Where the stack's words are read: in place (delta 0: the handler, on
 * the thread), or in a copy of [sp, hi) at sp + delta (sw_walk_copy).
 * The frame carries it (a walk's reads all go through its frame). */
/* The aligned word at a, when [a, a + 8) lies in [lo, hi), read at a + d. */
NO_ASAN static inline int read_word_at(uintptr_t a, uintptr_t lo, uintptr_t hi, uintptr_t d, uintptr_t *v)
{
    if (a < lo || a >= hi || hi - a < W || (a & (W - 1)))
        return 0;
    *v = *(const volatile uintptr_t *)(a + d);
    return 1;
}

typedef struct frame {
    uintptr_t pc, sp, fp;
    int exact;                 /* pc is where the thread is (not a return address) */
    int all_regs;              /* the interrupted frame: every register of regs is known */
    uintptr_t delta;           /* the stack's words are read at their address + delta (0: in place) */
} frame;

#define read_word(a, lo, hi, v) read_word_at((a), (lo), (hi), f->delta, (v))

/* The value of a DWARF register in this frame, if known. */
static int reg_value(const frame *f, const sw_regs *regs, unsigned reg, uintptr_t *v)
{
    if (reg == CFI_REG_RSP) { *v = f->sp; return 1; }
    if (reg == CFI_REG_RBP) { *v = f->fp; return 1; }
    if (f->all_regs && reg < CFI_NREGS) { *v = regs->r[reg]; return 1; }
    return 0;
}

/* A step by the frame pointer.  0, or -1 when the chain leaves the stack. */
NO_ASAN static int fp_step(frame *f, uintptr_t hi)
{
    uintptr_t next_fp, ra;
    if (f->fp < f->sp || !read_word(f->fp, f->sp, hi, &next_fp) || !read_word(f->fp + W, f->sp, hi, &ra))
        return -1;
    f->sp = f->fp + 2 * W;
    f->fp = next_fp;
    f->pc = ra;
    f->exact = 0;
    f->all_regs = 0;
    return 0;
}

/* A step by an unwind rule.  1 at the thread's first frame, 0, or -1. */
NO_ASAN static int cfi_step(frame *f, const sw_regs *regs, const cfi_rule *r, uintptr_t lo, uintptr_t hi)
{
    uintptr_t base, cfa, ra, fp = f->fp, v;

    if (r->cfa == CFI_CFA_NONE || !reg_value(f, regs, r->cfa_reg, &base))
        return -1;
    cfa = base + (uintptr_t)(intptr_t)r->cfa_off;
    if (r->cfa == CFI_CFA_DEREF) {
        if (!read_word(cfa, lo, hi, &v))
            return -1;
        cfa = v + (uintptr_t)(intptr_t)r->cfa_add;
    }
    if (r->ra_where == CFI_UNDEFINED)
        return 1;
    if (r->ra_where == CFI_AT_CFA) {
        if (!read_word(cfa + (uintptr_t)(intptr_t)r->ra_off, lo, hi, &ra))
            return -1;
    } else if (r->ra_where == CFI_AT_REG) {
        if (!reg_value(f, regs, r->ra_reg, &base) || !read_word(base + (uintptr_t)(intptr_t)r->ra_off, lo, hi, &ra))
            return -1;
    } else {
        return -1;
    }
    switch (r->rbp_where) {
    case CFI_SAME: break;
    case CFI_AT_CFA:
        if (!read_word(cfa + (uintptr_t)(intptr_t)r->rbp_off, lo, hi, &fp))
            return -1;
        break;
    case CFI_AT_REG:
        if (!reg_value(f, regs, r->rbp_reg, &base) || !read_word(base + (uintptr_t)(intptr_t)r->rbp_off, lo, hi, &fp))
            return -1;
        break;
    default:
        fp = 0;                  /* unknown: a frame-pointer step after this one ends the walk */
        break;
    }
    /* up the stack, except out of a signal frame (the interrupted stack may
     * be anywhere in the thread's stack, the handler having run on it) */
    if (!r->signal && cfa <= f->sp)
        return -1;
    if (cfa < lo || cfa > hi)
        return -1;
    f->sp = cfa;
    f->fp = fp;
    f->pc = ra;
    f->exact = r->signal;
    f->all_regs = 0;
    return 0;
}

/* Is pc (a return address) in managed code, or in no known range? */
static int prev_managed_next(const code_map *map, uintptr_t pc)
{
    const cm_range *r = cm_find(map, pc - 1);
    return !r || r->kind != CM_NATIVE;
}

/* The return address (minus one) of a [saved rbp == next][return address]
 * pair between the link at fp and the next link, highest first; 0 if
 * none. */
NO_ASAN static uintptr_t osr_hidden_return(const frame *f, uintptr_t fp, uintptr_t next, uintptr_t hi)
{
    uintptr_t low = fp + 2 * W, v, ret;
    if (next > hi || next < low + 2 * W || (next & (W - 1)))
        return 0;
    for (uintptr_t at = next - 2 * W, looked = 0; at >= low && looked < OSR_SCAN_WORDS; at -= W, looked++) {
        if (!read_word(at, low, next, &v) || v != next)
            continue;
        return read_word(at + W, low, next + W, &ret) && ret > 4096 ? ret - 1 : 0;
    }
    return 0;
}

static size_t walk(const code_map *map, const sw_regs *regs, int all_regs, uintptr_t delta, uintptr_t stack_hi,
                   uintptr_t *out, size_t max, unsigned *flags);

NO_ASAN size_t sw_walk(const code_map *map, const sw_regs *regs, uintptr_t stack_hi, uintptr_t *out, size_t max,
                       unsigned *flags)
{
    return walk(map, regs, 1, 0, stack_hi, out, max, flags);
}

size_t sw_walk_copy(const code_map *map, const sw_regs *regs, const uint64_t *copy, size_t bytes, uintptr_t *out,
                    size_t max, unsigned *flags)
{
    return walk(map, regs, 0, (uintptr_t)copy - regs->r[CFI_REG_RSP], regs->r[CFI_REG_RSP] + bytes, out, max,
                flags);
}

NO_ASAN static size_t walk(const code_map *map, const sw_regs *regs, int all_regs, uintptr_t delta,
                           uintptr_t stack_hi, uintptr_t *out, size_t max, unsigned *flags)
{
    frame f = { regs->r[CFI_REG_RA], regs->r[CFI_REG_RSP], regs->r[CFI_REG_RBP], 1, all_regs, delta };
    uintptr_t lo = f.sp, hi = stack_hi;
    size_t n = 0;
    int prev_managed = 0;

    *flags = 0;
    if (hi <= lo)
        hi = lo;                  /* no known stack: the interrupted pc only */
    uintptr_t osr = 0;                /* a pair to write after the next frame */
    const cm_range *last = NULL;      /* the range of the frame before (frames often share one) */

    while (n < max) {
        uintptr_t at;
        const cm_range *r;
        int rc, managed;

        if (f.pc < 4096) {        /* a zero (or tiny) return address: the chain's end */
            *flags |= SW_END_OF_STACK;
            break;
        }
        at = f.exact ? f.pc : f.pc - 1;
        r = last && at >= last->start && at < last->end ? last : cm_find(map, at);
        last = r;
        if (r && r->kind == CM_NATIVE && r->obj->ok &&
            atomic_load_explicit(&((cm_object *)r->obj)->cfi_ready, memory_order_acquire)) {
            const cm_object *o = r->obj;
            uint64_t start = 0;
            const cfi_rule *rule;
            if (!f.exact && prev_managed && o->is_runtime && cfi_find(&o->cfi, f.pc - r->bias, &start) &&
                start == f.pc - r->bias) {
                /* the runtime's hijack stub in place of a managed frame's return address */
                out[n++] = SW_MARK_HIJACK;
                *flags |= SW_HIJACKED;
                prev_managed = 0;
                osr = 0;
                if (fp_step(&f, hi) < 0) { *flags |= SW_BROKEN; break; }
                continue;
            }
            out[n++] = at;
            prev_managed = 0;
            osr = 0;
            rule = cfi_find(&o->cfi, at - r->bias, NULL);
            if (rule)
                rc = cfi_step(&f, regs, rule, lo, hi);
            else
                rc = fp_step(&f, hi);     /* (code without unwind information: its frame pointer) */
        } else {
            /* managed code, or native code without a table, or an address
             * the map does not know yet (new JIT code): the frame pointer */
            uintptr_t fp = f.fp;
            if (!r)
                *flags |= SW_UNKNOWN_PC;
            managed = !r || r->kind != CM_NATIVE;
            out[n++] = at;
            if (osr && n + 2 <= max) {
                out[n++] = SW_MARK_OSR;
                out[n++] = osr;
                *flags |= SW_OSR;
            }
            osr = 0;
            rc = fp_step(&f, hi);
            if (rc == 0 && managed && prev_managed_next(map, f.pc))
                osr = osr_hidden_return(&f, fp, f.fp, hi);
            prev_managed = managed;
        }
        if (rc > 0) {
            *flags |= SW_END_OF_STACK;
            break;
        }
        if (rc < 0) {
            *flags |= SW_BROKEN;
            break;
        }
    }
    if (n == max)
        *flags |= SW_DEPTH;
    return n;
}
