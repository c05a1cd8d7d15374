#include <stdio.h>
#include <string.h>
#include <tokencache.h>

int main(void) {
    tokencache_t *cache = NULL;
    tokencache_error_t *error = NULL;
    if (tokencache_abi_version() != TOKENCACHE_ABI_VERSION) return 1;
    /* NULL: the store the CLI uses (TOKENCACHE_STORE, else ~/.local/share/tokencache/cache.sqlite). */
    if (tokencache_open(NULL, NULL, 0, NULL, &cache, &error) != TOKENCACHE_OK) {
        fprintf(stderr, "open: %s\n", tokencache_error_message(error));
        tokencache_error_free(error);
        return 1;
    }
    char *accounts = NULL;
    if (tokencache_accounts(cache, NULL, &accounts, &error) == TOKENCACHE_OK) {
        printf("accounts: %s\n", accounts);
        tokencache_free(accounts);
    } else {
        fprintf(stderr, "accounts: %s\n", tokencache_error_message(error));
        tokencache_error_free(error);
    }

    const char *query =
        "{\"home_account_id\":\"UID.UTID\",\"environment\":\"login.microsoftonline.com\","
        "\"client_id\":\"CLIENT\",\"scopes\":[\"User.Read\"]}";
    char *entry = NULL;
    int status = tokencache_lookup_access_token(cache, query, &entry, &error);
    if (status == TOKENCACHE_OK) {
        printf("cached access token entry: %zu bytes of JSON\n", strlen(entry));
        tokencache_free(entry);
    } else if (status == TOKENCACHE_ERROR_NOT_FOUND) {
        printf("no cached token: ask the identity provider, then tokencache_save()\n");
        tokencache_error_free(error);
    } else {
        fprintf(stderr, "lookup (%d): %s\n", status, tokencache_error_message(error));
        tokencache_error_free(error);
    }
    tokencache_close(cache);
    return 0;
}
