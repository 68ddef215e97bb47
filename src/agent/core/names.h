/* names.h - readable names for runtime IDs, resolved in-process through
 * ICorProfilerInfo and the metadata interfaces, once per ID and cached.
 * IDs are addresses and are reused after an unload, so the cache forgets
 * every function and class of a module (or a class) when it unloads: a name
 * is never attributed to the wrong ID across an unload/reload.
 *
 * All functions are for callback threads (they call into the runtime); none
 * may be used from a signal handler or while holding a trace buffer. */
#ifndef CLRPROBE_AGENT_NAMES_H
#define CLRPROBE_AGENT_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "api/corprof.h"
#include "api/cormetadata.h"
#include "agent/core/names_format.h"

typedef struct names names;

int names_create(names **out, ICorProfilerInfo15 *info, int info_version);
void names_free(names *n);

/* "Namespace.Type.Method" with generic arguments, into buf; *module gets
 * the function's module (0 if unknown).  Always NUL-terminates.  A dynamic
 * method is named as by names_dynamic_function. */
void names_function(names *n, FunctionID f, char *buf, size_t cap, ModuleID *module);

/* When f is a dynamic method (no metadata: a DynamicMethod such as a
 * compiled expression's lambda_method12, an IL stub), its name as the
 * runtime gives it followed by " [dynamic]" into buf, its module into
 * *module, and returns 1; otherwise returns 0 (buf unchanged).  Never
 * cached: the runtime reuses the FunctionID of a collected dynamic method.
 * Needs ICorProfilerInfo8 (returns 0 without). */
int names_dynamic_function(names *n, FunctionID f, char *buf, size_t cap, ModuleID *module);

/* The one way a FunctionID is named for its function_name record (the CPU
 * sampler's frames, the stacks ip_functions.c resolves): f's name into buf
 * and its module into *module, by names_dynamic_function when the caller
 * found f to be a dynamic method (dynamic), else by names_function.  *key
 * says what was written for f before (0: nothing); returns 1 when the
 * record is to be written, with *key updated, and 0 when it is written
 * already (buf may be unset then).  An ordinary function's key is 1:
 * named once.  A dynamic method's is its name's hash, never 0 or 1: the
 * runtime gives a collected one's ID to the next, so it is named each time
 * it is met and written again when its name changed. */
#define NAMES_KEY_NAMED 1u
int names_function_once(names *n, FunctionID f, int dynamic, uint64_t *key, char *buf, size_t cap,
                        ModuleID *module);
/* The metadata token of f's method (a MethodDef, the key to its source
 * lines in the PDB), 0 when not known (a dynamic method). */
mdToken names_function_token(names *n, FunctionID f);

/* "Namespace.Outer+Inner<T>.Method" for a method definition of a module
 * (no FunctionID needed: the method may not be compiled, or generic). */
void names_method_def(names *n, ModuleID m, mdMethodDef md, char *buf, size_t cap);

/* "Namespace.Outer+Inner<System.Int32>" for a ClassID; its module into
 * *module when not NULL (0 if unknown, e.g. arrays). */
void names_class(names *n, ClassID c, char *buf, size_t cap, ModuleID *module);

/* A module's file path (or its name when it has no file), its assembly and
 * COR_PRF_MODULE_* flags. */
void names_module(names *n, ModuleID m, char *buf, size_t cap, AssemblyID *assembly, DWORD *flags);

/* An assembly's simple name and "major.minor.build.revision" version. */
void names_assembly(names *n, AssemblyID a, char *name, size_t cap, char *version, size_t vcap,
                    AppDomainID *appdomain, ModuleID *module);

/* An app domain's name. */
void names_appdomain(names *n, AppDomainID d, char *buf, size_t cap);

/* The module's metadata (IMetaDataImport) with a reference for the caller
 * (Release it), from the per-module cache when possible; NULL if none. */
IMetaDataImport *names_metadata(names *n, ModuleID m);

/* Forget cached names when their IDs die. */
void names_forget_module(names *n, ModuleID m);
void names_forget_class(names *n, ClassID c);

#endif
