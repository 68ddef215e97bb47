/* test_sampler_frames.c - the frames a stack walk passes over (dynamic
 * methods), found on the frame-pointer chain between two reported frames
 * (agent/sampling/sampler.c, sampler_skipped_between), on hand-made stacks: one
 * skipped frame, none, several in a row, a callee without a frame of its
 * own, an OSR frame on top of its tier-0 frame, and frame pointers or stack
 * pointers that must not be followed. */
#include "unit.h"
#include "agent/sampling/sampler.h"

/* A stack of 64 words; word i is at stk + 8 * i, higher addresses are
 * outer frames (the stack grows down). */
#define AT(i) ((uintptr_t)&stk[(i)])

#define CALLER_IP 0x7f0000001234u    /* in the frame the walk reports next */
#define LAMBDA_IP 0x7f0000005678u    /* in a dynamic method it skipped */
#define STUB_IP   0x7f000000abcdu    /* in another one */
#define TIER0_IP  0x7f000000ef01u    /* the pseudo return address of an OSR frame */

TEST(sampler_skipped_frame_found)
{
    uintptr_t stk[64] = { 0 }, out[4];

    /* callee: sp = 0, fp = 4 -> [4] = skipped frame's fp (12), [5] = return into it;
     * skipped: fp = 12 -> [12] = caller's fp (40), [13] = return into the caller;
     * caller: sp = 14 */
    stk[4] = AT(12);
    stk[5] = LAMBDA_IP;
    stk[12] = AT(40);
    stk[13] = CALLER_IP;
    CHECK_EQ(sampler_skipped_between(AT(0), AT(4), AT(14), CALLER_IP, out, 4), 1);
    CHECK_EQ(out[0], LAMBDA_IP);
}

TEST(sampler_nothing_skipped)
{
    uintptr_t stk[64] = { 0 }, out[4];

    /* the callee's return address is the reported caller's ip */
    stk[4] = AT(40);
    stk[5] = CALLER_IP;
    CHECK_EQ(sampler_skipped_between(AT(0), AT(4), AT(6), CALLER_IP, out, 4), 0);
    /* a callee with no frame of its own: fp is its caller's, above the gap */
    CHECK_EQ(sampler_skipped_between(AT(0), AT(40), AT(6), CALLER_IP, out, 4), 0);
}

TEST(sampler_skipped_frames_in_a_row)
{
    uintptr_t stk[64] = { 0 }, out[4];

    stk[2] = AT(8);                  /* callee -> stub */
    stk[3] = STUB_IP;
    stk[8] = AT(16);                 /* stub -> lambda */
    stk[9] = LAMBDA_IP;
    stk[16] = AT(50);                /* lambda -> caller */
    stk[17] = CALLER_IP;
    CHECK_EQ(sampler_skipped_between(AT(0), AT(2), AT(18), CALLER_IP, out, 4), 2);
    CHECK_EQ(out[0], STUB_IP);
    CHECK_EQ(out[1], LAMBDA_IP);
    /* no more than asked for */
    CHECK_EQ(sampler_skipped_between(AT(0), AT(2), AT(18), CALLER_IP, out, 1), 1);
    CHECK_EQ(out[0], STUB_IP);
}

TEST(sampler_skipped_chain_is_not_followed_out_of_the_gap)
{
    uintptr_t stk[64] = { 0 }, out[4];

    /* a skipped frame whose saved fp points down (not a chain): stop after it */
    stk[4] = AT(2);
    stk[5] = LAMBDA_IP;
    stk[2] = AT(30);
    stk[3] = STUB_IP;
    CHECK_EQ(sampler_skipped_between(AT(0), AT(4), AT(20), CALLER_IP, out, 4), 1);
    CHECK_EQ(out[0], LAMBDA_IP);
    /* the next fp is past the caller's sp: not read */
    stk[4] = AT(30);
    CHECK_EQ(sampler_skipped_between(AT(0), AT(4), AT(20), CALLER_IP, out, 4), 1);
    /* fp below sp, misaligned, or its return address at or past caller_sp */
    CHECK_EQ(sampler_skipped_between(AT(4), AT(2), AT(20), CALLER_IP, out, 4), 0);
    CHECK_EQ(sampler_skipped_between(AT(0), AT(4) + 1, AT(20), CALLER_IP, out, 4), 0);
    CHECK_EQ(sampler_skipped_between(AT(0), AT(4), AT(5), CALLER_IP, out, 4), 0);
    /* a zero return address ends the chain */
    stk[5] = 0;
    CHECK_EQ(sampler_skipped_between(AT(0), AT(4), AT(20), CALLER_IP, out, 4), 0);
}

TEST(sampler_skipped_needs_two_frames_of_one_stack)
{
    uintptr_t stk[64] = { 0 }, out[4];

    stk[4] = AT(12);
    stk[5] = LAMBDA_IP;
    /* the caller's sp at or below the callee's, or more than 1 MiB above it */
    CHECK_EQ(sampler_skipped_between(AT(14), AT(4), AT(14), CALLER_IP, out, 4), 0);
    CHECK_EQ(sampler_skipped_between(AT(20), AT(4), AT(14), CALLER_IP, out, 4), 0);
    CHECK_EQ(sampler_skipped_between(AT(0), AT(4), AT(0) + (2u << 20), CALLER_IP, out, 4), 0);
}

TEST(sampler_osr_frame_hides_no_caller)
{
    uintptr_t stk[64] = { 0 }, out[4];

    /* OSR callee: sp = 0, fp = 4 -> [4] = the tier-0 frame's saved fp (the
     * lambda's, 20), [5] = pseudo return into the tier-0 code;
     * tier-0 frame: fp = 10 -> [10] = 20, [11] = return into the lambda;
     * lambda: fp = 20 -> [20] = caller's fp, [21] = return into the caller;
     * caller: sp = 22.  The chain 4 -> 20 passes over 10: both are found,
     * innermost first (the pseudo return resolves to the callee itself and
     * is dropped then, not being a dynamic method). */
    stk[4] = AT(20);
    stk[5] = TIER0_IP;
    stk[7] = AT(20);                 /* a stale pair below it (the patchpoint helper's) */
    stk[8] = STUB_IP;
    stk[9] = AT(19);                 /* a tier-0 local that is not the pair */
    stk[10] = AT(20);
    stk[11] = LAMBDA_IP;
    stk[20] = AT(50);
    stk[21] = CALLER_IP;
    CHECK_EQ(sampler_skipped_between(AT(0), AT(4), AT(22), CALLER_IP, out, 4), 2);
    CHECK_EQ(out[0], TIER0_IP);
    CHECK_EQ(out[1], LAMBDA_IP);
    /* room for one only: the innermost */
    CHECK_EQ(sampler_skipped_between(AT(0), AT(4), AT(22), CALLER_IP, out, 1), 1);
    CHECK_EQ(out[0], TIER0_IP);

    /* the tier-0 frame called by the reported caller itself: its return
     * address is caller_ip, nothing more is skipped */
    stk[10] = AT(30);
    stk[4] = AT(30);
    stk[11] = CALLER_IP;
    CHECK_EQ(sampler_skipped_between(AT(0), AT(4), AT(12), CALLER_IP, out, 4), 1);
    CHECK_EQ(out[0], TIER0_IP);
}
