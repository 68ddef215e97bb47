/* speedscope.c - placeholder: the speedscope exporter (being written). */
#include "report/report.h"

int rp_write_speedscope(const rp_profile *p, const char *title, FILE *out)
{
    (void)p;
    (void)title;
    fputs("speedscope output is not implemented yet\n", stderr);
    (void)out;
    return -1;
}
