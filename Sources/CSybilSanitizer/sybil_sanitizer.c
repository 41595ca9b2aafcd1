#include "sybil_sanitizer.h"

// SwiftPM compiles this file with -fsanitize=thread when the package is built with
// --sanitize=thread; only then do the annotations reach the ThreadSanitizer runtime.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SYBIL_THREAD_SANITIZER 1
#endif
#endif

#ifdef SYBIL_THREAD_SANITIZER
void __tsan_acquire(void *address);
void __tsan_release(void *address);

void sybil_sanitizer_acquire(void *address) { __tsan_acquire(address); }
void sybil_sanitizer_release(void *address) { __tsan_release(address); }
#else
void sybil_sanitizer_acquire(void *address) { (void)address; }
void sybil_sanitizer_release(void *address) { (void)address; }
#endif
