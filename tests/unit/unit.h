/* unit.h - a very small unit-test framework: TEST() registers a function,
 * CHECK*() record failures without stopping the test, unit_main.c runs
 * everything and prints the closing "N passed, N failed" line. */
#ifndef CLRPROBE_UNIT_H
#define CLRPROBE_UNIT_H

#include <stdio.h>
#include <string.h>

typedef void (*unit_fn)(void);
void unit_register(const char *name, unit_fn fn, const char *file);
void unit_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int unit_failures(void);        /* failures of the current test so far */

/* Removes path if it exists and creates it afresh for the trace writer. */
int unit_create_file(const char *path);

/* A fresh directory /tmp/clrprobe-unit-NAME-XXXXXX into buf (cap bytes);
 * buf is "" when it could not be made.  unit_remove_tree removes it and
 * all it holds (nothing for ""), links not followed. */
void unit_temp_dir(char *buf, size_t cap, const char *name);
void unit_remove_tree(const char *path);

#define TEST(name)                                                      \
    static void name(void);                                             \
    __attribute__((constructor)) static void unit_reg_##name(void) {    \
        unit_register(#name, name, __FILE__);                           \
    }                                                                   \
    static void name(void)

#define CHECK(cond)                                                     \
    do { if (!(cond)) unit_fail(__FILE__, __LINE__, "CHECK(%s)", #cond); } while (0)

#define CHECK_EQ(a, b)                                                  \
    do { long long unit_a_ = (long long)(a), unit_b_ = (long long)(b);  \
         if (unit_a_ != unit_b_)                                        \
             unit_fail(__FILE__, __LINE__, "%s == %s (%lld != %lld)",   \
                       #a, #b, unit_a_, unit_b_); } while (0)

#define CHECK_STR(a, b)                                                 \
    do { const char *unit_a_ = (a), *unit_b_ = (b);                     \
         if (!unit_a_ || !unit_b_ || strcmp(unit_a_, unit_b_) != 0)     \
             unit_fail(__FILE__, __LINE__, "%s == %s (\"%s\" != \"%s\")", \
                       #a, #b, unit_a_ ? unit_a_ : "(null)",            \
                       unit_b_ ? unit_b_ : "(null)"); } while (0)

#endif
