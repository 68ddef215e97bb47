/* tracer_trampolines.S - the method tracer's enter/leave/tailcall hooks for
 * x86-64 Linux: what SetEnterLeaveFunctionHooks3 installs and the JIT calls
 * straight from a traced method's prolog and epilog.  The JIT's contract
 * (src/coreclr/jit/targetamd64.h, UNIX_AMD64_ABI):
 *
 *   enter:    the client ID in r14 (the caller's SP in r15); every argument
 *             register must survive: rdi rsi rdx rcx r8 r9 and xmm0-xmm7
 *             (RBM_PROFILER_ENTER_TRASH leaves rax r10 r11 xmm8-15 to us);
 *   leave,
 *   tailcall: the client ID in rdi (the caller's SP in rsi); the return
 *             registers must survive: rax rdx xmm0 xmm1.
 *
 * r12-r15, rbx and rbp are callee-saved in the C ABI anyway.  The stack is
 * not known to be 16-byte aligned at the call (it is called from a prolog),
 * so each trampoline keeps a frame-pointer frame (the signal sampler's walk
 * and debuggers go through it), aligns rsp, saves what must survive and
 * calls the C function with the client ID in rdi.  SSE registers are saved
 * 16 bytes wide: the managed ABI passes and returns nothing in the upper
 * halves of the ymm registers. */

    .text

    .globl  tr_enter_trampoline
    .hidden tr_enter_trampoline
    .type   tr_enter_trampoline, @function
    .p2align 4
tr_enter_trampoline:
    .cfi_startproc
    pushq   %rbp
    .cfi_def_cfa_offset 16
    .cfi_offset %rbp, -16
    movq    %rsp, %rbp
    .cfi_def_cfa_register %rbp
    subq    $176, %rsp
    andq    $-16, %rsp
    movq    %rdi, 0(%rsp)
    movq    %rsi, 8(%rsp)
    movq    %rdx, 16(%rsp)
    movq    %rcx, 24(%rsp)
    movq    %r8, 32(%rsp)
    movq    %r9, 40(%rsp)
    movdqa  %xmm0, 48(%rsp)
    movdqa  %xmm1, 64(%rsp)
    movdqa  %xmm2, 80(%rsp)
    movdqa  %xmm3, 96(%rsp)
    movdqa  %xmm4, 112(%rsp)
    movdqa  %xmm5, 128(%rsp)
    movdqa  %xmm6, 144(%rsp)
    movdqa  %xmm7, 160(%rsp)
    movq    %r14, %rdi
    call    tr_hook_enter
    movq    0(%rsp), %rdi
    movq    8(%rsp), %rsi
    movq    16(%rsp), %rdx
    movq    24(%rsp), %rcx
    movq    32(%rsp), %r8
    movq    40(%rsp), %r9
    movdqa  48(%rsp), %xmm0
    movdqa  64(%rsp), %xmm1
    movdqa  80(%rsp), %xmm2
    movdqa  96(%rsp), %xmm3
    movdqa  112(%rsp), %xmm4
    movdqa  128(%rsp), %xmm5
    movdqa  144(%rsp), %xmm6
    movdqa  160(%rsp), %xmm7
    movq    %rbp, %rsp
    popq    %rbp
    .cfi_def_cfa %rsp, 8
    ret
    .cfi_endproc
    .size   tr_enter_trampoline, .-tr_enter_trampoline

/* leave and tailcall: the same, with the return registers */
    .macro LEAVE_TRAMPOLINE name
    .globl  \name
    .hidden \name
    .type   \name, @function
    .p2align 4
\name:
    .cfi_startproc
    pushq   %rbp
    .cfi_def_cfa_offset 16
    .cfi_offset %rbp, -16
    movq    %rsp, %rbp
    .cfi_def_cfa_register %rbp
    subq    $48, %rsp
    andq    $-16, %rsp
    movq    %rax, 0(%rsp)
    movq    %rdx, 8(%rsp)
    movdqa  %xmm0, 16(%rsp)
    movdqa  %xmm1, 32(%rsp)
    call    tr_hook_leave
    movq    0(%rsp), %rax
    movq    8(%rsp), %rdx
    movdqa  16(%rsp), %xmm0
    movdqa  32(%rsp), %xmm1
    movq    %rbp, %rsp
    popq    %rbp
    .cfi_def_cfa %rsp, 8
    ret
    .cfi_endproc
    .size   \name, .-\name
    .endm

    LEAVE_TRAMPOLINE tr_leave_trampoline
    LEAVE_TRAMPOLINE tr_tailcall_trampoline

    .section .note.GNU-stack,"",@progbits
