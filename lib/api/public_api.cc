// libabicheck.so is built from abicheck_core whole; this file only gives the target a source.
#include "abicheck/abicheck.h"
