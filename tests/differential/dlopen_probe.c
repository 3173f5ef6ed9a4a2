/* The real loader's verdict, for differential tests only (abicheck itself never loads anything):
 *   dlopen_probe [-g GLOBAL]... [PROVIDER]... -- MODULE
 * loads each GLOBAL with RTLD_NOW|RTLD_GLOBAL and each PROVIDER with RTLD_NOW|RTLD_LOCAL, then
 * MODULE with RTLD_NOW|RTLD_LOCAL as CPython loads extension modules. Prints "loaded" or the
 * dlerror() text on one line; exits 0 when MODULE loaded, 1 when it did not, 2 when a GLOBAL or
 * PROVIDER did not load (a broken fixture). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

/* A fault says where it happened — in ld.so itself (the loader's own verdict) or in code the
 * loader ran for the object (a constructor): the mutation campaign tells the two apart. */
static void on_fault(int sig, siginfo_t* info, void* context) {
  (void)info;
  void* pc = NULL;
#if defined(__x86_64__)
  pc = (void*)((ucontext_t*)context)->uc_mcontext.gregs[REG_RIP];
#endif
  Dl_info where;
  if (pc != NULL && dladdr(pc, &where) != 0 && where.dli_fname != NULL)
    printf("crashed (signal %d) in %s\n", sig, where.dli_fname);
  else
    printf("crashed (signal %d) at %p, in no object\n", sig, pc);
  fflush(stdout);
  _exit(128 + sig);
}

int main(int argc, char** argv) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGBUS, &sa, NULL);
  sigaction(SIGILL, &sa, NULL);
  sigaction(SIGFPE, &sa, NULL);
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
