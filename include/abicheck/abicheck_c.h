/* abicheck's C API: will this extension module load against that build, and if not, why?
 *
 * For tools that cannot link the C++ API (include/abicheck/abicheck.h carries abseil's types, so
 * only a consumer built against the same abseil can): Python through ctypes, Rust, Go, or C++
 * built against another abseil. Opaque handles; a report is JSON following the published schema
 * (docs/report.schema.json), the same text `abicheck check --format json` prints; an error is a
 * code (the exit code the command line gives) and one line naming the file and the structure.
 * The symbols are versioned (ABICHECK_C_1): what is here keeps its meaning in later releases. */
#ifndef ABICHECK_ABICHECK_C_H_
#define ABICHECK_ABICHECK_C_H_

#ifdef __cplusplus
extern "C" {
#endif

#define ABICHECK_C_EXPORT __attribute__((visibility("default")))
#define ABICHECK_C_API_VERSION 1

/* Exit codes, as the command line's: the module loads (and runs where a GPU was given); it will
 * not; a usage error; bad input (unreadable, corrupt, over a cap). */
#define ABICHECK_LOADS 0
#define ABICHECK_WILL_NOT_LOAD 1
#define ABICHECK_USAGE 2
#define ABICHECK_BAD_INPUT 3
#define ABICHECK_UNKNOWN 4 /* cannot tell: it rests on a library not among the files */

/* abicheck_check flags. */
#define ABICHECK_NO_DIAGNOSE 1u /* the verdict and ld.so's messages only: the fastest gate */
#define ABICHECK_NO_HOST 2u     /* search no host library directory nor /etc/ld.so.cache */

typedef struct abicheck_build abicheck_build;
typedef struct abicheck_error abicheck_error;

ABICHECK_C_EXPORT int abicheck_c_api_version(void);
ABICHECK_C_EXPORT const char* abicheck_version(void); /* "0.1.0" */

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

ABICHECK_C_EXPORT int abicheck_error_code(const abicheck_error* error);
ABICHECK_C_EXPORT const char* abicheck_error_message(const abicheck_error* error);
ABICHECK_C_EXPORT void abicheck_error_free(abicheck_error* error);

#ifdef __cplusplus
}
#endif

#endif /* ABICHECK_ABICHECK_C_H_ */
