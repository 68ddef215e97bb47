/* callbacks.h - the ICorProfilerCallback methods of the core: the
 * session's lifecycle (lifecycle.c, attach.c) and the do-nothing defaults
 * under every slot (callback_defaults.c).  The vtable (com_object.c) puts
 * these over the defaults, then each service's own slots (service.h). */
#ifndef CLRPROBE_AGENT_CALLBACKS_H
#define CLRPROBE_AGENT_CALLBACKS_H

#include "api/corprof.h"

/* callback_defaults.c: every slot set to a do-nothing method. */
void callbacks_fill_defaults(ICorProfilerCallbackVtbl *v);

/* lifecycle.c */
HRESULT cb_Initialize(ICorProfilerCallback11 *This, IUnknown *pICorProfilerInfoUnk);
HRESULT cb_Shutdown(ICorProfilerCallback11 *This);
HRESULT cb_LoadAsNotificationOnly(ICorProfilerCallback11 *This, BOOL *only);

/* attach.c */
HRESULT cb_InitializeForAttach(ICorProfilerCallback11 *This, IUnknown *unk, void *data, UINT cb);
HRESULT cb_ProfilerAttachComplete(ICorProfilerCallback11 *This);
HRESULT cb_ProfilerDetachSucceeded(ICorProfilerCallback11 *This);

#endif
