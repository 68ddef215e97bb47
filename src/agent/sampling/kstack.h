/* kstack.h - the stack engine's records (common/cpu_clock_page.h: the
 * stacks the kernel's frame-pointer walk took at the per-CPU clock's
 * periods) made into what the signal handler's walk writes (stack_walk.h),
 * for the collector to name as it names the handler's: on the collector
 * thread, pure but for the code map it reads.
 *
 * The kernel's walk follows frame pointers only; the handler's walk
 * follows each library's unwind tables, and finds what an OSR frame hides
 * and the runtime's hijack stub.  So where the program could tell the
 * thread's user registers it copied the stack's top (4 KiB from sp): the
 * handler's walk runs over that copy (stack_walk.h's sw_walk_copy) and,
 * where it leaves the copy, goes on with the kernel's chain from the
 * deepest frame the two share.  Where it could not (the registers not
 * known, or no frame shared), the kernel's chain alone: return addresses
 * less one, the hijack stub as SW_MARK_HIJACK; a native leaf without a
 * frame pointer then hides its caller, and an OSR frame its method's. */
#ifndef CLRPROBE_AGENT_KSTACK_H
#define CLRPROBE_AGENT_KSTACK_H

#include <stddef.h>
#include <stdint.h>

#include "common/cpu_clock_page.h"
#include "unwind/code_map.h"

/* r's n frames (the pc, then return addresses) into out (max words), as
 * stack_walk.h's walk writes them, with its SW_* flags in *flags; m is
 * the code map (may be NULL).  Returns the words written. */
size_t kstack_frames(const code_map *m, const cp_stack_record *r, size_t n, uintptr_t *out, size_t max,
                     unsigned *flags);

#endif
