/* test_kstack.c - the stack engine's records made into what the signal
 * handler's walk writes (src/agent/sampling/kstack.c): the kernel's chain
 * alone (return addresses less one; ended at the thread's first frame, cut,
 * or broken; code the map does not know), and the walk of the copied top
 * of the stack joined to the kernel's chain where the two meet. */
#include "unit.h"

#include <string.h>

#include "agent/sampling/kstack.h"
#include "unwind/stack_walk.h"

/* JIT code at [0x10000, 0x20000), a native library without tables at
 * [0x40000, 0x50000). */
static code_map *test_map(void)
{
    static cm_range r[2];
    static code_map m;

    memset(r, 0, sizeof(r));
    r[0] = (cm_range){ .start = 0x10000, .end = 0x20000, .kind = CM_ANON };
    r[1] = (cm_range){ .start = 0x40000, .end = 0x50000, .kind = CM_NATIVE };
    memset(&m, 0, sizeof(m));
    m.r = r;
    m.n = 2;
    return &m;
}

TEST(kstack_frames_of_the_kernels_chain_are_the_handlers)
{
    static cp_stack_record r;
    uintptr_t out[CP_STACK_FRAMES + 2];
    unsigned flags;
    size_t n;

    memset(&r, 0, sizeof(r));
    r.frames[0] = 0x10100;                       /* the pc: as it is */
    r.frames[1] = 0x10200;
    r.frames[2] = 0x40300;
    n = kstack_frames(test_map(), &r, 3, out, CP_STACK_FRAMES + 2, &flags);
    CHECK_EQ(3, n);
    CHECK_EQ(0x10100, out[0]);
    CHECK_EQ(0x101ff, out[1]);
    CHECK_EQ(0x402ff, out[2]);
    CHECK(flags & SW_END_OF_STACK);
    CHECK(!(flags & (SW_UNKNOWN_PC | SW_BROKEN)));
    /* ended in memory that holds no code: broken; an address no range has: unknown */
    r.frames[2] = 0x90000;
    n = kstack_frames(test_map(), &r, 3, out, CP_STACK_FRAMES + 2, &flags);
    CHECK_EQ(3, n);
    CHECK(flags & SW_BROKEN);
    CHECK(flags & SW_UNKNOWN_PC);
    CHECK(!(flags & SW_END_OF_STACK));
    /* as deep as the kernel walks: cut */
    for (int i = 0; i < CP_STACK_FRAMES; i++)
        r.frames[i] = 0x10100 + (uint64_t)i;
    n = kstack_frames(test_map(), &r, CP_STACK_FRAMES, out, CP_STACK_FRAMES + 2, &flags);
    CHECK_EQ(CP_STACK_FRAMES, n);
    CHECK(flags & SW_DEPTH);
}

TEST(kstack_frames_walk_the_copy_then_join_the_kernels_chain)
{
    static cp_stack_record r;
    uintptr_t out[CP_STACK_FRAMES + 2];
    unsigned flags;
    size_t n;
    uint64_t sp = 0x7ffd0000;

    /* The copy holds two frame-pointer links of JIT code: at sp + 0x40 the
     * link to sp + 0x80 and a return into 0x10601; at sp + 0x80 a link past
     * the copy and a return into 0x10701.  The kernel's chain has the same
     * frames but the first (a leaf that kept no frame, say), and two more. */
    memset(&r, 0, sizeof(r));
    r.sp = sp;
    r.bp = sp + 0x40;
    r.ip = 0x10100;
    r.at_sp[0x40 / 8] = sp + 0x80;
    r.at_sp[0x48 / 8] = 0x10601;
    r.at_sp[0x80 / 8] = sp + 0x4000;
    r.at_sp[0x88 / 8] = 0x10701;
    r.frames[0] = 0x10100;
    r.frames[1] = 0x10701;
    r.frames[2] = 0x10801;
    r.frames[3] = 0x10901;
    n = kstack_frames(test_map(), &r, 4, out, CP_STACK_FRAMES + 2, &flags);
    CHECK_EQ(5, n);
    CHECK_EQ(0x10100, out[0]);
    CHECK_EQ(0x10600, out[1]);                   /* (the frame the kernel's chain passed over) */
    CHECK_EQ(0x10700, out[2]);
    CHECK_EQ(0x10800, out[3]);
    CHECK_EQ(0x10900, out[4]);
    CHECK(flags & SW_END_OF_STACK);
    CHECK(!(flags & SW_BROKEN));
    /* registers that are not where the kernel's chain began: its chain alone */
    r.ip = 0x10104;
    n = kstack_frames(test_map(), &r, 4, out, CP_STACK_FRAMES + 2, &flags);
    CHECK_EQ(4, n);
    CHECK_EQ(0x10700, out[1]);
    /* no frame shared: the longer of the two (the walk, cut where it left the copy) */
    r.ip = 0x10100;
    r.frames[1] = 0x10a01;
    n = kstack_frames(test_map(), &r, 2, out, CP_STACK_FRAMES + 2, &flags);
    CHECK_EQ(3, n);
    CHECK_EQ(0x10700, out[2]);
    CHECK(flags & SW_BROKEN);
}
