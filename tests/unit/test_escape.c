/* test_escape.c - the escaping of untrusted strings for printing
 * (common/escape.h): controls, C1, bytes that are not UTF-8, bidi and line
 * separators, the report's C0 80 NUL, extra characters, long names kept
 * whole, and the stream and buffer forms agreeing. */
#include "unit.h"
#include "common/escape.h"

#include <stdlib.h>
#include <string.h>

/* The buffer form of s[0..n), checked against the stream form. */
static const char *esc(const char *s, size_t n, const char *extra)
{
    static char out[4096];
    char *mem = NULL;
    size_t memlen = 0, total, written;
    FILE *f = open_memstream(&mem, &memlen);

    total = esc_buf(out, sizeof(out), s, n, extra);
    CHECK(total < sizeof(out));
    CHECK_EQ(total, strlen(out));
    CHECK(f != NULL);
    if (f) {
        written = esc_write(f, s, n, extra);
        fclose(f);
        CHECK_EQ(written, memlen);
        CHECK(mem && strcmp(mem, out) == 0);
        free(mem);
    }
    return out;
}

#define ESC(lit) esc((lit), sizeof(lit) - 1, NULL)

TEST(escape_printable_text_is_unchanged)
{
    CHECK_STR(ESC("Worker 1: Ünïcödé ✓ 日本 😀"), "Worker 1: Ünïcödé ✓ 日本 😀");
    CHECK_STR(ESC("C:\\path\\n and a\\x41"), "C:\\path\\n and a\\x41");   /* backslash left alone */
    CHECK_STR(ESC(""), "");
}

TEST(escape_c0_controls_and_del)
{
    CHECK_STR(ESC("a\nb\rc\td"), "a\\nb\\rc\\td");
    CHECK_STR(ESC("\x1b[31mred\x1b[0m"), "\\x1b[31mred\\x1b[0m");
    CHECK_STR(ESC("bell\a back\b del\x7f"), "bell\\x07 back\\x08 del\\x7f");
    CHECK_STR(ESC("nul\0tail"), "nul\\0tail");                  /* a real NUL inside the length */
    CHECK_STR(ESC("\x01\x1f"), "\\x01\\x1f");
}

TEST(escape_c1_controls)
{
    CHECK_STR(ESC("next\xc2\x85line"), "next\\u0085line");        /* U+0085 NEL */
    CHECK_STR(ESC("csi\xc2\x9b" "31m"), "csi\\u009b31m");          /* U+009B CSI */
    CHECK_STR(ESC("\xc2\x80\xc2\x9f\xc2\xa0"), "\\u0080\\u009f\xc2\xa0");   /* NBSP is printable */
}

TEST(escape_invalid_utf8_bytes)
{
    CHECK_STR(ESC("a\xff" "b"), "a\\xffb");
    CHECK_STR(ESC("\xe2\x82"), "\\xe2\\x82");                     /* cut sequence */
    CHECK_STR(ESC("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");             /* overlong '/' */
    CHECK_STR(ESC("\xed\xa0\x80"), "\\xed\\xa0\\x80");             /* a surrogate */
    CHECK_STR(ESC("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");    /* > U+10FFFF */
    CHECK_STR(ESC("\x80x"), "\\x80x");                            /* lone continuation */
}

TEST(escape_bidi_and_line_separators)
{
    CHECK_STR(ESC("a\xe2\x80\xa8" "b\xe2\x80\xa9" "c"), "a\\u2028b\\u2029c");
    CHECK_STR(ESC("\xe2\x80\xaa\xe2\x80\xae" "evil"), "\\u202a\\u202eevil");
    CHECK_STR(ESC("\xe2\x81\xa6\xe2\x81\xa9"), "\\u2066\\u2069");
    CHECK_STR(ESC("\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa"),
              "\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa");   /* the neighbours pass */
}

TEST(escape_report_nul_c0_80)
{
    CHECK_STR(ESC("evil\xc0\x80tail"), "evil\\0tail");
    CHECK_STR(ESC("\xc0\x81"), "\\xc0\\x81");                     /* other overlong forms stay bytes */
    CHECK_STR(ESC("\xc0"), "\\xc0");
}

TEST(escape_extra_characters)
{
    CHECK_STR(esc("A;B;C", 5, ";"), "A\\x3bB\\x3bC");
    CHECK_STR(esc("A;B", 3, NULL), "A;B");
    CHECK_STR(esc("a\0;", 3, ";"), "a\\0\\x3b");                   /* NUL is never taken for the end of extra */
}

TEST(escape_is_idempotent)
{
    static const char hostile[] = "\x1b[31mevil\r\n  runtime    .NET 99\0tail\xc2\x85\xe2\x80\xae\xff";
    const char *once = ESC(hostile);
    char copy[512];
    snprintf(copy, sizeof(copy), "%s", once);
    CHECK_STR(copy, "\\x1b[31mevil\\r\\n  runtime    .NET 99\\0tail\\u0085\\u202e\\xff");
    CHECK_STR(esc(copy, strlen(copy), NULL), copy);
}

TEST(escape_keeps_long_names_whole)
{
    size_t n = 3000, total;
    char *name = malloc(n + 1), *dup;
    char small[16];

    CHECK(name != NULL);
    if (!name)
        return;
    for (size_t i = 0; i < n; i++)
        name[i] = (i % 100 == 99) ? '\n' : (char)('a' + i % 26);
    name[n] = '\0';
    dup = esc_dup(name);
    CHECK(dup != NULL);
    if (dup) {
        CHECK_EQ(strlen(dup), n + n / 100);                       /* every byte there, 30 become 2 */
        CHECK(strchr(dup, '\n') == NULL);
        CHECK_STR(dup + strlen(dup) - 3, "i\\n");                 /* ... down to the last one */
        free(dup);
    }
    /* too small a buffer: the whole length is returned, the text stops
     * before an escape that does not fit */
    total = esc_buf(small, sizeof(small), "abcdefghijklm\x1b", 14, NULL);
    CHECK_EQ(total, 17);
    CHECK_STR(small, "abcdefghijklm");
    total = esc_buf(small, sizeof(small), "\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5", 15, NULL);
    CHECK_EQ(total, 15);
    CHECK_STR(small, "\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5");
    total = esc_buf(small, 4, "\xe6\x97\xa5\xe6\x97\xa5", 6, NULL);
    CHECK_EQ(total, 6);
    CHECK_STR(small, "\xe6\x97\xa5");                            /* never half a character */
    free(name);
}

TEST(escape_utf8_next)
{
    uint32_t cp = 0;
    CHECK_EQ(utf8_next((const unsigned char *)"\xe2\x82\xac", 3, &cp), 3);
    CHECK_EQ(cp, 0x20ac);
    CHECK_EQ(utf8_next((const unsigned char *)"\xe2\x82\xac", 2, &cp), 0);   /* bounded by n */
    CHECK_EQ(utf8_next((const unsigned char *)"\xf0\x9f\x98\x80", 4, &cp), 4);
    CHECK_EQ(cp, 0x1f600);
    CHECK_EQ(utf8_next((const unsigned char *)"\xc0\x80", 2, &cp), 0);
    CHECK_EQ(utf8_next((const unsigned char *)"x", 0, &cp), 0);
}
