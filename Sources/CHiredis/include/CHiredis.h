#ifndef TOKENCACHE_CHIREDIS_SHIM_H
#define TOKENCACHE_CHIREDIS_SHIM_H

#include <hiredis/hiredis.h>
#include <errno.h>
#include <poll.h>
#include <sys/time.h>

// Non-variadic entry points over hiredis 0.14 for Swift: every command goes through the binary-safe
// argv form, and connects report errno (hiredis keeps only its text) so errors can be typed.
//
// hiredis is loaded at run time (loader.c), as libsecret is: a machine without libhiredis runs
// everything but the Redis backend. Call tokencache_hiredis_load() and check it returned 1 before
// calling any function here. Building needs only hiredis's headers (libhiredis-dev), for its types.

// The hiredis functions the wrappers call, resolved with dlsym.
struct tokencache_hiredis_functions {
    redisContext *(*redisConnectWithTimeout)(const char *ip, int port, const struct timeval tv);
    redisContext *(*redisConnectUnixWithTimeout)(const char *path, const struct timeval tv);
    int (*redisSetTimeout)(redisContext *c, const struct timeval tv);
    int (*redisAppendCommandArgv)(redisContext *c, int argc, const char **argv, const size_t *argvlen);
    int (*redisGetReply)(redisContext *c, void **reply);
    int (*redisGetReplyFromReader)(redisContext *c, void **reply);
    void (*freeReplyObject)(void *reply);
    void (*redisFree)(redisContext *c);
};

extern struct tokencache_hiredis_functions tokencache_hiredis;

// Loads libhiredis (TOKENCACHE_HIREDIS, else libhiredis.so.0.14) once per process: 1 when loaded.
int tokencache_hiredis_load(void);
// Why loading failed (the dlopen or dlsym message), or "" when it did not.
const char *tokencache_hiredis_failure(void);


static inline struct timeval tc_redis_timeval(long milliseconds) {
    struct timeval tv;
    tv.tv_sec = milliseconds / 1000;
    tv.tv_usec = (milliseconds % 1000) * 1000;
    return tv;
}

// Connects over TCP with a connect timeout; *error_number is errno after a failed connect (0 if none).
static inline redisContext *tc_redis_connect_tcp(const char *host, int port, long timeout_ms, int *error_number) {
    errno = 0;
    redisContext *context = tokencache_hiredis.redisConnectWithTimeout(host, port, tc_redis_timeval(timeout_ms));
    *error_number = errno;
    return context;
}

static inline redisContext *tc_redis_connect_unix(const char *path, long timeout_ms, int *error_number) {
    errno = 0;
    redisContext *context = tokencache_hiredis.redisConnectUnixWithTimeout(path, tc_redis_timeval(timeout_ms));
    *error_number = errno;
    return context;
}

// The timeout of each read and write on the connection (SO_RCVTIMEO / SO_SNDTIMEO).
static inline int tc_redis_set_timeout(redisContext *context, long timeout_ms) {
    return tokencache_hiredis.redisSetTimeout(context, tc_redis_timeval(timeout_ms));
}

// Queues one command (binary-safe arguments) in the output buffer; REDIS_OK or REDIS_ERR.
static inline int tc_redis_append(redisContext *context, int argc, const char **argv, const size_t *lengths) {
    return tokencache_hiredis.redisAppendCommandArgv(context, argc, argv, lengths);
}

// Flushes queued commands if needed and reads the next reply; NULL on an I/O or protocol error
// (see context->err), with *error_number the errno of a failed read or write.
static inline redisReply *tc_redis_next_reply(redisContext *context, int *error_number) {
    void *reply = 0;
    errno = 0;
    int status = tokencache_hiredis.redisGetReply(context, &reply);
    *error_number = errno;
    if (status != REDIS_OK) return 0;
    return (redisReply *)reply;
}

// A reply already read into hiredis's buffer, without touching the socket; NULL when there is none.
static inline redisReply *tc_redis_buffered_reply(redisContext *context) {
    void *reply = 0;
    if (tokencache_hiredis.redisGetReplyFromReader(context, &reply) != REDIS_OK) return 0;
    return (redisReply *)reply;
}

// Waits up to timeout_ms for the connection's socket to become readable: 1 readable (or closed),
// 0 timed out, -1 error.
static inline int tc_redis_wait_readable(redisContext *context, int timeout_ms) {
    struct pollfd descriptor;
    descriptor.fd = context->fd;
    descriptor.events = POLLIN;
    descriptor.revents = 0;
    int result = poll(&descriptor, 1, timeout_ms);
    if (result < 0) return errno == EINTR ? 0 : -1;
    return result > 0 ? 1 : 0;
}

static inline int tc_redis_error_code(const redisContext *context) { return context->err; }
static inline const char *tc_redis_error_text(const redisContext *context) { return context->errstr; }
static inline void tc_redis_free_reply(redisReply *reply) { tokencache_hiredis.freeReplyObject(reply); }
static inline void tc_redis_free(redisContext *context) { tokencache_hiredis.redisFree(context); }

#endif
