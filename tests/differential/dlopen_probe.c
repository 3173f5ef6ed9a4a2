/* The real loader's verdict, for differential tests only (abicheck itself never loads anything):
 *   dlopen_probe [-g GLOBAL]... [PROVIDER]... -- MODULE
 * loads each GLOBAL with RTLD_NOW|RTLD_GLOBAL and each PROVIDER with RTLD_NOW|RTLD_LOCAL, then
 * MODULE with RTLD_NOW|RTLD_LOCAL as CPython loads extension modules. Prints "loaded" or the
 * dlerror() text on one line; exits 0 when MODULE loaded, 1 when it did not, 2 when a GLOBAL or
 * PROVIDER did not load (a broken fixture). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  int i = 1;
  for (; i < argc && strcmp(argv[i], "--") != 0; ++i) {
    int flags = RTLD_NOW | RTLD_LOCAL;
    if (strcmp(argv[i], "-g") == 0 && i + 1 < argc) {
      flags = RTLD_NOW | RTLD_GLOBAL;
      ++i;
    }
    if (dlopen(argv[i], flags) == NULL) {
      printf("provider failed: %s\n", dlerror());
      return 2;
    }
  }
  if (i + 1 >= argc) {
    fprintf(stderr, "usage: dlopen_probe [-g GLOBAL]... [PROVIDER]... -- MODULE\n");
    return 2;
  }
  if (dlopen(argv[i + 1], RTLD_NOW | RTLD_LOCAL) == NULL) {
    printf("%s\n", dlerror());
    return 1;
  }
  printf("loaded\n");
  fflush(
      stdout); /* said before exit runs the destructors, which may crash (the mutation campaign) */
  return 0;
}
