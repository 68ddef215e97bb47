/* test_clock_prog.c - the per-CPU clock's BPF programs (src/cpuclock/
 * clock_prog.c) run on a small interpreter of the instructions they use,
 * with the kernel's helpers played by the test: the sampler signals the
 * running thread only when it is the target's and the gate is open, and
 * counts what it sent; the guard closes the gate only for the target's main
 * thread; both by the first pid namespace's numbers and by a namespace's;
 * the stacker writes the target's running thread's stack into the ring
 * with its registers and the stack's top when it was in user code, or
 * counts it lost when the ring is full, and signals it when it was in the
 * kernel. */
#include "unit.h"

#include <signal.h>
#include <string.h>

#include "common/cpu_clock_page.h"
#include "cpuclock/clock_prog.h"

/* What the helpers see and do. */
typedef struct world {
    uint64_t pid_tgid;                  /* the running thread, as the first namespace numbers it */
    uint64_t ns_dev, ns_ino;            /* its namespace, */
    uint64_t ns_pid_tgid;               /* and its numbers there */
    cp_clock_page page;
    int sent, signal;
    int helpers_called;
    /* the stacker's: the interrupted registers (struct pt_regs), the user
     * stack the kernel's walk finds, the user memory at bp, the ring */
    uint64_t regs[21];
    uint64_t stack[8];
    size_t nstack;
    uint64_t user_at, user_words[CP_STACK_AT_SP];
    uint64_t now;
    cp_stack_record rec;
    int ring_full, reserved, submitted;
} world;

#define REG_BP 4          /* pt_regs' words: bp, ip, cs, sp */
#define REG_IP 16
#define REG_CS 17
#define REG_SP 19

/* Runs prog (n instructions) against w; returns r0, or -1 on an instruction
 * the interpreter does not know (a test failure). */
static int64_t run(const struct bpf_insn *prog, size_t n, world *w)
{
    uint64_t r[11] = { 0 };
    unsigned char stack[512];
    size_t pc = 0;

    memset(stack, 0, sizeof(stack));
    r[10] = (uint64_t)(uintptr_t)(stack + sizeof(stack));
    r[1] = (uint64_t)(uintptr_t)w->regs;                /* the context */
    while (pc < n) {
        const struct bpf_insn *in = &prog[pc];
        uint8_t cls = BPF_CLASS(in->code);
        uint64_t src = BPF_SRC(in->code) == BPF_X ? r[in->src_reg] : (uint64_t)(int64_t)in->imm;
        if (in->code == (BPF_LD | BPF_DW | BPF_IMM)) {
            if (pc + 1 >= n)
                return -1;
            if (in->src_reg == BPF_PSEUDO_MAP_VALUE)
                r[in->dst_reg] = (uint64_t)(uintptr_t)&w->page;
            else if (in->src_reg == BPF_PSEUDO_MAP_FD)
                r[in->dst_reg] = (uint64_t)(int64_t)in->imm;     /* (the ring: its descriptor) */
            else
                r[in->dst_reg] = (uint32_t)in->imm | (uint64_t)(uint32_t)prog[pc + 1].imm << 32;
            pc += 2;
            continue;
        }
        switch (cls) {
        case BPF_ALU64:
            switch (BPF_OP(in->code)) {
            case BPF_MOV: r[in->dst_reg] = src; break;
            case BPF_ADD: r[in->dst_reg] += src; break;
            case BPF_RSH: r[in->dst_reg] >>= src; break;
            case BPF_AND: r[in->dst_reg] &= src; break;
            default: return -1;
            }
            break;
        case BPF_LDX:
            if (BPF_SIZE(in->code) == BPF_W)
                r[in->dst_reg] = *(uint32_t *)(uintptr_t)(r[in->src_reg] + (int64_t)in->off);
            else if (BPF_SIZE(in->code) == BPF_DW)
                r[in->dst_reg] = *(uint64_t *)(uintptr_t)(r[in->src_reg] + (int64_t)in->off);
            else
                return -1;
            break;
        case BPF_ST:
            if (BPF_SIZE(in->code) != BPF_W)
                return -1;
            *(uint32_t *)(uintptr_t)(r[in->dst_reg] + (int64_t)in->off) = (uint32_t)in->imm;
            break;
        case BPF_STX:
            if (BPF_SIZE(in->code) != BPF_DW)
                return -1;
            if (BPF_MODE(in->code) == BPF_XADD)
                *(uint64_t *)(uintptr_t)(r[in->dst_reg] + (int64_t)in->off) += r[in->src_reg];
            else if (BPF_MODE(in->code) == BPF_MEM)
                *(uint64_t *)(uintptr_t)(r[in->dst_reg] + (int64_t)in->off) = r[in->src_reg];
            else
                return -1;
            break;
        case BPF_JMP:
            if (BPF_OP(in->code) == BPF_EXIT)
                return (int64_t)r[0];
            if (BPF_OP(in->code) == BPF_CALL) {
                w->helpers_called++;
                if (in->imm == BPF_FUNC_get_current_pid_tgid) {
                    r[0] = w->pid_tgid;
                } else if (in->imm == BPF_FUNC_get_ns_current_pid_tgid) {
                    int ok = r[1] == w->ns_dev && r[2] == w->ns_ino && r[4] == 8;
                    *(uint64_t *)(uintptr_t)r[3] = ok ? w->ns_pid_tgid : 0;
                    r[0] = ok ? 0 : (uint64_t)-2;
                } else if (in->imm == BPF_FUNC_send_signal_thread) {
                    w->sent++;
                    w->signal = (int)r[1];
                    r[0] = 0;
                } else if (in->imm == BPF_FUNC_ringbuf_reserve) {
                    if (r[1] != 9 || r[2] != sizeof(cp_stack_record) || r[3] != 0)
                        return -1;
                    r[0] = w->ring_full ? 0 : (uint64_t)(uintptr_t)&w->rec;
                    w->reserved += !w->ring_full;
                } else if (in->imm == BPF_FUNC_ringbuf_submit) {
                    if (r[1] != (uint64_t)(uintptr_t)&w->rec)
                        return -1;
                    w->submitted++;
                    r[0] = 0;
                } else if (in->imm == BPF_FUNC_ktime_get_ns) {
                    r[0] = w->now;
                } else if (in->imm == BPF_FUNC_get_stack) {
                    if (r[1] != (uint64_t)(uintptr_t)w->regs || r[4] != BPF_F_USER_STACK ||
                        r[2] != (uint64_t)(uintptr_t)w->rec.frames || r[3] != sizeof(w->rec.frames))
                        return -1;
                    memcpy(w->rec.frames, w->stack, w->nstack * sizeof(uint64_t));
                    r[0] = w->nstack * sizeof(uint64_t);
                } else if (in->imm == BPF_FUNC_probe_read_user) {
                    int ok = r[3] && r[3] == w->user_at && r[2] == sizeof(w->user_words);
                    if (r[1] != (uint64_t)(uintptr_t)w->rec.at_sp)
                        return -1;
                    if (ok)
                        memcpy(w->rec.at_sp, w->user_words, sizeof(w->user_words));
                    else
                        memset(w->rec.at_sp, 0, r[2] <= sizeof(w->rec.at_sp) ? r[2] : 0);
                    r[0] = ok ? 0 : (uint64_t)-14;
                } else {
                    return -1;
                }
                for (int i = 1; i <= 5; i++)
                    r[i] = 0xdeadbeef;               /* (the caller-saved registers are lost) */
                break;
            }
            {
                int taken;
                switch (BPF_OP(in->code)) {
                case BPF_JA: taken = 1; break;
                case BPF_JEQ: taken = r[in->dst_reg] == src; break;
                case BPF_JNE: taken = r[in->dst_reg] != src; break;
                default: return -1;
                }
                if (taken)
                    pc += (size_t)(int64_t)in->off;
            }
            break;
        default:
            return -1;
        }
        pc++;
    }
    return -1;                                       /* ran off the end */
}

static clock_target target(int ns)
{
    clock_target t = { .tgid = 4242, .ns = ns, .ns_dev = 4, .ns_ino = 4026532000u, .map_fd = 7, .ring_fd = 9,
                       .signal = SIGPROF };
    return t;
}

TEST(clock_prog_sampler_signals_the_target_only_with_the_gate_open)
{
    for (int ns = 0; ns <= 1; ns++) {
        clock_target t = target(ns);
        struct bpf_insn prog[CLOCK_PROG_MAX];
        size_t n = clock_prog_sampler(&t, prog);
        world w;

        CHECK(n > 0 && n <= CLOCK_PROG_MAX);
        /* the target's thread 4250, the gate closed: nothing */
        memset(&w, 0, sizeof(w));
        w.pid_tgid = 4242ull << 32 | 4250;
        w.ns_dev = t.ns_dev;
        w.ns_ino = t.ns_ino;
        w.ns_pid_tgid = w.pid_tgid;
        CHECK_EQ(0, run(prog, n, &w));
        CHECK_EQ(0, w.sent);
        /* the gate open: SIGPROF to it, counted */
        w.page.gate = 1;
        CHECK_EQ(0, run(prog, n, &w));
        CHECK_EQ(1, w.sent);
        CHECK_EQ(SIGPROF, w.signal);
        CHECK_EQ(1, w.page.sent);
        /* another process's thread: nothing */
        w.pid_tgid = w.ns_pid_tgid = 4243ull << 32 | 4242;
        CHECK_EQ(0, run(prog, n, &w));
        CHECK_EQ(1, w.sent);
        /* a thread whose low half (its tid) is the target's pid: not it either */
        w.pid_tgid = w.ns_pid_tgid = 1ull << 32 | 4242;
        CHECK_EQ(0, run(prog, n, &w));
        CHECK_EQ(1, w.sent);
        if (ns) {
            /* a thread of another namespace, numbered 4242 there: the helper refuses it */
            w.pid_tgid = 4242ull << 32 | 4242;
            w.ns_dev = 5;
            w.ns_pid_tgid = 0;
            CHECK_EQ(0, run(prog, n, &w));
            CHECK_EQ(1, w.sent);
        }
    }
}

TEST(clock_prog_guard_closes_the_gate_for_the_main_thread_only)
{
    for (int ns = 0; ns <= 1; ns++) {
        clock_target t = target(ns);
        struct bpf_insn prog[CLOCK_PROG_MAX];
        size_t n = clock_prog_guard(&t, prog);
        world w;

        CHECK(n > 0 && n <= CLOCK_PROG_MAX);
        memset(&w, 0, sizeof(w));
        w.ns_dev = t.ns_dev;
        w.ns_ino = t.ns_ino;
        w.page.gate = 1;
        /* another thread of the target ends: the gate stays */
        w.pid_tgid = w.ns_pid_tgid = 4242ull << 32 | 4250;
        CHECK_EQ(0, run(prog, n, &w));
        CHECK_EQ(1, w.page.gate);
        /* another process's main thread: stays */
        w.pid_tgid = w.ns_pid_tgid = 4243ull << 32 | 4243;
        CHECK_EQ(0, run(prog, n, &w));
        CHECK_EQ(1, w.page.gate);
        /* the target's main thread (exits, or execs): closed */
        w.pid_tgid = w.ns_pid_tgid = 4242ull << 32 | 4242;
        CHECK_EQ(0, run(prog, n, &w));
        CHECK_EQ(0, w.page.gate);
        CHECK_EQ(0, w.sent);
    }
}

TEST(clock_prog_stacker_writes_the_target_threads_stack_or_counts_it_lost)
{
    clock_target t = target(1);                  /* (the stacker always numbers by the target's namespace) */
    struct bpf_insn prog[CLOCK_PROG_MAX];
    size_t n = clock_prog_stacker(&t, prog);
    world w;

    CHECK(n > 0 && n <= CLOCK_PROG_MAX);
    memset(&w, 0, sizeof(w));
    w.ns_dev = t.ns_dev;
    w.ns_ino = t.ns_ino;
    w.pid_tgid = 99ull << 32 | 120;              /* (the first namespace's numbers: not the record's) */
    w.ns_pid_tgid = 4242ull << 32 | 4250;
    w.now = 123456789;
    w.stack[0] = 0x401000;
    w.stack[1] = 0x402010;
    w.stack[2] = 0x403020;
    w.nstack = 3;
    w.regs[REG_CS] = 0x33;                       /* user code */
    w.regs[REG_BP] = 0x7ffd0000;
    w.regs[REG_SP] = 0x7ffcff00;
    w.regs[REG_IP] = 0x401000;
    w.user_at = 0x7ffcff00;
    for (int i = 0; i < CP_STACK_AT_SP; i++)
        w.user_words[i] = 1000 + (uint64_t)i;
    /* the gate closed: nothing, not even a reservation */
    CHECK_EQ(0, run(prog, n, &w));
    CHECK_EQ(0, w.reserved);
    /* open: one record, every field */
    w.page.gate = 1;
    CHECK_EQ(0, run(prog, n, &w));
    CHECK_EQ(1, w.submitted);
    CHECK_EQ(0, w.sent);
    CHECK_EQ(4242ull << 32 | 4250, w.rec.ids);
    CHECK_EQ(123456789, w.rec.t);
    CHECK_EQ(24, w.rec.bytes);
    CHECK_EQ(0x402010, w.rec.frames[1]);
    CHECK_EQ(0x7ffd0000, w.rec.bp);
    CHECK_EQ(0x7ffcff00, w.rec.sp);
    CHECK_EQ(0x401000, w.rec.ip);
    CHECK_EQ(1000, w.rec.at_sp[0]);
    CHECK_EQ(1000 + CP_STACK_AT_SP - 1, w.rec.at_sp[CP_STACK_AT_SP - 1]);
    CHECK_EQ(1, w.page.sent);
    CHECK_EQ(0, w.page.lost);
    /* in the kernel (a system call): no record, the signal instead */
    w.regs[REG_CS] = 0x10;
    CHECK_EQ(0, run(prog, n, &w));
    CHECK_EQ(1, w.submitted);
    CHECK_EQ(1, w.reserved);
    CHECK_EQ(1, w.sent);
    CHECK_EQ(SIGPROF, w.signal);
    CHECK_EQ(2, w.page.sent);
    /* the ring full: counted lost */
    w.regs[REG_CS] = 0x33;
    w.ring_full = 1;
    CHECK_EQ(0, run(prog, n, &w));
    CHECK_EQ(1, w.submitted);
    CHECK_EQ(2, w.page.sent);
    CHECK_EQ(1, w.page.lost);
    /* another process's thread: nothing */
    w.ring_full = 0;
    w.ns_pid_tgid = 4243ull << 32 | 4250;
    CHECK_EQ(0, run(prog, n, &w));
    CHECK_EQ(1, w.submitted);
    CHECK_EQ(1, w.sent);
    CHECK_EQ(1, w.page.lost);
}
