/* il_rewrite.h - the IL rewriter of method tracing after an attach (ReJIT,
 * docs/tracing.md): a method body in the ECMA-335 format (II.25.4: tiny or
 * fat header, code, exception-handling sections) is decoded into
 * instructions, probes are added, and a new body is encoded.  Pure: no
 * runtime call, no allocation but the body's own.
 *
 * The probes call native functions through an unmanaged `calli` (a
 * StandAloneSig token for `void (int64)`, il_sig.h, that the caller makes with
 * GetTokenFromSig):
 *
 *       ldc.i8 ID  ldc.i8 ENTER  calli SIG                    at the start
 *     .try {
 *       original code, every `ret` becoming:
 *           [stloc RET]  ldc.i8 ID  ldc.i8 LEAVE  calli SIG  leave EPILOG
 *     } fault {
 *       ldc.i8 ID  ldc.i8 THROWN  calli SIG  endfinally       left by an exception
 *     }
 *     EPILOG: [ldloc RET]  ret
 *
 * Branches that targeted a `ret` target its replacement's first
 * instruction; the original EH clauses keep their instructions (and come
 * first: the new fault clause encloses them all); every branch is written
 * in its long form, so nothing needs widening twice; the header becomes fat
 * (max stack + 2, the InitLocals flag kept, the new local signature when
 * the method returns a value: RET is a local appended after the original
 * ones, whose signature the caller builds).  The normal exit's probe is in
 * the try body (an inlinable P/Invoke transition), the exceptional one in
 * the fault handler.
 *
 * Refused, with the reason: bodies that do not decode (an unknown opcode,
 * an operand or branch outside the code, an EH clause off instruction
 * boundaries), `tail.` calls (the call would no longer be followed by
 * `ret`), `jmp` (not allowed in a try), `localloc` in an original handler
 * stays legal and is kept. */
#ifndef CLRPROBE_AGENT_IL_REWRITE_H
#define CLRPROBE_AGENT_IL_REWRITE_H

#include <stddef.h>
#include <stdint.h>

typedef struct il_probes {
    uint64_t id;                  /* the probes' argument */
    uint64_t enter, leave, thrown; /* native addresses: void f(uint64_t id) */
    uint32_t calli_sig;           /* StandAloneSig token of the probes, il_sig_probe: unmanaged C `void (int64)` */
    int returns_value;            /* the method returns something: RET is used */
    uint32_t local_sig;           /* with returns_value: the new LocalVarSig token (original locals + RET) */
    uint16_t ret_local;           /* with returns_value: RET's index */
} il_probes;

/* A decoded body (il_decode), for the rewriter and the tests. */
typedef struct il_instr {
    uint32_t offset;              /* in the body's code */
    uint16_t opcode;              /* one byte, or 0xFE00 | second byte */
    uint8_t size;                 /* opcode + operand bytes (switch: the count only) */
    int64_t operand;              /* immediate, token or (branches) the target's instruction index */
    uint32_t *targets;            /* switch: target instruction indexes (count in operand) */
} il_instr;

typedef struct il_clause {
    uint32_t flags;               /* 0 catch, 1 filter, 2 finally, 4 fault */
    uint32_t try_start, try_end;  /* instruction indexes, end exclusive (== count: the code's end) */
    uint32_t handler_start, handler_end;
    uint32_t filter_start;        /* filter: instruction index; else unused */
    uint32_t class_token;         /* catch */
} il_clause;

typedef struct il_body {
    uint16_t flags;               /* header flags (fat: the low 12 bits; tiny: 0x2) */
    int fat;
    uint16_t max_stack;
    uint32_t code_size;
    uint32_t local_sig;
    il_instr *ins;
    size_t n;
    il_clause *eh;
    size_t neh;
} il_body;

/* Decodes body (len bytes: header, code, sections) into *b.  0, or -1
 * with the reason in why. */
int il_decode(const uint8_t *body, size_t len, il_body *b, char *why, size_t why_len);
void il_body_free(il_body *b);

/* The size in bytes of the whole body (header, code, sections) at body,
 * of at most len bytes; 0 if it does not decode. */
size_t il_body_size(const uint8_t *body, size_t len);

/* The new body with the probes, in a malloc'd buffer (*out, *out_len).  0,
 * or -1 with the reason in why (nothing allocated). */
int il_add_probes(const uint8_t *body, size_t len, const il_probes *p, uint8_t **out, size_t *out_len,
                  char *why, size_t why_len);

#endif
