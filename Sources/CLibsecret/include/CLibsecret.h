#ifndef TOKENCACHE_CLIBSECRET_SHIM_H
#define TOKENCACHE_CLIBSECRET_SHIM_H

// Non-variadic wrappers over libsecret-1 for Swift: the D-Bus-path API (one round trip per call, no
// per-item proxies), GHashTable/GVariant construction done in C, and plain return types.
// Every function that can fail takes a GError **; the caller frees what it gets with the tc_free*
// functions below.
//
// libsecret is loaded at run time (tokencache_libsecret.h): call tokencache_libsecret_load() and
// check it returned 1 before calling any function here.

#include "tokencache_libsecret.h"
#include <string.h>

#define TC_LIB tokencache_libsecret

// MARK: - Memory

static inline void tc_free(void *pointer) { TC_LIB.g_free(pointer); }
static inline void tc_strfreev(char **strings) { TC_LIB.g_strfreev(strings); }
static inline void tc_error_free(GError *error) { if (error) TC_LIB.g_error_free(error); }
static inline void tc_object_unref(void *object) { if (object) TC_LIB.g_object_unref(object); }
static inline void tc_value_unref(SecretValue *value) { if (value) TC_LIB.secret_value_unref(value); }

// MARK: - Errors

/// The D-Bus error name a remote peer reported (e.g. org.freedesktop.DBus.Error.ServiceUnknown), or NULL.
static inline char *tc_error_remote_name(const GError *error) {
    return TC_LIB.g_dbus_error_is_remote_error(error) ? TC_LIB.g_dbus_error_get_remote_error(error) : NULL;
}
static inline int tc_error_is_io(const GError *error) { return error->domain == TC_LIB.g_io_error_quark(); }
static inline int tc_error_is_dbus(const GError *error) { return error->domain == TC_LIB.g_dbus_error_quark(); }
static inline int tc_error_is_secret(const GError *error) { return error->domain == TC_LIB.secret_error_get_quark(); }
static inline int tc_io_error_cancelled(void) { return TOKENCACHE_G_IO_ERROR_CANCELLED; }
static inline int tc_secret_error_is_locked(void) { return TOKENCACHE_SECRET_ERROR_IS_LOCKED; }
static inline int tc_secret_error_no_such_object(void) { return TOKENCACHE_SECRET_ERROR_NO_SUCH_OBJECT; }

// MARK: - Service and collections

/// The process's shared connection to the Secret Service, with a transfer session open.
static inline SecretService *tc_service_get(GError **error) {
    return TC_LIB.secret_service_get_sync(TOKENCACHE_SECRET_SERVICE_OPEN_SESSION, NULL, error);
}

/// The collection an alias (default, session, login) points to, or NULL when the alias is unset.
static inline char *tc_read_alias(SecretService *service, const char *alias, GError **error) {
    char *path = TC_LIB.secret_service_read_alias_dbus_path_sync(service, alias, NULL, error);
    if (path && strcmp(path, "/") == 0) { TC_LIB.g_free(path); return NULL; }
    return path;
}

/// The collection whose label or last path component is `name`, or NULL.
static inline char *tc_find_collection(SecretService *service, const char *name, GError **error) {
    if (!TC_LIB.secret_service_load_collections_sync(service, NULL, error)) return NULL;
    GList *collections = TC_LIB.secret_service_get_collections(service);
    char *found = NULL;
    for (GList *l = collections; l && !found; l = l->next) {
        SecretCollection *collection = (SecretCollection *)l->data;
        // A SecretCollection is a GDBusProxy.
        const char *path = TC_LIB.g_dbus_proxy_get_object_path((GDBusProxy *)collection);
        const char *tail = path ? strrchr(path, '/') : NULL;
        char *label = TC_LIB.secret_collection_get_label(collection);
        if ((tail && strcmp(tail + 1, name) == 0) || (label && strcmp(label, name) == 0)) found = TC_LIB.g_strdup(path);
        TC_LIB.g_free(label);
    }
    TC_LIB.g_list_free_full(collections, TC_LIB.g_object_unref);
    return found;
}

/// A proxy for the collection at `path`, its properties loaded.
static inline SecretCollection *tc_collection(SecretService *service, const char *path, GError **error) {
    return TC_LIB.secret_collection_new_for_dbus_path_sync(service, path, TOKENCACHE_SECRET_COLLECTION_NONE, NULL, error);
}

static inline int tc_collection_locked(SecretCollection *collection) {
    return TC_LIB.secret_collection_get_locked(collection) ? 1 : 0;
}

/// The collection's label (free with tc_free).
static inline char *tc_collection_label(SecretCollection *collection) {
    return TC_LIB.secret_collection_get_label(collection);
}

/// Asks the service to unlock the collection (it may show a prompt). Returns 1 when unlocked,
/// 0 when the prompt was dismissed, -1 on error.
static inline int tc_unlock(SecretService *service, const char *path, GError **error) {
    const char *paths[] = { path, NULL };
    char **unlocked = NULL;
    int count = TC_LIB.secret_service_unlock_dbus_paths_sync(service, paths, NULL, &unlocked, error);
    TC_LIB.g_strfreev(unlocked);
    if (count < 0) return -1;
    return count > 0 ? 1 : 0;
}

// MARK: - Items

static inline GHashTable *tc_attributes(const char **keys, const char **values, int count) {
    GHashTable *table = TC_LIB.g_hash_table_new_full(TC_LIB.g_str_hash, TC_LIB.g_str_equal, TC_LIB.g_free, TC_LIB.g_free);
    for (int i = 0; i < count; i++) TC_LIB.g_hash_table_insert(table, TC_LIB.g_strdup(keys[i]), TC_LIB.g_strdup(values[i]));
    return table;
}

/// An empty NULL-terminated string array (free with tc_strfreev).
static inline char **tc_empty_strv(void) { return (char **)TC_LIB.g_malloc0_n(1, sizeof(char *)); }

/// The paths of the collection's items whose attributes include all of `keys`=`values`
/// (NULL-terminated; free with tc_strfreev). NULL with `*error` set on failure.
static inline char **tc_search(SecretCollection *collection, const char **keys, const char **values, int count, GError **error) {
    GHashTable *attributes = tc_attributes(keys, values, count);
    char **paths = TC_LIB.secret_collection_search_for_dbus_paths_sync(collection, NULL, attributes, NULL, error);
    TC_LIB.g_hash_table_unref(attributes);
    if (!paths && !(error && *error)) paths = tc_empty_strv();
    return paths;
}

/// Loads the secrets of `count` items in one call. `out[i]` receives the secret of `paths[i]`, or
/// NULL when the service returned none for it. Returns 1 on success, 0 with `*error` set.
static inline int tc_get_secrets(SecretService *service, const char **paths, int count, SecretValue **out, GError **error) {
    const char **terminated = (const char **)TC_LIB.g_malloc0_n((size_t)count + 1, sizeof(const char *));
    for (int i = 0; i < count; i++) terminated[i] = paths[i];
    GHashTable *secrets = TC_LIB.secret_service_get_secrets_for_dbus_paths_sync(service, terminated, NULL, error);
    TC_LIB.g_free(terminated);
    if (!secrets) return 0;
    for (int i = 0; i < count; i++) {
        SecretValue *value = (SecretValue *)TC_LIB.g_hash_table_lookup(secrets, paths[i]);
        out[i] = value ? TC_LIB.secret_value_ref(value) : NULL;
    }
    TC_LIB.g_hash_table_unref(secrets);
    return 1;
}

/// The secret's bytes (owned by `value`).
static inline const void *tc_value_bytes(SecretValue *value, size_t *length) {
    size_t size = 0;
    const char *bytes = TC_LIB.secret_value_get(value, &size);
    *length = size;
    return bytes;
}

/// Creates an item in the collection or, with `replace`, replaces the secret and label of the item
/// with these attributes (without it, a new item is created even if one has them). Returns the
/// item's path (free with tc_free), or NULL with `*error` set.
static inline char *tc_store_item(
    SecretService *service, const char *collection_path, const char *label,
    const char **keys, const char **values, int count,
    const void *bytes, size_t length, const char *content_type, int replace, GError **error
) {
    // The attributes as a GVariant of type a{ss}: an array of {ss} dictionary entries (a GVariantType
    // is its type string, as GLib's own G_VARIANT_TYPE_* constants are).
    GVariant **entries = (GVariant **)TC_LIB.g_malloc0_n((size_t)count + 1, sizeof(GVariant *));
    for (int i = 0; i < count; i++) {
        entries[i] = TC_LIB.g_variant_new_dict_entry(TC_LIB.g_variant_new_string(keys[i]), TC_LIB.g_variant_new_string(values[i]));
    }
    GVariant *attributes = TC_LIB.g_variant_new_array((const GVariantType *)"{ss}", entries, (size_t)count);
    TC_LIB.g_free(entries);
    GHashTable *properties = TC_LIB.g_hash_table_new_full(TC_LIB.g_str_hash, TC_LIB.g_str_equal, NULL, (void (*)(void *))TC_LIB.g_variant_unref);
    TC_LIB.g_hash_table_insert(properties, (void *)"org.freedesktop.Secret.Item.Label", TC_LIB.g_variant_ref_sink(TC_LIB.g_variant_new_string(label)));
    TC_LIB.g_hash_table_insert(properties, (void *)"org.freedesktop.Secret.Item.Attributes", TC_LIB.g_variant_ref_sink(attributes));
    // secret_value_new copies the bytes; a length of -1 would mean "NUL-terminated", so never pass 0 bytes as NULL.
    static const char empty = 0;
    SecretValue *value = TC_LIB.secret_value_new(length ? (const char *)bytes : &empty, (long)length, content_type);
    char *path = TC_LIB.secret_service_create_item_dbus_path_sync(service, collection_path, properties, value, replace ? TOKENCACHE_SECRET_ITEM_CREATE_REPLACE : TOKENCACHE_SECRET_ITEM_CREATE_NONE, NULL, error);
    TC_LIB.secret_value_unref(value);
    TC_LIB.g_hash_table_unref(properties);
    return path;
}

/// Deletes the item at `path`. Returns 1 on success, 0 with `*error` set.
static inline int tc_delete_item(SecretService *service, const char *path, GError **error) {
    return TC_LIB.secret_service_delete_item_dbus_path_sync(service, path, NULL, error) ? 1 : 0;
}

// MARK: - Read-only lookups across every collection

/// The paths of items in any collection whose attributes include all of `keys`=`values`: unlocked
/// ones returned (NULL-terminated; free with tc_strfreev), locked ones in `*locked` (same). Nothing
/// is unlocked and no prompt is shown. NULL with `*error` set on failure.
static inline char **tc_service_search(SecretService *service, const char **keys, const char **values, int count, char ***locked, GError **error) {
    GHashTable *attributes = tc_attributes(keys, values, count);
    char **unlocked = NULL;
    *locked = NULL;
    int ok = TC_LIB.secret_service_search_for_dbus_paths_sync(service, NULL, attributes, NULL, &unlocked, locked, error);
    TC_LIB.g_hash_table_unref(attributes);
    if (!ok) { TC_LIB.g_strfreev(unlocked); TC_LIB.g_strfreev(*locked); *locked = NULL; return NULL; }
    if (!unlocked) unlocked = tc_empty_strv();
    if (!*locked) *locked = tc_empty_strv();
    return unlocked;
}

/// A proxy for the item at `path`, its properties (label, attributes, locked) loaded; its secret is
/// not. Free with tc_object_unref.
static inline SecretItem *tc_item(SecretService *service, const char *path, GError **error) {
    return TC_LIB.secret_item_new_for_dbus_path_sync(service, path, TOKENCACHE_SECRET_ITEM_NONE, NULL, error);
}

/// The item's label (free with tc_free).
static inline char *tc_item_label(SecretItem *item) { return TC_LIB.secret_item_get_label(item); }

static inline int tc_item_locked(SecretItem *item) { return TC_LIB.secret_item_get_locked(item) ? 1 : 0; }

/// The item's attributes as two NULL-terminated arrays of the same length (free both with tc_strfreev).
static inline int tc_item_attributes(SecretItem *item, char ***keys, char ***values) {
    GHashTable *attributes = TC_LIB.secret_item_get_attributes(item);
    unsigned int count = attributes ? TC_LIB.g_hash_table_size(attributes) : 0;
    *keys = (char **)TC_LIB.g_malloc0_n((size_t)count + 1, sizeof(char *));
    *values = (char **)TC_LIB.g_malloc0_n((size_t)count + 1, sizeof(char *));
    if (attributes) {
        GList *names = TC_LIB.g_hash_table_get_keys(attributes);  // owned by the table
        unsigned int i = 0;
        for (GList *l = names; l && i < count; l = l->next, i++) {
            (*keys)[i] = TC_LIB.g_strdup((const char *)l->data);
            (*values)[i] = TC_LIB.g_strdup((const char *)TC_LIB.g_hash_table_lookup(attributes, l->data));
        }
        TC_LIB.g_list_free(names);
        TC_LIB.g_hash_table_unref(attributes);
    }
    return (int)count;
}

#undef TC_LIB

#endif
