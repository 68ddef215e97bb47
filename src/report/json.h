/* json.h - writing JSON values: string escaping and a tiny object builder
 * for one-line objects. */
#ifndef CLRPROBE_REPORT_JSON_H
#define CLRPROBE_REPORT_JSON_H

#include <stdint.h>
#include <stdio.h>

/* Writes s as a JSON string literal (quotes included).  Every control
 * character (C0, DEL, C1) and the line separators and bidi controls that
 * the text escaper hides (common/escape.h) are \u escapes (\n, \r, \t
 * short), so a JSON line is one line and reads the same on a terminal;
 * C0 80, the model's NUL (model.h), is \u0000; bytes that are not UTF-8
 * become U+FFFD.  Parsed back, the string is the name as the program set
 * it. */
void json_string(FILE *out, const char *s);

/* One-line object: json_begin, fields, json_end (writes "}\n"). */
typedef struct json_obj { FILE *out; int n; } json_obj;
void json_begin(json_obj *o, FILE *out);
void json_str(json_obj *o, const char *key, const char *val);
void json_u64(json_obj *o, const char *key, uint64_t val);
void json_hex(json_obj *o, const char *key, uint64_t val);   /* "0x..." string */
void json_bool(json_obj *o, const char *key, int val);
void json_raw(json_obj *o, const char *key, const char *raw);
void json_end(json_obj *o);

#endif
