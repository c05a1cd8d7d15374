/* tokencache_close racing with calls on the same handle from other threads, for the sanitizer
 * builds (scripts/asan-races.sh): every call returns OK, NOT_FOUND or, once the handle is closed,
 * BAD_INPUT; a use after free or a double free is the sanitizer's to report.
 *
 * usage: close_race STORE_SPEC ROUNDS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tokencache.h>

#define THREADS 6

static const char *REQUEST =
    "{\"authority\":\"https://login.microsoftonline.com/common\",\"client_id\":\"c\",\"scopes\":[\"s\"]}";
/* client_info {"uid":"u","utid":"t"} */
static const char *RESPONSE =
    "{\"access_token\":\"at\",\"refresh_token\":\"rt\",\"client_info\":\"eyJ1aWQiOiJ1IiwidXRpZCI6InQifQ\","
    "\"scope\":\"s\",\"expires_in\":3600,\"token_type\":\"Bearer\"}";
static const char *QUERY =
    "{\"home_account_id\":\"u.t\",\"environment\":\"login.microsoftonline.com\",\"client_id\":\"c\",\"realm\":\"t\",\"scopes\":[\"s\"]}";

struct worker { tokencache_t *cache; int index; volatile int *stop; int unexpected; };

static void *work(void *argument) {
    struct worker *worker = argument;
    while (!*worker->stop) {
        char *result = NULL;
        tokencache_error_t *error = NULL;
        int rc;
        switch (worker->index % 3) {
        case 0: rc = tokencache_accounts(worker->cache, NULL, &result, &error); break;
        case 1: rc = tokencache_lookup_access_token(worker->cache, QUERY, &result, &error); break;
        default: rc = tokencache_save(worker->cache, REQUEST, RESPONSE, &result, &error); break;
        }
        if (rc != TOKENCACHE_OK && rc != TOKENCACHE_ERROR_NOT_FOUND && rc != TOKENCACHE_ERROR_BAD_INPUT) worker->unexpected++;
        tokencache_free(result);
        tokencache_error_free(error);
    }
    return NULL;
}

static void pause_ms(long ms) {
    struct timespec delay = {0, ms * 1000000L};
    nanosleep(&delay, NULL);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s STORE_SPEC ROUNDS\n", argv[0]);
        return 2;
    }
    int rounds = atoi(argv[2]);
    int unexpected = 0;
    for (int round = 0; round < rounds; round++) {
        tokencache_t *cache = NULL;
        tokencache_error_t *error = NULL;
        if (tokencache_open(argv[1], NULL, 0, NULL, &cache, &error) != TOKENCACHE_OK) {
            fprintf(stderr, "open failed: %s\n", error ? tokencache_error_message(error) : "?");
            return 1;
        }
        volatile int stop = 0;
        pthread_t threads[THREADS];
        struct worker workers[THREADS];
        for (int i = 0; i < THREADS; i++) {
            workers[i] = (struct worker){cache, i, &stop, 0};
            pthread_create(&threads[i], NULL, work, &workers[i]);
        }
        pause_ms(5);
        tokencache_close(cache);
        pause_ms(5);
        stop = 1;
        for (int i = 0; i < THREADS; i++) {
            pthread_join(threads[i], NULL);
            unexpected += workers[i].unexpected;
        }
    }
    printf("close_race: %d rounds, %d unexpected results\n", rounds, unexpected);
    return unexpected == 0 ? 0 : 1;
}
