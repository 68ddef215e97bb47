/* test_heap_codec.c - the heap snapshot's dense entries (trace/heap_codec.h):
 * what the agent encodes the report decodes, records that fill up continue
 * an object in the next, truncated data is malformed, never read past. */
#include "unit.h"
#include "trace/heap_codec.h"

#include <stdlib.h>

TEST(heap_codec_varint_and_zigzag)
{
    uint8_t b[HEAP_VARINT_MAX];
    int64_t vals[] = { 0, 1, -1, 63, -64, 64, 1LL << 40, -(1LL << 40), INT64_MAX, INT64_MIN };

    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
        CHECK(heap_unzigzag(heap_zigzag(vals[i])) == vals[i]);
    CHECK_EQ(heap_put_varint(b, 0), 1);
    CHECK_EQ(heap_put_varint(b, 127), 1);
    CHECK_EQ(heap_put_varint(b, 128), 2);
    CHECK_EQ(heap_put_varint(b, UINT64_MAX), 10);
}

/* Objects 24..64 bytes apart, 0-3 references to neighbours and one far
 * away, as a typical heap; every ~500th object has thousands of references
 * (an array), so it must continue across records. */
typedef struct obj {
    uint64_t addr, size;
    uint32_t type, flags;
    size_t nrefs;
    uint64_t *refs;
} obj;

static obj *make_heap(size_t n, unsigned seed)
{
    obj *o = calloc(n, sizeof(*o));
    uint64_t addr = 0x7f1234500000ull;

    srand(seed);
    for (size_t i = 0; i < n; i++) {
        addr += 24 + 8 * (uint64_t)(rand() % 6);
        o[i].addr = addr;
        o[i].size = 24 + 8 * (uint64_t)(rand() % 6);
        o[i].type = (uint32_t)(rand() % 300);
        o[i].flags = (rand() % 7 == 0 ? HEAP_OBJ_SEEN : 0) | (i < 5 ? HEAP_OBJ_FROZEN : 0);
        o[i].nrefs = i % 500 == 7 ? 3000 + (size_t)(rand() % 3000) : (size_t)(rand() % 4);
        o[i].refs = malloc((o[i].nrefs ? o[i].nrefs : 1) * sizeof(uint64_t));
        for (size_t k = 0; k < o[i].nrefs; k++)
            o[i].refs[k] = k == 2 ? 0x7f0000000000ull + (uint64_t)rand() * 8
                                  : addr + (uint64_t)(int64_t)((rand() % 200) - 100) * 8;
    }
    return o;
}

static void free_heap(obj *o, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(o[i].refs);
    free(o);
}

TEST(heap_codec_objects_round_trip_across_records)
{
    enum { N = 5000, CAP = 8000, MAXREC = 400 };
    obj *o = make_heap(N, 11);
    static uint8_t recs[MAXREC][CAP];
    size_t lens[MAXREC], nrec = 0, i = 0, from = 0, total = 0, nrefs_total = 0;
    heap_enc e;
    uint64_t *refs = malloc(CAP * sizeof(uint64_t));

    heap_enc_init(&e, recs[0], CAP);
    for (i = 0; i < N && nrec < MAXREC; i++) {
        int wrote = 0;
        from = 0;
        while (nrec < MAXREC && (!wrote || from < o[i].nrefs)) {
            if (heap_enc_object(&e, o[i].addr, o[i].type, o[i].size, o[i].flags, o[i].refs, o[i].nrefs, &from)) {
                wrote = 1;
                continue;
            }
            CHECK(e.len > 0);          /* an empty record always takes an entry */
            lens[nrec++] = e.len;
            if (nrec < MAXREC)
                heap_enc_init(&e, recs[nrec], CAP);
        }
    }
    if (e.len && nrec < MAXREC)
        lens[nrec++] = e.len;
    CHECK_EQ(i, N);
    CHECK(nrec > 3);

    /* decode every record on its own and put the objects back together */
    i = 0;
    from = 0;
    for (size_t r = 0; r < nrec; r++) {
        heap_dec d;
        heap_obj ho;
        int rc;
        heap_dec_init(&d, recs[r], lens[r]);
        while ((rc = heap_dec_object(&d, &ho, refs, CAP)) == 1) {
            if (ho.flags & HEAP_OBJ_CONT) {
                CHECK(i > 0);
                CHECK(ho.addr == o[i - 1].addr);
                for (size_t k = 0; k < ho.nrefs; k++)
                    CHECK(refs[k] == o[i - 1].refs[from + k]);
                from += ho.nrefs;
                nrefs_total += ho.nrefs;
                continue;
            }
            if (i > 0)
                CHECK_EQ(from, o[i - 1].nrefs);
            CHECK(i < N);
            if (i >= N)
                break;
            if (ho.addr != o[i].addr) unit_fail(__FILE__, __LINE__, "object %zu of record %zu: %llx != %llx, nrefs %zu", i, r, (unsigned long long)ho.addr, (unsigned long long)o[i].addr, o[i].nrefs);
            CHECK_EQ(ho.type, o[i].type);
            CHECK_EQ(ho.size, o[i].size);
            CHECK_EQ(ho.flags, o[i].flags);
            for (size_t k = 0; k < ho.nrefs; k++)
                CHECK(refs[k] == o[i].refs[k]);
            from = ho.nrefs;
            nrefs_total += ho.nrefs;
            i++;
        }
        CHECK_EQ(rc, 0);
        total += lens[r];
    }
    CHECK_EQ(i, N);
    {
        size_t want = 0;
        for (size_t k = 0; k < N; k++)
            want += o[k].nrefs;
        CHECK_EQ(nrefs_total, want);
    }
    free(refs);
    free_heap(o, N);
}

TEST(heap_codec_truncated_or_garbage_data_is_malformed_never_overread)
{
    uint8_t buf[256], copy[256];
    uint64_t refs[256], r3[3] = { 0x1000, 0x2000, 0x0ff8 };
    heap_enc e;
    heap_dec d;
    heap_obj ho;
    heap_root hr;

    heap_enc_init(&e, buf, sizeof(buf));
    {
        size_t from = 0;
        CHECK_EQ(heap_enc_object(&e, 0x1008, 7, 48, 0, r3, 3, &from), 1);
        CHECK_EQ(from, 3);
    }
    for (size_t cut = 1; cut < e.len; cut++) {
        memcpy(copy, buf, cut);       /* exactly cut bytes: ASan sees an over-read */
        heap_dec_init(&d, copy, cut);
        CHECK_EQ(heap_dec_object(&d, &ho, refs, 256), -1);
    }
    /* more references announced than the caller has room for */
    heap_dec_init(&d, buf, e.len);
    CHECK_EQ(heap_dec_object(&d, &ho, refs, 2), -1);
    /* an 11-byte varint */
    memset(copy, 0xff, 11);
    heap_dec_init(&d, copy, 11);
    CHECK_EQ(heap_dec_object(&d, &ho, refs, 256), -1);

    heap_enc_init(&e, buf, sizeof(buf));
    CHECK(heap_enc_root(&e, HEAP_ROOT_HANDLE, 0x1, 0x7fff00001000ull, 0x7ffe12345678ull));
    CHECK(heap_enc_root(&e, HEAP_ROOT_STACK, 0, 0x7fff00000ff0ull, 0));
    heap_dec_init(&d, buf, e.len);
    CHECK_EQ(heap_dec_root(&d, &hr), 1);
    CHECK(hr.kind == HEAP_ROOT_HANDLE && hr.flags == 1 && hr.object == 0x7fff00001000ull && hr.id == 0x7ffe12345678ull);
    CHECK_EQ(heap_dec_root(&d, &hr), 1);
    CHECK(hr.kind == HEAP_ROOT_STACK && hr.object == 0x7fff00000ff0ull && hr.id == 0);
    CHECK_EQ(heap_dec_root(&d, &hr), 0);
    {
        size_t first;
        heap_dec_init(&d, buf, e.len);
        heap_dec_root(&d, &hr);
        first = (size_t)(d.p - buf);
        for (size_t cut = 1; cut < e.len; cut++) {
            int a, b;
            memcpy(copy, buf, cut);
            heap_dec_init(&d, copy, cut);
            a = heap_dec_root(&d, &hr);
            b = a == 1 ? heap_dec_root(&d, &hr) : -1;
            if (cut == first)
                CHECK(a == 1 && b == 0);
            else
                CHECK(a == -1 || b == -1);
        }
    }
    /* a full record refuses a root it cannot hold whole */
    heap_enc_init(&e, buf, 5);
    CHECK_EQ(heap_enc_root(&e, HEAP_ROOT_STACK, 0, 0x7fff00000ff0ull, 0x7f0000001234ull), 0);
    CHECK_EQ(e.len, 0);
}

TEST(heap_codec_is_dense)
{
    /* objects 32 bytes apart with two near references: a few bytes each */
    uint8_t buf[8192];
    heap_enc e;
    uint64_t refs[2];
    size_t n = 0;

    heap_enc_init(&e, buf, sizeof(buf));
    for (uint64_t a = 0x7f0000001000ull;; a += 32, n++) {
        refs[0] = a + 32;
        refs[1] = a - 64;
        size_t from = 0;
        if (!heap_enc_object(&e, a, 12, 32, 0, refs, 2, &from) || from != 2)
            break;
    }
    CHECK(n > 0);
    if (n)
        CHECK(e.len / n <= 8);
}
