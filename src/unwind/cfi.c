/* cfi.c - .eh_frame (DWARF call frame information) into a table of rows
 * (cfi.h).  Each FDE's CFA program (after its CIE's initial instructions)
 * is run, and a row is kept wherever the location advances: the state at
 * that point covers up to the next one.  Only the CFA and the rules of RBP
 * and the return address are followed; an expression is understood when
 * it is one of the forms compilers and hand-written assembly use for them
 * (a register plus an offset, optionally read and added to: OpenSSL's
 * ".cfi_cfa_expression %rsp+N,deref,+8"; glibc's signal trampoline's
 * "register saved at rsp+N"; the PLT's CFA, taken as rsp+8).  Anything
 * else makes that rule unknown, and the walker then stops or falls back to
 * the frame pointer. */
#include "unwind/cfi.h"

#include <stdlib.h>
#include <string.h>

/* ---- bounded reading ---- */

typedef struct rd {
    const uint8_t *p, *end;
    const uint8_t *sec;          /* the section's first byte, loaded at sec_vaddr */
    uint64_t sec_vaddr;
    int bad;
} rd;

static uint8_t u8(rd *r)
{
    if (r->p >= r->end) { r->bad = 1; return 0; }
    return *r->p++;
}

static uint64_t uN(rd *r, int n)
{
    uint64_t v = 0;
    if (r->end - r->p < n) { r->bad = 1; r->p = r->end; return 0; }
    for (int i = 0; i < n; i++)
        v |= (uint64_t)r->p[i] << (8 * i);
    r->p += n;
    return v;
}

static uint64_t uleb(rd *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        uint8_t b = u8(r);
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    r->bad = 1;
    return v;
}

static int64_t sleb(rd *r)
{
    int64_t v = 0;
    int shift = 0;
    uint8_t b;
    do {
        b = u8(r);
        if (shift < 64)
            v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
        shift += 7;
    } while ((b & 0x80) && !r->bad);
    if (shift < 64 && (b & 0x40))
        v |= -((int64_t)1 << shift);
    return v;
}

/* DW_EH_PE_* */
#define PE_OMIT 0xff
#define PE_ABSPTR 0x00
#define PE_ULEB 0x01
#define PE_UDATA2 0x02
#define PE_UDATA4 0x03
#define PE_UDATA8 0x04
#define PE_SLEB 0x09
#define PE_SDATA2 0x0a
#define PE_SDATA4 0x0b
#define PE_SDATA8 0x0c
#define PE_PCREL 0x10
#define PE_INDIRECT 0x80

/* A pointer in encoding enc; only the value's format when format_only
 * (an FDE's range).  Sets r->bad for what it cannot read. */
static uint64_t encoded(rd *r, uint8_t enc, int format_only)
{
    uint64_t field = r->sec_vaddr + (uint64_t)(r->p - r->sec), v;

    if (enc == PE_OMIT)
        return 0;
    switch (enc & 0x0f) {
    case PE_ABSPTR: case PE_UDATA8: case PE_SDATA8: v = uN(r, 8); break;
    case PE_ULEB: v = uleb(r); break;
    case PE_SLEB: v = (uint64_t)sleb(r); break;
    case PE_UDATA2: v = uN(r, 2); break;
    case PE_SDATA2: v = (uint64_t)(int64_t)(int16_t)uN(r, 2); break;
    case PE_UDATA4: v = uN(r, 4); break;
    case PE_SDATA4: v = (uint64_t)(int64_t)(int32_t)uN(r, 4); break;
    default: r->bad = 1; return 0;
    }
    if (format_only)
        return v;
    switch (enc & 0x70) {
    case 0: break;
    case PE_PCREL: v += field; break;
    default: r->bad = 1; return 0;        /* (textrel, datarel, funcrel: not used in .eh_frame here) */
    }
    if (enc & PE_INDIRECT)
        r->bad = 1;                       /* a pointer to the value: not for pc_begin */
    return v;
}

/* ---- the state of a CFA program ---- */

typedef struct state {
    uint8_t cfa, cfa_reg;
    int32_t cfa_off, cfa_add;
    uint8_t ra_where, ra_reg, rbp_where, rbp_reg;
    int32_t ra_off, rbp_off;
} state;

typedef struct cie {
    uint64_t code_align;
    int64_t data_align;
    unsigned ra_reg;
    uint8_t fde_enc;
    int has_z, signal;
    const uint8_t *insns, *end;
} cie;

/* The rows being built. */
typedef struct rows {
    uint64_t *pc;
    uint32_t *rule;              /* rule index | 1u << 31 for a function's first row, | 1u << 30 an end marker */
    size_t n, cap;
    cfi_rule *rules;
    size_t nrules, rcap;
    uint32_t *hash;              /* open addressing: rule index + 1, 0 empty */
    size_t hcap;
    size_t last;                 /* the index interned last */
    int oom;
} rows;

#define ROW_FDE (1u << 31)
#define ROW_END (1u << 30)

static uint64_t rule_hash(const cfi_rule *r)
{
    /* (the fields, mixed a word at a time: this runs for every row) */
    uint64_t h = (uint64_t)r->cfa | (uint64_t)r->cfa_reg << 8 | (uint64_t)r->ra_where << 16 |
                 (uint64_t)r->rbp_where << 24 | (uint64_t)r->ra_reg << 32 | (uint64_t)r->rbp_reg << 40 |
                 (uint64_t)r->signal << 48;
    h = (h ^ (uint64_t)(uint32_t)r->cfa_off * 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
    h = (h ^ ((uint64_t)(uint32_t)r->cfa_add << 32 | (uint32_t)r->ra_off)) * 0xc4ceb9fe1a85ec53ull;
    h ^= (uint64_t)(uint32_t)r->rbp_off * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

static int rehash(rows *w, size_t cap)
{
    uint32_t *h = calloc(cap, sizeof(*h));
    if (!h)
        return -1;
    for (size_t i = 0; i < w->nrules; i++) {
        size_t at = rule_hash(&w->rules[i]) & (cap - 1);
        while (h[at])
            at = (at + 1) & (cap - 1);
        h[at] = (uint32_t)i + 1;
    }
    free(w->hash);
    w->hash = h;
    w->hcap = cap;
    return 0;
}

/* The index of rule r, added when new; -1 when full or out of memory. */
static long intern(rows *w, const cfi_rule *r)
{
    size_t at;

    if (w->nrules && memcmp(&w->rules[w->last], r, sizeof(*r)) == 0)
        return (long)w->last;                    /* (often the rule of the row before) */

    if (w->nrules * 2 >= w->hcap && rehash(w, w->hcap ? w->hcap * 2 : 256) < 0)
        return -1;
    at = rule_hash(r) & (w->hcap - 1);
    while (w->hash[at]) {
        if (memcmp(&w->rules[w->hash[at] - 1], r, sizeof(*r)) == 0)
            return (long)(w->last = w->hash[at] - 1);
        at = (at + 1) & (w->hcap - 1);
    }
    if (w->nrules > CFI_RULE_MASK)
        return -1;
    if (w->nrules == w->rcap) {
        size_t nc = w->rcap ? w->rcap * 2 : 64;
        cfi_rule *nr = realloc(w->rules, nc * sizeof(*nr));
        if (!nr)
            return -1;
        w->rules = nr;
        w->rcap = nc;
    }
    w->rules[w->nrules] = *r;
    w->hash[at] = (uint32_t)++w->nrules;
    w->last = w->nrules - 1;
    return (long)w->last;
}

static void push_row(rows *w, uint64_t pc, uint32_t rule)
{
    if (w->oom)
        return;
    if (w->n == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 4096;
        uint64_t *np = realloc(w->pc, nc * sizeof(*np));
        uint32_t *nr;
        if (!np) { w->oom = 1; return; }
        w->pc = np;
        if (!(nr = realloc(w->rule, nc * sizeof(*nr)))) { w->oom = 1; return; }
        w->rule = nr;
        w->cap = nc;
    }
    w->pc[w->n] = pc;
    w->rule[w->n++] = rule;
}

static void emit(rows *w, uint64_t pc, const state *s, int signal, int first)
{
    cfi_rule r;
    long idx;

    memset(&r, 0, sizeof(r));
    r.cfa = s->cfa;
    r.cfa_reg = s->cfa_reg;
    r.cfa_off = s->cfa_off;
    r.cfa_add = s->cfa_add;
    r.ra_where = s->ra_where;
    r.ra_reg = s->ra_where == CFI_AT_REG ? s->ra_reg : 0;
    r.ra_off = s->ra_where == CFI_AT_CFA || s->ra_where == CFI_AT_REG ? s->ra_off : 0;
    r.rbp_where = s->rbp_where;
    r.rbp_reg = s->rbp_where == CFI_AT_REG ? s->rbp_reg : 0;
    r.rbp_off = s->rbp_where == CFI_AT_CFA || s->rbp_where == CFI_AT_REG ? s->rbp_off : 0;
    r.signal = (uint8_t)signal;
    if ((idx = intern(w, &r)) < 0) {
        w->oom = 1;
        return;
    }
    push_row(w, pc, (uint32_t)idx | (first ? ROW_FDE : 0));
}

/* A DWARF expression of the forms we follow: "breg<R> off" alone (*deref = 0),
 * or followed by "deref" and an optional "plus_uconst add" (*deref = 1).
 * The PLT's longer CFA expression starting with "breg7 8" is taken as its
 * first operation.  0, or -1. */
static int simple_expr(const uint8_t *e, size_t len, uint8_t *reg, int32_t *off, int *deref, int32_t *add,
                       int for_cfa)
{
    rd r = { e, e + len, e, 0, 0 };
    uint8_t op = u8(&r);

    *deref = 0;
    *add = 0;
    if (op < 0x70 || op > 0x80)                 /* DW_OP_breg0..breg16 */
        return -1;
    *reg = (uint8_t)(op - 0x70);
    *off = (int32_t)sleb(&r);
    if (r.bad)
        return -1;
    if (r.p == r.end)
        return 0;
    op = u8(&r);
    if (op == 0x06) {                           /* DW_OP_deref */
        *deref = 1;
        if (r.p == r.end)
            return for_cfa ? 0 : -1;
        if (u8(&r) != 0x23)                     /* DW_OP_plus_uconst */
            return -1;
        *add = (int32_t)uleb(&r);
        return !r.bad && r.p == r.end && for_cfa ? 0 : -1;
    }
    if (for_cfa && *reg == CFI_REG_RSP && op == 0x80)   /* the PLT: breg7 8; breg16 0; ... */
        return 0;
    return -1;
}

static void set_reg(state *s, unsigned reg, uint8_t where, uint8_t base, int32_t off)
{
    if (reg == CFI_REG_RBP) {
        s->rbp_where = where; s->rbp_reg = base; s->rbp_off = off;
    } else if (reg == CFI_REG_RA) {
        s->ra_where = where; s->ra_reg = base; s->ra_off = off;
    }
}

static void restore_reg(state *s, const state *init, unsigned reg)
{
    if (reg == CFI_REG_RBP) {
        s->rbp_where = init->rbp_where; s->rbp_reg = init->rbp_reg; s->rbp_off = init->rbp_off;
    } else if (reg == CFI_REG_RA) {
        s->ra_where = init->ra_where; s->ra_reg = init->ra_reg; s->ra_off = init->ra_off;
    }
}

#define STACK_MAX 16

/* Runs a CFA program from loc.  With w, a row is emitted at every advance
 * (and the first at loc, marked as the function's start); without, only
 * the state is computed (a CIE's initial instructions).  0, or -1 for a
 * program it cannot follow (the rows so far stand). */
static int run(const cie *c, rd *r, uint64_t loc, uint64_t loc_end, state *s, const state *init, rows *w)
{
    state stack[STACK_MAX];
    int depth = 0, first = 1;

    while (r->p < r->end && !r->bad) {
        uint8_t op = u8(r), low = op & 0x3f;
        uint64_t adv = 0, reg;
        int64_t off;
        int advance = 0;

        switch (op >> 6) {
        case 1: adv = low; advance = 1; break;                           /* DW_CFA_advance_loc */
        case 2: set_reg(s, low, CFI_AT_CFA, 0, (int32_t)((int64_t)uleb(r) * c->data_align)); continue;
        case 3: restore_reg(s, init, low); continue;                      /* DW_CFA_restore */
        default: break;
        }
        if (!advance) {
            switch (op) {
            case 0x00: break;                                            /* nop */
            case 0x01: {                                                 /* set_loc */
                uint64_t to = encoded(r, c->fde_enc, 0);
                if (to < loc) return -1;
                adv = (to - loc) / (c->code_align ? c->code_align : 1);
                advance = 1;
                break;
            }
            case 0x02: adv = uN(r, 1); advance = 1; break;
            case 0x03: adv = uN(r, 2); advance = 1; break;
            case 0x04: adv = uN(r, 4); advance = 1; break;
            case 0x05: reg = uleb(r); set_reg(s, (unsigned)reg, CFI_AT_CFA, 0, (int32_t)((int64_t)uleb(r) * c->data_align)); break;
            case 0x06: restore_reg(s, init, (unsigned)uleb(r)); break;
            case 0x07: set_reg(s, (unsigned)uleb(r), CFI_UNDEFINED, 0, 0); break;
            case 0x08: set_reg(s, (unsigned)uleb(r), CFI_SAME, 0, 0); break;
            case 0x09: reg = uleb(r); uleb(r); set_reg(s, (unsigned)reg, CFI_UNKNOWN, 0, 0); break;
            case 0x0a:
                if (depth == STACK_MAX) return -1;
                stack[depth++] = *s;
                break;
            case 0x0b:
                if (depth == 0) return -1;
                *s = stack[--depth];
                break;
            case 0x0c:
                s->cfa = CFI_CFA_REG; s->cfa_reg = (uint8_t)uleb(r); s->cfa_off = (int32_t)uleb(r); s->cfa_add = 0;
                break;
            case 0x0d:
                s->cfa_reg = (uint8_t)uleb(r);
                if (s->cfa != CFI_CFA_REG) { s->cfa = CFI_CFA_REG; s->cfa_off = 0; }
                break;
            case 0x0e: s->cfa_off = (int32_t)uleb(r); break;
            case 0x0f: {                                                 /* def_cfa_expression */
                uint64_t len = uleb(r);
                uint8_t base;
                int32_t o, add;
                int deref;
                if (len > (uint64_t)(r->end - r->p)) return -1;
                if (simple_expr(r->p, len, &base, &o, &deref, &add, 1) == 0) {
                    s->cfa = deref ? CFI_CFA_DEREF : CFI_CFA_REG;
                    s->cfa_reg = base; s->cfa_off = o; s->cfa_add = add;
                } else {
                    s->cfa = CFI_CFA_NONE;
                }
                r->p += len;
                break;
            }
            case 0x10: {                                                 /* expression */
                uint64_t len;
                uint8_t base;
                int32_t o, add;
                int deref;
                reg = uleb(r);
                len = uleb(r);
                if (len > (uint64_t)(r->end - r->p)) return -1;
                if (simple_expr(r->p, len, &base, &o, &deref, &add, 0) == 0 && !deref)
                    set_reg(s, (unsigned)reg, CFI_AT_REG, base, o);
                else
                    set_reg(s, (unsigned)reg, CFI_UNKNOWN, 0, 0);
                r->p += len;
                break;
            }
            case 0x11: reg = uleb(r); set_reg(s, (unsigned)reg, CFI_AT_CFA, 0, (int32_t)(sleb(r) * c->data_align)); break;
            case 0x12:
                s->cfa = CFI_CFA_REG; s->cfa_reg = (uint8_t)uleb(r); s->cfa_off = (int32_t)(sleb(r) * c->data_align);
                s->cfa_add = 0;
                break;
            case 0x13: s->cfa_off = (int32_t)(sleb(r) * c->data_align); break;
            case 0x14: reg = uleb(r); uleb(r); set_reg(s, (unsigned)reg, CFI_UNKNOWN, 0, 0); break;   /* val_offset */
            case 0x15: reg = uleb(r); sleb(r); set_reg(s, (unsigned)reg, CFI_UNKNOWN, 0, 0); break;
            case 0x16: {                                                 /* val_expression */
                uint64_t len;
                reg = uleb(r);
                len = uleb(r);
                if (len > (uint64_t)(r->end - r->p)) return -1;
                r->p += len;
                set_reg(s, (unsigned)reg, CFI_UNKNOWN, 0, 0);
                break;
            }
            case 0x2e: uleb(r); break;                                   /* GNU_args_size */
            case 0x2f:                                                   /* GNU_negative_offset_extended */
                reg = uleb(r);
                off = -(int64_t)uleb(r) * c->data_align;
                set_reg(s, (unsigned)reg, CFI_AT_CFA, 0, (int32_t)off);
                break;
            default:
                return -1;                                               /* an opcode we do not know */
            }
        }
        if (advance && w) {
            uint64_t to = loc + adv * c->code_align;
            if (to > loc) {
                emit(w, loc, s, c->signal, first);
                first = 0;
                loc = to < loc_end ? to : loc_end;
            }
        }
    }
    if (r->bad)
        return -1;
    if (w && loc < loc_end)
        emit(w, loc, s, c->signal, first);
    return 0;
}

/* Parses the CIE at p (its length field) into *c and runs its initial
 * instructions into *init.  0, or -1. */
static int parse_cie(const uint8_t *sec, size_t size, uint64_t vaddr, size_t at, cie *c, state *init)
{
    rd r = { sec + at, sec + size, sec, vaddr, 0 };
    uint64_t len = uN(&r, 4), id;
    const uint8_t *aug, *body_end;
    int has_64 = 0;

    memset(c, 0, sizeof(*c));
    if (len == 0xffffffffu) { len = uN(&r, 8); has_64 = 1; }
    if (r.bad || len > (uint64_t)(r.end - r.p))
        return -1;
    body_end = r.p + len;
    r.end = body_end;
    id = has_64 ? uN(&r, 8) : uN(&r, 4);
    if (id != 0)
        return -1;
    {
        uint8_t version = u8(&r);
        if (version != 1 && version != 3 && version != 4)
            return -1;
        aug = r.p;
        while (r.p < r.end && *r.p)
            r.p++;
        u8(&r);
        if (version == 4) { u8(&r); u8(&r); }           /* address and segment sizes */
        c->code_align = uleb(&r);
        c->data_align = sleb(&r);
        c->ra_reg = version == 1 ? u8(&r) : (unsigned)uleb(&r);
    }
    c->fde_enc = PE_ABSPTR;
    if (*aug == 'z') {
        uint64_t alen = uleb(&r);
        const uint8_t *aend = r.p + alen;
        if (alen > (uint64_t)(r.end - r.p))
            return -1;
        c->has_z = 1;
        for (const uint8_t *a = aug + 1; *a && r.p < aend && !r.bad; a++) {
            if (*a == 'R') c->fde_enc = u8(&r);
            else if (*a == 'L') u8(&r);
            else if (*a == 'P') { uint8_t penc = u8(&r); encoded(&r, penc & 0x7f, 1); }
            else if (*a == 'S') c->signal = 1;
            else break;                                  /* the rest is skipped by its length */
        }
        for (const uint8_t *a = aug + 1; *a; a++)
            if (*a == 'S') c->signal = 1;
        r.p = aend;
        r.bad = 0;
    } else if (*aug) {
        return -1;                                       /* an augmentation without 'z': unknown size */
    }
    if (r.bad || c->ra_reg != CFI_REG_RA)
        return -1;
    c->insns = r.p;
    c->end = body_end;
    memset(init, 0, sizeof(*init));
    init->ra_where = CFI_SAME;
    init->rbp_where = CFI_SAME;
    {
        rd ir = { c->insns, c->end, sec, vaddr, 0 };
        if (run(c, &ir, 0, 0, init, init, NULL) < 0)
            return -1;
    }
    return 0;
}

/* Each FDE's rows, in order, with an end marker: the table is these runs
 * sorted by their first address (FDEs are usually in order already). */
typedef struct run_span {
    uint64_t pc;
    size_t first, n;
} run_span;

static int span_cmp(const void *a, const void *b)
{
    const run_span *x = a, *y = b;
    if (x->pc != y->pc)
        return x->pc < y->pc ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Puts the rows in address order, run by run.  0, or -1. */
static int sort_rows(rows *w, run_span *spans, size_t nspans)
{
    int sorted = 1;
    uint64_t *pc;
    uint32_t *rule;
    size_t k = 0;

    for (size_t i = 1; i < nspans && sorted; i++)
        sorted = spans[i - 1].pc <= spans[i].pc;
    if (sorted)
        return 0;
    qsort(spans, nspans, sizeof(*spans), span_cmp);
    pc = malloc((w->n ? w->n : 1) * sizeof(*pc));
    rule = malloc((w->n ? w->n : 1) * sizeof(*rule));
    if (!pc || !rule) {
        free(pc);
        free(rule);
        return -1;
    }
    for (size_t i = 0; i < nspans; i++) {
        memcpy(pc + k, w->pc + spans[i].first, spans[i].n * sizeof(*pc));
        memcpy(rule + k, w->rule + spans[i].first, spans[i].n * sizeof(*rule));
        k += spans[i].n;
    }
    free(w->pc);
    free(w->rule);
    w->pc = pc;
    w->rule = rule;
    w->n = k;
    return 0;
}

/* The CIEs met so far (an object has a few, shared by thousands of FDEs). */
#define CIE_CACHE 16
typedef struct cie_cache {
    size_t at[CIE_CACHE];
    cie c[CIE_CACHE];
    state init[CIE_CACHE];
    int ok[CIE_CACHE];
    size_t n, next;
} cie_cache;

/* The CIE at offset at and its initial state, parsed once; NULL when it
 * does not parse. */
static int cie_cached(cie_cache *cc, const uint8_t *sec, size_t size, uint64_t vaddr, size_t at, const cie **c,
                      const state **init)
{
    size_t k;
    for (k = 0; k < cc->n; k++)
        if (cc->at[k] == at)
            break;
    if (k == cc->n) {
        k = cc->n < CIE_CACHE ? cc->n++ : cc->next++ % CIE_CACHE;
        cc->at[k] = at;
        cc->ok[k] = parse_cie(sec, size, vaddr, at, &cc->c[k], &cc->init[k]) == 0;
    }
    *c = &cc->c[k];
    *init = &cc->init[k];
    return cc->ok[k] ? 0 : -1;
}

int cfi_table_build_from(const uint8_t *sec, size_t size, uint64_t vaddr, cfi_table *out)
{
    cie_cache cc = { .n = 0 };
    rows w;
    cfi_rule none;
    size_t at = 0, fdes = 0, nspans = 0, spans_cap = 0;
    run_span *spans = NULL;

    memset(out, 0, sizeof(*out));
    memset(&w, 0, sizeof(w));
    memset(&none, 0, sizeof(none));
    if (intern(&w, &none) != 0)              /* rule 0: no information */
        goto oom;
    while (sec && at + 4 <= size && !w.oom) {
        rd r = { sec + at, sec + size, sec, vaddr, 0 };
        uint64_t len = uN(&r, 4), cie_ptr;
        const uint8_t *body, *end, *idp;
        int is64 = 0;

        if (len == 0)
            break;                           /* the terminator */
        if (len == 0xffffffffu) { len = uN(&r, 8); is64 = 1; }
        if (r.bad || len > (uint64_t)(r.end - r.p))
            break;
        body = r.p;
        end = body + len;
        r.end = end;
        idp = r.p;
        cie_ptr = is64 ? uN(&r, 8) : uN(&r, 4);
        if (cie_ptr != 0 && (uint64_t)(idp - sec) >= cie_ptr) {          /* an FDE */
            const cie *c;
            const state *init;
            state s;
            size_t cie_at = (size_t)(idp - sec) - (size_t)cie_ptr;
            if (cie_cached(&cc, sec, size, vaddr, cie_at, &c, &init) == 0) {
                uint64_t pc_begin = encoded(&r, c->fde_enc, 0);
                uint64_t pc_range = encoded(&r, c->fde_enc, 1);
                if (c->has_z) {
                    uint64_t alen = uleb(&r);
                    if (alen <= (uint64_t)(r.end - r.p))
                        r.p += alen;
                    else
                        r.bad = 1;
                }
                if (!r.bad && pc_range > 0 && pc_begin + pc_range <= 0xffffffffu && pc_begin + pc_range > pc_begin) {
                    size_t first = w.n;
                    s = *init;
                    run(c, &r, pc_begin, pc_begin + pc_range, &s, init, &w);
                    push_row(&w, pc_begin + pc_range, 0 | ROW_END);
                    if (nspans == spans_cap) {
                        size_t nc = spans_cap ? spans_cap * 2 : 1024;
                        run_span *ns = realloc(spans, nc * sizeof(*ns));
                        if (!ns) { w.oom = 1; break; }
                        spans = ns;
                        spans_cap = nc;
                    }
                    spans[nspans++] = (run_span){ pc_begin, first, w.n - first };
                    fdes++;
                }
            }
        }
        at = (size_t)(end - sec);
    }
    if (w.oom || sort_rows(&w, spans, nspans) < 0)
        goto oom;
    free(spans);
    spans = NULL;
    /* the final rows: one per address (the last one there wins), in u32 */
    out->pc = malloc((w.n ? w.n : 1) * sizeof(*out->pc));
    out->rule = malloc((w.n ? w.n : 1) * sizeof(*out->rule));
    if (!out->pc || !out->rule)
        goto oom;
    for (size_t i = 0; i < w.n; i++) {
        uint16_t rule = (uint16_t)(w.rule[i] & CFI_RULE_MASK) | ((w.rule[i] & ROW_FDE) ? CFI_FDE_START : 0);
        if (out->n && out->pc[out->n - 1] == (uint32_t)w.pc[i]) {
            out->rule[out->n - 1] = rule;
            continue;
        }
        /* the same rule as the row before and no function starts: no new row */
        if (out->n && !(rule & CFI_FDE_START) && (out->rule[out->n - 1] & CFI_RULE_MASK) == (rule & CFI_RULE_MASK))
            continue;
        out->pc[out->n] = (uint32_t)w.pc[i];
        out->rule[out->n++] = rule;
    }
    out->rules = w.rules;
    out->nrules = w.nrules;
    out->fdes = fdes;
    out->nindex = (out->n + CFI_INDEX_STRIDE - 1) / CFI_INDEX_STRIDE;
    if (!(out->index = malloc((out->nindex ? out->nindex : 1) * sizeof(*out->index)))) {
        w.rules = NULL;
        free(out->rules);
        goto oom;
    }
    for (size_t k = 0; k < out->nindex; k++)
        out->index[k] = out->pc[k * CFI_INDEX_STRIDE];
    free(w.pc);
    free(w.rule);
    free(w.hash);
    return 0;
oom:
    free(spans);
    free(w.pc);
    free(w.rule);
    free(w.hash);
    free(w.rules);
    free(out->pc);
    free(out->rule);
    memset(out, 0, sizeof(*out));
    return -1;
}

int cfi_table_build(const elf_image *img, cfi_table *out)
{
    return cfi_table_build_from(img->eh_frame, img->eh_frame_size, img->eh_frame_vaddr, out);
}

void cfi_table_free(cfi_table *t)
{
    free(t->index);
    free(t->pc);
    free(t->rule);
    free(t->rules);
    memset(t, 0, sizeof(*t));
}

const cfi_rule *cfi_find(const cfi_table *t, uint64_t pc, uint64_t *fde_start)
{
    size_t lo = 0, hi, i;

    if (pc > 0xffffffffu || t->n == 0)
        return NULL;
    /* the index first: the last entry at or below pc gives the stride of
     * rows to search (without an index, all of them) */
    if (t->index && t->nindex) {
        size_t a = 0, b = t->nindex;
        while (a < b) {
            size_t mid = a + (b - a) / 2;
            if (t->index[mid] <= (uint32_t)pc)
                a = mid + 1;
            else
                b = mid;
        }
        if (a == 0)
            return NULL;
        lo = (a - 1) * CFI_INDEX_STRIDE;
        hi = lo + CFI_INDEX_STRIDE < t->n ? lo + CFI_INDEX_STRIDE : t->n;
    } else {
        hi = t->n;
    }
    while (lo < hi) {                        /* the last row at or below pc */
        size_t mid = lo + (hi - lo) / 2;
        if (t->pc[mid] <= (uint32_t)pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    i = lo - 1;
    if ((t->rule[i] & CFI_RULE_MASK) == 0)
        return NULL;                         /* a gap between functions */
    if (fde_start) {
        size_t k = i;
        while (k > 0 && !(t->rule[k] & CFI_FDE_START))
            k--;
        *fde_start = t->pc[k];
    }
    return &t->rules[t->rule[i] & CFI_RULE_MASK];
}

size_t cfi_table_bytes(const cfi_table *t)
{
    return t->n * (sizeof(*t->pc) + sizeof(*t->rule)) + t->nrules * sizeof(*t->rules) +
           t->nindex * sizeof(*t->index);
}
