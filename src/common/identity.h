/* identity.h - the agent's identity to the runtime, defined once for the
 * agent and both commands that load it.
 *
 * The one definition is the GUID value CLSID_clrprobe (identity.c).  The
 * runtime asks the agent's DllGetClassObject for it (src/agent/manager.c);
 * `clrprobe attach` puts it in the AttachProfiler request as an in-memory
 * GUID (src/cli/cmd_attach.c); `clrprobe run` sets CORECLR_PROFILER and
 * DOTNET_PROFILER to its string form, which cp_guid_format makes from the
 * value at run time (src/cli/cmd_run.c).  That string form is
 *
 *     {8C5F2C71-3A9E-4E1B-9F4D-2B7A6C1D0E53}
 *
 * as docs/config.md, docs/attach.md and tests/e2e/lib.sh ($CLSID) spell it out for
 * people and scripts; tests/unit/test_identity.c checks that the value
 * formats to exactly that. */
#ifndef CLRPROBE_COMMON_IDENTITY_H
#define CLRPROBE_COMMON_IDENTITY_H

#include "api/cor.h"

/* The profiler's CLSID. */
extern const GUID CLSID_clrprobe;

/* The same agent asked to load as a notification profiler, beside the
 * process's main profiler:
 *
 *     {8C5F2C72-3A9E-4E1B-9F4D-2B7A6C1D0E53}
 *
 * The runtime asks LoadAsNotificationOnly before it hands over any
 * configuration (before Initialize or InitializeForAttach), so the role
 * travels in the one thing it has then: which class it was asked for.
 * `clrprobe attach` asks for it when the process already has a main
 * profiler, `clrprobe run --notification` lists it in
 * CORECLR_NOTIFICATION_PROFILERS (docs/attach.md, "Beside another
 * profiler"). */
extern const GUID CLSID_clrprobe_notification;

/* "{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}" and its NUL. */
#define CP_GUID_STRING_SIZE 39

/* Writes g in the registry form the runtime's CORECLR_PROFILER expects:
 * braces, upper-case hex, Data1..Data3 as numbers, Data4 as bytes in order.
 * Uses no stdio or locale (it runs in `clrprobe run`'s child after fork). */
void cp_guid_format(const GUID *g, char out[CP_GUID_STRING_SIZE]);

#endif
