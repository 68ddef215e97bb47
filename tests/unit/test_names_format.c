/* test_names_format.c - the pure half of naming: UTF-16 conversion, the
 * bounded builder, generic arity and how type names are put together. */
#include "unit.h"
#include "agent/core/names_format.h"

TEST(utf16_ascii_and_bmp)
{
    static const uint16_t w[] = { 'N', 's', '.', 0x00e9, 0x4e2d, 0 };
    char out[32];
    CHECK_EQ(names_utf16_to_utf8(w, 5, out, sizeof(out)), 8);
    CHECK_STR(out, "Ns.\xc3\xa9\xe4\xb8\xad");
}

TEST(utf16_surrogates)
{
    static const uint16_t pair[] = { 0xd83d, 0xde00 };          /* U+1F600 */
    static const uint16_t lone[] = { 'a', 0xdc00, 'b' };
    char out[16];
    names_utf16_to_utf8(pair, 2, out, sizeof(out));
    CHECK_STR(out, "\xf0\x9f\x98\x80");
    names_utf16_to_utf8(lone, 3, out, sizeof(out));
    CHECK_STR(out, "a\xef\xbf\xbd" "b");
}

TEST(utf16_stops_at_nul_and_capacity)
{
    static const uint16_t w[] = { 'a', 'b', 0, 'c' };
    static const uint16_t e[] = { 0x00e9, 0x00e9, 0x00e9 };
    char out[8];
    names_utf16_to_utf8(w, 4, out, sizeof(out));
    CHECK_STR(out, "ab");
    CHECK_EQ(names_utf16_to_utf8(e, 3, out, 5), 4);           /* never half a character */
    CHECK_STR(out, "\xc3\xa9\xc3\xa9");
}

TEST(utf16_whole_keeps_nuls)
{
    static const uint16_t w[] = { 0x1b, '[', 'm', '\r', '\n', 0, 't', 0x00e9, 0 };
    char out[16];
    size_t n = names_utf16_to_utf8_whole(w, 9, out, sizeof(out));
    CHECK_EQ(n, 10);
    CHECK(memcmp(out, "\x1b[m\r\n\0t\xc3\xa9\0", 11) == 0);      /* and NUL-terminated */
    CHECK_EQ(names_utf16_to_utf8_whole(w, 9, out, 8), 7);          /* stops only when full */
    CHECK(memcmp(out, "\x1b[m\r\n\0t", 8) == 0);
}

TEST(arity_stripping)
{
    unsigned a;
    CHECK_EQ(names_strip_arity("List`1", &a), 4);
    CHECK_EQ(a, 1);
    CHECK_EQ(names_strip_arity("Dictionary`2", &a), 10);
    CHECK_EQ(a, 2);
    CHECK_EQ(names_strip_arity("Plain", &a), 5);
    CHECK_EQ(a, 0);
    CHECK_EQ(names_strip_arity("Odd`x", &a), 5);               /* not an arity suffix */
    CHECK_EQ(a, 0);
    CHECK_EQ(names_strip_arity("Trailing`", &a), 9);
}

TEST(type_level_with_and_without_arguments)
{
    char buf[128];
    sbuf sb;
    const char *args[] = { "System.Int32", "System.String" };

    sb_init(&sb, buf, sizeof(buf));
    names_add_type_level(&sb, "System.Collections.Generic.Dictionary`2", args, 2);
    CHECK_STR(buf, "System.Collections.Generic.Dictionary<System.Int32,System.String>");

    sb_init(&sb, buf, sizeof(buf));
    names_add_type_level(&sb, "Outer`1", NULL, 0);
    sb_addc(&sb, '+');
    names_add_type_level(&sb, "Inner`2", NULL, 0);
    CHECK_STR(buf, "Outer<T>+Inner<T1,T2>");

    sb_init(&sb, buf, sizeof(buf));
    names_add_type_level(&sb, "Ns.Plain", NULL, 0);
    CHECK_STR(buf, "Ns.Plain");
}

TEST(array_suffixes_and_primitives)
{
    char buf[64];
    sbuf sb;
    sb_init(&sb, buf, sizeof(buf));
    sb_add(&sb, names_primitive(0x08));
    names_add_array_suffix(&sb, 1);
    sb_add(&sb, " ");
    sb_add(&sb, names_primitive(0x0e));
    names_add_array_suffix(&sb, 3);
    CHECK_STR(buf, "System.Int32[] System.String[,,]");
    CHECK(names_primitive(0x12) == NULL);                    /* CLASS is not a primitive */
}

TEST(builder_truncates_visibly)
{
    char buf[16];
    sbuf sb;
    sb_init(&sb, buf, sizeof(buf));
    sb_add(&sb, "System.Collections.Generic");
    CHECK(sb.truncated);
    CHECK_EQ(strlen(buf), 15);
    CHECK(strcmp(buf + 12, "...") == 0);
    sb_add(&sb, "more");                                       /* ignored once truncated */
    CHECK_EQ(strlen(buf), 15);
}
