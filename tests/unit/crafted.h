/* crafted.h - the hostile traces of tests/data/crafted, as the code that
 * makes them: each is a few records a recorded process could write into its
 * own trace to break the report (an index no record names, a time near
 * 2^64, an empty snapshot).  test_crafted.c checks that the files are what
 * this code writes (CRAFTED_WRITE=DIR writes them there instead), and the
 * fuzzer starts from them too (test_fuzz_reader.c). */
#ifndef CLRPROBE_UNIT_CRAFTED_H
#define CLRPROBE_UNIT_CRAFTED_H

#include <stddef.h>

typedef struct crafted_trace {
    const char *name;            /* the file is tests/data/crafted/NAME.clrp */
    const char *what;            /* what it exercises (tests/data/crafted/README) */
    void (*write)(const char *path);
} crafted_trace;

extern const crafted_trace crafted_traces[];
extern const size_t ncrafted_traces;

#endif
