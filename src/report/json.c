/* json.c - JSON string escaping and one-line objects (see json.h). */
#include "report/json.h"
#include "common/escape.h"

#include <inttypes.h>

void json_string(FILE *out, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;

    putc('"', out);
    while (*s) {
        uint32_t cp;
        int n = utf8_next(s, 4, &cp);           /* (a NUL ends any sequence) */
        if (n == 0 && s[0] == 0xc0 && s[1] == 0x80) {
            fputs("\\u0000", out);              /* the model's NUL (model.h) */
            s += 2;
        } else if (n == 0) {
            fputs("\\ufffd", out);              /* not UTF-8 */
            s++;
        } else if (cp == '"' || cp == '\\') {
            putc('\\', out);
            putc((int)cp, out);
            s++;
        } else if (esc_is_hidden(cp)) {         /* controls, separators, bidi */
            switch (cp) {
            case '\n': fputs("\\n", out); break;
            case '\r': fputs("\\r", out); break;
            case '\t': fputs("\\t", out); break;
            default: fprintf(out, "\\u%04x", (unsigned)cp); break;
            }
            s += n;
        } else {
            fwrite(s, 1, (size_t)n, out);
            s += n;
        }
    }
    putc('"', out);
}

void json_begin(json_obj *o, FILE *out)
{
    o->out = out;
    o->n = 0;
    putc('{', out);
}

static void key(json_obj *o, const char *k)
{
    if (o->n++)
        putc(',', o->out);
    json_string(o->out, k);
    putc(':', o->out);
}

void json_str(json_obj *o, const char *k, const char *val)
{
    key(o, k);
    json_string(o->out, val ? val : "");
}

void json_u64(json_obj *o, const char *k, uint64_t val)
{
    key(o, k);
    fprintf(o->out, "%" PRIu64, val);
}

void json_hex(json_obj *o, const char *k, uint64_t val)
{
    key(o, k);
    fprintf(o->out, "\"0x%" PRIx64 "\"", val);
}

void json_bool(json_obj *o, const char *k, int val)
{
    key(o, k);
    fputs(val ? "true" : "false", o->out);
}

void json_raw(json_obj *o, const char *k, const char *raw)
{
    key(o, k);
    fputs(raw, o->out);
}

void json_end(json_obj *o)
{
    fputs("}\n", o->out);
}
