/* kstack.c - a stack the kernel took for the stack engine, made what the
 * signal handler's walk makes (kstack.h). */
#include "agent/sampling/kstack.h"
#include "unwind/stack_walk.h"

#include <stdatomic.h>
#include <string.h>

/* The kernel's frames from..n-1 of r appended at out[*o] (max words):
 * return addresses less one, the runtime's hijack stub as its mark. */
static void chain(const code_map *m, const cp_stack_record *r, size_t from, size_t n, uintptr_t *out, size_t max,
                  size_t *o, unsigned *flags, int prev_managed)
{
    size_t k;

    for (k = from; k < n && *o < max; k++) {
        uintptr_t pc = (uintptr_t)r->frames[k], at = k ? pc - 1 : pc;
        const cm_range *rg;

        if (pc < 4096) {
            *flags |= SW_END_OF_STACK;
            return;
        }
        rg = m ? cm_find(m, at) : NULL;
        if (!rg)
            *flags |= SW_UNKNOWN_PC;
        if (k && prev_managed && rg && rg->kind == CM_NATIVE && rg->obj && rg->obj->ok && rg->obj->is_runtime &&
            atomic_load_explicit(&((cm_object *)rg->obj)->cfi_ready, memory_order_acquire)) {
            uint64_t start = 0;
            if (cfi_find(&rg->obj->cfi, pc - rg->bias, &start) && start == pc - rg->bias) {
                out[(*o)++] = SW_MARK_HIJACK;        /* (the runtime's stub in place of a return address) */
                *flags |= SW_HIJACKED;
                prev_managed = 0;
                continue;
            }
        }
        prev_managed = !rg || rg->kind != CM_NATIVE;
        out[(*o)++] = at;
    }
    if (k == n && n == CP_STACK_FRAMES)
        *flags |= SW_DEPTH;
    else if (k == n && *o && m && out[*o - 1] > SW_MARK_OSR && cm_find(m, out[*o - 1]))
        *flags |= SW_END_OF_STACK;       /* (the kernel's walk ends at the thread's first frame: a zero link) */
    else
        *flags |= SW_BROKEN;
}

/* Where the walk of the copy meets the kernel's chain: the deepest frame
 * i of out[0..k) (a return address, not a mark's) that is the kernel's
 * frame *j; 0 when none (frame 0, the pc, is never the join). */
static size_t join(const uintptr_t *out, size_t k, const cp_stack_record *r, size_t n, size_t *j)
{
    for (size_t i = k; i-- > 1;) {
        if (out[i] <= SW_MARK_OSR || out[i - 1] == SW_MARK_OSR)
            continue;                            /* (a mark, or the return an OSR mark brought) */
        for (size_t c = 1; c < n; c++)
            if ((uintptr_t)r->frames[c] - 1 == out[i]) {
                *j = c;
                return i;
            }
    }
    return 0;
}

size_t kstack_frames(const code_map *m, const cp_stack_record *r, size_t n, uintptr_t *out, size_t max,
                     unsigned *flags)
{
    size_t o = 0, k, i, j = 0;
    unsigned walked;
    sw_regs regs = { { 0 } };

    *flags = 0;
    /* the copy of the stack's top, walked as the handler walks, where the
     * registers are the ones the kernel's chain began at */
    if (m && n && r->sp && r->ip && r->ip == r->frames[0]) {
        regs.r[CFI_REG_RA] = (uintptr_t)r->ip;
        regs.r[CFI_REG_RSP] = (uintptr_t)r->sp;
        regs.r[CFI_REG_RBP] = (uintptr_t)r->bp;
        k = sw_walk_copy(m, &regs, r->at_sp, sizeof(r->at_sp), out, max, &walked);
        if (walked & SW_END_OF_STACK) {
            *flags = walked;
            return k;
        }
        /* it left the copy: the kernel's chain from where the two meet */
        if ((i = join(out, k, r, n, &j)) != 0) {
            o = i + 1;
            if (o + 1 < k && out[o] == SW_MARK_OSR)
                o += 2;
            *flags = walked & (SW_UNKNOWN_PC | SW_HIJACKED | SW_OSR);
            chain(m, r, j + 1, n, out, max, &o, flags, 1);
            return o;
        }
        /* none shared: the longer of the two (the kernel's chain after it) */
        o = k;
        chain(m, r, 0, n, out, max, &o, flags, 0);
        if (o - k <= k) {
            *flags = walked;
            return k;
        }
        memmove(out, out + k, (o - k) * sizeof(*out));
        return o - k;
    }
    chain(m, r, 0, n, out, max, &o, flags, 0);
    return o;
}
