// Loads libsecret-1 with dlopen and resolves the functions the wrappers call, once per process.
#define _GNU_SOURCE
#include "tokencache_libsecret.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tokencache_libsecret_functions tokencache_libsecret;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char library[512];
static char failure[1024];

static void load(void) {
    // secure_getenv: a set-user-ID program never loads a library its caller named.
    const char *name = secure_getenv("TOKENCACHE_LIBSECRET");
    if (name == NULL || name[0] == '\0') name = "libsecret-1.so.0";
    snprintf(library, sizeof library, "%s", name);
    if (strchr(name, '/') != NULL && name[0] != '/') {
        snprintf(failure, sizeof failure, "TOKENCACHE_LIBSECRET must be a library name or an absolute path, not a relative path");
        return;
    }
    // RTLD_LOCAL: libsecret's and GLib's symbols stay out of the global namespace of the host process.
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *message = dlerror();
        snprintf(failure, sizeof failure, "%s", message ? message : "dlopen failed");
        return;
    }
    struct tokencache_libsecret_functions table;
    // A handle's lookups also search the libraries it depends on: GLib, GObject and GIO.
#define TOKENCACHE_LIBSECRET_RESOLVE(type, symbol, parameters) \
    *(void **)&table.symbol = dlsym(handle, #symbol); \
    if (table.symbol == NULL) { \
        const char *message = dlerror(); \
        snprintf(failure, sizeof failure, "%s", message ? message : "undefined symbol: " #symbol); \
        dlclose(handle); \
        return; \
    }
    TOKENCACHE_LIBSECRET_FUNCTIONS(TOKENCACHE_LIBSECRET_RESOLVE)
#undef TOKENCACHE_LIBSECRET_RESOLVE
    // The handle is kept for the life of the process: GLib's type system cannot be unloaded.
    tokencache_libsecret = table;
    loaded = 1;
}

int tokencache_libsecret_load(void) {
    pthread_once(&load_once, load);
    return loaded;
}

const char *tokencache_libsecret_name(void) {
    pthread_once(&load_once, load);
    return library;
}

const char *tokencache_libsecret_failure(void) {
    pthread_once(&load_once, load);
    return loaded ? NULL : failure;
}
