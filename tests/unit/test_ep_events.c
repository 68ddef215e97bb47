/* test_ep_events.c - the runtime's EventPipe payloads as the agent reads
 * them (agent/alloc/ep_events.c): the fields at their manifest offsets, and
 * payloads cut short refused rather than read past their end. */
#include "unit.h"
#include "agent/alloc/ep_events.h"

#include <string.h>

static size_t put(uint8_t *b, size_t at, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        b[at + i] = (uint8_t)(v >> (8 * i));
    return at + n;
}

static size_t put_utf16(uint8_t *b, size_t at, const char *s)
{
    for (; *s; s++)
        at = put(b, at, (unsigned char)*s, 2);
    return put(b, at, 0, 2);
}

TEST(ep_allocation_sampled_fields)
{
    uint8_t b[128];
    size_t n = 0;
    ep_alloc a;

    n = put(b, n, 1, 4);                    /* kind: large */
    n = put(b, n, 7, 2);                    /* ClrInstanceID */
    n = put(b, n, 0x7f0011223344ull, 8);    /* TypeID */
    n = put_utf16(b, n, "System.Byte[]");
    n = put(b, n, 0x7e0000001000ull, 8);    /* Address */
    n = put(b, n, 90024, 8);                /* ObjectSize */
    n = put(b, n, 5000, 8);                 /* SampledByteOffset */
    CHECK_EQ(ep_parse_allocation_sampled(b, n, &a), 0);
    CHECK_EQ(a.kind, 1);
    CHECK_EQ(a.class_id, 0x7f0011223344ull);
    CHECK_EQ(a.type_len, 13);
    CHECK(memcmp(a.type_utf16, "S\0y\0s\0", 6) == 0);
    CHECK_EQ(a.address, 0x7e0000001000ull);
    CHECK_EQ(a.size, 90024);
    CHECK_EQ(a.amount, 5000);
    /* every shorter payload is refused */
    for (size_t cut = 0; cut < n; cut++)
        CHECK_EQ(ep_parse_allocation_sampled(b, cut, &a), -1);
}

TEST(ep_allocation_tick_versions)
{
    uint8_t b[128];
    size_t n = 0;
    ep_alloc a;

    n = put(b, n, 100000, 4);               /* AllocationAmount */
    n = put(b, n, 0, 4);                    /* kind: small */
    n = put(b, n, 1, 2);
    n = put(b, n, 102456, 8);               /* AllocationAmount64 */
    n = put(b, n, 0xabcdull, 8);            /* TypeID */
    n = put_utf16(b, n, "Foo");
    n = put(b, n, 3, 4);                    /* HeapIndex (v3) */
    n = put(b, n, 0x1000, 8);               /* Address (v3) */
    n = put(b, n, 24, 8);                   /* ObjectSize (v4) */
    CHECK_EQ(ep_parse_allocation_tick(b, n, 4, &a), 0);
    CHECK_EQ(a.amount, 102456);
    CHECK_EQ(a.class_id, 0xabcd);
    CHECK_EQ(a.type_len, 3);
    CHECK_EQ(a.address, 0x1000);
    CHECK_EQ(a.size, 24);
    CHECK_EQ(ep_parse_allocation_tick(b, n - 8, 3, &a), 0);   /* v3: no size */
    CHECK_EQ(a.size, 0);
    CHECK_EQ(a.address, 0x1000);
    CHECK_EQ(ep_parse_allocation_tick(b, n - 8, 4, &a), -1);  /* v4 cut short */
    CHECK_EQ(ep_parse_allocation_tick(b, n, 1, &a), -1);      /* v1: no type */
}

TEST(ep_contention_start_and_stop)
{
    uint8_t b[64];
    size_t n = 0;
    ep_contention_start c;
    uint64_t d, bits;
    double ns = 30123456.4;

    n = put(b, n, 0, 1);
    n = put(b, n, 9, 2);
    n = put(b, n, 0x1111, 8);               /* LockID */
    n = put(b, n, 0x2222, 8);               /* AssociatedObjectID */
    n = put(b, n, 0x3333, 8);               /* LockOwnerThreadID */
    CHECK_EQ(n, 27);
    CHECK_EQ(ep_parse_contention_start(b, n, &c), 0);
    CHECK_EQ(c.flags, 0);
    CHECK_EQ(c.lock_id, 0x1111);
    CHECK_EQ(c.object, 0x2222);
    CHECK_EQ(c.owner_thread, 0x3333);
    CHECK_EQ(ep_parse_contention_start(b, 3, &c), 0);          /* V1: flags only */
    CHECK_EQ(c.object, 0);
    CHECK_EQ(ep_parse_contention_start(b, 0, &c), -1);

    n = 0;
    n = put(b, n, 1, 1);
    n = put(b, n, 9, 2);
    memcpy(&bits, &ns, 8);
    n = put(b, n, bits, 8);
    CHECK_EQ(ep_parse_contention_stop(b, n, &d), 0);
    CHECK_EQ(d, 30123456);
    CHECK_EQ(ep_parse_contention_stop(b, 3, &d), 0);           /* V0: no duration */
    CHECK_EQ(d, 0);
    CHECK_EQ(ep_parse_contention_stop(b, 2, &d), -1);
}
