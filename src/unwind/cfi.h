/* cfi.h - an ELF object's DWARF call frame information (.eh_frame) turned
 * into a compact table the signal handler can search: for each address
 * range of the object's code, how to find the frame's caller (the CFA: a
 * register plus an offset, or a word read from the stack plus an offset;
 * where the return address and the caller's RBP were saved).  Only what an
 * x86-64 walk of RSP, RBP and RIP needs is kept.  Built on a normal thread
 * (it allocates), read-only afterwards, so a signal handler may search it
 * without a lock. */
#ifndef CLRPROBE_UNWIND_CFI_H
#define CLRPROBE_UNWIND_CFI_H

#include <stddef.h>
#include <stdint.h>

#include "unwind/elf_image.h"

/* DWARF register numbers (x86-64 psABI). */
#define CFI_REG_RBP 6
#define CFI_REG_RSP 7
#define CFI_REG_RA 16
#define CFI_NREGS 17

/* Where a register (RBP, the return address) of the caller is. */
enum cfi_where {
    CFI_SAME = 0,       /* unchanged: the callee never touched it */
    CFI_AT_CFA,         /* saved at CFA + off */
    CFI_AT_REG,         /* saved at (DWARF register base, in this frame) + off (a DW_CFA_expression) */
    CFI_UNDEFINED,      /* none: for the return address, the outermost frame (thread start) */
    CFI_UNKNOWN,        /* a rule we do not follow */
};

/* How to find the CFA (the stack pointer before the call). */
enum cfi_cfa {
    CFI_CFA_NONE = 0,   /* no unwind information here */
    CFI_CFA_REG,        /* register base + off */
    CFI_CFA_DEREF,      /* the word at (register base + off), + add */
};

typedef struct cfi_rule {
    uint8_t cfa;        /* enum cfi_cfa */
    uint8_t cfa_reg;    /* DWARF register */
    uint8_t ra_where, rbp_where;     /* enum cfi_where */
    uint8_t ra_reg, rbp_reg;         /* CFI_AT_REG: the base register */
    uint8_t signal;     /* a signal frame (CIE augmentation 'S'): the caller's pc is exact */
    int32_t cfa_off, cfa_add;
    int32_t ra_off, rbp_off;
} cfi_rule;

/* The rows: from pc[i] (the object's own address, below 4 GiB) to the next
 * row, rules[rule[i] & CFI_RULE_MASK] applies; CFI_FDE_START marks a row
 * where a function (an FDE) begins.  Rule 0 is "no information" (the gaps
 * between functions). */
#define CFI_FDE_START 0x8000u
#define CFI_RULE_MASK 0x7fffu

#define CFI_INDEX_STRIDE 64      /* rows per entry of the table's index */

typedef struct cfi_table {
    uint32_t *pc;
    uint16_t *rule;
    size_t n;
    uint32_t *index;             /* pc[k * CFI_INDEX_STRIDE]: searched first, small enough to stay cached */
    size_t nindex;
    cfi_rule *rules;
    size_t nrules;
    size_t fdes;        /* functions described */
} cfi_table;

/* Builds the table of an image's .eh_frame (empty if it has none).  0, or
 * -1 (out of memory).  Damaged entries are skipped. */
int cfi_table_build(const elf_image *img, cfi_table *out);

/* The same from the bytes of an .eh_frame section loaded at address
 * vaddr (for tests). */
int cfi_table_build_from(const uint8_t *eh_frame, size_t size, uint64_t vaddr, cfi_table *out);

void cfi_table_free(cfi_table *t);

/* The rule for the object's address pc, or NULL when no row covers it.  When
 * fde_start is not NULL, it gets the start of the function (FDE) that holds
 * pc.  Searches memory the table owns only: no allocation, no lock (safe in
 * a signal handler). */
const cfi_rule *cfi_find(const cfi_table *t, uint64_t pc, uint64_t *fde_start);

/* The memory the table holds, in bytes. */
size_t cfi_table_bytes(const cfi_table *t);

#endif
