/* html.c - placeholder: the html exporter (being written). */
#include "report/report.h"

int rp_write_html(const rp_profile *p, const char *title, FILE *out)
{
    (void)p;
    (void)title;
    fputs("html output is not implemented yet\n", stderr);
    (void)out;
    return -1;
}
