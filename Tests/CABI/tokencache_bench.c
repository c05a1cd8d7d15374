/* Times the two calls an auth library makes most: an access-token lookup and a change-stamp poll.
 * Prints nanoseconds per call; scripts/c-abi-test.sh runs it. Not a test: no threshold. */
#include <tokencache.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TENANT "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"
#define HOME "9f4880d8-80ba-4c40-97bc-f7a23c703084." TENANT
#define CLIENT_INFO "eyJ1aWQiOiI5ZjQ4ODBkOC04MGJhLTRjNDAtOTdiYy1mN2EyM2M3MDMwODQiLCJ1dGlkIjoiZjY0NWFkOTItZTM4ZC00ZDFhLWI1MTAtZDFiMDlhNzRhOGNhIn0"
#define ID_TOKEN "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJ0aWQiOiJmNjQ1YWQ5Mi1lMzhkLTRkMWEtYjUxMC1kMWIwOWE3NGE4Y2EiLCJvaWQiOiI5ZjQ4ODBkOC04MGJhLTRjNDAtOTdiYy1mN2EyM2M3MDMwODQiLCJzdWIiOiJzIiwicHJlZmVycmVkX3VzZXJuYW1lIjoiYWxpY2VAY29udG9zby5jb20iLCJuYW1lIjoiYWxpY2UiLCJpc3MiOiJodHRwczovL2xvZ2luLm1pY3Jvc29mdG9ubGluZS5jb20vZjY0NWFkOTItZTM4ZC00ZDFhLWI1MTAtZDFiMDlhNzRhOGNhL3YyLjAiLCJ2ZXIiOiIyLjAifQ.sig"

static double seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    char spec[1024];
    snprintf(spec, sizeof spec, "sqlite:%s", argc > 1 ? argv[1] : "/tmp/tokencache-bench.sqlite");
    tokencache_t *cache = NULL;
    if (tokencache_open(spec, NULL, 0, "{\"key\":\"file\"}", &cache, NULL) != TOKENCACHE_OK) return 1;
    const char *request = "{\"authority\":\"https://login.microsoftonline.com/common\",\"client_id\":\"app\",\"scopes\":[\"User.Read\"]}";
    const char *response = "{\"token_type\":\"Bearer\",\"scope\":\"User.Read openid profile\",\"expires_in\":3600,"
        "\"access_token\":\"at\",\"refresh_token\":\"rt\",\"id_token\":\"" ID_TOKEN "\",\"client_info\":\"" CLIENT_INFO "\"}";
    if (tokencache_save(cache, request, response, NULL, NULL) != TOKENCACHE_OK) return 1;
    const char *query = "{\"home_account_id\":\"" HOME "\",\"environment\":\"login.microsoftonline.com\",\"client_id\":\"app\","
        "\"realm\":\"" TENANT "\",\"scopes\":[\"User.Read\"]}";

    int rounds = 100000;
    double start = seconds();
    for (int i = 0; i < rounds; i++) {
        char *entry = NULL;
        if (tokencache_lookup_access_token(cache, query, &entry, NULL) != TOKENCACHE_OK) return 1;
        tokencache_free(entry);
    }
    double lookup = (seconds() - start) / rounds * 1e9;

    const char *search_query = "{\"home_account_id\":\"" HOME "\",\"environment\":\"login.windows.net\",\"client_id\":\"app\","
        "\"realm\":\"" TENANT "\"}";
    start = seconds();
    for (int i = 0; i < rounds; i++) {
        char *entries = NULL;
        if (tokencache_search(cache, "AccessToken", search_query, "[\"User.Read\"]", 0, &entries, NULL) != TOKENCACHE_OK) return 1;
        if (i == 0 && strstr(entries, "\"at\"") == NULL) return 1;
        tokencache_free(entries);
    }
    double search = (seconds() - start) / rounds * 1e9;

    tokencache_stamp_t stamp;
    rounds = 1000000;
    start = seconds();
    for (int i = 0; i < rounds; i++) {
        if (tokencache_change_stamp(cache, &stamp, NULL) != TOKENCACHE_OK) return 1;
    }
    double poll = (seconds() - start) / rounds * 1e9;
    printf("C ABI on SQLite: access-token lookup %.0f ns/call, MSAL search for the access token %.0f ns/call "
           "(query JSON in, entry JSON out), change-stamp poll %.0f ns/call\n", lookup, search, poll);
    tokencache_close(cache);
    return 0;
}
