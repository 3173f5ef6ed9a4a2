/* The C API from C: check_module MODULE BUILD — opens BUILD once, checks MODULE against it,
 * prints the JSON report, exits as abicheck check does. */
#include <stdio.h>

#include "abicheck/abicheck_c.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s MODULE BUILD\n", argv[0]);
    return ABICHECK_USAGE;
  }
  abicheck_error* error = NULL;
  abicheck_build* build = abicheck_build_open(argv[2], &error);
  if (build == NULL) {
    fprintf(stderr, "%s\n", abicheck_error_message(error));
    int code = abicheck_error_code(error);
    abicheck_error_free(error);
    return code;
  }
  char* json = NULL;
  int rc = abicheck_check(build, argv[1], 0, &json, &error);
  if (json != NULL) puts(json);
  if (error != NULL) fprintf(stderr, "%s\n", abicheck_error_message(error));
  abicheck_string_free(json);
  abicheck_error_free(error);
  abicheck_build_close(build);
  return rc;
}
