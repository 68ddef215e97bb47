/* html_page.c - writes the page of the html report (html.c makes its data)
 * from the page's files: src/report/page/ holds the page as an HTML file
 * (page.html) with its CSS and JS files, built into the command as they are
 * by html_page_files.S.  page.html names where each other file goes, where
 * the title goes and where the data goes (see html_page.h). */
#include "report/html_page.h"
#include "common/escape.h"

#include <stdlib.h>
#include <string.h>

/* html_page_files.S: each file's bytes and a NUL */
extern const char rp_page_html[], rp_page_css[], rp_page_flamegraph_js[], rp_page_gc_timeline_js[],
    rp_page_calls_js[], rp_page_heap_js[];

static const struct {
    const char *name, *text;
} files[] = {
    { "page.html", rp_page_html },
    { "page.css", rp_page_css },
    { "flamegraph.js", rp_page_flamegraph_js },
    { "gc_timeline.js", rp_page_gc_timeline_js },
    { "calls.js", rp_page_calls_js },
    { "heap.js", rp_page_heap_js },
};
#define NFILES (sizeof files / sizeof files[0])

const char *rp_html_page_file(size_t i, const char **name)
{
    if (i >= NFILES)
        return NULL;
    *name = files[i].name;
    return files[i].text;
}

/* A file's text after its first comment and the line break that ends it:
 * the comment says what the file is for, which the page does not need. */
static const char *body(const char *text)
{
    const char *close = strncmp(text, "<!--", 4) == 0 ? "-->\n" : strncmp(text, "/*", 2) == 0 ? "*/\n" : NULL;
    const char *end = close ? strstr(text, close) : NULL;
    return end ? end + strlen(close) : text;
}

/* Copies JSON text to the page with '<', '>', '&', U+2028 and U+2029 as \u
 * escapes, so that nothing in it can end its <script> element.  They only
 * occur inside strings, where the escape means the same. */
static void put_data(FILE *out, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '<' || c == '>' || c == '&')
            fprintf(out, "\\u%04x", c);
        else if (c == 0xe2 && i + 2 < len && (unsigned char)s[i + 1] == 0x80 &&
                 ((unsigned char)s[i + 2] == 0xa8 || (unsigned char)s[i + 2] == 0xa9)) {
            fprintf(out, "\\u%04x", (unsigned char)s[i + 2] == 0xa8 ? 0x2028 : 0x2029);
            i += 2;
        } else
            putc(c, out);
    }
}

/* The title as HTML text. */
static void html_text(FILE *out, const char *raw)
{
    /* First made printable as everything clrprobe prints (common/escape.h):
     * the title is a file name, which may hold control characters. */
    char *printable = esc_dup(raw);
    const char *s = printable ? printable : "clrprobe profile";

    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: putc(*s, out); break;
        }
    }
    free(printable);
}

/* The file a line of page.html names ("@NAME@"), NULL when it names none
 * (page.html, files[0], is not one of them). */
static const char *file_named(const char *line, size_t len)
{
    if (len < 3 || line[0] != '@' || line[len - 1] != '@')
        return NULL;
    for (size_t i = 1; i < NFILES; i++)
        if (strlen(files[i].name) == len - 2 && memcmp(files[i].name, line + 1, len - 2) == 0)
            return files[i].text;
    return NULL;
}

int rp_html_page_write(FILE *out, const char *title, const char *data, size_t len)
{
    for (const char *line = body(rp_page_html); *line;) {
        const char *nl = strchr(line, '\n'), *next = nl ? nl + 1 : line + strlen(line), *at, *file;
        size_t n = (size_t)((nl ? nl : next) - line);

        if (n == 6 && memcmp(line, "@DATA@", 6) == 0) {
            put_data(out, data, len);
            putc('\n', out);
        } else if ((file = file_named(line, n)) != NULL) {
            const char *b = body(file);
            size_t blen = strlen(b);
            fwrite(b, 1, blen, out);
            if (blen && b[blen - 1] != '\n')        /* (saved without its last line break) */
                putc('\n', out);
        } else if ((at = memmem(line, n, "@TITLE@", 7)) != NULL) {
            fwrite(line, 1, (size_t)(at - line), out);
            html_text(out, title);
            fwrite(at + 7, 1, (size_t)(next - at - 7), out);
        } else {
            fwrite(line, 1, (size_t)(next - line), out);
        }
        line = next;
    }
    return ferror(out) ? -1 : 0;
}
