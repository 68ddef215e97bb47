/* test_html_page.c - the html report's page files (src/report/page/) as the
 * command has them built in (html_page_files.S): each equals its file in the
 * source tree, every file there is built in, page.html names each other file
 * once, and the page written from them is page.html with the files, the
 * title and the data put in and the files' own header comments left out.
 * (tests/e2e/test_html.sh has node check the scripts' syntax.) */
#include "unit.h"
#include "report/html_page.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_DIR "src/report/page"      /* the unit tests run from the top of the tree */

static char *read_file(const char *name, size_t *n)
{
    char path[256];
    FILE *f;
    char *p = NULL;
    long len;

    *n = 0;
    snprintf(path, sizeof path, "%s/%s", PAGE_DIR, name);
    if (!(f = fopen(path, "rb")))
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (p = malloc((size_t)len + 1)) != NULL && fread(p, 1, (size_t)len, f) == (size_t)len) {
        p[len] = 0;
        *n = (size_t)len;
    }
    fclose(f);
    return p;
}

static const char *built_in(const char *want)
{
    const char *name, *text;

    for (size_t i = 0; (text = rp_html_page_file(i, &name)) != NULL; i++)
        if (strcmp(name, want) == 0)
            return text;
    return NULL;
}

static size_t nbuilt_in(void)
{
    const char *name;
    size_t i = 0;

    while (rp_html_page_file(i, &name))
        i++;
    return i;
}

/* The page written with title and data, NUL-terminated. */
static char *write_page(const char *title, const char *data, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);

    if (!f)
        return NULL;
    CHECK_EQ(rp_html_page_write(f, title, data, strlen(data)), 0);
    fclose(f);
    return buf;
}

/* A file's text after its header comment (what the page gets of it). */
static const char *after_header(const char *text)
{
    const char *close = text[0] == '<' ? "-->\n" : "*/\n", *end = strstr(text, close);
    return end ? end + strlen(close) : NULL;
}

TEST(html_page_files_built_in_equal_the_source)
{
    const char *name, *text;
    size_t i, n;

    for (i = 0; (text = rp_html_page_file(i, &name)) != NULL; i++) {
        char *file = read_file(name, &n);
        CHECK(file != NULL);
        if (!file)
            continue;
        /* the same length: a NUL in a file would end its text early */
        if (strlen(text) != n || memcmp(text, file, n) != 0)
            unit_fail(__FILE__, __LINE__, "%s/%s (%zu bytes) differs from the %zu bytes built in: rebuild with make",
                      PAGE_DIR, name, n, strlen(text));
        free(file);
    }
    CHECK(i >= 2);
    CHECK(built_in("page.html") != NULL);
}

TEST(html_page_every_source_file_is_built_in)
{
    DIR *d = opendir(PAGE_DIR);
    struct dirent *e;
    size_t seen = 0;

    CHECK(d != NULL);
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        seen++;
        if (!built_in(e->d_name))
            unit_fail(__FILE__, __LINE__, "%s/%s is not built in: add it to html_page_files.S and html_page.c",
                      PAGE_DIR, e->d_name);
    }
    closedir(d);
    CHECK_EQ(seen, nbuilt_in());
}

/* Each file has its header comment, saying what it is for. */
TEST(html_page_files_start_with_a_comment_naming_them)
{
    const char *name, *text;
    char want[64];

    for (size_t i = 0; (text = rp_html_page_file(i, &name)) != NULL; i++) {
        snprintf(want, sizeof want, "%s%s - ", strcmp(name, "page.html") == 0 ? "<!-- " : "/* ", name);
        if (strncmp(text, want, strlen(want)) != 0)
            unit_fail(__FILE__, __LINE__, "%s does not start with \"%s\"", name, want);
        CHECK(after_header(text) != NULL);
    }
}

/* page.html's lines @NAME@ name every other file once and nothing else. */
TEST(html_page_template_names_each_file_once)
{
    const char *page = built_in("page.html"), *name, *text;
    char line[64];

    CHECK(page != NULL);
    if (!page)
        return;
    for (size_t i = 0; (text = rp_html_page_file(i, &name)) != NULL; i++) {
        int count = 0;
        snprintf(line, sizeof line, "\n@%s@\n", name);
        for (const char *p = page; (p = strstr(p, line)) != NULL; p++)
            count++;
        if (count != (strcmp(name, "page.html") == 0 ? 0 : 1))
            unit_fail(__FILE__, __LINE__, "page.html names %s %d times", name, count);
    }
    /* no other line @NAME@ but the data's */
    for (const char *p = page; (p = strstr(p, "\n@")) != NULL; p++) {
        size_t n = strcspn(p + 1, "\n");
        if (n >= 2 && p[n] == '@') {
            snprintf(line, sizeof line, "%.*s", (int)(n - 2), p + 2);
            if (!built_in(line) && strcmp(line, "DATA") != 0)
                unit_fail(__FILE__, __LINE__, "page.html names @%s@, which is no page file", line);
        }
    }
    CHECK(strstr(page, "\n@DATA@\n") != NULL);
    CHECK(strstr(page, "@TITLE@") != NULL);
}

/* The page: page.html without its header, each file's body where it is named,
 * the title escaped, the data made safe; nothing of the headers or the
 * markers is left. */
TEST(html_page_written_from_the_files)
{
    size_t len;
    char *out = write_page("a<b>&\"'", "{\"n\":\"</script><!--\xe2\x80\xa8\"}", &len);
    const char *name, *text;

    CHECK(out != NULL);
    if (!out)
        return;
    CHECK_EQ(strlen(out), len);
    CHECK(strncmp(out, "<!DOCTYPE html>\n", 16) == 0);
    CHECK(strstr(out, "<title>a&lt;b&gt;&amp;&quot;&#39; - clrprobe flame graph</title>\n") != NULL);
    CHECK(strstr(out, "\n{\"n\":\"\\u003c/script\\u003e\\u003c!--\\u2028\"}\n</script>\n") != NULL);
    CHECK(strstr(out, "\n@") == NULL);
    CHECK(strstr(out, "@TITLE@") == NULL);
    for (size_t i = 0; (text = rp_html_page_file(i, &name)) != NULL; i++) {
        const char *body = after_header(text);
        char head[64];
        snprintf(head, sizeof head, "%s - ", name);
        if (strstr(out, head))
            unit_fail(__FILE__, __LINE__, "the header comment of %s is in the page", name);
        if (strcmp(name, "page.html") != 0 && (!body || !strstr(out, body)))
            unit_fail(__FILE__, __LINE__, "the page does not have all of %s", name);
    }
    CHECK_STR(out + len - 8, "</html>\n");
    free(out);
}

/* The title is a file name: a control character in it reaches the page's
 * <title> (the browser's title bar, a tab) made visible, never raw. */
TEST(html_page_title_control_characters_are_escaped)
{
    size_t len = 0;
    char *page = write_page("a\x1b[31mred\x07.clrp <&>", "{}", &len);

    CHECK(page != NULL);
    if (!page)
        return;
    CHECK(strstr(page, "<title>a\\x1b[31mred\\x07.clrp &lt;&amp;&gt;") != NULL);
    CHECK(memchr(page, 0x1b, len) == NULL);
    CHECK(memchr(page, 0x07, len) == NULL);
    free(page);
}
