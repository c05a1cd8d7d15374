// Loads libhiredis with dlopen and resolves the functions the wrappers call, once per process.
#define _GNU_SOURCE
#include "CHiredis.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct tokencache_hiredis_functions tokencache_hiredis;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char failure[1024];

static void load(void) {
    // secure_getenv: a set-user-ID program never loads a library its caller named.
    const char *name = secure_getenv("TOKENCACHE_HIREDIS");
    if (name == NULL || name[0] == '\0') name = "libhiredis.so.0.14";
    if (strchr(name, '/') != NULL && name[0] != '/') {
        snprintf(failure, sizeof failure, "TOKENCACHE_HIREDIS must be a library name or an absolute path, not a relative path");
        return;
    }
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *message = dlerror();
        snprintf(failure, sizeof failure, "%s (install libhiredis0.14)", message ? message : "dlopen failed");
        return;
    }
    struct tokencache_hiredis_functions table;
#define RESOLVE(symbol) \
    *(void **)&table.symbol = dlsym(handle, #symbol); \
    if (table.symbol == NULL) { \
        snprintf(failure, sizeof failure, "%s has no %s: not hiredis 0.14", name, #symbol); \
        dlclose(handle); \
        return; \
    }
    RESOLVE(redisConnectWithTimeout)
    RESOLVE(redisConnectUnixWithTimeout)
    RESOLVE(redisSetTimeout)
    RESOLVE(redisAppendCommandArgv)
    RESOLVE(redisGetReply)
    RESOLVE(redisGetReplyFromReader)
    RESOLVE(redisBufferRead)
    RESOLVE(redisBufferWrite)
    RESOLVE(freeReplyObject)
    RESOLVE(redisFree)
#undef RESOLVE
    tokencache_hiredis = table;
    loaded = 1;
}

int tokencache_hiredis_load(void) {
    pthread_once(&load_once, load);
    return loaded;
}

const char *tokencache_hiredis_failure(void) {
    tokencache_hiredis_load();
    return failure;
}
