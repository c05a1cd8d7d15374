/* The C ABI test: every function of tokencache.h, with its error paths, against the installed
 * library (scripts/c-abi-test.sh builds it with pkg-config and runs it under valgrind). */
#include <pthread.h>
#include <unistd.h>

#include "test_support.h"

static const char *AT_QUERY =
    "{\"home_account_id\":\"" ALICE "\",\"environment\":\"login.microsoftonline.com\",\"client_id\":\"" APP_A "\","
    "\"realm\":\"" TENANT "\",\"scopes\":[\"User.Read\"]}";

static void test_versions_and_memory(void) {
    CHECK(tokencache_abi_version() == TOKENCACHE_ABI_VERSION);
    CHECK(tokencache_version() != NULL && strlen(tokencache_version()) > 0);
    tokencache_free(NULL);
    tokencache_error_free(NULL);
    tokencache_close(NULL);
    CHECK(tokencache_error_category_of(NULL) == TOKENCACHE_ERROR_INTERNAL);
    CHECK(tokencache_error_message(NULL) == NULL);
    CHECK(tokencache_error_remedy(NULL) == NULL);
}

static void test_open_errors(const char *directory) {
    tokencache_t *cache = (tokencache_t *)1;
    tokencache_error_t *error = NULL;
    EXPECT(tokencache_open("postgres://nope", NULL, 0, NULL, &cache, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "bad spec");
    CHECK(cache == NULL);
    EXPECT(tokencache_open("sqlite:\xff\xfe", NULL, 0, NULL, &cache, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "invalid UTF-8");
    EXPECT(tokencache_open("memory", NULL, 0, "{not json", &cache, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "bad options");
    EXPECT(tokencache_open("memory", NULL, 0, "{\"colour\":1}", &cache, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "unknown option");
    EXPECT(tokencache_open("memory", NULL, 0, "{\"key\":\"tpm\"}", &cache, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "unknown key source");
    EXPECT(tokencache_open("memory", NULL, 0, "{\"loading\":\"lazy\"}", &cache, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "unknown loading");
    EXPECT(tokencache_open("memory", NULL, 0, "{\"partition_limit\":10}", &cache, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "limit without partitions");
    EXPECT(tokencache_open("memory", NULL, 0, "{\"loading\":\"partitions\",\"partition_limit\":0}", &cache, &error),
           TOKENCACHE_ERROR_BAD_INPUT, error, "limit 0");
    EXPECT(tokencache_open("memory", NULL, 0, "{\"loading\":\"partitions\",\"partition_limit\":\"5\"}", &cache, &error),
           TOKENCACHE_ERROR_BAD_INPUT, error, "limit not a number");
    EXPECT(tokencache_open("memory", NULL, 2, NULL, &cache, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "NULL groups");
    EXPECT(tokencache_open("memory", NULL, 0, NULL, NULL, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "NULL out");
    const char *groups[] = {"g1"};
    EXPECT(tokencache_open("memory", groups, 1, "{\"write_access_group\":\"g2\"}", &cache, &error),
                  TOKENCACHE_ERROR_PERMISSION, error, "write group not opened");
    CHECK(tokencache_open("postgres://nope", NULL, 0, NULL, &cache, NULL) == TOKENCACHE_ERROR_BAD_INPUT);
    char path[1024];
    snprintf(path, sizeof path, "sqlite:%s/not-a-store.sqlite", directory);
    FILE *file = fopen(path + 7, "w");
    for (int i = 0; i < 300; i++) fputs("these are not tokens\n", file);
    fclose(file);
    EXPECT(tokencache_open(path, NULL, 0, "{\"key\":\"file\"}", &cache, &error), TOKENCACHE_ERROR_DAMAGED, error, "not a store");
    EXPECT(tokencache_open("sqlite:/proc/nope/cache.sqlite", NULL, 0, "{\"key\":\"file\"}", &cache, &error),
                  TOKENCACHE_ERROR_UNAVAILABLE, error, "uncreatable");
}

static void test_lookups(tokencache_t *cache) {
    tokencache_error_t *error = NULL;
    char *entry = NULL;
    EXPECT(tokencache_lookup_access_token(cache, AT_QUERY, &entry, &error), TOKENCACHE_OK, error, "AT hit");
    CHECK(contains(entry, "\"secret\":\"at-alice-1\""));
    CHECK(contains(entry, "\"credential_type\":\"AccessToken\""));
    CHECK(contains(entry, "\"needs_refresh\":\"false\""));
    tokencache_free(entry);

    const char *miss = "{\"home_account_id\":\"" ALICE "\",\"environment\":\"login.microsoftonline.com\",\"client_id\":\"" APP_A "\",\"scopes\":[\"Files.Read\"]}";
    EXPECT(tokencache_lookup_access_token(cache, miss, &entry, &error), TOKENCACHE_ERROR_NOT_FOUND, error, "AT miss");
    CHECK(entry == NULL);
    EXPECT(tokencache_lookup_access_token(cache, "{\"client_id\":\"x\"}", &entry, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "AT query lacks members");
    EXPECT(tokencache_lookup_access_token(cache, "[1]", &entry, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "AT query not an object");
    EXPECT(tokencache_lookup_access_token(cache, NULL, &entry, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "AT query NULL");
    EXPECT(tokencache_lookup_access_token(NULL, AT_QUERY, &entry, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "NULL handle");
    EXPECT(tokencache_lookup_access_token(cache, "{\"home_account_id\":\"\xc3\x28\"}", &entry, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "invalid UTF-8 query");

    EXPECT(tokencache_lookup_refresh_token(cache, "{\"client_id\":\"" APP_A "\",\"username\":\"ALICE@contoso.com\"}", &entry, &error),
                  TOKENCACHE_OK, error, "RT by username");
    CHECK(contains(entry, "\"secret\":\"rt-alice-1\""));
    tokencache_free(entry);
    EXPECT(tokencache_lookup_refresh_token(cache, "{\"client_id\":\"" APP_B "\",\"home_account_id\":\"" ALICE "\"}", &entry, &error),
                  TOKENCACHE_OK, error, "RT by account");
    CHECK(contains(entry, "\"secret\":\"rt-alice-b\""));
    tokencache_free(entry);
    EXPECT(tokencache_lookup_refresh_token(cache, "{\"client_id\":\"other\",\"home_account_id\":\"" ALICE "\",\"family_id\":\"1\"}", &entry, &error),
                  TOKENCACHE_ERROR_NOT_FOUND, error, "RT family miss");
    EXPECT(tokencache_lookup_refresh_token(cache, "{\"client_id\":\"" APP_A "\"}", &entry, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "RT no subject");

    EXPECT(tokencache_lookup_id_token(cache, "{\"home_account_id\":\"" BOB "\",\"client_id\":\"" APP_A "\",\"environment\":\"login.microsoftonline.com\"}", &entry, &error),
                  TOKENCACHE_OK, error, "ID token");
    CHECK(contains(entry, "\"credential_type\":\"IdToken\""));
    tokencache_free(entry);
    EXPECT(tokencache_lookup_id_token(cache, "{\"home_account_id\":\"" BOB "\",\"client_id\":\"" APP_B "\",\"environment\":\"login.microsoftonline.com\"}", &entry, &error),
                  TOKENCACHE_ERROR_NOT_FOUND, error, "ID token miss");
    EXPECT(tokencache_lookup_app_metadata(cache, "{\"client_id\":\"" APP_B "\"}", &entry, &error), TOKENCACHE_OK, error, "app metadata");
    CHECK(contains(entry, "\"client_id\":\"" APP_B "\""));
    tokencache_free(entry);
    EXPECT(tokencache_lookup_app_metadata(cache, "{\"client_id\":\"nobody\"}", &entry, &error), TOKENCACHE_ERROR_NOT_FOUND, error, "app metadata miss");
    EXPECT(tokencache_lookup_app_metadata(cache, "{\"client_id\":3}", &entry, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "app metadata bad kind");
}

static void test_accounts(tokencache_t *cache) {
    tokencache_error_t *error = NULL;
    char *entries = NULL;
    EXPECT(tokencache_accounts(cache, NULL, &entries, &error), TOKENCACHE_OK, error, "accounts");
    CHECK(contains(entries, "alice@contoso.com") && contains(entries, "bob@contoso.com"));
    CHECK(contains(entries, "\"authority_type\":\"MSSTS\""));
    tokencache_free(entries);
    EXPECT(tokencache_accounts(cache, "{\"client_id\":\"" APP_B "\"}", &entries, &error), TOKENCACHE_OK, error, "accounts of app B");
    CHECK(contains(entries, "alice@contoso.com") && !contains(entries, "bob@contoso.com"));
    tokencache_free(entries);
    EXPECT(tokencache_accounts(cache, "{\"client_id\":\"nobody\"}", &entries, &error), TOKENCACHE_OK, error, "no accounts");
    CHECK(entries && strcmp(entries, "[]") == 0);
    tokencache_free(entries);
    EXPECT(tokencache_accounts(cache, "{\"tenant\":\"x\"}", &entries, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "accounts bad filter");
    EXPECT(tokencache_find_account(cache, "{\"username\":\"bob@contoso.com\"}", &entries, &error), TOKENCACHE_OK, error, "find by username");
    CHECK(contains(entries, BOB));
    tokencache_free(entries);
    EXPECT(tokencache_find_account(cache, "{\"home_account_id\":\"" ALICE "\"}", &entries, &error), TOKENCACHE_OK, error, "find by id");
    CHECK(contains(entries, "alice@contoso.com"));
    tokencache_free(entries);
    EXPECT(tokencache_find_account(cache, "{\"username\":\"carol@contoso.com\"}", &entries, &error), TOKENCACHE_ERROR_NOT_FOUND, error, "find miss");
    EXPECT(tokencache_find_account(cache, "{}", &entries, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "find without subject");
}

static void test_search(tokencache_t *cache) {
    tokencache_error_t *error = NULL;
    char *entries = NULL;
    const char *query = "{\"home_account_id\":\"" ALICE "\",\"environment\":\"LOGIN.windows.net\",\"client_id\":\"" APP_A "\",\"realm\":\"" TENANT "\"}";
    EXPECT(tokencache_search(cache, "AccessToken", query, "[\"Mail.Read\",\"User.Read\"]", 0, &entries, &error), TOKENCACHE_OK, error, "search AT");
    CHECK(contains(entries, "at-alice-1"));
    tokencache_free(entries);
    EXPECT(tokencache_search(cache, "AccessToken", query, "[\"Files.Read\"]", 0, &entries, &error), TOKENCACHE_OK, error, "search AT target miss");
    CHECK(entries && strcmp(entries, "[]") == 0);
    tokencache_free(entries);
    EXPECT(tokencache_search(cache, "AccessToken", query, NULL, 4102444800, &entries, &error), TOKENCACHE_OK, error, "search AT in 2100");
    CHECK(entries && strcmp(entries, "[]") == 0);
    tokencache_free(entries);
    EXPECT(tokencache_search(cache, "RefreshToken", "{\"home_account_id\":\"" ALICE "\"}", NULL, 0, &entries, &error), TOKENCACHE_OK, error, "search RT");
    CHECK(contains(entries, "rt-alice-1") && contains(entries, "rt-alice-b") && !contains(entries, "rt-bob"));
    tokencache_free(entries);
    EXPECT(tokencache_search(cache, "Account", NULL, NULL, 0, &entries, &error), TOKENCACHE_OK, error, "search accounts");
    CHECK(contains(entries, "alice@contoso.com") && contains(entries, "bob@contoso.com"));
    tokencache_free(entries);
    EXPECT(tokencache_search(cache, "AppMetadata", "{\"client_id\":\"" APP_A "\"}", NULL, 0, &entries, &error), TOKENCACHE_OK, error, "search app metadata");
    CHECK(contains(entries, APP_A));
    tokencache_free(entries);
    EXPECT(tokencache_search(cache, "Password", NULL, NULL, 0, &entries, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "search bad type");
    EXPECT(tokencache_search(cache, "IdToken", NULL, "{\"a\":1}", 0, &entries, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "search bad target");
    EXPECT(tokencache_search(cache, "IdToken", NULL, "[1]", 0, &entries, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "search target not strings");
    EXPECT(tokencache_search(cache, "IdToken", NULL, NULL, -1, &entries, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "search negative now");
    EXPECT(tokencache_search(cache, NULL, NULL, NULL, 0, &entries, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "search NULL type");
}

static void test_entries(tokencache_t *cache) {
    tokencache_error_t *error = NULL;
    char *result = NULL;
    /* An app token as MSAL Python writes it for acquire_token_for_client: no home account. */
    const char *document =
        "{\"AccessToken\":{\"k\":{\"credential_type\":\"AccessToken\",\"secret\":\"at-app\",\"home_account_id\":null,"
        "\"environment\":\"login.microsoftonline.com\",\"client_id\":\"daemon\",\"target\":\"https://graph.microsoft.com/.default\","
        "\"realm\":\"" TENANT "\",\"token_type\":\"Bearer\",\"cached_at\":\"1700000000\",\"expires_on\":\"4102444800\","
        "\"extended_expires_on\":\"4102444800\"}}}";
    EXPECT(tokencache_write_entries(cache, document, &result, &error), TOKENCACHE_OK, error, "write entries");
    CHECK(contains(result, "\"saved\":1"));
    tokencache_free(result);
    char *entries = NULL;
    EXPECT(tokencache_search(cache, "AccessToken", "{\"client_id\":\"daemon\",\"home_account_id\":null}", NULL, 0, &entries, &error),
                  TOKENCACHE_OK, error, "search app token");
    CHECK(contains(entries, "at-app"));
    tokencache_free(entries);
    EXPECT(tokencache_blob_load(cache, TOKENCACHE_PARTITION_CLIENT, "daemon", &result, &entries, &error), TOKENCACHE_OK, error, "client partition");
    CHECK(contains(result, "at-app") && !contains(result, "at-alice"));
    tokencache_free(result);
    tokencache_free(entries);
    EXPECT(tokencache_remove_entries(cache, document, &result, &error), TOKENCACHE_OK, error, "remove entries");
    CHECK(contains(result, "\"removed\":1"));
    tokencache_free(result);
    EXPECT(tokencache_write_entries(cache, "{\"AccessToken\":{\"k\":5}}", &result, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "malformed entry");
    CHECK(result == NULL);
    EXPECT(tokencache_write_entries(cache, "nope", &result, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "entries not JSON");
    EXPECT(tokencache_remove_entries(cache, NULL, &result, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "remove NULL");
}

static void test_blobs(tokencache_t *cache, tokencache_t *other) {
    tokencache_error_t *error = NULL;
    char *blob = NULL, *version = NULL, *result = NULL;
    EXPECT(tokencache_blob_load(cache, TOKENCACHE_PARTITION_ACCOUNT, ALICE, &blob, &version, &error), TOKENCACHE_OK, error, "blob load");
    CHECK(contains(blob, "\"AccessToken\"") && contains(blob, "at-alice-1") && !contains(blob, "at-bob"));
    CHECK(version && strncmp(version, "1.", 2) == 0);

    /* Unchanged: nothing written. */
    EXPECT(tokencache_blob_store(cache, TOKENCACHE_PARTITION_ACCOUNT, ALICE, blob, version, 0, &result, &error), TOKENCACHE_OK, error, "store unchanged");
    CHECK(contains(result, "\"saved\":0") && contains(result, "\"removed\":0") && contains(result, "\"conflicts\":[]"));
    tokencache_free(result);

    /* Another process refreshes alice's refresh token of app A; this one changes it too: a conflict. */
    save(other, APP_A, "at-alice-2", "rt-alice-2", 0);
    char *mine = replace(blob, "rt-alice-1", "rt-alice-9");
    EXPECT(tokencache_blob_store(cache, TOKENCACHE_PARTITION_ACCOUNT, ALICE, mine, version, TOKENCACHE_BLOB_FAIL_ON_CONFLICT, &result, &error),
                  TOKENCACHE_ERROR_CONFLICT, error, "conflict fails");
    CHECK(result == NULL);
    EXPECT(tokencache_blob_store(cache, TOKENCACHE_PARTITION_ACCOUNT, ALICE, mine, version, 0, &result, &error), TOKENCACHE_OK, error, "conflict reported");
    CHECK(contains(result, "\"conflicts\":[{"));
    tokencache_free(result);
    free(mine);
    char *entry = NULL;
    EXPECT(tokencache_lookup_refresh_token(cache, "{\"client_id\":\"" APP_A "\",\"home_account_id\":\"" ALICE "\"}", &entry, &error), TOKENCACHE_OK, error, "RT kept");
    CHECK(contains(entry, "rt-alice-2"));
    tokencache_free(entry);

    /* The blob without entries, against the old version: items this caller had and nobody changed
     * are removed; the other process's new tokens stay. */
    EXPECT(tokencache_blob_store(cache, TOKENCACHE_PARTITION_ACCOUNT, ALICE, "{\"Unknown\":{}}", version, 0, &result, &error), TOKENCACHE_OK, error, "removal merge");
    CHECK(contains(result, "\"saved\":1") && !contains(result, "\"removed\":0"));
    tokencache_free(result);
    char *after = NULL, *after_version = NULL;
    EXPECT(tokencache_blob_load(cache, TOKENCACHE_PARTITION_ACCOUNT, ALICE, &after, &after_version, &error), TOKENCACHE_OK, error, "unknown node kept");
    CHECK(contains(after, "\"Unknown\":{}"));
    tokencache_free(after);
    tokencache_free(after_version);
    EXPECT(tokencache_lookup_access_token(cache, AT_QUERY, &entry, &error), TOKENCACHE_OK, error, "other's AT kept");
    CHECK(contains(entry, "at-alice-2"));
    tokencache_free(entry);
    EXPECT(tokencache_lookup_refresh_token(cache, "{\"client_id\":\"" APP_B "\",\"home_account_id\":\"" ALICE "\"}", &entry, &error),
                  TOKENCACHE_ERROR_NOT_FOUND, error, "untouched-by-others RT removed");

    EXPECT(tokencache_blob_store(cache, 9, ALICE, blob, version, 0, &result, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "bad partition");
    EXPECT(tokencache_blob_store(cache, TOKENCACHE_PARTITION_ACCOUNT, ALICE, blob, "2.xyz", 0, &result, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "bad version");
    EXPECT(tokencache_blob_store(cache, TOKENCACHE_PARTITION_ACCOUNT, ALICE, "[]", version, 0, &result, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "blob not an object");
    EXPECT(tokencache_blob_store(cache, TOKENCACHE_PARTITION_ACCOUNT, ALICE, blob, version, 8, &result, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "bad flags");
    EXPECT(tokencache_blob_store(cache, TOKENCACHE_PARTITION_ACCOUNT, NULL, blob, version, 0, &result, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "NULL key");
    EXPECT(tokencache_blob_load(cache, TOKENCACHE_PARTITION_ALL, NULL, NULL, NULL, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "NULL blob out");
    tokencache_free(blob);
    tokencache_free(version);
    EXPECT(tokencache_blob_load(cache, TOKENCACHE_PARTITION_ALL, NULL, &blob, &version, &error), TOKENCACHE_OK, error, "load all");
    CHECK(contains(blob, "at-bob-1"));
    tokencache_free(blob);
    tokencache_free(version);
}

static void test_stamp_and_removal(tokencache_t *cache) {
    tokencache_error_t *error = NULL;
    tokencache_stamp_t first, second;
    EXPECT(tokencache_change_stamp(cache, &first, &error), TOKENCACHE_OK, error, "stamp");
    EXPECT(tokencache_change_stamp(cache, &second, &error), TOKENCACHE_OK, error, "stamp again");
    CHECK(first.first == second.first && first.second == second.second);
    char *result = NULL;
    EXPECT(tokencache_remove_account(cache, BOB, APP_A, &result, &error), TOKENCACHE_OK, error, "remove account");
    CHECK(contains(result, "\"marked_signed_out\":true") && !contains(result, "\"deleted\":0"));
    tokencache_free(result);
    EXPECT(tokencache_change_stamp(cache, &second, &error), TOKENCACHE_OK, error, "stamp after");
    CHECK(first.first != second.first || first.second != second.second);
    EXPECT(tokencache_remove_account(cache, ALICE, NULL, NULL, &error), TOKENCACHE_OK, error, "wipe account");
    EXPECT(tokencache_remove_account(cache, NULL, NULL, &result, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "remove NULL account");
    EXPECT(tokencache_change_stamp(cache, NULL, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "stamp NULL");
    EXPECT(tokencache_change_stamp(NULL, &first, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "stamp NULL handle");
}

static void test_save_errors(tokencache_t *cache) {
    tokencache_error_t *error = NULL;
    char *result = NULL;
    const char *request = "{\"authority\":\"https://login.microsoftonline.com/common\",\"client_id\":\"" APP_A "\",\"scopes\":\"User.Read\"}";
    EXPECT(tokencache_save(cache, request, "{\"access_token\":", &result, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "response not JSON");
    EXPECT(tokencache_save(cache, "{\"authority\":\"http://evil\",\"client_id\":\"x\"}", "{}", &result, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "authority not https");
    EXPECT(tokencache_save(cache, "{\"client_id\":\"x\"}", "{}", &result, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "no authority");
    EXPECT(tokencache_save(cache, request, NULL, &result, &error), TOKENCACHE_ERROR_BAD_INPUT, error, "NULL response");
    tokencache_error_t *secretive = NULL;
    int status = tokencache_save(cache, request, "{\"access_token\":\"TOP-SECRET-AT\",\"expires_in\":\"soon\"}", &result, &secretive);
    CHECK(status == TOKENCACHE_ERROR_BAD_INPUT);
    CHECK(secretive && !contains(tokencache_error_message(secretive), "TOP-SECRET"));
    tokencache_error_free(secretive);
}

struct worker { tokencache_t *cache; int index; int failures; };

static void *work(void *argument) {
    struct worker *worker = argument;
    for (int i = 0; i < 20; i++) {
        char *entry = NULL;
        if (tokencache_lookup_access_token(worker->cache, AT_QUERY, &entry, NULL) != TOKENCACHE_OK) worker->failures++;
        tokencache_free(entry);
        char *list = NULL;
        if (tokencache_search(worker->cache, "RefreshToken", NULL, NULL, 0, &list, NULL) != TOKENCACHE_OK) worker->failures++;
        tokencache_free(list);
    }
    return NULL;
}

static void test_threads(tokencache_t *cache) {
    pthread_t threads[4];
    struct worker workers[4];
    for (int i = 0; i < 4; i++) {
        workers[i] = (struct worker){cache, i, 0};
        pthread_create(&threads[i], NULL, work, &workers[i]);
    }
    save(cache, APP_A, "at-alice-3", "rt-alice-3", 0);
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        CHECK(workers[i].failures == 0);
    }
}

/* A handle in partition loading mode over the store the others wrote: lookups and MSAL searches
 * read only the accounts they name, and see what other handles commit. */
static void test_partition_loading(const char *spec, tokencache_t *whole) {
    tokencache_t *cache = NULL;
    tokencache_error_t *error = NULL;
    char *entry = NULL;
    EXPECT(tokencache_open(spec, NULL, 0, "{\"key\":\"file\",\"loading\":\"partitions\",\"partition_limit\":1000}", &cache, &error),
           TOKENCACHE_OK, error, "open in partition mode");
    if (!cache) return;
    EXPECT(tokencache_lookup_access_token(cache, AT_QUERY, &entry, &error), TOKENCACHE_OK, error, "partition mode: AT hit");
    CHECK(contains(entry, "at-alice-"));
    tokencache_free(entry);
    /* the engine saved under the cloud's cache host */
    const char *query = "{\"home_account_id\":\"" ALICE "\",\"environment\":\"login.windows.net\",\"client_id\":\"" APP_A "\"}";
    EXPECT(tokencache_search(cache, "RefreshToken", query, NULL, 0, &entry, &error), TOKENCACHE_OK, error, "partition mode: search RT");
    CHECK(contains(entry, "rt-alice-") && !contains(entry, "rt-bob"));
    tokencache_free(entry);
    EXPECT(tokencache_search(cache, "Account", NULL, NULL, 0, &entry, &error), TOKENCACHE_OK, error, "partition mode: every account");
    CHECK(contains(entry, "alice@contoso.com") && contains(entry, "bob@contoso.com"));
    tokencache_free(entry);
    save(whole, APP_A, "at-alice-partition", "rt-alice-partition", 0);  /* another handle's commit */
    EXPECT(tokencache_lookup_access_token(cache, AT_QUERY, &entry, &error), TOKENCACHE_OK, error, "partition mode: sees the commit");
    CHECK(contains(entry, "at-alice-partition"));
    tokencache_free(entry);
    EXPECT(tokencache_search(cache, "RefreshToken", query, NULL, 0, &entry, &error), TOKENCACHE_OK, error, "partition mode: search sees it");
    CHECK(contains(entry, "rt-alice-partition"));
    tokencache_free(entry);
    tokencache_close(cache);
}

/* Access tokens that differ only in MSAL Python's ext_cache_key are items of their own, and each
 * lookup or search finds only its own. */
static void test_extended_cache_keys(tokencache_t *cache) {
    tokencache_error_t *error = NULL;
    char *out = NULL;
#define EXT_AT(secret, ext) "{\"credential_type\":\"AccessToken\",\"secret\":\"" secret "\",\"home_account_id\":null," \
    "\"environment\":\"login.microsoftonline.com\",\"client_id\":\"" APP_B "\",\"realm\":\"" TENANT "\"," \
    "\"target\":\"api://fmi/.default\",\"cached_at\":\"1700000000\",\"expires_on\":\"4102444800\"" ext "}"
    const char *document = "{\"AccessToken\":{\"a\":" EXT_AT("app-plain", "") ",\"b\":" EXT_AT("app-path-a", ",\"ext_cache_key\":\"keya\"")
        ",\"c\":" EXT_AT("app-path-b", ",\"ext_cache_key\":\"keyb\"") "}}";
    EXPECT(tokencache_write_entries(cache, document, &out, &error), TOKENCACHE_OK, error, "write tokens with extended keys");
    CHECK(contains(out, "\"saved\":3"));
    tokencache_free(out);
    const char *plain = "{\"home_account_id\":null,\"environment\":\"login.microsoftonline.com\",\"client_id\":\"" APP_B "\"}";
    EXPECT(tokencache_search(cache, "AccessToken", plain, NULL, 0, &out, &error), TOKENCACHE_OK, error, "search without a key");
    CHECK(contains(out, "app-plain") && !contains(out, "app-path-"));
    tokencache_free(out);
    const char *keyed = "{\"home_account_id\":null,\"client_id\":\"" APP_B "\",\"ext_cache_key\":\"keyb\"}";
    EXPECT(tokencache_search(cache, "AccessToken", keyed, NULL, 0, &out, &error), TOKENCACHE_OK, error, "search with a key");
    CHECK(contains(out, "app-path-b") && !contains(out, "app-path-a") && !contains(out, "app-plain"));
    tokencache_free(out);
    const char *lookup = "{\"home_account_id\":\"\",\"environment\":\"login.microsoftonline.com\",\"client_id\":\"" APP_B "\","
        "\"realm\":\"" TENANT "\",\"scopes\":[\"api://fmi/.default\"]";
    char query[1024];
    snprintf(query, sizeof query, "%s}", lookup);
    EXPECT(tokencache_lookup_access_token(cache, query, &out, &error), TOKENCACHE_OK, error, "lookup without a key");
    CHECK(contains(out, "app-plain"));
    tokencache_free(out);
    snprintf(query, sizeof query, "%s,\"ext_cache_key\":\"KEYA\"}", lookup);
    EXPECT(tokencache_lookup_access_token(cache, query, &out, &error), TOKENCACHE_OK, error, "lookup with a key");
    CHECK(contains(out, "app-path-a"));
    tokencache_free(out);
    const char *removal = "{\"AccessToken\":{\"b\":" EXT_AT("app-path-a", ",\"ext_cache_key\":\"keya\"") "}}";
    EXPECT(tokencache_remove_entries(cache, removal, &out, &error), TOKENCACHE_OK, error, "remove one keyed token");
    CHECK(contains(out, "\"removed\":1"));
    tokencache_free(out);
    EXPECT(tokencache_search(cache, "AccessToken", "{\"client_id\":\"" APP_B "\",\"home_account_id\":null}", NULL, 0, &out, &error),
           TOKENCACHE_OK, error, "the others stay");
    CHECK(contains(out, "app-plain"));
    tokencache_free(out);
    EXPECT(tokencache_search(cache, "AccessToken", keyed, NULL, 0, &out, &error), TOKENCACHE_OK, error, "the other keyed token stays");
    CHECK(contains(out, "app-path-b"));
    tokencache_free(out);
#undef EXT_AT
}

int main(void) {
    char directory[] = "/tmp/tokencache-c-test-XXXXXX";
    if (!mkdtemp(directory)) { perror("mkdtemp"); return 2; }
    test_versions_and_memory();
    test_open_errors(directory);

    char spec[1024];
    snprintf(spec, sizeof spec, "sqlite:%s/cache.sqlite", directory);
    const char *groups[] = {"com.microsoft.adalcache"};
    tokencache_t *cache = NULL, *other = NULL, *memory = NULL;
    tokencache_error_t *error = NULL;
    EXPECT(tokencache_open(spec, groups, 1, "{\"key\":\"file\",\"expiration_buffer\":300,\"application_name\":\"c-test\"}", &cache, &error),
                  TOKENCACHE_OK, error, "open sqlite");
    EXPECT(tokencache_open(spec, NULL, 0, "{\"key\":\"file\"}", &other, &error), TOKENCACHE_OK, error, "open second handle");
    EXPECT(tokencache_open("memory", NULL, 0, NULL, &memory, &error), TOKENCACHE_OK, error, "open memory");
    if (!cache || !other || !memory) { fprintf(stderr, "cannot open stores\n"); return 1; }

    save(cache, APP_A, "at-alice-1", "rt-alice-1", 0);
    save(cache, APP_A, "at-bob-1", "rt-bob-1", 1);
    save(other, APP_B, "at-alice-b", "rt-alice-b", 0);  /* another handle: seen by the next call */
    test_save_errors(cache);
    test_lookups(cache);
    test_accounts(cache);
    test_search(cache);
    test_entries(cache);
    test_blobs(cache, other);
    test_threads(cache);
    test_partition_loading(spec, cache);
    test_extended_cache_keys(cache);
    test_stamp_and_removal(cache);

    char *entries = NULL;
    EXPECT(tokencache_accounts(memory, NULL, &entries, &error), TOKENCACHE_OK, error, "memory store is its own");
    CHECK(entries && strcmp(entries, "[]") == 0);
    tokencache_free(entries);

    tokencache_close(memory);
    tokencache_close(other);
    tokencache_close(cache);
    char command[1200];
    snprintf(command, sizeof command, "rm -rf '%s'", directory);
    if (system(command) != 0) fprintf(stderr, "could not remove %s\n", directory);
    printf("%d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
