/* method_pattern.c - parsing and matching `--trace` patterns
 * (method_pattern.h).  Pure: used by the command to check the option and
 * by the agent to choose the methods it traces. */
#include "common/method_pattern.h"

#include <stdio.h>
#include <string.h>

/* Characters a pattern may hold besides letters and digits: those of .NET
 * names as the agent writes them, and '*'. */
static int pattern_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80 ||
           strchr("_.*$@", c) != NULL;
}

void mp_normalize(const char *name, char *out, size_t cap)
{
    size_t n = 0;
    int depth = 0;

    if (cap == 0)
        return;
    for (const char *s = name; *s; s++) {
        char c = *s;
        if (c == '<') {
            depth++;
            continue;
        }
        if (c == '>') {
            if (depth > 0)
                depth--;
            continue;
        }
        if (depth > 0)
            continue;
        if (c == '`') {                      /* List`1: the arity */
            while (s[1] >= '0' && s[1] <= '9')
                s++;
            continue;
        }
        if (n + 1 < cap)
            out[n++] = c == '+' ? '.' : c;
    }
    out[n] = '\0';
}

static int glob(const char *p, const char *s)
{
    const char *star = NULL, *resume = NULL;

    while (*s) {
        if (*p == '*') {
            star = p++;
            resume = s;
        } else if (*p == *s) {
            p++;
            s++;
        } else if (star) {
            p = star + 1;
            s = ++resume;
        } else {
            return 0;
        }
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}

int mp_parse(const char *list, mp_list *l, char *err, size_t errlen)
{
    static const char grammar[] = "patterns are Namespace.Type.Method, Namespace.Type.* or Namespace.*, "
                                  "separated by commas";
    size_t used = 0;
    const char *s = list;

    memset(l, 0, sizeof(*l));
    if (strlen(list) > MP_MAX_TEXT) {
        snprintf(err, errlen, "--trace: the list is longer than %d characters", MP_MAX_TEXT);
        return -1;
    }
    for (;;) {
        const char *start, *end;
        char raw[MP_MAX_TEXT + 1], *dst;
        size_t len;

        while (*s == ' ')
            s++;
        start = s;
        {
            int depth = 0;                   /* commas inside <...> belong to the pattern */
            while (*s && (*s != ',' || depth > 0)) {
                depth += *s == '<' ? 1 : *s == '>' && depth > 0 ? -1 : 0;
                s++;
            }
        }
        end = s;
        while (end > start && end[-1] == ' ')
            end--;
        len = (size_t)(end - start);
        memcpy(raw, start, len);
        raw[len] = '\0';
        if (len == 0) {
            snprintf(err, errlen, "--trace: an empty pattern (%s)", grammar);
            return -1;
        }
        if (l->count == MP_MAX_PATTERNS) {
            snprintf(err, errlen, "--trace: more than %d patterns", MP_MAX_PATTERNS);
            return -1;
        }
        dst = l->text + used;
        mp_normalize(raw, dst, sizeof(l->text) - used);     /* (generic arguments may hold anything) */
        for (const char *c = dst; *c; c++)
            if (!pattern_char((unsigned char)*c)) {
                snprintf(err, errlen, "--trace: '%.200s' holds a character a method name cannot (%s)", raw,
                         grammar);
                return -1;
            }
        if (!dst[0] || dst[0] == '.' || dst[strlen(dst) - 1] == '.' || strstr(dst, "..")) {
            snprintf(err, errlen, "--trace: '%.200s' has an empty part between dots (%s)", raw, grammar);
            return -1;
        }
        if (!strchr(dst, '.') && strcmp(dst, "*") != 0) {
            snprintf(err, errlen, "--trace: '%.200s' names no type; %s", raw, grammar);
            return -1;
        }
        l->pattern[l->count++] = dst;
        used += strlen(dst) + 1;
        if (!*s)
            return 0;
        s++;                                 /* the comma */
    }
}

int mp_match(const mp_list *l, const char *name)
{
    char norm[1024];

    mp_normalize(name, norm, sizeof(norm));
    for (int i = 0; i < l->count; i++)
        if (glob(l->pattern[i], norm))
            return i + 1;
    return 0;
}
