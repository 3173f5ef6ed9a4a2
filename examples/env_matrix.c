/* The C API's abicheck_run from C: env_matrix env VENV [BUILD...] — which packages of an installed
 * environment load with its torch (and with each BUILD); env_matrix matrix MODULE BUILD... — one
 * module against several builds. Prints the JSON (docs/json-schema.md), exits as abicheck does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abicheck/abicheck_c.h"

int main(int argc, char** argv) {
  if (argc < 3 || (strcmp(argv[1], "env") != 0 && strcmp(argv[1], "matrix") != 0)) {
    fprintf(stderr, "usage: %s env VENV [BUILD...] | matrix MODULE BUILD...\n", argv[0]);
    return ABICHECK_USAGE;
  }
  /* abicheck env VENV --against B... --format json, or abicheck check MODULE --against B... */
  const char** args = calloc((size_t)(2 * argc + 4), sizeof(char*));
  if (args == NULL) return ABICHECK_BAD_INPUT;
  int n = 0;
  args[n++] = strcmp(argv[1], "env") == 0 ? "env" : "check";
  args[n++] = argv[2];
  for (int i = 3; i < argc; ++i) {
    args[n++] = "--against";
    args[n++] = argv[i];
  }
  args[n++] = "--format";
  args[n++] = "json";
  char* out = NULL;
  char* err = NULL;
  int rc = abicheck_run(n, args, &out, &err);
  if (out != NULL) fputs(out, stdout);
  if (err != NULL) fputs(err, stderr);
  abicheck_string_free(out);
  abicheck_string_free(err);
  free(args);
  return rc;
}
