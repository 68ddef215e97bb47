/* stack_walk.h - the walk of an interrupted thread's stack, from a signal
 * handler on that thread: native frames by their objects' unwind tables
 * (cfi.h), JIT-compiled and ReadyToRun frames by the frame-pointer chain
 * (the JIT keeps RBP as a frame pointer on Linux x64), signal frames
 * through glibc's trampoline's own unwind rules.  Async-signal-safe: no
 * allocation, no lock, no call but to itself; every read of the stack is
 * of an aligned word inside [sp, stack_hi) of the thread, checked first, so
 * that a broken chain ends the walk instead of faulting.  Code is never
 * read. */
#ifndef CLRPROBE_UNWIND_STACK_WALK_H
#define CLRPROBE_UNWIND_STACK_WALK_H

#include <stddef.h>
#include <stdint.h>

#include "unwind/code_map.h"

/* The interrupted registers, by DWARF number (cfi.h): all of them known for
 * the interrupted frame; the walk needs RSP, RBP and the return address
 * (CFI_REG_RA: the interrupted RIP). */
typedef struct sw_regs {
    uintptr_t r[CFI_NREGS];
} sw_regs;

/* Why a walk ended (flags). */
#define SW_END_OF_STACK 0x1u      /* at the thread's first frame (a rule said so, or a zero return address) */
#define SW_UNKNOWN_PC 0x2u        /* at an address outside every known code range (the map may be old) */
#define SW_BROKEN 0x4u            /* a frame pointer or CFA outside the stack, or a rule we cannot follow */
#define SW_DEPTH 0x8u             /* max frames taken */
#define SW_HIJACKED 0x10u         /* a return address the runtime had replaced was met (SW_MARK_HIJACK) */
#define SW_OSR 0x20u              /* an SW_MARK_OSR pair is in the output */

/* In the output, the frame whose return address the runtime had replaced
 * with its hijack stub (a GC suspension under way): its caller is unknown. */
#define SW_MARK_HIJACK ((uintptr_t)1)

/* In the output, followed by an address: a frame the frame-pointer chain
 * may have passed over, to be kept only if the two frames before the mark
 * are of one method (its OSR code on top of its tier-0 frame: the address
 * is then the return into the method's caller, which the chain skips). */
#define SW_MARK_OSR ((uintptr_t)2)

/* Walks from regs, at most max frames into out, innermost first.  Each
 * entry is an address inside the frame's function: the interrupted pc for
 * the first frame and after a signal frame, a return address minus one
 * otherwise (so that it falls in the calling function's code, not after
 * it), or a mark (SW_MARK_*).  An address outside every known range (new
 * JIT code the map does not have yet) is kept and walked as managed code.
 * stack_hi is the end of the thread's stack (reads stay below it).  Returns
 * the number of entries; *flags gets SW_* bits. */
size_t sw_walk(const code_map *map, const sw_regs *regs, uintptr_t stack_hi, uintptr_t *out, size_t max,
               unsigned *flags);

/* The same walk over a copy of a stack's top, made elsewhere (the stack
 * engine: the kernel copied it when the period ended): bytes of it from
 * regs' RSP up, at copy; of the registers only RSP, RBP and the pc
 * (CFI_REG_RA) are known.  The walk ends where it would read past the
 * copy (SW_BROKEN).  Not for a signal handler: it sets a thread-local. */
size_t sw_walk_copy(const code_map *map, const sw_regs *regs, const uint64_t *copy, size_t bytes, uintptr_t *out,
                    size_t max, unsigned *flags);

#endif
