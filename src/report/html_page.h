/* html_page.h - the html report's page (html_page.c): its files, built into
 * the command, and the page written from them with the data put in. */
#ifndef CLRPROBE_REPORT_HTML_PAGE_H
#define CLRPROBE_REPORT_HTML_PAGE_H

#include <stddef.h>
#include <stdio.h>

/* Writes the page to out: page.html, each line @FILE@ replaced by that page
 * file, @TITLE@ by title (HTML-escaped) and the line @DATA@ by the len bytes
 * of data (JSON), with every '<', '>', '&', U+2028 and U+2029 in it written
 * as a \u escape so that nothing in it can end its <script> element.  Each
 * file goes out without its first comment (what the file is for).  0, or -1
 * (out's error flag set). */
int rp_html_page_write(FILE *out, const char *title, const char *data, size_t len);

/* The text of the i-th file built in, and its name in src/report/page/ in
 * *name; NULL past the last.  For the tests. */
const char *rp_html_page_file(size_t i, const char **name);

#endif
