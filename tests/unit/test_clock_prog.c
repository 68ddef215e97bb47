/* test_clock_prog.c - the per-CPU clock's BPF programs (src/cpuclock/
 * clock_prog.c) run on a small interpreter of the instructions they use,
 * with the kernel's helpers played by the test: the sampler signals the
 * running thread only when it is the target's and the gate is open, and
 * counts what it sent; the guard closes the gate only for the target's main
 * thread; both by the first pid namespace's numbers and by a namespace's. */
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
} world;

/* Runs prog (n instructions) against w; returns r0, or -1 on an instruction
 * the interpreter does not know (a test failure). */
static int64_t run(const struct bpf_insn *prog, size_t n, world *w)
{
    uint64_t r[11] = { 0 };
    unsigned char stack[512];
    size_t pc = 0;

    memset(stack, 0, sizeof(stack));
    r[10] = (uint64_t)(uintptr_t)(stack + sizeof(stack));
    while (pc < n) {
        const struct bpf_insn *in = &prog[pc];
        uint8_t cls = BPF_CLASS(in->code);
        uint64_t src = BPF_SRC(in->code) == BPF_X ? r[in->src_reg] : (uint64_t)(int64_t)in->imm;
        if (in->code == (BPF_LD | BPF_DW | BPF_IMM)) {
            if (pc + 1 >= n)
                return -1;
            if (in->src_reg == BPF_PSEUDO_MAP_VALUE)
                r[in->dst_reg] = (uint64_t)(uintptr_t)&w->page;
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
            if (BPF_MODE(in->code) != BPF_XADD || BPF_SIZE(in->code) != BPF_DW)
                return -1;
            *(uint64_t *)(uintptr_t)(r[in->dst_reg] + (int64_t)in->off) += r[in->src_reg];
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
    clock_target t = { .tgid = 4242, .ns = ns, .ns_dev = 4, .ns_ino = 4026532000u, .map_fd = 7,
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
