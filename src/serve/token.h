/* token.h - the credentials of `clrprobe serve`: a bearer token every
 * request must carry (`Authorization: Bearer TOKEN`), kept in a file only
 * serve's user can read (docs/serve.md, "Credentials"). */
#ifndef CLRPROBE_SERVE_TOKEN_H
#define CLRPROBE_SERVE_TOKEN_H

#include <stddef.h>

#define TOKEN_BYTES 32          /* a new token: 256 random bits, as 64 hex digits */
#define TOKEN_MIN 16            /* a token given in a file: at least this many characters */
#define TOKEN_CAP 1024

/* The default token file: /run/clrprobe/serve.token for root, else
 * $XDG_RUNTIME_DIR/clrprobe/serve.token (/run/user/UID/... without it);
 * its directory made 0700 if missing, refused unless this user's and
 * closed to others.  0, or -1 with err. */
int token_default_path(char *out, size_t cap, char *err, size_t errlen);

/* The token of the file at path into token (cap bytes): the file must be a
 * regular file of this user's, closed to others (not followed through a
 * link, never waited on), holding one word of 16 to cap-1 printable ASCII
 * characters; when it does not exist it is made (O_EXCL, 0600) with a new
 * token and *created set.  0, or -1 with err (one sentence naming the
 * file and the fix). */
int token_load(const char *path, char *token, size_t cap, int *created, char *err, size_t errlen);

/* Whether an Authorization header's value is "Bearer TOKEN" (compared in
 * a time that does not depend on where it differs). */
int token_matches(const char *token, const char *header);

#endif
