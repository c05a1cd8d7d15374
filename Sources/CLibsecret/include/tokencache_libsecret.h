#ifndef TOKENCACHE_LIBSECRET_H
#define TOKENCACHE_LIBSECRET_H

// libsecret-1 and the GLib/GIO functions it is used with, loaded at run time: nothing here links
// against them, so a program using this module starts on a machine without libsecret and gets
// `tokencache_libsecret_load() == 0` instead of a loader error.
//
// The declarations are written here rather than taken from libsecret-1-dev, so building needs no
// libsecret or GLib headers either (a system-library module with pkg-config would also add their
// link flags). They follow the stable ABIs of the sonames loaded (libsecret-1.so.0, GLib 2);
// scripts/check-libsecret-loading.sh compiles them against the real headers to prove they match.

#include <stddef.h>

#ifndef TOKENCACHE_LIBSECRET_SYSTEM_HEADERS
typedef struct _GError {
    unsigned int domain;  // GQuark
    int code;
    char *message;
} GError;
typedef struct _GList GList;
struct _GList {
    void *data;
    GList *next;
    GList *prev;
};
typedef struct _GHashTable GHashTable;
typedef struct _GVariant GVariant;
typedef struct _GVariantType GVariantType;
typedef struct _GCancellable GCancellable;
typedef struct _GDBusProxy GDBusProxy;
typedef struct _SecretSchema SecretSchema;
typedef struct _SecretService SecretService;
typedef struct _SecretCollection SecretCollection;
typedef struct _SecretItem SecretItem;
typedef struct _SecretValue SecretValue;
#endif

// Enumeration values the wrappers pass or compare (libsecret-1 and GIO headers).
enum {
    TOKENCACHE_SECRET_SERVICE_OPEN_SESSION = 1 << 1,
    TOKENCACHE_SECRET_COLLECTION_NONE = 0,
    TOKENCACHE_SECRET_ITEM_NONE = 0,
    TOKENCACHE_SECRET_ITEM_CREATE_NONE = 0,
    TOKENCACHE_SECRET_ITEM_CREATE_REPLACE = 1 << 1,
    TOKENCACHE_SECRET_ERROR_IS_LOCKED = 2,
    TOKENCACHE_SECRET_ERROR_NO_SUCH_OBJECT = 3,
    TOKENCACHE_G_IO_ERROR_CANCELLED = 19,
};

// Every function resolved, as F(return type, name, parameters). gboolean is int, GQuark and guint
// unsigned int, gsize size_t, gssize long (LP64), and flag enumerations unsigned int.
#define TOKENCACHE_LIBSECRET_FUNCTIONS(F) \
    F(void, g_free, (void *)) \
    F(void, g_strfreev, (char **)) \
    F(char *, g_strdup, (const char *)) \
    F(void *, g_malloc0_n, (size_t, size_t)) \
    F(void, g_error_free, (GError *)) \
    F(void, g_object_unref, (void *)) \
    F(unsigned int, g_io_error_quark, (void)) \
    F(unsigned int, g_dbus_error_quark, (void)) \
    F(int, g_dbus_error_is_remote_error, (const GError *)) \
    F(char *, g_dbus_error_get_remote_error, (const GError *)) \
    F(const char *, g_dbus_proxy_get_object_path, (GDBusProxy *)) \
    F(void, g_list_free, (GList *)) \
    F(void, g_list_free_full, (GList *, void (*)(void *))) \
    F(unsigned int, g_str_hash, (const void *)) \
    F(int, g_str_equal, (const void *, const void *)) \
    F(GHashTable *, g_hash_table_new_full, (unsigned int (*)(const void *), int (*)(const void *, const void *), void (*)(void *), void (*)(void *))) \
    F(int, g_hash_table_insert, (GHashTable *, void *, void *)) \
    F(void *, g_hash_table_lookup, (GHashTable *, const void *)) \
    F(unsigned int, g_hash_table_size, (GHashTable *)) \
    F(GList *, g_hash_table_get_keys, (GHashTable *)) \
    F(void, g_hash_table_unref, (GHashTable *)) \
    F(GVariant *, g_variant_new_string, (const char *)) \
    F(GVariant *, g_variant_new_dict_entry, (GVariant *, GVariant *)) \
    F(GVariant *, g_variant_new_array, (const GVariantType *, GVariant *const *, size_t)) \
    F(GVariant *, g_variant_ref_sink, (GVariant *)) \
    F(void, g_variant_unref, (GVariant *)) \
    F(unsigned int, secret_error_get_quark, (void)) \
    F(SecretService *, secret_service_get_sync, (unsigned int, GCancellable *, GError **)) \
    F(char *, secret_service_read_alias_dbus_path_sync, (SecretService *, const char *, GCancellable *, GError **)) \
    F(int, secret_service_load_collections_sync, (SecretService *, GCancellable *, GError **)) \
    F(GList *, secret_service_get_collections, (SecretService *)) \
    F(int, secret_service_unlock_dbus_paths_sync, (SecretService *, const char **, GCancellable *, char ***, GError **)) \
    F(GHashTable *, secret_service_get_secrets_for_dbus_paths_sync, (SecretService *, const char **, GCancellable *, GError **)) \
    F(char *, secret_service_create_item_dbus_path_sync, (SecretService *, const char *, GHashTable *, SecretValue *, unsigned int, GCancellable *, GError **)) \
    F(int, secret_service_delete_item_dbus_path_sync, (SecretService *, const char *, GCancellable *, GError **)) \
    F(int, secret_service_search_for_dbus_paths_sync, (SecretService *, const SecretSchema *, GHashTable *, GCancellable *, char ***, char ***, GError **)) \
    F(SecretCollection *, secret_collection_new_for_dbus_path_sync, (SecretService *, const char *, unsigned int, GCancellable *, GError **)) \
    F(char *, secret_collection_get_label, (SecretCollection *)) \
    F(int, secret_collection_get_locked, (SecretCollection *)) \
    F(char **, secret_collection_search_for_dbus_paths_sync, (SecretCollection *, const SecretSchema *, GHashTable *, GCancellable *, GError **)) \
    F(SecretItem *, secret_item_new_for_dbus_path_sync, (SecretService *, const char *, unsigned int, GCancellable *, GError **)) \
    F(char *, secret_item_get_label, (SecretItem *)) \
    F(int, secret_item_get_locked, (SecretItem *)) \
    F(GHashTable *, secret_item_get_attributes, (SecretItem *)) \
    F(SecretValue *, secret_value_new, (const char *, long, const char *)) \
    F(SecretValue *, secret_value_ref, (SecretValue *)) \
    F(void, secret_value_unref, (void *)) \
    F(const char *, secret_value_get, (SecretValue *, size_t *))

#define TOKENCACHE_LIBSECRET_FIELD(type, name, parameters) type (*name) parameters;
/// The resolved functions. Filled once by tokencache_libsecret_load(); read-only afterwards.
struct tokencache_libsecret_functions {
    TOKENCACHE_LIBSECRET_FUNCTIONS(TOKENCACHE_LIBSECRET_FIELD)
};
#undef TOKENCACHE_LIBSECRET_FIELD

/// The table the wrappers in CLibsecret.h call through. Valid only after tokencache_libsecret_load()
/// returned 1: callers load before making any other call.
extern struct tokencache_libsecret_functions tokencache_libsecret;

/// Loads libsecret and resolves every function above, once per process; later calls (from any
/// thread) return the first outcome. Returns 1 when every function was found, else 0.
///
/// The library is `libsecret-1.so.0`, found by the system loader's search (never a relative path).
/// `TOKENCACHE_LIBSECRET` may name another soname or an absolute path (for tests: a library that
/// does not exist); a relative path there is refused. It is ignored in set-user-ID programs.
int tokencache_libsecret_load(void);

/// The library that was tried (the soname or the TOKENCACHE_LIBSECRET value); valid after a load.
const char *tokencache_libsecret_name(void);

/// Why the load failed (the loader's message: library not found, or a function missing), or NULL after success.
const char *tokencache_libsecret_failure(void);

#endif
