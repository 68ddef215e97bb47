/* clock_prog.c - the per-CPU clock's BPF programs (clock_prog.h). */
#include "cpuclock/clock_prog.h"
#include "common/cpu_clock_page.h"

#include <string.h>

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

size_t clock_prog_sampler(const clock_target *t, struct bpf_insn *p)
{
    size_t n, jumps[3];

    memset(p, 0, CLOCK_PROG_MAX * sizeof(*p));
    n = current_ids(t, p, &jumps[0]);
    p[n++] = INSN(BPF_ALU64 | BPF_RSH | BPF_K, BPF_REG_0, 0, 0, 32);
    jumps[1] = n;
    p[n++] = INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0, 0, (int32_t)t->tgid);
    n += ld_page(p + n, BPF_REG_1, t->map_fd);
    p[n++] = INSN(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_2, BPF_REG_1, CP_CLOCK_PAGE_GATE_OFF, 0);
    jumps[2] = n;
    p[n++] = INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_2, 0, 0, 0);
    p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 1);
    p[n++] = INSN(BPF_STX | BPF_XADD | BPF_DW, BPF_REG_1, BPF_REG_2, CP_CLOCK_PAGE_SENT_OFF, 0);
    p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, t->signal);
    p[n++] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_send_signal_thread);
    jump_to(p, jumps, 3, n);
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
