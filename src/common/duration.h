/* duration.h - the one parser of a length of time given on the command line
 * (attach --duration, --timeout): the forms .NET's diagnostics tools and
 * people use.  Accepted (whitespace around is not):
 *
 *   5, 1.5, 0.25        plain seconds, fractions allowed (clrprobe's own form)
 *   500ms, 1.5s, 2m, 1h a number (fraction allowed) and a unit: ms, s, m, h;
 *   1m30s, 1h5m         several such parts, from the largest unit down, each once
 *   00:00:00:05         dotnet-trace's dd:hh:mm:ss (here 5 s), and hh:mm:ss;
 *   1.02:03:04          .NET's TimeSpan d.hh:mm:ss; seconds may have a fraction
 *                       (00:00:01.5); hours < 24, minutes and seconds < 60
 *
 * Refused: negative values, hh:mm (TimeSpan reads "00:05" as 5 minutes, a
 * user often means 5 seconds), units other than those, a number without
 * digits, anything after the last part. */
#ifndef CLRPROBE_COMMON_DURATION_H
#define CLRPROBE_COMMON_DURATION_H

#include <stddef.h>

/* The accepted forms, for messages. */
#define CP_DURATION_FORMS "seconds (5, 1.5), a number and a unit (500ms, 5s, 2m, 1h, 1m30s) or dd:hh:mm:ss (00:00:00:05)"

/* Parses text into *seconds, which must lie in [min_s, max_s].  0, or -1
 * with one sentence in err naming the option (e.g. "--duration"), the
 * value and the accepted forms or the range. */
int cp_duration_parse(const char *option, const char *text, double min_s, double max_s, double *seconds,
                      char *err, size_t errlen);

#endif
