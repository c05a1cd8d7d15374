#ifndef TOKENCACHE_CLIBSECRET_SHIM_H
#define TOKENCACHE_CLIBSECRET_SHIM_H

// Non-variadic wrappers over libsecret-1 for Swift: the D-Bus-path API (one round trip per call, no
// per-item proxies), GHashTable/GVariant construction done in C, and plain return types.
// Every function that can fail takes a GError **; the caller frees what it gets with the tc_free*
// functions below.

#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <libsecret/secret.h>
#include <string.h>

// MARK: - Memory

static inline void tc_free(void *pointer) { g_free(pointer); }
static inline void tc_strfreev(char **strings) { g_strfreev(strings); }
static inline void tc_error_free(GError *error) { if (error) g_error_free(error); }
static inline void tc_object_unref(void *object) { if (object) g_object_unref(object); }
static inline void tc_value_unref(SecretValue *value) { if (value) secret_value_unref(value); }

// MARK: - Errors

/// The D-Bus error name a remote peer reported (e.g. org.freedesktop.DBus.Error.ServiceUnknown), or NULL.
static inline char *tc_error_remote_name(const GError *error) {
    return g_dbus_error_is_remote_error(error) ? g_dbus_error_get_remote_error(error) : NULL;
}
static inline int tc_error_is_io(const GError *error) { return error->domain == G_IO_ERROR; }
static inline int tc_error_is_dbus(const GError *error) { return error->domain == G_DBUS_ERROR; }
static inline int tc_error_is_secret(const GError *error) { return error->domain == SECRET_ERROR; }
static inline int tc_io_error_cancelled(void) { return G_IO_ERROR_CANCELLED; }
static inline int tc_secret_error_is_locked(void) { return SECRET_ERROR_IS_LOCKED; }
static inline int tc_secret_error_no_such_object(void) { return SECRET_ERROR_NO_SUCH_OBJECT; }

// MARK: - Service and collections

/// The process's shared connection to the Secret Service, with a transfer session open.
static inline SecretService *tc_service_get(GError **error) {
    return secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, NULL, error);
}

/// The collection an alias (default, session, login) points to, or NULL when the alias is unset.
static inline char *tc_read_alias(SecretService *service, const char *alias, GError **error) {
    char *path = secret_service_read_alias_dbus_path_sync(service, alias, NULL, error);
    if (path && strcmp(path, "/") == 0) { g_free(path); return NULL; }
    return path;
}

/// The collection whose label or last path component is `name`, or NULL.
static inline char *tc_find_collection(SecretService *service, const char *name, GError **error) {
    if (!secret_service_load_collections_sync(service, NULL, error)) return NULL;
    GList *collections = secret_service_get_collections(service);
    char *found = NULL;
    for (GList *l = collections; l && !found; l = l->next) {
        SecretCollection *collection = l->data;
        const char *path = g_dbus_proxy_get_object_path(G_DBUS_PROXY(collection));
        const char *tail = path ? strrchr(path, '/') : NULL;
        char *label = secret_collection_get_label(collection);
        if ((tail && strcmp(tail + 1, name) == 0) || (label && strcmp(label, name) == 0)) found = g_strdup(path);
        g_free(label);
    }
    g_list_free_full(collections, g_object_unref);
    return found;
}

/// A proxy for the collection at `path`, its properties loaded.
static inline SecretCollection *tc_collection(SecretService *service, const char *path, GError **error) {
    return secret_collection_new_for_dbus_path_sync(service, path, SECRET_COLLECTION_NONE, NULL, error);
}

static inline int tc_collection_locked(SecretCollection *collection) {
    return secret_collection_get_locked(collection) ? 1 : 0;
}

/// The collection's label (free with tc_free).
static inline char *tc_collection_label(SecretCollection *collection) {
    return secret_collection_get_label(collection);
}

/// Asks the service to unlock the collection (it may show a prompt). Returns 1 when unlocked,
/// 0 when the prompt was dismissed, -1 on error.
static inline int tc_unlock(SecretService *service, const char *path, GError **error) {
    const char *paths[] = { path, NULL };
    char **unlocked = NULL;
    int count = secret_service_unlock_dbus_paths_sync(service, paths, NULL, &unlocked, error);
    g_strfreev(unlocked);
    if (count < 0) return -1;
    return count > 0 ? 1 : 0;
}

// MARK: - Items

static inline GHashTable *tc_attributes(const char **keys, const char **values, int count) {
    GHashTable *table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    for (int i = 0; i < count; i++) g_hash_table_insert(table, g_strdup(keys[i]), g_strdup(values[i]));
    return table;
}

/// The paths of the collection's items whose attributes include all of `keys`=`values`
/// (NULL-terminated; free with tc_strfreev). NULL with `*error` set on failure.
static inline char **tc_search(SecretCollection *collection, const char **keys, const char **values, int count, GError **error) {
    GHashTable *attributes = tc_attributes(keys, values, count);
    char **paths = secret_collection_search_for_dbus_paths_sync(collection, NULL, attributes, NULL, error);
    g_hash_table_unref(attributes);
    if (!paths && !(error && *error)) paths = g_new0(char *, 1);
    return paths;
}

/// Loads the secrets of `count` items in one call. `out[i]` receives the secret of `paths[i]`, or
/// NULL when the service returned none for it. Returns 1 on success, 0 with `*error` set.
static inline int tc_get_secrets(SecretService *service, const char **paths, int count, SecretValue **out, GError **error) {
    const char **terminated = g_new0(const char *, count + 1);
    for (int i = 0; i < count; i++) terminated[i] = paths[i];
    GHashTable *secrets = secret_service_get_secrets_for_dbus_paths_sync(service, terminated, NULL, error);
    g_free(terminated);
    if (!secrets) return 0;
    for (int i = 0; i < count; i++) {
        SecretValue *value = g_hash_table_lookup(secrets, paths[i]);
        out[i] = value ? secret_value_ref(value) : NULL;
    }
    g_hash_table_unref(secrets);
    return 1;
}

/// The secret's bytes (owned by `value`).
static inline const void *tc_value_bytes(SecretValue *value, size_t *length) {
    gsize size = 0;
    const gchar *bytes = secret_value_get(value, &size);
    *length = size;
    return bytes;
}

/// Creates an item in the collection, or replaces the secret and label of the item with exactly
/// these attributes. Returns the item's path (free with tc_free), or NULL with `*error` set.
static inline char *tc_store_item(
    SecretService *service, const char *collection_path, const char *label,
    const char **keys, const char **values, int count,
    const void *bytes, size_t length, const char *content_type, GError **error
) {
    GVariantBuilder builder;
    g_variant_builder_init(&builder, G_VARIANT_TYPE("a{ss}"));
    for (int i = 0; i < count; i++) g_variant_builder_add(&builder, "{ss}", keys[i], values[i]);
    GHashTable *properties = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify)g_variant_unref);
    g_hash_table_insert(properties, "org.freedesktop.Secret.Item.Label", g_variant_ref_sink(g_variant_new_string(label)));
    g_hash_table_insert(properties, "org.freedesktop.Secret.Item.Attributes", g_variant_ref_sink(g_variant_builder_end(&builder)));
    // secret_value_new copies the bytes; a length of -1 would mean "NUL-terminated", so never pass 0 bytes as NULL.
    static const char empty = 0;
    SecretValue *value = secret_value_new(length ? (const gchar *)bytes : &empty, (gssize)length, content_type);
    char *path = secret_service_create_item_dbus_path_sync(service, collection_path, properties, value, SECRET_ITEM_CREATE_REPLACE, NULL, error);
    secret_value_unref(value);
    g_hash_table_unref(properties);
    return path;
}

/// Deletes the item at `path`. Returns 1 on success, 0 with `*error` set.
static inline int tc_delete_item(SecretService *service, const char *path, GError **error) {
    return secret_service_delete_item_dbus_path_sync(service, path, NULL, error) ? 1 : 0;
}

#endif
