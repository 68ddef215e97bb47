/* pprof.c - placeholder: the pprof exporter (being written). */
#include "report/report.h"

int rp_write_pprof(const rp_profile *p, const char *title, FILE *out)
{
    (void)p;
    (void)title;
    fputs("pprof output is not implemented yet\n", stderr);
    (void)out;
    return -1;
}
