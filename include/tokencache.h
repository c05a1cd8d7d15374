/*
 * tokencache.h — the C ABI of tokencache, the unified MSAL/ADAL token cache for Linux.
 *
 * Link with `cc prog.c $(pkg-config --cflags --libs tokencache)`. C99; no other header needed.
 *
 * CONVENTIONS
 *
 * Strings in: NUL-terminated UTF-8. A string that is not valid UTF-8, or a JSON argument that is
 * not valid JSON of the documented shape, fails with TOKENCACHE_ERROR_BAD_INPUT; nothing aborts
 * the process on bad input, and a failed call changes nothing in the store.
 *
 * Results out: NUL-terminated UTF-8 JSON in the shapes MSAL libraries serialize (the "entry
 * forms" of the unified schema: the values of the AccessToken, RefreshToken, IdToken, Account and
 * AppMetadata sections of an MSAL JSON cache, as MSAL Python, msal-node and MSAL.NET write them:
 * snake_case members, every scalar a string). Each `char **out` result is allocated by the library
 * and owned by the caller, who frees it with tokencache_free(). On failure `*out` is set to NULL.
 *
 * Status: every function that can fail returns an int: TOKENCACHE_OK (0) on success, else the
 * error's category (a TOKENCACHE_ERROR_* value, never 0). When `error` is not NULL, a failure
 * also stores in `*error` an error object the caller frees with tokencache_error_free(); on
 * success `*error` is set to NULL. Passing NULL for `error` is allowed: only the status is given.
 *
 * Lookups that match nothing return TOKENCACHE_ERROR_NOT_FOUND (with an error object saying what
 * was not found); searches and listings that match nothing return TOKENCACHE_OK and "[]".
 *
 * Secrets: error messages never contain a token, a refresh token or any other payload value. The
 * JSON results do contain the secrets (`secret` members): they are what the caller asked for.
 *
 * Threads: a tokencache_t may be used from any number of threads at once, and from several
 * processes over the same store (each opens its own handle): the store serializes writers and
 * every handle sees the others' commits at its next call. tokencache_close() may race with calls
 * on other threads: each call holds the handle until it returns, and the last one frees it; calls
 * started after the close fail with TOKENCACHE_ERROR_BAD_INPUT. The library keeps no global state
 * but the table of open handles.
 *
 * Versions: TOKENCACHE_ABI_VERSION changes only when an existing function's signature or meaning
 * changes; functions and JSON members are added without changing it. Compare it with
 * tokencache_abi_version() at run time.
 */
#ifndef TOKENCACHE_H
#define TOKENCACHE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The ABI this header describes. */
#define TOKENCACHE_ABI_VERSION 1

/** Success. */
#define TOKENCACHE_OK 0

/**
 * Error categories: stable numbers, returned as the status of a failed call and by
 * tokencache_error_category().
 */
typedef enum tokencache_error_category {
    /** What was asked for does not exist (no matching token, account or app metadata). */
    TOKENCACHE_ERROR_NOT_FOUND = 1,
    /** An argument cannot be used: NULL where a value is needed, invalid UTF-8, malformed JSON, an
     *  unknown store specification, a token response lacking what the cache needs. */
    TOKENCACHE_ERROR_BAD_INPUT = 2,
    /** Something needed is not reachable now: D-Bus session, Secret Service, libsecret, a data
     *  key, the file system, a database busy past its timeout. Retrying later may succeed. */
    TOKENCACHE_ERROR_UNAVAILABLE = 3,
    /** Not allowed: a locked keyring, a file's permissions, an access group not opened. */
    TOKENCACHE_ERROR_PERMISSION = 4,
    /** Another writer changed the same item since it was read (tokencache_blob_store()). */
    TOKENCACHE_ERROR_CONFLICT = 5,
    /** Stored data cannot be read: a corrupt database, a payload failing authentication. */
    TOKENCACHE_ERROR_DAMAGED = 6,
    /** A failure inside tokencache that no input explains. */
    TOKENCACHE_ERROR_INTERNAL = 7
} tokencache_error_category;

/** An open store with its engine (index and lookups). Opaque. */
typedef struct tokencache tokencache_t;

/** A failure: category, message, optional remedy. Opaque; free with tokencache_error_free(). */
typedef struct tokencache_error tokencache_error_t;

/** A change stamp: equal stamps mean no writer committed in between. Compare both members. */
typedef struct tokencache_stamp {
    uint64_t first;
    uint64_t second;
} tokencache_stamp_t;

/* ------------------------------------------------------------------------------------------ */
/* Versions, memory, errors                                                                      */

/** The library's version, e.g. "0.11.0". Static storage: do not free. */
const char *tokencache_version(void);

/** The ABI version the library implements (TOKENCACHE_ABI_VERSION of its header). */
int tokencache_abi_version(void);

/** Frees a string result of this library. NULL is allowed. */
void tokencache_free(char *result);

/** Frees an error object. NULL is allowed. */
void tokencache_error_free(tokencache_error_t *error);

/** The error's category; TOKENCACHE_ERROR_INTERNAL for NULL. */
tokencache_error_category tokencache_error_category_of(const tokencache_error_t *error);

/** The error's message (UTF-8, never a secret); valid until the error is freed; NULL for NULL. */
const char *tokencache_error_message(const tokencache_error_t *error);

/** What to do about it, when the library knows something specific; else NULL. Valid until the
 *  error is freed. */
const char *tokencache_error_remedy(const tokencache_error_t *error);

/* ------------------------------------------------------------------------------------------ */
/* Opening and closing                                                                           */

/**
 * Opens (creating if needed) a store and the engine over it.
 *
 * `store`: a store specification as the CLI's --store takes it (its forms are listed once, by
 * `tokencache --help` and in docs/architecture.md, "Store selection"), e.g. "sqlite:/srv/app.sqlite".
 * NULL opens what the CLI opens: TOKENCACHE_STORE, else $XDG_DATA_HOME/tokencache/cache.sqlite
 * (~/.local/share/... when XDG_DATA_HOME is unset).
 *
 * `access_groups`, `access_group_count`: the access groups this handle may use; the first receives
 * writes. A count of 0 takes TOKENCACHE_ACCESS_GROUPS, else "com.microsoft.adalcache".
 *
 * `options_json`: NULL or a JSON object, every member optional:
 *   "write_access_group": string  where new items go (default: the first access group)
 *   "expiration_buffer": integer  seconds before expiry an access token counts as expired (300)
 *   "single_family_refresh_token": bool  save family tokens as one FamilyRefreshToken item (false)
 *   "legacy_adal_items": bool     also write legacy ADAL entries on save, as ADAL 2.7+ (false)
 *   "application_name": string    recorded as the remover in wipe records (the process name)
 *   "key": "auto"|"secret-service"|"file"  a SQLite store's data-key source (TOKENCACHE_KEY, else auto)
 *   "loading": "whole_store"|"partitions"  what the engine keeps in memory ("whole_store"): every
 *                                 item, or only the partitions (one account's items, one client's
 *                                 app tokens) lookups touched, each read on its first lookup, for a
 *                                 server's store of many users. In "partitions" mode a lookup or an
 *                                 MSAL search naming a home account and an environment reads only
 *                                 that account; a listing over every account reads the whole store.
 *   "partition_limit": integer    with "partitions": about how many items to keep, least recently
 *                                 used out (1 to 2147483647; 100000)
 * Unknown members, and "partition_limit" without "loading": "partitions", fail with
 * TOKENCACHE_ERROR_BAD_INPUT.
 *
 * On success `*cache` is the handle, to be closed with tokencache_close().
 */
int tokencache_open(const char *store, const char *const *access_groups, size_t access_group_count,
                    const char *options_json, tokencache_t **cache, tokencache_error_t **error);

/** Closes the handle. NULL, and a handle closed already, are allowed (nothing happens). Calls on
 * it still running on other threads finish; the store is freed when the last returns. Later calls
 * with it fail with TOKENCACHE_ERROR_BAD_INPUT ("the cache handle is not open"). */
void tokencache_close(tokencache_t *cache);

/* ------------------------------------------------------------------------------------------ */
/* Saving                                                                                        */

/**
 * Saves a token response for the request it answers, as MSAL does: access token, refresh token
 * (family refresh token for family members), ID token, account, app metadata, one atomic batch.
 *
 * `request_json`: {"authority": "https://login.microsoftonline.com/<tenant>", "client_id": "...",
 *   "scopes": ["..."] or "space separated"; optional "claims", "key_id", "application_identifier",
 *   "resource"}.
 * `response_json`: the token endpoint's JSON response as received (access_token, refresh_token,
 *   id_token, client_info, scope, expires_in, ext_expires_in, refresh_in, token_type, foci).
 * `*result` (may be NULL if not wanted): {"home_account_id", "environment", "realm",
 *   "saved": <number of items written>, "replaced_access_tokens": <number>}.
 */
int tokencache_save(tokencache_t *cache, const char *request_json, const char *response_json,
                    char **result, tokencache_error_t **error);

/* ------------------------------------------------------------------------------------------ */
/* Lookups (answered from the engine's index)                                                    */

/**
 * The access token for a query, or TOKENCACHE_ERROR_NOT_FOUND.
 *
 * `query_json`: {"home_account_id", "environment", "client_id", "scopes": [...] or "a b";
 *   optional "realm", "token_type" (default bearer), "key_id", "claims", "application_identifier",
 *   "ext_cache_key" (MSAL Python's extended key: without it, tokens that have one do not match)}.
 * `*entry`: the AccessToken entry, plus "needs_refresh": "true"|"false" when its refresh time
 *   passed. Expired tokens (within the expiration buffer) are not returned.
 */
int tokencache_lookup_access_token(tokencache_t *cache, const char *query_json, char **entry,
                                   tokencache_error_t **error);

/**
 * The refresh token for an app and an account, or TOKENCACHE_ERROR_NOT_FOUND.
 *
 * `query_json`: {"client_id", and "home_account_id" or "username"; optional "family_id" (a
 *   family token of that family is accepted), "environment"}.
 * `*entry`: the RefreshToken entry (a family refresh token has "family_id").
 */
int tokencache_lookup_refresh_token(tokencache_t *cache, const char *query_json, char **entry,
                                    tokencache_error_t **error);

/**
 * The ID token of an account for an app, or TOKENCACHE_ERROR_NOT_FOUND.
 *
 * `query_json`: {"home_account_id", "client_id", "environment"; optional "realm"}.
 */
int tokencache_lookup_id_token(tokencache_t *cache, const char *query_json, char **entry,
                               tokencache_error_t **error);

/**
 * An app's metadata, or TOKENCACHE_ERROR_NOT_FOUND. `query_json`: {"client_id"; optional
 * "environment"}. `*entry`: the AppMetadata entry.
 */
int tokencache_lookup_app_metadata(tokencache_t *cache, const char *query_json, char **entry,
                                   tokencache_error_t **error);

/* ------------------------------------------------------------------------------------------ */
/* Accounts                                                                                      */

/**
 * The accounts, as a JSON array of Account entries (one per account record, i.e. per tenant the
 * account signed in to), in the store's order. `filter_json`: NULL or {optional "client_id"
 * (accounts with a refresh token usable by that app, signed-out accounts left out),
 * "environment"}.
 */
int tokencache_accounts(tokencache_t *cache, const char *filter_json, char **entries,
                        tokencache_error_t **error);

/**
 * One account's Account entries (array), or TOKENCACHE_ERROR_NOT_FOUND. `query_json`:
 * {"home_account_id" or "username"; optional "client_id", "environment"}.
 */
int tokencache_find_account(tokencache_t *cache, const char *query_json, char **entries,
                            tokencache_error_t **error);

/**
 * Signs an account out of one app (`client_id`): removes that app's credentials of the account
 * and marks it signed out, as MSAL's remove_account does; other apps keep their tokens. With
 * `client_id` NULL, wipes every credential of the account for every app.
 * `*result` (may be NULL): {"deleted": <number of items>, "marked_signed_out": bool,
 * "wrote_wipe_record": bool}. An account with nothing to remove is not an error ("deleted": 0).
 */
int tokencache_remove_account(tokencache_t *cache, const char *home_account_id, const char *client_id,
                              char **result, tokencache_error_t **error);

/* ------------------------------------------------------------------------------------------ */
/* MSAL's generic search                                                                         */

/**
 * The entries MSAL Python's TokenCache.search(credential_type, target, query) would yield, as a
 * JSON array, answered from the index.
 *
 * `credential_type`: "AccessToken", "RefreshToken", "IdToken", "Account" or "AppMetadata".
 * `query_json`: NULL or a JSON object of entry members and values; an entry matches when it has
 *   every member with exactly that value ("environment" compared lower-cased, as MSAL does).
 * `target_json`: NULL or a JSON array of scopes; when not empty, an entry matches only if these
 *   scopes are a subset of its "target" (split at spaces, compared exactly).
 * `now`: seconds since 1970 (0: the current time). Access tokens whose expires_on is before it are
 *   not returned, and access tokens with an "ext_cache_key" only when the query names one, as
 *   in MSAL Python 1.39.
 */
int tokencache_search(tokencache_t *cache, const char *credential_type, const char *query_json,
                      const char *target_json, int64_t now, char **entries, tokencache_error_t **error);

/* ------------------------------------------------------------------------------------------ */
/* Entry level: for plugins that hold MSAL's own entries (MSAL Python's TokenCache.add/modify)   */

/**
 * Writes the entries of an MSAL JSON document (`document_json`: any of the five sections, each an
 * object of entries; entry keys are not used, items are keyed by their members as MSAL keys them)
 * as store items, replacing the items of the same identity, in one atomic batch. Malformed entries
 * fail the whole call (nothing written); entries with no unified counterpart are skipped. An
 * AppMetadata entry the store already holds as is is not written again (MSAL writes it with every
 * token response; rewriting it would move the partition all clients of the cloud share); it still
 * counts in "saved". `*result` (may be NULL): {"saved": n, "skipped": [{"entry": "...", "reason": "..."}]}.
 */
int tokencache_write_entries(tokencache_t *cache, const char *document_json, char **result,
                             tokencache_error_t **error);

/**
 * Removes the store items the entries of `document_json` (same form) stand for, in every access
 * group of the handle, in one atomic batch. `*result` (may be NULL): {"removed": n}.
 */
int tokencache_remove_entries(tokencache_t *cache, const char *document_json, char **result,
                              tokencache_error_t **error);

/* ------------------------------------------------------------------------------------------ */
/* Blob level: for token-cache plugins that only know serialization                              */

/** Which part of the cache a blob holds. */
typedef enum tokencache_partition {
    /** Everything. `key` is ignored. */
    TOKENCACHE_PARTITION_ALL = 0,
    /** One account: credentials and account records whose home_account_id is `key` (MSAL.NET's
     *  SuggestedCacheKey for user flows, msal-node's partition key), plus all app metadata. */
    TOKENCACHE_PARTITION_ACCOUNT = 1,
    /** App tokens of one client (client credentials): credentials with client_id `key` and no
     *  home_account_id, plus that client's app metadata. */
    TOKENCACHE_PARTITION_CLIENT = 2
} tokencache_partition;

/** tokencache_blob_store() flag: fail with TOKENCACHE_ERROR_CONFLICT, changing nothing, when any
 *  item conflicts (default: apply the others and report the conflicting ones in the result). */
#define TOKENCACHE_BLOB_FAIL_ON_CONFLICT 1u

/**
 * Loads a partition as an MSAL JSON cache document (all five sections), and its version.
 *
 * `*blob`: the document. `*version`: an opaque string to pass to tokencache_blob_store() with the
 * document the caller derives from this one. Both are freed with tokencache_free().
 */
int tokencache_blob_load(tokencache_t *cache, tokencache_partition partition, const char *key,
                         char **blob, char **version, tokencache_error_t **error);

/**
 * Stores a partition's document back as a per-item merge against `version`, the version it was
 * loaded at (NULL: an empty base, i.e. every entry of the blob is new to the caller).
 *
 * Per entry (section and MSAL key): unchanged by the caller since `version` → left alone, even if
 * another writer changed it meanwhile; changed, added or removed by the caller and unchanged in the
 * store → written or removed; changed on both sides to different content → a conflict, the store's
 * content kept. Entries that are not in the partition are ignored. Unknown members inside entries
 * are stored with them; top-level nodes other than the five sections (another SDK's data) are kept
 * per partition and node, merged the same way, and returned by tokencache_blob_load(). All writes
 * are one atomic batch.
 *
 * `*result` (may be NULL): {"version": <the version after the store, for the next store>,
 *   "saved": n, "removed": n, "conflicts": [{"section": "...", "key": "..."}, ...],
 *   "ignored": [{"entry": "...", "reason": "..."}, ...]}.
 */
int tokencache_blob_store(tokencache_t *cache, tokencache_partition partition, const char *key,
                          const char *blob, const char *version, unsigned flags, char **result,
                          tokencache_error_t **error);

/* ------------------------------------------------------------------------------------------ */
/* Change stamp                                                                                  */

/**
 * The store's current change stamp. Cheap enough to poll (no query, no allocation): when it
 * differs from the last one seen, some writer (any process) committed since.
 */
int tokencache_change_stamp(tokencache_t *cache, tokencache_stamp_t *stamp, tokencache_error_t **error);

#ifdef __cplusplus
}
#endif

#endif /* TOKENCACHE_H */
