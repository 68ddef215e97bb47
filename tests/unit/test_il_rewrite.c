/* test_il_rewrite.c - the IL rewriter (agent/tracer/il_rewrite.h) on method bodies
 * the C# compiler wrote (il_fixtures.h, from sample/IlShapes.cs: a tiny
 * header, short and long branches, a switch, nested try/catch/finally with
 * a filter, a method that only throws, an early return from a void method,
 * a generic method, an async state machine's MoveNext) and on a synthetic
 * body longer than 64 KB (no real one is in the repository): each
 * rewritten body is decoded again and checked instruction by instruction
 * against the original (the probes where they belong, every branch and
 * switch target and every EH clause on the same instruction as before, the
 * fault clause around it all), and the refusals. */
#include "unit.h"
#include "agent/tracer/il_rewrite.h"
#include "il_fixtures.h"

#include <stdlib.h>
#include <string.h>

#define ID 0x1122334455667788ull
#define ENTER 0x7f0000001000ull
#define LEAVE 0x7f0000002000ull
#define THROWN 0x7f0000003000ull
#define SIG 0x11000042u
#define LOCALS 0x11000043u

static uint8_t *unhex(const char *hex, size_t *len)
{
    size_t n = strlen(hex) / 2;
    uint8_t *b = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        b[i] = (uint8_t)v;
    }
    *len = n;
    return b;
}

static int is_ret_op(uint16_t op) { return op == 0x2A; }
static int short_branch(uint16_t op) { return (op >= 0x2B && op <= 0x37) || op == 0xDE; }
static uint16_t long_form(uint16_t op) { return op == 0xDE ? 0xDD : op >= 0x2B && op <= 0x37 ? op + 13 : op; }
static int branch_op(uint16_t op) { return (op >= 0x2B && op <= 0x44) || op == 0xDD || op == 0xDE; }

/* Does the new body at index *k hold the probe calling fn?  Advances *k. */
static int probe_at(const il_body *nb, size_t *k, uint64_t fn)
{
    if (*k + 3 > nb->n)
        return 0;
    const il_instr *a = &nb->ins[*k];
    int ok = a[0].opcode == 0x21 && (uint64_t)a[0].operand == ID && a[1].opcode == 0x21 &&
             (uint64_t)a[1].operand == fn && a[2].opcode == 0x29 && (uint32_t)a[2].operand == SIG;
    *k += 3;
    return ok;
}

/* Rewrites body and checks the result against it (see the top). */
static void check_rewrite(const char *name, const uint8_t *body, size_t len, int returns_value)
{
    il_body ob, nb;
    il_probes p = { .id = ID, .enter = ENTER, .leave = LEAVE, .thrown = THROWN, .calli_sig = SIG,
                    .returns_value = returns_value, .local_sig = LOCALS, .ret_local = 300 };
    uint8_t *out = NULL;
    size_t out_len = 0, k = 0, handler, epilog;
    size_t *map;
    char why[256] = "";

    CHECK_EQ(0, il_decode(body, len, &ob, why, sizeof(why)));
    if (why[0])
        unit_fail(__FILE__, __LINE__, "%s: %s", name, why);
    CHECK_EQ(len, il_body_size(body, len));
    CHECK_EQ(0, il_add_probes(body, len, &p, &out, &out_len, why, sizeof(why)));
    if (!out) {
        unit_fail(__FILE__, __LINE__, "%s: %s", name, why);
        il_body_free(&ob);
        return;
    }
    CHECK_EQ(out_len, il_body_size(out, out_len));
    if (il_decode(out, out_len, &nb, why, sizeof(why)) < 0) {
        unit_fail(__FILE__, __LINE__, "%s: the rewritten body does not decode: %s", name, why);
        free(out);
        il_body_free(&ob);
        return;
    }
    CHECK(nb.fat);
    CHECK_EQ(ob.max_stack + 2, nb.max_stack);
    CHECK_EQ(ob.fat ? (ob.flags & 0x10) : 0, nb.flags & 0x10);     /* InitLocals kept */
    CHECK_EQ(returns_value ? LOCALS : ob.local_sig, nb.local_sig);
    map = calloc(ob.n + 1, sizeof(*map));
    /* the entry probe, then the original instructions in order */
    CHECK(probe_at(&nb, &k, ENTER));
    for (size_t i = 0; i < ob.n; i++) {
        const il_instr *o = &ob.ins[i];
        map[i] = k;
        if (k + 5 > nb.n) {
            unit_fail(__FILE__, __LINE__, "%s: the rewritten body is short", name);
            break;
        }
        if (is_ret_op(o->opcode)) {
            if (returns_value) {
                CHECK_EQ(0xFE0E, nb.ins[k].opcode);
                CHECK_EQ(300, nb.ins[k].operand);
                k++;
            }
            CHECK(probe_at(&nb, &k, LEAVE));
            CHECK_EQ(0xDD, nb.ins[k].opcode);                       /* leave EPILOG, checked below */
            k++;
            continue;
        }
        CHECK_EQ(long_form(o->opcode), nb.ins[k].opcode);
        if (!branch_op(o->opcode) && o->opcode != 0x45) {
            CHECK_EQ(o->operand, nb.ins[k].operand);
            CHECK_EQ(o->size, nb.ins[k].size);
        }
        if (short_branch(o->opcode))
            CHECK_EQ(5, nb.ins[k].size);
        k++;
    }
    map[ob.n] = k;
    handler = k;
    CHECK(probe_at(&nb, &k, THROWN));
    CHECK_EQ(0xDC, nb.ins[k].opcode);
    k++;
    epilog = k;
    if (returns_value) {
        CHECK_EQ(0xFE0C, nb.ins[k].opcode);
        CHECK_EQ(300, nb.ins[k].operand);
        k++;
    }
    CHECK_EQ(0x2A, nb.ins[k].opcode);
    CHECK_EQ(nb.n, k + 1);
    /* every branch and switch goes where it went, every leave of a ret to the epilog */
    for (size_t i = 0; i < ob.n; i++) {
        const il_instr *o = &ob.ins[i];
        if (branch_op(o->opcode))
            CHECK_EQ((int64_t)map[o->operand], nb.ins[map[i]].operand);
        if (o->opcode == 0x45) {
            CHECK_EQ(o->operand, nb.ins[map[i]].operand);
            for (int64_t t = 0; t < o->operand; t++)
                CHECK_EQ(map[o->targets[t]], nb.ins[map[i]].targets[t]);
        }
        if (is_ret_op(o->opcode))
            CHECK_EQ((int64_t)epilog, nb.ins[map[i] + (returns_value ? 4 : 3)].operand);
    }
    /* the clauses: the original ones on their instructions, then the fault */
    CHECK_EQ(ob.neh + 1, nb.neh);
    for (size_t c = 0; c < ob.neh && c < nb.neh; c++) {
        CHECK_EQ(ob.eh[c].flags, nb.eh[c].flags);
        CHECK_EQ(map[ob.eh[c].try_start], nb.eh[c].try_start);
        CHECK_EQ(map[ob.eh[c].try_end], nb.eh[c].try_end);
        CHECK_EQ(map[ob.eh[c].handler_start], nb.eh[c].handler_start);
        CHECK_EQ(map[ob.eh[c].handler_end], nb.eh[c].handler_end);
        if (ob.eh[c].flags & 1)
            CHECK_EQ(map[ob.eh[c].filter_start], nb.eh[c].filter_start);
        else
            CHECK_EQ(ob.eh[c].class_token, nb.eh[c].class_token);
    }
    if (nb.neh == ob.neh + 1) {
        const il_clause *f = &nb.eh[ob.neh];
        CHECK_EQ(4u, f->flags);
        CHECK_EQ(3u, f->try_start);
        CHECK_EQ(handler, f->try_end);
        CHECK_EQ(handler, f->handler_start);
        CHECK_EQ(epilog, f->handler_end);
    }
    free(map);
    free(out);
    il_body_free(&nb);
    il_body_free(&ob);
}

static const il_fixture *fixture(const char *name)
{
    for (size_t i = 0; i < sizeof(il_fixtures) / sizeof(il_fixtures[0]); i++)
        if (strcmp(il_fixtures[i].name, name) == 0)
            return &il_fixtures[i];
    return NULL;
}

static void check_fixture(const char *name, int returns_value, int expect_tiny, size_t min_clauses)
{
    const il_fixture *f = fixture(name);
    il_body b;
    size_t len;
    uint8_t *body;
    char why[256];

    CHECK(f != NULL);
    if (!f)
        return;
    body = unhex(f->hex, &len);
    CHECK_EQ(0, il_decode(body, len, &b, why, sizeof(why)));
    if (expect_tiny >= 0)
        CHECK_EQ(expect_tiny, !b.fat);
    CHECK(b.neh >= min_clauses);
    il_body_free(&b);
    check_rewrite(name, body, len, returns_value);
    free(body);
}

TEST(il_rewrite_compiled_methods)
{
    check_fixture("Tiny", 1, 1, 0);
    check_fixture("Branches", 1, -1, 0);
    check_fixture("LongBranch", 1, 0, 0);
    check_fixture("Switch", 1, -1, 0);
    check_fixture("Nested", 1, 0, 3);
    check_fixture("OnlyThrows", 0, 1, 0);
    check_fixture("VoidEarly", 0, -1, 0);
    check_fixture("Pick", 1, 1, 0);
    check_fixture("<AsyncWork>d__8.MoveNext", 0, 0, 1);
}

TEST(il_rewrite_fixtures_have_the_shapes_they_claim)
{
    const il_fixture *f;
    il_body b;
    size_t len, shorts = 0, longs = 0, switches = 0, rets = 0, filters = 0;
    uint8_t *body;
    char why[256];

    f = fixture("Branches");
    body = unhex(f->hex, &len);
    CHECK_EQ(0, il_decode(body, len, &b, why, sizeof(why)));
    for (size_t i = 0; i < b.n; i++) {
        shorts += short_branch(b.ins[i].opcode);
        rets += is_ret_op(b.ins[i].opcode);
    }
    CHECK(shorts >= 2);
    CHECK(rets >= 1);
    il_body_free(&b);
    free(body);
    f = fixture("LongBranch");
    body = unhex(f->hex, &len);
    CHECK_EQ(0, il_decode(body, len, &b, why, sizeof(why)));
    for (size_t i = 0; i < b.n; i++)
        longs += b.ins[i].opcode >= 0x38 && b.ins[i].opcode <= 0x44;
    CHECK(longs >= 1);
    il_body_free(&b);
    free(body);
    f = fixture("Switch");
    body = unhex(f->hex, &len);
    CHECK_EQ(0, il_decode(body, len, &b, why, sizeof(why)));
    for (size_t i = 0; i < b.n; i++)
        switches += b.ins[i].opcode == 0x45;
    CHECK_EQ(1u, switches);
    il_body_free(&b);
    free(body);
    f = fixture("Nested");
    body = unhex(f->hex, &len);
    CHECK_EQ(0, il_decode(body, len, &b, why, sizeof(why)));
    for (size_t i = 0; i < b.neh; i++)
        filters += b.eh[i].flags == 1;
    CHECK_EQ(1u, filters);
    il_body_free(&b);
    free(body);
}

/* A body longer than 64 KB: a backward branch across all of it, short
 * branches at both ends (widened), a try/finally around most of it (fat
 * clauses, lengths over 65535). */
TEST(il_rewrite_body_longer_than_64k)
{
    enum { REPS = 9000 };                     /* 8 bytes each: ~72 KB */
    size_t code_len = 0, len, at;
    uint8_t *code = malloc(REPS * 8 + 64), *body;
    uint32_t loop_top, try_start, try_end, fin_start, fin_end;

    /* 0: ldc.i4.0 stloc.0 */
    code[code_len++] = 0x16;
    code[code_len++] = 0x0A;
    loop_top = (uint32_t)code_len;
    try_start = loop_top;
    code[code_len++] = 0x06;                  /* ldloc.0 */
    code[code_len++] = 0x2C;                  /* brfalse.s +0: a short branch to the next instruction */
    code[code_len++] = 0x00;
    for (int i = 0; i < REPS; i++) {          /* ldloc.0 ldc.i4 i add stloc.0 (8 bytes) */
        code[code_len++] = 0x06;
        code[code_len++] = 0x20;
        code[code_len++] = (uint8_t)i;
        code[code_len++] = (uint8_t)(i >> 8);
        code[code_len++] = 0;
        code[code_len++] = 0;
        code[code_len++] = 0x58;
        code[code_len++] = 0x0A;
    }
    code[code_len++] = 0xDE;                  /* leave.s after the finally */
    code[code_len++] = 0x03;
    try_end = (uint32_t)code_len;
    fin_start = try_end;
    code[code_len++] = 0x00;                  /* nop */
    code[code_len++] = 0x00;
    code[code_len++] = 0xDC;                  /* endfinally */
    fin_end = (uint32_t)code_len;
    code[code_len++] = 0x06;                  /* ldloc.0 */
    code[code_len++] = 0x16;                  /* ldc.i4.0 */
    {
        /* blt back to loop_top: long */
        int32_t rel = (int32_t)loop_top - (int32_t)(code_len + 5);
        code[code_len++] = 0x3F;
        memcpy(code + code_len, &rel, 4);
        code_len += 4;
    }
    code[code_len++] = 0x06;                  /* ldloc.0 ret */
    code[code_len++] = 0x2A;
    len = ((12 + code_len + 3) & ~(size_t)3) + 4 + 24;
    body = calloc(1, len);
    body[0] = 0x1B;                           /* fat, MoreSects, InitLocals */
    body[1] = 0x30;
    body[2] = 2;                              /* max stack */
    memcpy(body + 4, &(uint32_t){ (uint32_t)code_len }, 4);
    memcpy(body + 8, &(uint32_t){ 0x11000001 }, 4);
    memcpy(body + 12, code, code_len);
    at = (12 + code_len + 3) & ~(size_t)3;
    body[at] = 0x41;                          /* EH, fat */
    memcpy(body + at + 1, &(uint32_t){ 28 }, 3);
    memcpy(body + at + 4, &(uint32_t){ 2 }, 4);             /* finally */
    memcpy(body + at + 8, &try_start, 4);
    memcpy(body + at + 12, &(uint32_t){ try_end - try_start }, 4);
    memcpy(body + at + 16, &fin_start, 4);
    memcpy(body + at + 20, &(uint32_t){ fin_end - fin_start }, 4);
    CHECK(code_len > 65536);
    check_rewrite("long", body, len, 1);
    free(body);
    free(code);
}

static int refusal(const uint8_t *body, size_t len, const char *needle)
{
    il_probes p = { .id = ID, .enter = ENTER, .leave = LEAVE, .thrown = THROWN, .calli_sig = SIG };
    uint8_t *out = NULL;
    size_t out_len;
    char why[256] = "";
    int rc = il_add_probes(body, len, &p, &out, &out_len, why, sizeof(why));
    free(out);
    return rc == -1 && out == NULL && strstr(why, needle) != NULL;
}

TEST(il_rewrite_refusals)
{
    /* tiny bodies: (size << 2) | 2 */
    static const uint8_t tail_call[] = { (9 << 2) | 2, 0x02, 0xFE, 0x14, 0x28, 1, 0, 0, 0x0A, 0x2A };
    static const uint8_t jmp[] = { (6 << 2) | 2, 0x27, 1, 0, 0, 0x06, 0x2A };
    static const uint8_t unknown[] = { (2 << 2) | 2, 0x24, 0x2A };
    static const uint8_t mid_branch[] = { (5 << 2) | 2, 0x2B, 0x01, 0x1F, 0x05, 0x2A };   /* into ldc.i4.s's operand */
    static const uint8_t cut[] = { (3 << 2) | 2, 0x20, 0x01, 0x00 };
    static const uint8_t beyond[] = { (10 << 2) | 2, 0x2A };

    CHECK(refusal(tail_call, sizeof(tail_call), "tail call"));
    CHECK(refusal(jmp, sizeof(jmp), "jmp"));
    CHECK(refusal(unknown, sizeof(unknown), "unknown opcode 0x24"));
    CHECK(refusal(mid_branch, sizeof(mid_branch), "no instruction"));
    CHECK(refusal(cut, sizeof(cut), "cut short"));
    CHECK(refusal(beyond, sizeof(beyond), "beyond"));
    CHECK_EQ(0u, il_body_size(beyond, sizeof(beyond)));
}

/* ---- signatures (agent/tracer/il_sig.h) ---- */

#include "agent/tracer/il_sig.h"

static int ret_of(const uint8_t *sig, size_t len, size_t *off, size_t *n, int *is_void)
{
    return il_sig_return_type(sig, len, off, n, is_void);
}

TEST(il_sig_return_types)
{
    size_t off, n;
    int v;
    static const uint8_t int_of_int[] = { 0x00, 0x01, 0x08, 0x08 };                 /* static int (int) */
    static const uint8_t void_this[] = { 0x20, 0x00, 0x01 };                        /* instance void () */
    static const uint8_t pick[] = { 0x10, 0x01, 0x03, 0x1E, 0x00, 0x02, 0x1E, 0x00, 0x1E, 0x00 }; /* !!0 Pick<T>(bool, !!0, !!0) */
    static const uint8_t task_int[] = { 0x00, 0x01, 0x15, 0x12, 0x81, 0x23, 0x01, 0x08, 0x08 }; /* Task<int> (int) */
    static const uint8_t ref_ret[] = { 0x00, 0x00, 0x10, 0x08 };                    /* ref int () */
    static const uint8_t modreq[] = { 0x00, 0x00, 0x1F, 0x2C, 0x10, 0x08 };         /* modreq(InAttribute) ref int () */
    static const uint8_t array2[] = { 0x00, 0x00, 0x14, 0x08, 0x02, 0x00, 0x02, 0x00, 0x00 }; /* int[,] () */
    static const uint8_t fnptr[] = { 0x00, 0x00, 0x1B, 0x00, 0x01, 0x01, 0x08 };    /* delegate*<int, void> () */
    static const uint8_t cut[] = { 0x00, 0x01, 0x15, 0x12 };
    static const uint8_t bad[] = { 0x00, 0x00, 0x42 };

    CHECK_EQ(0, ret_of(int_of_int, sizeof(int_of_int), &off, &n, &v));
    CHECK_EQ(2u, off); CHECK_EQ(1u, n); CHECK_EQ(0, v);
    CHECK_EQ(0, ret_of(void_this, sizeof(void_this), &off, &n, &v));
    CHECK_EQ(1, v);
    CHECK_EQ(0, ret_of(pick, sizeof(pick), &off, &n, &v));
    CHECK_EQ(3u, off); CHECK_EQ(2u, n); CHECK_EQ(0, v);
    CHECK_EQ(0, ret_of(task_int, sizeof(task_int), &off, &n, &v));
    CHECK_EQ(2u, off); CHECK_EQ(6u, n);
    CHECK_EQ(0, ret_of(ref_ret, sizeof(ref_ret), &off, &n, &v));
    CHECK_EQ(2u, n);
    CHECK_EQ(0, ret_of(modreq, sizeof(modreq), &off, &n, &v));
    CHECK_EQ(4u, n);
    CHECK_EQ(0, ret_of(array2, sizeof(array2), &off, &n, &v));
    CHECK_EQ(7u, n);
    CHECK_EQ(0, ret_of(fnptr, sizeof(fnptr), &off, &n, &v));
    CHECK_EQ(5u, n);
    CHECK_EQ(-1, ret_of(cut, sizeof(cut), &off, &n, &v));
    CHECK_EQ(-1, ret_of(bad, sizeof(bad), &off, &n, &v));
}

TEST(il_sig_locals_with_one_more)
{
    static const uint8_t locals[] = { 0x07, 0x03, 0x08, 0x45, 0x10, 0x08, 0x15, 0x12, 0x10, 0x01, 0x0E };
    static const uint8_t i4[] = { 0x08 };
    static const uint8_t want_none[] = { 0x07, 0x01, 0x08 };
    static const uint8_t want_more[] = { 0x07, 0x04, 0x08, 0x45, 0x10, 0x08, 0x15, 0x12, 0x10, 0x01, 0x0E, 0x08 };
    static const uint8_t broken[] = { 0x07, 0x02, 0x08 };
    uint8_t out[IL_SIG_MAX];
    size_t n;
    uint32_t idx;

    CHECK_EQ(0, il_sig_add_local(NULL, 0, i4, 1, out, sizeof(out), &n, &idx));
    CHECK_EQ(sizeof(want_none), n);
    CHECK(memcmp(out, want_none, n) == 0);
    CHECK_EQ(0u, idx);
    CHECK_EQ(0, il_sig_add_local(locals, sizeof(locals), i4, 1, out, sizeof(out), &n, &idx));
    CHECK_EQ(sizeof(want_more), n);
    CHECK(memcmp(out, want_more, n) == 0);
    CHECK_EQ(3u, idx);
    CHECK_EQ(-1, il_sig_add_local(broken, sizeof(broken), i4, 1, out, sizeof(out), &n, &idx));
    CHECK_EQ(-1, il_sig_add_local(locals, sizeof(locals), i4, 1, out, 5, &n, &idx));
}
