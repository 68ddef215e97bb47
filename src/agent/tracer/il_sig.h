/* il_sig.h - the signature blobs the IL rewriter needs (ECMA-335 II.23.2):
 * a method signature's return type, read as bytes so that a local of that
 * type can be appended to the method's local variables, and the new
 * LocalVarSig with it.  Pure. */
#ifndef CLRPROBE_AGENT_IL_SIG_H
#define CLRPROBE_AGENT_IL_SIG_H

#include <stddef.h>
#include <stdint.h>

#define IL_SIG_MAX 4096               /* longest local signature built */

/* The return type of a MethodDefSig: its bytes (custom modifiers, BYREF
 * and the type) at sig + *off, *len long; *is_void when it is VOID.  0, or
 * -1 if sig does not parse. */
int il_sig_return_type(const uint8_t *sig, size_t sig_len, size_t *off, size_t *len, int *is_void);

/* A LocalVarSig: the method's (locals, locals_len; NULL/0 when it has
 * none) with one more local of type bytes (type, type_len) appended, into
 * out (cap bytes).  *out_len its length, *index the new local's index.
 * 0, or -1 (locals do not parse, too many, or out too small). */
int il_sig_add_local(const uint8_t *locals, size_t locals_len, const uint8_t *type, size_t type_len, uint8_t *out,
                     size_t cap, size_t *out_len, uint32_t *index);

/* The StandAloneSig of the probes: an unmanaged (C) `void (int64)`. */
extern const uint8_t il_sig_probe[4];

#endif
