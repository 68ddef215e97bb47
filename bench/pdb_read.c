/* pdb_read.c - bench/pdb.sh's timer: opens an assembly's symbols through
 * the cache (src/symbols), then looks up every method's line at several IL
 * offsets, twice (the first pass decodes each method's sequence points, the
 * second finds them decoded), and prints the figures as key=value lines.
 *   pdb_read ASSEMBLY [SYMBOLS_DIR] */
#include "symbols/symbols.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    static const uint32_t offsets[] = { 0, 1, 4, 9, 16, 33, 64, 200, SYM_IL_PROLOG, SYM_IL_EPILOG };
    const char *why = NULL;
    double t0, t1, t2 = 0, t3;
    unsigned long long found[2] = { 0, 0 }, lookups = 0, checksum = 0;
    sym_cache *c;
    sym_module *m;
    uint32_t methods;
    struct stat st;

    if (argc < 2) {
        fprintf(stderr, "usage: pdb_read ASSEMBLY [SYMBOLS_DIR]\n");
        return 2;
    }
    t0 = now();
    c = sym_cache_new(argc > 2 ? argv[2] : NULL);
    m = c ? sym_cache_module(c, argv[1], &why) : NULL;
    t1 = now();
    if (!m) {
        fprintf(stderr, "pdb_read: no symbols: %s\n", why ? why : "no memory");
        return 1;
    }
    methods = sym_module_method_count(m);
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t r = 1; r <= methods; r++)
            for (size_t k = 0; k < sizeof(offsets) / sizeof(offsets[0]); k++) {
                sym_line l;
                if (sym_module_line(m, 0x06000000 | r, offsets[k], &l)) {
                    found[pass]++;
                    checksum += l.line + l.column;
                }
                lookups += pass == 0;
            }
        if (pass == 0)
            t2 = now();
    }
    t3 = now();
    printf("pdb=%s\n", sym_module_source(m));
    if (stat(sym_module_source(m), &st) == 0)
        printf("pdb_bytes=%lld\n", (long long)st.st_size);
    printf("methods=%u\nlookups=%llu\nfound=%llu\nchecksum=%llu\n", methods, lookups, found[0], checksum);
    printf("open_ms=%.2f\nfirst_pass_ms=%.2f\nsecond_pass_ms=%.2f\ntotal_ms=%.2f\n", (t1 - t0) * 1e3,
           (t2 - t1) * 1e3, (t3 - t2) * 1e3, (t2 - t0) * 1e3);
    sym_cache_free(c);
    return found[0] == found[1] ? 0 : 1;
}
