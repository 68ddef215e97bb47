/* test_heap_fields.c - the fields that hold an object's references
 * (agent/heap/heap_fields.h): each reference's word found in the object, in the
 * runtime's order or not, twice the same object, one not there; a
 * property's backing field shown by the property's name; the slots through
 * the codec, continued across records; an entry with an unknown flag. */
#include "unit.h"
#include "agent/heap/heap_fields.h"
#include "trace/heap_codec.h"

#include <string.h>

TEST(heap_fields_slots_found_in_the_object)
{
    /* word 0 the MethodTable, then fields: 1 a (0xA0), 2 an int, 3 b (0xB0), 4 a again, 5 null */
    uint64_t obj[6] = { 0x7000, 0xA0, 42, 0xB0, 0xA0, 0 };
    uint64_t in_order[] = { 0xA0, 0xB0, 0xA0 }, out_of_order[] = { 0xB0, 0xA0 }, missing[] = { 0xC0, 0xB0 };
    uint32_t slots[3];

    heap_fields_slots(obj, 6, in_order, 3, slots);
    CHECK_EQ(slots[0], 1);
    CHECK_EQ(slots[1], 3);
    CHECK_EQ(slots[2], 4);                           /* the same object twice: its own word each time */
    heap_fields_slots(obj, 6, out_of_order, 2, slots);
    CHECK_EQ(slots[0], 3);
    CHECK_EQ(slots[1], 4);                           /* (looked on from after 3, the first after it) */
    heap_fields_slots(obj, 6, missing, 2, slots);
    CHECK_EQ(slots[0], 0);                           /* not in the object: not known */
    CHECK_EQ(slots[1], 3);
    /* the MethodTable word is never a slot; an object of one word has none */
    obj[1] = 0x7000;
    heap_fields_slots(obj, 6, (const uint64_t[]){ 0x7000 }, 1, slots);
    CHECK_EQ(slots[0], 1);
    heap_fields_slots(obj, 1, (const uint64_t[]){ 0x7000 }, 1, slots);
    CHECK_EQ(slots[0], 0);
}

TEST(heap_fields_backing_field_shown_as_the_property)
{
    char out[32];

    heap_fields_display_name("<Leaves>k__BackingField", out, sizeof(out));
    CHECK_STR(out, "Leaves");
    heap_fields_display_name("_items", out, sizeof(out));
    CHECK_STR(out, "_items");
    heap_fields_display_name("<>k__BackingField", out, sizeof(out));
    CHECK_STR(out, "<>k__BackingField");            /* (no name inside: as it is) */
    heap_fields_display_name("<AVeryLongPropertyNameIndeed>k__BackingField", out, 8);
    CHECK_STR(out, "AVeryLo");
}

TEST(heap_fields_slots_through_the_codec)
{
    uint8_t data[120];
    uint64_t refs[40], got[40];
    uint32_t slots[40], got_slots[40];
    size_t from = 0, n = 0;
    heap_enc e;
    heap_dec d;
    heap_obj o;
    int records = 0;

    for (size_t k = 0; k < 40; k++) {
        refs[k] = 0x7f0000000000ull + k * 0x10000000ull;    /* far apart: a record holds a few */
        slots[k] = (uint32_t)(k * 300 + 1);
    }
    while (from < 40 && records < 40) {
        size_t at = from;
        heap_enc_init(&e, data, sizeof(data));
        CHECK(heap_enc_object_slots(&e, 0x7f0000001000ull, 3, 400, HEAP_OBJ_SEEN, refs, slots, 40, &from));
        records++;
        heap_dec_init(&d, data, e.len);
        CHECK_EQ(heap_dec_object_slots(&d, &o, got, got_slots, 40), 1);
        CHECK(o.flags & HEAP_OBJ_SLOTS);                     /* continuations too */
        CHECK_EQ(!!(o.flags & HEAP_OBJ_CONT), at > 0);
        for (size_t k = 0; k < o.nrefs; k++) {
            CHECK(got[k] == refs[at + k]);
            CHECK_EQ(got_slots[k], slots[at + k]);
        }
        n += o.nrefs;
        /* a reader that does not ask for slots skips them */
        heap_dec_init(&d, data, e.len);
        CHECK_EQ(heap_dec_object(&d, &o, got, 40), 1);
        CHECK(got[0] == refs[at]);
        CHECK_EQ(heap_dec_object(&d, &o, got, 40), 0);
    }
    CHECK(records > 1);
    CHECK_EQ(n, 40);
    /* without slots: none in the data, and 0s for a reader that asks */
    from = 0;
    heap_enc_init(&e, data, sizeof(data));
    CHECK(heap_enc_object(&e, 0x1000, 1, 24, 0, refs, 1, &from));
    heap_dec_init(&d, data, e.len);
    got_slots[0] = 99;
    CHECK_EQ(heap_dec_object_slots(&d, &o, got, got_slots, 40), 1);
    CHECK_EQ(o.flags & HEAP_OBJ_SLOTS, 0);
    CHECK_EQ(got_slots[0], 0);
    /* a flag this decoder does not know: malformed, not misread */
    {
        const uint8_t unknown[] = { 0x10, 0x00, 0x01, 0x18, 0x00 };
        heap_dec_init(&d, unknown, sizeof(unknown));
        CHECK_EQ(heap_dec_object(&d, &o, got, 40), -1);
    }
}
