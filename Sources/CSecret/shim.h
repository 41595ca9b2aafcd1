// libsecret for Swift: Sybil's stored keys in the Secret Service (GNOME Keyring, KWallet),
// loaded on first use. The caller opens libsecret with dlopen and fills `struct sybil_secret_api`
// with `sybil_secret_api_load`, so a program that links this module does not load libsecret,
// GIO, GObject and GLib at start. libsecret's convenience calls are variadic and return GLib
// containers, which Swift handles badly; the helpers below take and return plain C values
// instead. Every helper that can fail takes a `sybil_gerror **` and sets it on failure (the
// caller frees it with sybil_secret_error_free).
//
// The few GLib and libsecret types used are declared here rather than included: their headers
// need pkg-config's include paths, and a pkg-config system library is also linked. Each mirrors
// the public, stable ABI named beside it (LP64 Linux: gsize is size_t, gssize ssize_t, gboolean
// and C enums int).
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#pragma clang assume_nonnull begin

/// GError.
typedef struct sybil_gerror {
    uint32_t domain;
    int code;
    char *_Nullable message;
} sybil_gerror;

/// GList.
typedef struct sybil_glist {
    void *_Nullable data;
    struct sybil_glist *_Nullable next;
    struct sybil_glist *_Nullable prev;
} sybil_glist;

/// SecretSchemaAttribute.
typedef struct {
    const char *_Nullable name;
    int type;
} sybil_secret_schema_attribute;

/// SecretSchema.
typedef struct {
    const char *name;
    int flags;
    sybil_secret_schema_attribute attributes[32];
    int reserved;
    void *_Nullable reserved1;
    void *_Nullable reserved2;
    void *_Nullable reserved3;
    void *_Nullable reserved4;
    void *_Nullable reserved5;
    void *_Nullable reserved6;
    void *_Nullable reserved7;
} sybil_secret_schema;

/// The libsecret and GLib functions Sybil calls, with their C signatures (opaque objects as
/// `void *`). SecretService, SecretValue, SecretItem and GHashTable are GObject / GLib objects.
struct sybil_secret_api {
    void *_Nullable (*_Nonnull secret_service_get_sync)(
        int flags, void *_Nullable cancellable, sybil_gerror *_Nullable *_Nullable error);
    int (*_Nonnull secret_service_store_sync)(
        void *service, const sybil_secret_schema *schema, void *attributes, const char *collection, const char *label,
        void *value, void *_Nullable cancellable, sybil_gerror *_Nullable *_Nullable error);
    void *_Nullable (*_Nonnull secret_service_lookup_sync)(
        void *service, const sybil_secret_schema *schema, void *attributes, void *_Nullable cancellable,
        sybil_gerror *_Nullable *_Nullable error);
    int (*_Nonnull secret_service_clear_sync)(
        void *service, const sybil_secret_schema *schema, void *attributes, void *_Nullable cancellable,
        sybil_gerror *_Nullable *_Nullable error);
    sybil_glist *_Nullable (*_Nonnull secret_service_search_sync)(
        void *service, const sybil_secret_schema *schema, void *attributes, int flags, void *_Nullable cancellable,
        sybil_gerror *_Nullable *_Nullable error);
    void *_Nonnull (*_Nonnull secret_item_get_attributes)(void *item);
    void *_Nonnull (*_Nonnull secret_value_new)(const char *secret, ssize_t length, const char *content_type);
    const char *_Nonnull (*_Nonnull secret_value_get)(void *value, size_t *length);
    void (*_Nonnull secret_value_unref)(void *value);
    void *_Nonnull (*_Nonnull g_hash_table_new)(
        unsigned (*_Nullable hash)(const void *_Nullable),
        int (*_Nullable equal)(const void *_Nullable, const void *_Nullable));
    int (*_Nonnull g_hash_table_insert)(void *table, void *_Nullable key, void *_Nullable value);
    void *_Nullable (*_Nonnull g_hash_table_lookup)(void *table, const void *_Nullable key);
    void (*_Nonnull g_hash_table_unref)(void *table);
    unsigned (*_Nonnull g_str_hash)(const void *_Nullable text);
    int (*_Nonnull g_str_equal)(const void *_Nullable left, const void *_Nullable right);
    void (*_Nonnull g_list_free_full)(sybil_glist *_Nullable list, void (*_Nullable free)(void *_Nullable));
    void (*_Nonnull g_object_unref)(void *_Nullable object);
    void (*_Nonnull g_error_free)(sybil_gerror *error);
};

// The functions above by name, in order (each resolved with dlsym).
#define SYBIL_SECRET_FUNCTIONS(X)                                                                            \
    X(secret_service_get_sync)                                                                               \
    X(secret_service_store_sync)                                                                             \
    X(secret_service_lookup_sync)                                                                            \
    X(secret_service_clear_sync)                                                                             \
    X(secret_service_search_sync)                                                                            \
    X(secret_item_get_attributes)                                                                            \
    X(secret_value_new)                                                                                      \
    X(secret_value_get)                                                                                      \
    X(secret_value_unref)                                                                                    \
    X(g_hash_table_new)                                                                                      \
    X(g_hash_table_insert)                                                                                   \
    X(g_hash_table_lookup)                                                                                   \
    X(g_hash_table_unref)                                                                                    \
    X(g_str_hash)                                                                                            \
    X(g_str_equal)                                                                                           \
    X(g_list_free_full)                                                                                      \
    X(g_object_unref)                                                                                        \
    X(g_error_free)

// Fills `api` from `library` (a dlopen handle of libsecret; its GLib dependencies are searched
// too); returns NULL, or the name of the first function not found (then `api` must not be used).
static inline const char *_Nullable sybil_secret_api_load(void *library, struct sybil_secret_api *api) {
#define SYBIL_SECRET_RESOLVE(name)                                                                           \
    {                                                                                                        \
        void *symbol = dlsym(library, #name);                                                                \
        if (symbol == NULL) {                                                                                \
            return #name;                                                                                    \
        }                                                                                                    \
        memcpy(&api->name, &symbol, sizeof symbol);                                                          \
    }
    SYBIL_SECRET_FUNCTIONS(SYBIL_SECRET_RESOLVE)
#undef SYBIL_SECRET_RESOLVE
    return NULL;
}

// SECRET_SERVICE_OPEN_SESSION, SECRET_SEARCH_ALL, SECRET_SCHEMA_NONE, SECRET_SCHEMA_ATTRIBUTE_STRING.
enum {
    sybil_secret_service_open_session = 1 << 1,
    sybil_secret_search_all = 1 << 1,
    sybil_secret_schema_none = 0,
    sybil_secret_schema_attribute_string = 0,
};

// The schema of Sybil's keys: one string attribute, the key's name.
static const sybil_secret_schema sybil_key_schema = {
    "dev.sybil.Key",
    sybil_secret_schema_none,
    {
        {"name", sybil_secret_schema_attribute_string},
        {NULL, 0},
    },
    0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

// Memory for results handed to Swift; like GLib's g_malloc, running out of memory aborts.
static inline void *sybil_secret_allocate(size_t size) {
    void *memory = malloc(size == 0 ? 1 : size);
    if (memory == NULL) {
        abort();
    }
    return memory;
}

// The attributes that select one key (`name`), or every key of the schema (`NULL`).
static inline void *sybil_key_attributes(const struct sybil_secret_api *api, const char *_Nullable name) {
    void *attributes = api->g_hash_table_new(api->g_str_hash, api->g_str_equal);
    if (name != NULL) {
        api->g_hash_table_insert(attributes, (void *)"name", (void *)name);
    }
    return attributes;
}

// Connects to the Secret Service and opens a session with it, so a service that does not answer
// is an error here rather than at the first key. Release the result with sybil_secret_release.
static inline void *_Nullable sybil_secret_service_open(
    const struct sybil_secret_api *api, sybil_gerror *_Nullable *_Nonnull error) {
    return api->secret_service_get_sync(sybil_secret_service_open_session, NULL, error);
}

// Releases a service from sybil_secret_service_open.
static inline void sybil_secret_release(const struct sybil_secret_api *api, void *service) {
    api->g_object_unref(service);
}

// Frees an error a helper set.
static inline void sybil_secret_error_free(const struct sybil_secret_api *api, sybil_gerror *error) {
    api->g_error_free(error);
}

// Stores `secret` (`length` bytes of text) as the key `name` in the default collection,
// replacing an earlier value.
static inline int sybil_secret_store(
    const struct sybil_secret_api *api, void *service, const char *name, const char *label, const char *secret,
    ssize_t length, sybil_gerror *_Nullable *_Nonnull error) {
    void *attributes = sybil_key_attributes(api, name);
    void *value = api->secret_value_new(secret, length, "text/plain");
    int stored = api->secret_service_store_sync(
        service, &sybil_key_schema, attributes, "default", label, value, NULL, error);
    api->secret_value_unref(value);
    api->g_hash_table_unref(attributes);
    return stored;
}

// The key `name` as a copy of its bytes (`*length` of them; free with sybil_secret_free), or
// NULL when there is no such key or on error.
static inline char *_Nullable sybil_secret_lookup(
    const struct sybil_secret_api *api, void *service, const char *name, size_t *length,
    sybil_gerror *_Nullable *_Nonnull error) {
    void *attributes = sybil_key_attributes(api, name);
    void *value = api->secret_service_lookup_sync(service, &sybil_key_schema, attributes, NULL, error);
    api->g_hash_table_unref(attributes);
    *length = 0;
    if (value == NULL) {
        return NULL;
    }
    size_t size = 0;
    const char *bytes = api->secret_value_get(value, &size);
    char *copy = (char *)sybil_secret_allocate(size + 1);
    memcpy(copy, bytes, size);
    copy[size] = '\0';
    *length = size;
    api->secret_value_unref(value);
    return copy;
}

// Clears and frees a copy made by sybil_secret_lookup.
static inline void sybil_secret_free(char *_Nullable secret, size_t length) {
    if (secret == NULL) {
        return;
    }
    volatile char *bytes = secret;
    for (size_t index = 0; index < length; index++) {
        bytes[index] = 0;
    }
    free(secret);
}

// Removes the key `name`; returns whether there was one (0 with *error set on failure).
static inline int sybil_secret_clear(
    const struct sybil_secret_api *api, void *service, const char *name, sybil_gerror *_Nullable *_Nonnull error) {
    void *attributes = sybil_key_attributes(api, name);
    int removed = api->secret_service_clear_sync(service, &sybil_key_schema, attributes, NULL, error);
    api->g_hash_table_unref(attributes);
    return removed;
}

// The names of every stored key, unsorted, as a NULL-terminated array (free with
// sybil_secret_names_free), or NULL on error.
static inline char *_Nullable *_Nullable sybil_secret_names(
    const struct sybil_secret_api *api, void *service, sybil_gerror *_Nullable *_Nonnull error) {
    void *attributes = sybil_key_attributes(api, NULL);
    sybil_gerror *failure = NULL;
    sybil_glist *items = api->secret_service_search_sync(
        service, &sybil_key_schema, attributes, sybil_secret_search_all, NULL, &failure);
    api->g_hash_table_unref(attributes);
    if (failure != NULL) {
        *error = failure;
        return NULL;
    }
    size_t count = 0;
    for (sybil_glist *item = items; item != NULL; item = item->next) {
        count++;
    }
    char *_Nullable *names = (char *_Nullable *)sybil_secret_allocate((count + 1) * sizeof(char *));
    size_t found = 0;
    for (sybil_glist *item = items; item != NULL; item = item->next) {
        void *attributes_of_item = api->secret_item_get_attributes(item->data);
        const char *name = (const char *)api->g_hash_table_lookup(attributes_of_item, "name");
        if (name != NULL) {
            size_t size = strlen(name) + 1;
            names[found] = (char *)memcpy(sybil_secret_allocate(size), name, size);
            found++;
        }
        api->g_hash_table_unref(attributes_of_item);
    }
    api->g_list_free_full(items, api->g_object_unref);
    names[found] = NULL;
    return names;
}

// Frees an array from sybil_secret_names.
static inline void sybil_secret_names_free(char *_Nullable *_Nullable names) {
    if (names == NULL) {
        return;
    }
    for (size_t index = 0; names[index] != NULL; index++) {
        free(names[index]);
    }
    free(names);
}

#pragma clang assume_nonnull end
