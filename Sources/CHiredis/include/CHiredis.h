#ifndef TOKENCACHE_CHIREDIS_SHIM_H
#define TOKENCACHE_CHIREDIS_SHIM_H

#include <hiredis/hiredis.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <time.h>

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
    int (*redisBufferRead)(redisContext *c);
    int (*redisBufferWrite)(redisContext *c, int *done);
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

// The most elements one reply (or array inside it) may announce, and the most bytes of one reply
// that are buffered: past them a hostile or broken server's reply is refused before hiredis
// allocates for it. The layout's largest reply is a partition's HGETALL (two elements an item).
static const int tc_redis_max_reply_elements = 1 << 22;
static const size_t tc_redis_max_reply_bytes = (size_t)512 << 20;

// Wraps hiredis's reply functions (kept in the reader's privdata) to refuse oversized arrays.
static inline void *tc_redis_create_array(const redisReadTask *task, int elements) {
    if (elements < 0 || elements > tc_redis_max_reply_elements) return 0;  // the reader reports it
    const redisReplyObjectFunctions *original = (const redisReplyObjectFunctions *)task->privdata;
    return original->createArray(task, elements);
}
static inline void *tc_redis_create_string(const redisReadTask *task, char *text, size_t length) {
    return ((const redisReplyObjectFunctions *)task->privdata)->createString(task, text, length);
}
static inline void *tc_redis_create_integer(const redisReadTask *task, long long value) {
    return ((const redisReplyObjectFunctions *)task->privdata)->createInteger(task, value);
}
static inline void *tc_redis_create_nil(const redisReadTask *task) {
    return ((const redisReplyObjectFunctions *)task->privdata)->createNil(task);
}
static inline void tc_redis_free_object(void *object) { tokencache_hiredis.freeReplyObject(object); }
static redisReplyObjectFunctions tc_redis_capped_functions = {
    tc_redis_create_string, tc_redis_create_array, tc_redis_create_integer, tc_redis_create_nil, tc_redis_free_object,
};

// Makes the connection's reader refuse arrays of more than tc_redis_max_reply_elements elements.
static inline void tc_redis_cap_replies(redisContext *context) {
    if (context->reader->fn == &tc_redis_capped_functions) return;
    context->reader->privdata = context->reader->fn;
    context->reader->fn = &tc_redis_capped_functions;
}

// Why tc_redis_reply_by failed, when it did.
enum tc_redis_failure { TC_REDIS_IO = 1, TC_REDIS_TIMED_OUT = 2, TC_REDIS_TOO_LARGE = 3, TC_REDIS_PROTOCOL = 4 };

static inline long long tc_redis_now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

// Writes queued commands without the host's risk of SIGPIPE. hiredis writes with plain write(): to a
// peer that has gone (a killed server, a closed unix socket) that raises SIGPIPE, whose default
// action ends the whole process, the host's. So SIGPIPE is blocked in this thread for the write, and
// one the write raised (none was pending before) is taken back; the write then fails with EPIPE,
// a lost connection like any other. libpq guards its sends the same way.
static inline int tc_redis_buffer_write(redisContext *context, int *done) {
    sigset_t pipe_only, previous, pending;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &previous);
    sigemptyset(&pending);
    int was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
    errno = 0;
    int result = tokencache_hiredis.redisBufferWrite(context, done);
    int saved = errno;
    // Only a failed write can have raised one.
    if (!was_pending && result != REDIS_OK) {
        sigemptyset(&pending);
        if (sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
            struct timespec now = {0, 0};
            while (sigtimedwait(&pipe_only, 0, &now) < 0 && errno == EINTR) {}
        }
    }
    pthread_sigmask(SIG_SETMASK, &previous, 0);
    errno = saved;
    return result;
}

// Flushes queued commands and reads the next reply, giving up at `deadline_ms` (CLOCK_MONOTONIC,
// tc_redis_now_ms) however the server spaces its bytes: the deadline bounds every read together,
// not each one. NULL on failure, with *failure one of tc_redis_failure and *error_number the errno
// of a failed read or write.
static inline redisReply *tc_redis_reply_by(redisContext *context, long long deadline_ms, int *failure, int *error_number) {
    void *reply = 0;
    *failure = 0;
    *error_number = 0;
    if (tokencache_hiredis.redisGetReplyFromReader(context, &reply) != REDIS_OK) {
        *failure = context->err == REDIS_ERR_OOM ? TC_REDIS_TOO_LARGE : TC_REDIS_PROTOCOL;
        return 0;
    }
    if (reply) return (redisReply *)reply;
    int done = 0;
    do {
        if (tc_redis_now_ms() >= deadline_ms) { *failure = TC_REDIS_TIMED_OUT; return 0; }
        if (tc_redis_buffer_write(context, &done) != REDIS_OK) {
            *error_number = errno;
            *failure = (errno == EAGAIN || errno == EWOULDBLOCK) ? TC_REDIS_TIMED_OUT : TC_REDIS_IO;
            return 0;
        }
    } while (!done);
    while (!reply) {
        long long left = deadline_ms - tc_redis_now_ms();
        if (left <= 0) { *failure = TC_REDIS_TIMED_OUT; return 0; }
        struct pollfd descriptor;
        descriptor.fd = context->fd;
        descriptor.events = POLLIN;
        descriptor.revents = 0;
        int ready = poll(&descriptor, 1, left > 1000000 ? 1000000 : (int)left);
        if (ready < 0 && errno != EINTR) { *error_number = errno; *failure = TC_REDIS_IO; return 0; }
        if (ready <= 0) continue;
        errno = 0;
        if (tokencache_hiredis.redisBufferRead(context) != REDIS_OK) {
            *error_number = errno;
            *failure = (errno == EAGAIN || errno == EWOULDBLOCK) ? TC_REDIS_TIMED_OUT : TC_REDIS_IO;
            return 0;
        }
        if (context->reader->len - context->reader->pos > tc_redis_max_reply_bytes) { *failure = TC_REDIS_TOO_LARGE; return 0; }
        if (tokencache_hiredis.redisGetReplyFromReader(context, &reply) != REDIS_OK) {
            *failure = context->err == REDIS_ERR_OOM ? TC_REDIS_TOO_LARGE : TC_REDIS_PROTOCOL;
            return 0;
        }
    }
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
