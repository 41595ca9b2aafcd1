// libsecret for Swift: Sybil's stored keys in the Secret Service (GNOME Keyring, KWallet).
// libsecret's convenience calls are variadic and its results are GLib containers, which Swift
// handles badly; these helpers take and return plain C values instead. Every helper that can
// fail takes a `GError **` and sets it on failure (the caller frees it with g_error_free).
#include <string.h>
#include <glib.h>
#include <libsecret/secret.h>

// The schema of Sybil's keys: one string attribute, the key's name.
static const SecretSchema sybil_key_schema = {
    "dev.sybil.Key",
    SECRET_SCHEMA_NONE,
    {
        {"name", SECRET_SCHEMA_ATTRIBUTE_STRING},
        {NULL, 0},
    },
};

// The attributes that select one key (`name`), or every key of the schema (`NULL`).
static inline GHashTable *sybil_key_attributes(const char *name) {
    GHashTable *attributes = g_hash_table_new(g_str_hash, g_str_equal);
    if (name != NULL) {
        g_hash_table_insert(attributes, (gpointer) "name", (gpointer)name);
    }
    return attributes;
}

// Connects to the Secret Service and opens a session with it, so a service that does not answer
// is an error here rather than at the first key. Release the result with g_object_unref.
static inline SecretService *sybil_secret_service_open(GError **error) {
    return secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, NULL, error);
}

// Stores `secret` (`length` bytes of text) as the key `name` in the default collection,
// replacing an earlier value.
static inline gboolean sybil_secret_store(
    SecretService *service, const char *name, const char *label, const char *secret, gssize length,
    GError **error) {
    GHashTable *attributes = sybil_key_attributes(name);
    SecretValue *value = secret_value_new(secret, length, "text/plain");
    gboolean stored = secret_service_store_sync(
        service, &sybil_key_schema, attributes, SECRET_COLLECTION_DEFAULT, label, value, NULL, error);
    secret_value_unref(value);
    g_hash_table_unref(attributes);
    return stored;
}

// The key `name` as a copy of its bytes (`*length` of them; free with sybil_secret_free), or
// NULL when there is no such key or on error.
static inline char *sybil_secret_lookup(SecretService *service, const char *name, gsize *length, GError **error) {
    GHashTable *attributes = sybil_key_attributes(name);
    SecretValue *value = secret_service_lookup_sync(service, &sybil_key_schema, attributes, NULL, error);
    g_hash_table_unref(attributes);
    *length = 0;
    if (value == NULL) {
        return NULL;
    }
    gsize size = 0;
    const gchar *bytes = secret_value_get(value, &size);
    char *copy = (char *)g_malloc(size + 1);
    memcpy(copy, bytes, size);
    copy[size] = '\0';
    *length = size;
    secret_value_unref(value);
    return copy;
}

// Clears and frees a copy made by sybil_secret_lookup.
static inline void sybil_secret_free(char *secret, gsize length) {
    if (secret == NULL) {
        return;
    }
    volatile char *bytes = secret;
    for (gsize index = 0; index < length; index++) {
        bytes[index] = 0;
    }
    g_free(secret);
}

// Removes the key `name`; returns whether there was one (FALSE with *error set on failure).
static inline gboolean sybil_secret_clear(SecretService *service, const char *name, GError **error) {
    GHashTable *attributes = sybil_key_attributes(name);
    gboolean removed = secret_service_clear_sync(service, &sybil_key_schema, attributes, NULL, error);
    g_hash_table_unref(attributes);
    return removed;
}

// The names of every stored key, unsorted, as a NULL-terminated array (free with g_strfreev),
// or NULL on error.
static inline gchar **sybil_secret_names(SecretService *service, GError **error) {
    GHashTable *attributes = sybil_key_attributes(NULL);
    GError *failure = NULL;
    GList *items = secret_service_search_sync(
        service, &sybil_key_schema, attributes, SECRET_SEARCH_ALL, NULL, &failure);
    g_hash_table_unref(attributes);
    if (failure != NULL) {
        g_propagate_error(error, failure);
        return NULL;
    }
    GPtrArray *names = g_ptr_array_new();
    for (GList *item = items; item != NULL; item = item->next) {
        GHashTable *found = secret_item_get_attributes(SECRET_ITEM(item->data));
        const char *name = (const char *)g_hash_table_lookup(found, "name");
        if (name != NULL) {
            g_ptr_array_add(names, g_strdup(name));
        }
        g_hash_table_unref(found);
    }
    g_list_free_full(items, g_object_unref);
    g_ptr_array_add(names, NULL);
    return (gchar **)g_ptr_array_free(names, FALSE);
}
