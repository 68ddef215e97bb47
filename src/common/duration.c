/* duration.c - lengths of time on the command line (duration.h). */
#include "common/duration.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* An unsigned decimal number with an optional fraction ("12", "1.5", ".5"
 * and "5." are numbers; "." is not) at *p: its value, and *p past it; -1
 * when there is none.  At most 12 integer digits (no overflow). */
static int number(const char **p, double *v, int *had_fraction)
{
    const char *s = *p;
    double x = 0, scale = 0.1;
    int digits = 0, idigits = 0;

    *had_fraction = 0;
    while (*s >= '0' && *s <= '9') {
        if (++idigits > 12)
            return -1;
        x = x * 10 + (*s++ - '0');
        digits++;
    }
    if (*s == '.') {
        s++;
        *had_fraction = 1;
        while (*s >= '0' && *s <= '9') {
            x += (*s++ - '0') * scale;
            scale /= 10;
            digits++;
        }
    }
    if (!digits)
        return -1;
    *p = s;
    *v = x;
    return 0;
}

/* dd:hh:mm:ss, hh:mm:ss, d.hh:mm:ss (TimeSpan); -1 if not that form, -2 for
 * hh:mm. */
static int colon_form(const char *text, double *out)
{
    double f[5], days = 0;
    const char *p = text, *colon = strchr(text, ':'), *dot = strchr(text, '.');
    int n = 0, frac[5], dotted = 0;

    if (dot && dot < colon) {               /* d.hh:mm:ss */
        if (p == dot || dot - p > 9)
            return -1;
        for (; p < dot; p++) {
            if (*p < '0' || *p > '9')
                return -1;
            days = days * 10 + (*p - '0');
        }
        p++;
        dotted = 1;
    }
    for (;;) {
        if (n == 5 || number(&p, &f[n], &frac[n]) < 0)
            return -1;
        n++;
        if (*p != ':')
            break;
        p++;
    }
    if (*p)
        return -1;
    for (int i = 0; i < n - 1; i++)
        if (frac[i])
            return -1;                      /* only the seconds may have a fraction */
    if (n == 2 && !dotted)
        return -2;
    if (n == 4 && !dotted) {
        days = f[0];
        memmove(f, f + 1, 3 * sizeof(f[0]));
    } else if (n != 3) {
        return -1;
    }
    if (f[0] >= 24 || f[1] >= 60 || f[2] >= 60)
        return -1;
    *out = days * 86400 + f[0] * 3600 + f[1] * 60 + f[2];
    return 0;
}

/* 5, 1.5, 500ms, 2m, 1m30s: -1 if not that form. */
static int unit_form(const char *text, double *out)
{
    static const struct { const char *name; double seconds; } units[] = {
        { "h", 3600 }, { "ms", 0.001 }, { "m", 60 }, { "s", 1 },
    };
    /* the order a sequence must follow, largest first */
    static const int rank[] = { 0, 3, 1, 2 };
    const char *p = text;
    double total = 0, v;
    int frac, last = -1;

    if (number(&p, &v, &frac) < 0)
        return -1;
    if (!*p) {
        *out = v;           /* plain seconds */
        return 0;
    }
    for (;;) {
        size_t i, len = 0;
        for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
            len = strlen(units[i].name);
            if (strncmp(p, units[i].name, len) == 0 && !(p[len] >= 'a' && p[len] <= 'z'))
                break;
        }
        if (i == sizeof(units) / sizeof(units[0]) || rank[i] <= last)
            return -1;
        last = rank[i];
        total += v * units[i].seconds;
        p += len;
        if (!*p)
            break;
        if (number(&p, &v, &frac) < 0)
            return -1;
    }
    *out = total;
    return 0;
}

static void say(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (!err || !errlen)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

int cp_duration_parse(const char *option, const char *text, double min_s, double max_s, double *seconds,
                      char *err, size_t errlen)
{
    double v;
    int rc;

    if (strlen(text) > 64) {
        say(err, errlen, "%s '%.64s...' is not a duration: give %s", option, text, CP_DURATION_FORMS);
        return -1;
    }
    rc = strchr(text, ':') ? colon_form(text, &v) : unit_form(text, &v);
    if (rc == -2) {
        say(err, errlen, "%s '%s' is ambiguous (hh:mm or mm:ss?): write hh:mm:ss, e.g. 00:00:05 for 5 s", option,
            text);
        return -1;
    }
    if (rc < 0 || !isfinite(v)) {
        say(err, errlen, "%s '%s' is not a duration: give %s", option, text, CP_DURATION_FORMS);
        return -1;
    }
    if (v < min_s || v > max_s) {
        say(err, errlen, "%s '%s' is out of range (%g to %g seconds)", option, text, min_s, max_s);
        return -1;
    }
    *seconds = v;
    return 0;
}
