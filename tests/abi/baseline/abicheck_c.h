/* abicheck's C API: will this extension module load against that build, and if not, why?
 *
 * For tools that cannot link the C++ API (include/abicheck/abicheck.h carries abseil's types, so
 * only a consumer built against the same abseil can): Python through ctypes, Rust, Go, or C++
 * built against another abseil. Opaque handles; a report is JSON following the published schema
 * (docs/schema/report.schema.json), the same text `abicheck check --format json` prints; an error
 * is a code (the exit code the command line gives) and one line naming the file and the structure.
 * The symbols are versioned (ABICHECK_C_1, ABICHECK_C_2 for what 0.2 added): what is here keeps
 * its meaning in later releases, and libabicheck.so's SOVERSION changes if it ever must not
 * (docs/API.md "Stability"; tests/abi/ holds the baseline that enforces it).
 *
 * abicheck_run covers everything the command line does (check against any number of builds,
 * env, gpu, diff, symbols, index, cache; every option), with the command line's own arguments,
 * output and exit codes: the same bytes the abicheck program prints.
 *
 * What a host must know:
 * - The library maps the files it reads. A file truncated by another process while it is mapped
 *   (by an open build, or during a call) raises SIGBUS at the next read of the lost pages. A host
 *   that cannot rule that out calls abicheck_guard_sigbus() once: such a fault then ends the
 *   process with exit code 3 and one line on stderr naming the file, as the abicheck program
 *   does; any other SIGBUS keeps its default. Otherwise it installs its own handler.
 * - Handles and strings are owned by the caller until freed, once: closing a build twice, using
 *   it after abicheck_build_close, or freeing a string or an error twice is undefined, as free()
 *   twice is. Every function may be called from any thread; a build may be shared by threads. */
#ifndef ABICHECK_ABICHECK_C_H_
#define ABICHECK_ABICHECK_C_H_

#ifdef __cplusplus
extern "C" {
#endif

#define ABICHECK_C_EXPORT __attribute__((visibility("default")))
#define ABICHECK_C_API_VERSION 2

/* Exit codes, as the command line's: the module loads (and runs where a GPU was given); it will
 * not; a usage error; bad input (unreadable, corrupt, over a cap). */
#define ABICHECK_LOADS 0
#define ABICHECK_WILL_NOT_LOAD 1
#define ABICHECK_USAGE 2
#define ABICHECK_BAD_INPUT 3
#define ABICHECK_UNKNOWN 4 /* cannot tell: it rests on a library not among the files */

/* abicheck_check flags. A bit this library does not know is refused (ABICHECK_USAGE): a newer
 * caller's flag is never ignored. */
#define ABICHECK_NO_DIAGNOSE 1u /* the verdict and ld.so's messages only: the fastest gate */
#define ABICHECK_NO_HOST 2u     /* search no host library directory nor /etc/ld.so.cache */

typedef struct abicheck_build abicheck_build;
typedef struct abicheck_error abicheck_error;

ABICHECK_C_EXPORT int abicheck_c_api_version(void);
ABICHECK_C_EXPORT const char* abicheck_version(void); /* "MAJOR.MINOR.PATCH", as --version */

/* Opens a build (a directory, wheel, shared object, or an index; "INDEX#NAME" for one build of
 * an index of several) once, for any number of checks from any thread. NULL on error, with
 * *error set when error is not NULL. */
ABICHECK_C_EXPORT abicheck_build* abicheck_build_open(const char* path, abicheck_error** error);
ABICHECK_C_EXPORT void abicheck_build_close(abicheck_build* build);

/* Predicts dlopen(module) after the build's libraries were loaded (build NULL: against the host's
 * libraries alone). Returns ABICHECK_LOADS, ABICHECK_WILL_NOT_LOAD or ABICHECK_UNKNOWN with
 * *report_json set (free it with abicheck_string_free) when report_json is not NULL; on an
 * error, its code with *error set. */
ABICHECK_C_EXPORT int abicheck_check(const abicheck_build* build, const char* module,
                                     unsigned flags, char** report_json, abicheck_error** error);
ABICHECK_C_EXPORT void abicheck_string_free(char* s);

/* The error's code (the exit code class); ABICHECK_USAGE for a NULL error, never ABICHECK_LOADS. */
ABICHECK_C_EXPORT int abicheck_error_code(const abicheck_error* error);
ABICHECK_C_EXPORT const char* abicheck_error_message(const abicheck_error* error);
ABICHECK_C_EXPORT void abicheck_error_free(abicheck_error* error);

/* Since ABICHECK_C_API_VERSION 2 (version node ABICHECK_C_2). */

/* Runs `abicheck ARGS...` in this process, as the abicheck program would, with args[0..nargs)
 * the words after the program's name: {"check", "m.so", "--against", "torch.whl", "--format",
 * "json"}, {"env", "venv", "--format", "json"}, {"gpu", "m.so", "--gpu", "sm_90"}, ...; nothing
 * it reads is loaded or run. What the program would print on stdout is returned in *out and what
 * on stderr in *err (NUL-terminated, free with abicheck_string_free; a NULL pointer discards it).
 * Returns the program's exit code (ABICHECK_LOADS ... ABICHECK_UNKNOWN; --help: 0). */
ABICHECK_C_EXPORT int abicheck_run(int nargs, const char* const* args, char** out, char** err);

/* abicheck_run with the command as a JSON object (UTF-8):
 *   {"command": "check", "args": ["m.so"],
 *    "options": {"against": ["torch.whl", "pip:torch==2.10.0"], "gpu": "sm_90", "no-host": true}}
 * "command" is a subcommand ("check" if absent), "args" its positional arguments (given after
 * "--", so a file may start with '-'), "options" the long options by name: true for a flag (false
 * and null leave it out), a string or number for a value, an array to repeat it. "--format json"
 * is added for commands that have --format unless "format" is given, so *out is the schema's JSON
 * (docs/json-schema.md). An unknown key or option is a usage error (ABICHECK_USAGE), never
 * ignored. */
ABICHECK_C_EXPORT int abicheck_run_json(const char* request, char** out, char** err);

/* Installs, once, the SIGBUS handler described above (a file shrunk under a mapping: exit 3 and
 * a line naming it). */
ABICHECK_C_EXPORT void abicheck_guard_sigbus(void);

#ifdef __cplusplus
}
#endif

#endif /* ABICHECK_ABICHECK_C_H_ */
