#ifndef SYBIL_SANITIZER_H
#define SYBIL_SANITIZER_H

/// Tells ThreadSanitizer that the calling thread acquired the lock identified by `address`
/// (a no-op when the build has no ThreadSanitizer).
void sybil_sanitizer_acquire(void *address);

/// Tells ThreadSanitizer that the calling thread releases the lock identified by `address`
/// (a no-op when the build has no ThreadSanitizer).
void sybil_sanitizer_release(void *address);

#endif
