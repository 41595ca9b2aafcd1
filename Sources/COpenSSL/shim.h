// OpenSSL for Swift: SHA-1 for the WebSocket handshake and TLS for wss:. Function-like macros
// Swift cannot call are wrapped here.
#include <openssl/err.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

// Server Name Indication (a macro in OpenSSL).
static inline long sybil_ssl_set_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

// The oldest protocol a context accepts (a macro in OpenSSL).
static inline long sybil_ssl_ctx_set_min_tls12(SSL_CTX *context) {
    return SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}

// The last error on this thread's OpenSSL queue as text, and clears the queue.
static inline void sybil_ssl_error_string(char *buffer, size_t size) {
    unsigned long code = ERR_get_error();
    if (code == 0) {
        snprintf(buffer, size, "no OpenSSL error recorded");
    } else {
        ERR_error_string_n(code, buffer, size);
    }
    ERR_clear_error();
}
