/* clock_prog.c - the per-CPU clock's BPF programs (clock_prog.h). */
#include "cpuclock/clock_prog.h"
#include "common/cpu_clock_page.h"

#include <string.h>

/* The interrupted registers in the perf event program's context (struct
 * bpf_perf_event_data begins with x86-64's struct pt_regs). */
#define CTX_BP_OFF 32
#define CTX_IP_OFF 128
#define CTX_CS_OFF 136
#define CTX_SP_OFF 152


#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })

/* A 64-bit constant into reg: two instructions. */
static size_t ld_imm64(struct bpf_insn *p, int reg, uint64_t v)
{
    p[0] = INSN(BPF_LD | BPF_DW | BPF_IMM, reg, 0, 0, (int32_t)(uint32_t)v);
    p[1] = INSN(0, 0, 0, 0, (int32_t)(uint32_t)(v >> 32));
    return 2;
}

/* The address of the map's value (its only entry) into reg: two instructions. */
static size_t ld_page(struct bpf_insn *p, int reg, int map_fd)
{
    p[0] = INSN(BPF_LD | BPF_DW | BPF_IMM, reg, BPF_PSEUDO_MAP_VALUE, 0, map_fd);
    p[1] = INSN(0, 0, 0, 0, 0);
    return 2;
}

/* The current thread's "tgid << 32 | pid" into r0, as t numbers them;
 * with a namespace, a failed call jumps to the program's exit (its
 * offset is patched by the caller: *fail_at is the jump's index). */
static size_t current_ids(const clock_target *t, struct bpf_insn *p, size_t *fail_at)
{
    size_t n = 0;

    *fail_at = 0;
    if (!t->ns) {
        p[n++] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_pid_tgid);
        return n;
    }
    /* struct bpf_pidns_info { u32 pid; u32 tgid; } at fp-8: read as one u64 */
    n += ld_imm64(p + n, BPF_REG_1, t->ns_dev);
    n += ld_imm64(p + n, BPF_REG_2, t->ns_ino);
    p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_3, BPF_REG_10, 0, 0);
    p[n++] = INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_3, 0, 0, -8);
    p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_4, 0, 0, 8);
    p[n++] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_ns_current_pid_tgid);
    *fail_at = n;
    p[n++] = INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0, 0, 0);
    p[n++] = INSN(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_0, BPF_REG_10, -8, 0);
    return n;
}

/* "r0 = 0; exit" at p: two instructions. */
static size_t leave(struct bpf_insn *p)
{
    p[0] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
    p[1] = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
    return 2;
}

/* Points the jumps at the indexes in jumps (0: none) to the exit at out. */
static void jump_to(struct bpf_insn *p, const size_t *jumps, size_t count, size_t out)
{
    for (size_t i = 0; i < count; i++)
        if (jumps[i])
            p[jumps[i]].off = (int16_t)(out - jumps[i] - 1);
}

/* From p[n] on: the running thread's "tgid << 32 | pid" (in r7 too with
 * keep), and on to the exit unless it is the target's and the gate is
 * open; r1 is then the page.  The jumps to the exit (their indexes, 0 for
 * none) go into exits[0..2].  Returns the new count. */
static size_t ours_and_open(const clock_target *t, struct bpf_insn *p, size_t n, int keep, size_t *exits)
{
    size_t fail, at = n;

    n += current_ids(t, p + n, &fail);
    exits[0] = fail ? at + fail : 0;
    if (keep)
        p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_7, BPF_REG_0, 0, 0);
    p[n++] = INSN(BPF_ALU64 | BPF_RSH | BPF_K, BPF_REG_0, 0, 0, 32);
    exits[1] = n;
    p[n++] = INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0, 0, (int32_t)t->tgid);
    n += ld_page(p + n, BPF_REG_1, t->map_fd);
    p[n++] = INSN(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_2, BPF_REG_1, CP_CLOCK_PAGE_GATE_OFF, 0);
    exits[2] = n;
    p[n++] = INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_2, 0, 0, 0);
    return n;
}

/* At p, with r1 the page: one more signal counted, and the thread sent
 * t's signal.  Four instructions. */
static size_t signal_thread(const clock_target *t, struct bpf_insn *p)
{
    p[0] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 1);
    p[1] = INSN(BPF_STX | BPF_XADD | BPF_DW, BPF_REG_1, BPF_REG_2, CP_CLOCK_PAGE_SENT_OFF, 0);
    p[2] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, t->signal);
    p[3] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_send_signal_thread);
    return 4;
}

size_t clock_prog_sampler(const clock_target *t, struct bpf_insn *p)
{
    size_t n, jumps[3];

    memset(p, 0, CLOCK_PROG_MAX * sizeof(*p));
    n = ours_and_open(t, p, 0, 0, jumps);
    n += signal_thread(t, p + n);
    jump_to(p, jumps, 3, n);
    n += leave(p + n);
    return n;
}

size_t clock_prog_stacker(const clock_target *t, struct bpf_insn *p)
{
    size_t n = 0, jumps[5], lost, signalled;

    memset(p, 0, CLOCK_PROG_MAX * sizeof(*p));
    p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_6, BPF_REG_1, 0, 0);      /* r6: the context */
    n = ours_and_open(t, p, n, 1, jumps);                                       /* r7: the ids */
    /* in the kernel (a system call: its user registers are not the
     * interrupted ones, and the libc wrapper's frame pointer is no link):
     * the signal, as the sampler sends it; the handler walks at its return */
    p[n++] = INSN(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_2, BPF_REG_6, CTX_CS_OFF, 0);
    p[n++] = INSN(BPF_ALU64 | BPF_AND | BPF_K, BPF_REG_2, 0, 0, 3);
    p[n++] = INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_2, 0, 5, 3);              /* user code: -> the stack */
    n += signal_thread(t, p + n);
    signalled = n;
    p[n++] = INSN(BPF_JMP | BPF_JA, 0, 0, 0, 0);                               /* -> exit */
    /* r8 = bpf_ringbuf_reserve(ring, sizeof(cp_stack_record), 0) */
    p[n++] = INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, t->ring_fd);
    p[n++] = INSN(0, 0, 0, 0, 0);
    p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, (int32_t)sizeof(cp_stack_record));
    p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, 0);
    p[n++] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ringbuf_reserve);
    lost = n;
    p[n++] = INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 0, 0);
    p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_8, BPF_REG_0, 0, 0);
    p[n++] = INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_8, BPF_REG_7, 0, 0);      /* ids */
    p[n++] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ktime_get_ns);
    p[n++] = INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_8, BPF_REG_0, 8, 0);      /* t */
    /* bytes = bpf_get_stack(ctx, frames, CP_STACK_FRAMES * 8, BPF_F_USER_STACK) */
    p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_6, 0, 0);
    p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_8, 0, 0);
    p[n++] = INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, CP_STACK_RECORD_FRAMES_OFF);
    p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, CP_STACK_FRAMES * 8);
    p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_4, 0, 0, BPF_F_USER_STACK);
    p[n++] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_stack);
    p[n++] = INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_8, BPF_REG_0, 16, 0);     /* bytes */
    /* the user registers (the period ended in user code: the kernel part signals, above) */
    p[n++] = INSN(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_2, BPF_REG_6, CTX_BP_OFF, 0);
    p[n++] = INSN(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_3, BPF_REG_6, CTX_SP_OFF, 0);
    p[n++] = INSN(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_4, BPF_REG_6, CTX_IP_OFF, 0);
    /* store: */
    p[n++] = INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_8, BPF_REG_2, 24, 0);     /* bp */
    p[n++] = INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_8, BPF_REG_3, 32, 0);     /* sp */
    p[n++] = INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_8, BPF_REG_4, 40, 0);     /* ip */
    /* at_sp: bpf_probe_read_user(at_sp, its size, sp) (sp 0: fails, zeros) */
    p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_8, 0, 0);
    p[n++] = INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_1, 0, 0, CP_STACK_RECORD_AT_SP_OFF);
    p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, CP_STACK_AT_SP * 8);
    p[n++] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_probe_read_user);
    n += ld_page(p + n, BPF_REG_1, t->map_fd);
    p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 1);
    p[n++] = INSN(BPF_STX | BPF_XADD | BPF_DW, BPF_REG_1, BPF_REG_2, CP_CLOCK_PAGE_SENT_OFF, 0);
    p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_8, 0, 0);
    p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 0);
    p[n++] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ringbuf_submit);
    jumps[3] = n;
    p[n++] = INSN(BPF_JMP | BPF_JA, 0, 0, 0, 0);
    jumps[4] = signalled;
    /* no room: counted */
    p[lost].off = (int16_t)(n - lost - 1);
    n += ld_page(p + n, BPF_REG_1, t->map_fd);
    p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 1);
    p[n++] = INSN(BPF_STX | BPF_XADD | BPF_DW, BPF_REG_1, BPF_REG_2, CP_CLOCK_PAGE_LOST_OFF, 0);
    jump_to(p, jumps, 5, n);
    n += leave(p + n);
    return n;
}

size_t clock_prog_guard(const clock_target *t, struct bpf_insn *p)
{
    size_t n, jumps[2];

    memset(p, 0, CLOCK_PROG_MAX * sizeof(*p));
    n = current_ids(t, p, &jumps[0]);
    /* the main thread: pid == tgid (an exec makes the thread that execs it) */
    n += ld_imm64(p + n, BPF_REG_1, (uint64_t)t->tgid << 32 | t->tgid);
    jumps[1] = n;
    p[n++] = INSN(BPF_JMP | BPF_JNE | BPF_X, BPF_REG_0, BPF_REG_1, 0, 0);
    n += ld_page(p + n, BPF_REG_1, t->map_fd);
    p[n++] = INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_1, 0, CP_CLOCK_PAGE_GATE_OFF, 0);
    jump_to(p, jumps, 2, n);
    n += leave(p + n);
    return n;
}
