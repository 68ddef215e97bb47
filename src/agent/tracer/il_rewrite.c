/* il_rewrite.c - decoding ECMA-335 method bodies and adding the method
 * tracer's probes to them (il_rewrite.h).  Pure. */
#include "agent/tracer/il_rewrite.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- opcodes (ECMA-335 III.1.2.1) ---- */

#define OP_RET 0x2A
#define OP_JMP 0x27
#define OP_CALLI 0x29
#define OP_LDC_I8 0x21
#define OP_BR_S_FIRST 0x2B         /* br.s .. blt.un.s */
#define OP_BR_S_LAST 0x37
#define OP_BR_FIRST 0x38           /* br .. blt.un: the short form + 13 */
#define OP_BR_LAST 0x44
#define OP_SWITCH 0x45
#define OP_ENDFINALLY 0xDC
#define OP_LEAVE 0xDD
#define OP_LEAVE_S 0xDE
#define OP_LDLOC 0xFE0C
#define OP_STLOC 0xFE0E
#define OP_TAIL 0xFE14

#define HDR_TINY 0x2
#define HDR_FAT 0x3
#define HDR_MORE_SECTS 0x8
#define HDR_INIT_LOCALS 0x10
#define SECT_EH 0x1
#define SECT_FAT 0x40
#define SECT_MORE 0x80

enum { K_BAD = -1, K_NONE = 0, K_1 = 1, K_2 = 2, K_4 = 4, K_8 = 8, K_BR1 = 11, K_BR4 = 14, K_SWITCH = 20 };

/* The operand of a one-byte opcode. */
static int kind1(unsigned op)
{
    if (op <= 0x0D) return K_NONE;                       /* nop .. stloc.3 */
    if (op <= 0x13) return K_1;                          /* ldarg.s .. stloc.s */
    if (op <= 0x1E) return K_NONE;                       /* ldnull, ldc.i4.m1 .. ldc.i4.8 */
    switch (op) {
    case 0x1F: return K_1;                               /* ldc.i4.s */
    case 0x20: return K_4;
    case 0x21: return K_8;
    case 0x22: return K_4;                               /* ldc.r4 */
    case 0x23: return K_8;                               /* ldc.r8 */
    case 0x25: case 0x26: return K_NONE;                 /* dup, pop */
    case 0x27: case 0x28: case 0x29: return K_4;         /* jmp, call, calli */
    case 0x2A: return K_NONE;                            /* ret */
    case OP_SWITCH: return K_SWITCH;
    case 0x6F: return K_4;                               /* callvirt */
    case 0x76: return K_NONE;                            /* conv.r.un */
    case 0x7A: return K_NONE;                            /* throw */
    case 0x8E: return K_NONE;                            /* ldlen */
    case 0xC3: return K_NONE;                            /* ckfinite */
    case OP_LEAVE: return K_BR4;
    case OP_LEAVE_S: return K_BR1;
    }
    if (op >= OP_BR_S_FIRST && op <= OP_BR_S_LAST) return K_BR1;
    if (op >= OP_BR_FIRST && op <= OP_BR_LAST) return K_BR4;
    if (op >= 0x46 && op <= 0x6E) return K_NONE;         /* ldind.*, stind.*, arithmetic, conv.* */
    if (op >= 0x70 && op <= 0x75) return K_4;            /* cpobj, ldobj, ldstr, newobj, castclass, isinst */
    if (op == 0x79) return K_4;                          /* unbox */
    if (op >= 0x7B && op <= 0x81) return K_4;            /* ldfld .. stobj */
    if (op >= 0x82 && op <= 0x8B) return K_NONE;         /* conv.ovf.*.un */
    if (op == 0x8C || op == 0x8D || op == 0x8F) return K_4;  /* box, newarr, ldelema */
    if (op >= 0x90 && op <= 0xA2) return K_NONE;         /* ldelem.*, stelem.* */
    if (op >= 0xA3 && op <= 0xA5) return K_4;            /* ldelem, stelem, unbox.any */
    if (op >= 0xB3 && op <= 0xBA) return K_NONE;         /* conv.ovf.* */
    if (op == 0xC2 || op == 0xC6 || op == 0xD0) return K_4;  /* refanyval, mkrefany, ldtoken */
    if (op >= 0xD1 && op <= 0xDC) return K_NONE;         /* conv.u2 .. endfinally */
    if (op == 0xDF || op == 0xE0) return K_NONE;         /* stind.i, conv.u */
    return K_BAD;
}

/* The operand of FE xx. */
static int kind2(unsigned op)
{
    if (op <= 0x05) return K_NONE;                       /* arglist, ceq .. clt.un */
    if (op == 0x06 || op == 0x07) return K_4;            /* ldftn, ldvirtftn */
    if (op >= 0x09 && op <= 0x0E) return K_2;            /* ldarg .. stloc */
    switch (op) {
    case 0x0F: case 0x11: case 0x13: case 0x14: return K_NONE;   /* localloc, endfilter, volatile., tail. */
    case 0x12: case 0x19: return K_1;                    /* unaligned., no. */
    case 0x15: case 0x16: case 0x1C: return K_4;         /* initobj, constrained., sizeof */
    case 0x17: case 0x18: case 0x1A: case 0x1D: case 0x1E: return K_NONE; /* cpblk, initblk, rethrow, refanytype, readonly. */
    }
    return K_BAD;
}

static int is_branch(uint16_t op)
{
    return (op >= OP_BR_S_FIRST && op <= OP_BR_LAST) || op == OP_LEAVE || op == OP_LEAVE_S;
}

/* ---- little-endian reads and writes ---- */

static uint32_t rd16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t rd32(const uint8_t *p) { return rd16(p) | rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static void wr16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void wr32(uint8_t *p, uint32_t v) { wr16(p, v); wr16(p + 2, v >> 16); }
static void wr64(uint8_t *p, uint64_t v) { wr32(p, (uint32_t)v); wr32(p + 4, (uint32_t)(v >> 32)); }

static int fail(char *why, size_t why_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t why_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (why && why_len)
        vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- decoding ---- */

/* The header: code start and size, and where the sections start (0: none). */
static int header(const uint8_t *body, size_t len, il_body *b, size_t *code_at, size_t *sects_at, char *why,
                  size_t why_len)
{
    if (len < 1)
        return fail(why, why_len, "an empty body");
    if ((body[0] & 3) == HDR_TINY) {
        b->fat = 0;
        b->flags = HDR_TINY;
        b->max_stack = 8;
        b->code_size = body[0] >> 2;
        b->local_sig = 0;
        *code_at = 1;
        *sects_at = 0;
    } else if ((body[0] & 3) == HDR_FAT) {
        uint32_t w;
        if (len < 12)
            return fail(why, why_len, "a fat header cut short");
        w = rd16(body);
        if ((w >> 12) != 3)
            return fail(why, why_len, "a fat header of %u dwords", w >> 12);
        b->fat = 1;
        b->flags = (uint16_t)(w & 0xFFF);
        b->max_stack = (uint16_t)rd16(body + 2);
        b->code_size = rd32(body + 4);
        b->local_sig = rd32(body + 8);
        *code_at = 12;
        *sects_at = (b->flags & HDR_MORE_SECTS) ? ((12 + (size_t)b->code_size + 3) & ~(size_t)3) : 0;
    } else {
        return fail(why, why_len, "an unknown header format (0x%02x)", body[0]);
    }
    if (*code_at + (size_t)b->code_size > len)
        return fail(why, why_len, "code of %u bytes beyond the body's %zu", b->code_size, len);
    return 0;
}

/* Walks the sections at body + at; each EH clause (in raw offsets) is
 * given to add (when not NULL).  Returns the end of the last section, or 0
 * with why set. */
static size_t sections(const uint8_t *body, size_t len, size_t at, il_body *b, size_t cap, char *why,
                       size_t why_len)
{
    for (;;) {
        uint8_t kind;
        size_t size, n, csize;
        if (at + 4 > len) {
            fail(why, why_len, "a data section beyond the body");
            return 0;
        }
        kind = body[at];
        size = (kind & SECT_FAT) ? (rd32(body + at) >> 8) : body[at + 1];
        if (size < 4 || at + size > len) {
            fail(why, why_len, "a data section of %zu bytes at %zu of %zu", size, at, len);
            return 0;
        }
        if (kind & SECT_EH) {
            csize = (kind & SECT_FAT) ? 24 : 12;
            n = (size - 4) / csize;
            for (size_t i = 0; b && i < n; i++) {
                const uint8_t *c = body + at + 4 + i * csize;
                il_clause *cl;
                if (b->neh == cap) {
                    fail(why, why_len, "too many EH clauses");
                    return 0;
                }
                cl = &b->eh[b->neh++];
                if (kind & SECT_FAT) {
                    cl->flags = rd32(c);
                    cl->try_start = rd32(c + 4);
                    cl->try_end = cl->try_start + rd32(c + 8);
                    cl->handler_start = rd32(c + 12);
                    cl->handler_end = cl->handler_start + rd32(c + 16);
                    cl->class_token = rd32(c + 20);
                } else {
                    cl->flags = rd16(c);
                    cl->try_start = rd16(c + 2);
                    cl->try_end = cl->try_start + c[4];
                    cl->handler_start = rd16(c + 5);
                    cl->handler_end = cl->handler_start + c[7];
                    cl->class_token = rd32(c + 8);
                }
                cl->filter_start = cl->class_token;
            }
        }
        at += size;
        if (!(kind & SECT_MORE))
            return at;
        at = (at + 3) & ~(size_t)3;
    }
}

size_t il_body_size(const uint8_t *body, size_t len)
{
    il_body b;
    size_t code_at, sects_at;

    memset(&b, 0, sizeof(b));
    if (header(body, len, &b, &code_at, &sects_at, NULL, 0) < 0)
        return 0;
    if (!sects_at)
        return code_at + b.code_size;
    return sections(body, len, sects_at, NULL, 0, NULL, 0);
}

/* The index of the instruction at offset off (n: the code's end); -1 if
 * off is not an instruction's start. */
static long index_at(const il_body *b, uint64_t off)
{
    size_t lo = 0, hi = b->n;
    if (off == b->code_size)
        return (long)b->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (b->ins[mid].offset == off)
            return (long)mid;
        if (b->ins[mid].offset < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

void il_body_free(il_body *b)
{
    for (size_t i = 0; b->ins && i < b->n; i++)
        free(b->ins[i].targets);
    free(b->ins);
    free(b->eh);
    memset(b, 0, sizeof(*b));
}

int il_decode(const uint8_t *body, size_t len, il_body *b, char *why, size_t why_len)
{
    size_t code_at, sects_at, cap_eh = 0;
    const uint8_t *code;
    uint32_t o = 0;

    memset(b, 0, sizeof(*b));
    if (header(body, len, b, &code_at, &sects_at, why, why_len) < 0)
        return -1;
    code = body + code_at;
    /* at most one instruction per byte */
    if (b->code_size && !(b->ins = calloc(b->code_size, sizeof(*b->ins))))
        return fail(why, why_len, "out of memory");
    while (o < b->code_size) {
        il_instr *in = &b->ins[b->n];
        unsigned op = code[o];
        int k;
        uint32_t at;

        in->offset = o;
        if (op == 0xFE) {
            if (o + 1 >= b->code_size)
                goto cut;
            op = 0xFE00 | code[o + 1];
            k = kind2(op & 0xFF);
            at = o + 2;
        } else {
            k = kind1(op);
            at = o + 1;
        }
        if (k == K_BAD) {
            il_body_free(b);
            return fail(why, why_len, "an unknown opcode 0x%x at IL offset %u", op, o);
        }
        in->opcode = (uint16_t)op;
        switch (k) {
        case K_NONE: break;
        case K_1: case K_BR1:
            if (at + 1 > b->code_size) goto cut;
            in->operand = k == K_BR1 ? (int64_t)(at + 1) + (int8_t)code[at] : code[at];
            at += 1;
            break;
        case K_2:
            if (at + 2 > b->code_size) goto cut;
            in->operand = rd16(code + at);
            at += 2;
            break;
        case K_4: case K_BR4:
            if (at + 4 > b->code_size) goto cut;
            in->operand = k == K_BR4 ? (int64_t)(at + 4) + (int32_t)rd32(code + at) : rd32(code + at);
            at += 4;
            break;
        case K_8:
            if (at + 8 > b->code_size) goto cut;
            in->operand = (int64_t)rd64(code + at);
            at += 8;
            break;
        case K_SWITCH: {
            uint32_t count, end;
            if (at + 4 > b->code_size) goto cut;
            count = rd32(code + at);
            if (count > (b->code_size - at - 4) / 4) goto cut;
            end = at + 4 + 4 * count;
            in->operand = count;
            if (count && !(in->targets = calloc(count, sizeof(uint32_t)))) {
                il_body_free(b);
                return fail(why, why_len, "out of memory");
            }
            for (uint32_t t = 0; t < count; t++) {
                int64_t target = (int64_t)end + (int32_t)rd32(code + at + 4 + 4 * t);
                if (target < 0 || target >= b->code_size) {
                    il_body_free(b);
                    return fail(why, why_len, "a switch target outside the code at IL offset %u", o);
                }
                in->targets[t] = (uint32_t)target;      /* an offset until mapped below */
            }
            at = end;
            break;
        }
        }
        in->size = (uint8_t)(k == K_SWITCH ? 5 : at - o);
        b->n++;
        o = at;
    }
    /* branch targets: offsets to instruction indexes */
    for (size_t i = 0; i < b->n; i++) {
        il_instr *in = &b->ins[i];
        if (is_branch(in->opcode)) {
            long t = in->operand >= 0 && in->operand < b->code_size ? index_at(b, (uint64_t)in->operand) : -1;
            if (t < 0) {
                uint32_t off = in->offset;
                il_body_free(b);
                return fail(why, why_len, "a branch at IL offset %u to a place that is no instruction", off);
            }
            in->operand = t;
        } else if (in->opcode == OP_SWITCH) {
            for (int64_t t = 0; t < in->operand; t++) {
                long x = index_at(b, in->targets[t]);
                if (x < 0 || (size_t)x == b->n) {
                    uint32_t off = in->offset;
                    il_body_free(b);
                    return fail(why, why_len, "a switch at IL offset %u to a place that is no instruction", off);
                }
                in->targets[t] = (uint32_t)x;
            }
        }
    }
    if (sects_at) {
        /* count the clauses first: each takes at least 12 bytes */
        cap_eh = (len - sects_at) / 12 + 1;
        if (!(b->eh = calloc(cap_eh, sizeof(*b->eh)))) {
            il_body_free(b);
            return fail(why, why_len, "out of memory");
        }
        if (!sections(body, len, sects_at, b, cap_eh, why, why_len)) {
            il_body_free(b);
            return -1;
        }
        for (size_t i = 0; i < b->neh; i++) {
            il_clause *c = &b->eh[i];
            long ts = index_at(b, c->try_start), te = index_at(b, c->try_end), hs = index_at(b, c->handler_start),
                 he = index_at(b, c->handler_end), fs = c->flags & 1 ? index_at(b, c->filter_start) : 0;
            if (ts < 0 || te < 0 || hs < 0 || he < 0 || fs < 0 || ts >= te || hs >= he) {
                il_body_free(b);
                return fail(why, why_len, "EH clause %zu is not on instruction boundaries", i + 1);
            }
            c->try_start = (uint32_t)ts;
            c->try_end = (uint32_t)te;
            c->handler_start = (uint32_t)hs;
            c->handler_end = (uint32_t)he;
            c->filter_start = (uint32_t)fs;
        }
    }
    return 0;
cut:
    il_body_free(b);
    return fail(why, why_len, "an instruction cut short at IL offset %u", o);
}

/* ---- rewriting ---- */

/* A new instruction: what it is, where it goes (in the new list), and its
 * place once encoded. */
typedef struct nins {
    uint16_t opcode;
    int64_t operand;              /* branches: new index of the target */
    const uint32_t *targets;      /* switch: old indexes (mapped when encoding) */
    uint32_t count;
    uint32_t offset, size;
    int old;                      /* the old instruction it copies (-1: inserted) */
} nins;

typedef struct out_list {
    nins *v;
    size_t n, cap;
} out_list;

static int push(out_list *l, uint16_t op, int64_t operand, int old)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        nins *nv = realloc(l->v, cap * sizeof(*nv));
        if (!nv)
            return -1;
        l->v = nv;
        l->cap = cap;
    }
    l->v[l->n++] = (nins){ .opcode = op, .operand = operand, .old = old };
    return 0;
}

#define TARGET_EPILOG (-2)

static int push_probe(out_list *l, const il_probes *p, uint64_t fn)
{
    return push(l, OP_LDC_I8, (int64_t)p->id, -1) || push(l, OP_LDC_I8, (int64_t)fn, -1) ||
           push(l, OP_CALLI, p->calli_sig, -1);
}

/* The encoded size of an instruction of the new body. */
static uint32_t encoded_size(const nins *x, const il_instr *old)
{
    if (x->opcode == OP_SWITCH)
        return 5 + 4 * x->count;
    if (is_branch(x->opcode))
        return 5;                                    /* always the long form */
    if (x->old >= 0)
        return old->size;
    switch (x->opcode) {
    case OP_LDC_I8: return 9;
    case OP_CALLI: return 5;
    case OP_LDLOC: case OP_STLOC: return 4;
    default: return 1;                               /* ret, endfinally */
    }
}

int il_add_probes(const uint8_t *body, size_t len, const il_probes *p, uint8_t **out, size_t *out_len,
                  char *why, size_t why_len)
{
    il_body b;
    out_list l = { 0 };
    uint32_t *map = NULL;                    /* old index -> new index (and n -> the handler's start) */
    size_t try_start, handler_start, epilog_start, code_size, size, at, eh_at;
    uint8_t *buf = NULL, *code;
    uint32_t off = 0;
    int rc = -1;

    if (il_decode(body, len, &b, why, why_len) < 0)
        return -1;
    for (size_t i = 0; i < b.n; i++) {
        if (b.ins[i].opcode == OP_TAIL) {
            fail(why, why_len, "it makes a tail call (tail. prefix at IL offset %u), which a try block would break",
                 b.ins[i].offset);
            goto done;
        }
        if (b.ins[i].opcode == OP_JMP) {
            fail(why, why_len, "it uses jmp (IL offset %u), which a try block does not allow", b.ins[i].offset);
            goto done;
        }
    }
    if (!(map = calloc(b.n + 1, sizeof(*map))))
        goto oom;
    if (push_probe(&l, p, p->enter))
        goto oom;
    try_start = l.n;
    for (size_t i = 0; i < b.n; i++) {
        const il_instr *in = &b.ins[i];
        uint16_t op = in->opcode;
        map[i] = (uint32_t)l.n;
        if (op == OP_RET) {
            if ((p->returns_value && push(&l, OP_STLOC, p->ret_local, -1)) || push_probe(&l, p, p->leave) ||
                push(&l, OP_LEAVE, TARGET_EPILOG, -1))
                goto oom;
            continue;
        }
        if (op >= OP_BR_S_FIRST && op <= OP_BR_S_LAST)
            op = (uint16_t)(op + (OP_BR_FIRST - OP_BR_S_FIRST));
        else if (op == OP_LEAVE_S)
            op = OP_LEAVE;
        if (push(&l, op, in->operand, (int)i))
            goto oom;
        if (op == OP_SWITCH) {
            l.v[l.n - 1].targets = in->targets;
            l.v[l.n - 1].count = (uint32_t)in->operand;
        }
    }
    handler_start = l.n;
    map[b.n] = (uint32_t)handler_start;
    if (push_probe(&l, p, p->thrown) || push(&l, OP_ENDFINALLY, 0, -1))
        goto oom;
    epilog_start = l.n;
    if ((p->returns_value && push(&l, OP_LDLOC, p->ret_local, -1)) || push(&l, OP_RET, 0, -1))
        goto oom;

    /* offsets */
    for (size_t i = 0; i < l.n; i++) {
        nins *x = &l.v[i];
        x->offset = off;
        x->size = encoded_size(x, x->old >= 0 ? &b.ins[x->old] : NULL);
        if (off + (uint64_t)x->size > 0x7FFFFFFF) {
            fail(why, why_len, "the method would be larger than 2 GB");
            goto done;
        }
        off += x->size;
    }
    code_size = off;
    eh_at = (12 + code_size + 3) & ~(size_t)3;
    size = eh_at + 4 + 24 * (b.neh + 1);
    if (!(buf = calloc(1, size)))
        goto oom;

    /* header */
    wr16(buf, (uint32_t)(HDR_FAT | HDR_MORE_SECTS | (b.flags & HDR_INIT_LOCALS)) | 3u << 12);
    wr16(buf + 2, (uint32_t)b.max_stack + 2 > 0xFFFF ? 0xFFFF : (uint32_t)b.max_stack + 2);
    wr32(buf + 4, (uint32_t)code_size);
    wr32(buf + 8, p->returns_value ? p->local_sig : b.local_sig);

    /* code */
    code = buf + 12;
    for (size_t i = 0; i < l.n; i++) {
        const nins *x = &l.v[i];
        uint8_t *w = code + x->offset;
        uint32_t end = x->offset + x->size;
        if (x->opcode >= 0xFE00) {
            *w++ = 0xFE;
            *w++ = (uint8_t)x->opcode;
        } else {
            *w++ = (uint8_t)x->opcode;
        }
        if (is_branch(x->opcode)) {
            size_t t = x->operand == TARGET_EPILOG ? epilog_start : map[x->operand];
            wr32(w, (uint32_t)((int64_t)l.v[t].offset - (int64_t)end));
        } else if (x->opcode == OP_SWITCH) {
            wr32(w, x->count);
            for (uint32_t t = 0; t < x->count; t++)
                wr32(w + 4 + 4 * t, (uint32_t)((int64_t)l.v[map[x->targets[t]]].offset - (int64_t)end));
        } else if (x->old >= 0) {
            const il_instr *in = &b.ins[x->old];
            size_t head = in->opcode >= 0xFE00 ? 2 : 1;
            memcpy(w, body + (b.fat ? 12 : 1) + in->offset + head, in->size - head);    /* the operand as it was */
        } else if (x->opcode == OP_LDC_I8) {
            wr64(w, (uint64_t)x->operand);
        } else if (x->opcode == OP_CALLI) {
            wr32(w, (uint32_t)x->operand);
        } else if (x->opcode == OP_LDLOC || x->opcode == OP_STLOC) {
            wr16(w, (uint32_t)x->operand);
        }
    }

    /* EH: the original clauses, then the fault clause around them all */
    at = eh_at;
    buf[at] = SECT_EH | SECT_FAT;
    wr32(buf + at, (uint32_t)(SECT_EH | SECT_FAT) | (uint32_t)(4 + 24 * (b.neh + 1)) << 8);
    at += 4;
    for (size_t i = 0; i < b.neh; i++, at += 24) {
        const il_clause *c = &b.eh[i];
        uint32_t ts = l.v[map[c->try_start]].offset, te = l.v[map[c->try_end]].offset;
        uint32_t hs = l.v[map[c->handler_start]].offset, he = l.v[map[c->handler_end]].offset;
        wr32(buf + at, c->flags);
        wr32(buf + at + 4, ts);
        wr32(buf + at + 8, te - ts);
        wr32(buf + at + 12, hs);
        wr32(buf + at + 16, he - hs);
        wr32(buf + at + 20, c->flags & 1 ? l.v[map[c->filter_start]].offset : c->class_token);
    }
    wr32(buf + at, 4);                                   /* fault */
    wr32(buf + at + 4, l.v[try_start].offset);
    wr32(buf + at + 8, l.v[handler_start].offset - l.v[try_start].offset);
    wr32(buf + at + 12, l.v[handler_start].offset);
    wr32(buf + at + 16, l.v[epilog_start].offset - l.v[handler_start].offset);
    wr32(buf + at + 20, 0);
    *out = buf;
    *out_len = size;
    buf = NULL;
    rc = 0;
    goto done;
oom:
    fail(why, why_len, "out of memory");
done:
    free(buf);
    free(map);
    free(l.v);
    il_body_free(&b);
    return rc;
}
