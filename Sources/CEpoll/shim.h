// Linux readiness notification for the server's event loop. `struct epoll_event` is packed on
// x86_64, which Swift cannot import faithfully, so these wrappers take and return plain values.
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

static inline int sybil_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

// Adds (op EPOLL_CTL_ADD), changes (EPOLL_CTL_MOD) or removes (EPOLL_CTL_DEL) interest in fd.
// readable: 0 none, 1 input and the peer's half-close, 2 only the peer's half-close (while the
// input is not read, the end of it behind unread bytes is still reported).
static inline int sybil_epoll_control(int epoll, int op, int fd, int readable, int writable, uint64_t token) {
    struct epoll_event event;
    event.events = (readable == 1 ? (EPOLLIN | EPOLLRDHUP) : readable == 2 ? EPOLLRDHUP : 0)
        | (writable ? EPOLLOUT : 0);
    event.data.u64 = token;
    return epoll_ctl(epoll, op, fd, &event);
}

static inline int sybil_epoll_add(void) { return EPOLL_CTL_ADD; }
static inline int sybil_epoll_modify(void) { return EPOLL_CTL_MOD; }
static inline int sybil_epoll_remove(void) { return EPOLL_CTL_DEL; }

// Waits up to timeout milliseconds; fills tokens[i] and flags[i] (bit 0 readable, bit 1
// writable, bit 2 hung up or failed, bit 3 the peer's half-close) and returns how many, or -1
// with errno.
static inline int sybil_epoll_wait(int epoll, uint64_t *tokens, uint32_t *flags, int capacity, int timeout) {
    struct epoll_event events[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epoll, events, capacity, timeout);
    for (int i = 0; i < count; i++) {
        tokens[i] = events[i].data.u64;
        uint32_t e = events[i].events;
        flags[i] = ((e & EPOLLIN) ? 1u : 0u) | ((e & EPOLLOUT) ? 2u : 0u)
            | ((e & (EPOLLHUP | EPOLLERR)) ? 4u : 0u) | ((e & EPOLLRDHUP) ? 8u : 0u);
    }
    return count;
}

static inline int sybil_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }


// Accepts one pending connection already non-blocking and close-on-exec, so a process spawned
// by another thread meanwhile never inherits it; -1 with errno when none is waiting. glibc
// declares accept4 only for _GNU_SOURCE, so it is declared here.
#include <sys/socket.h>
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
static inline int sybil_accept(int listener) {
    return accept4(listener, (struct sockaddr *)0, (socklen_t *)0, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

// Terminal helpers for SybilTUI's terminal layer: ioctl is variadic and struct sigaction holds
// a union, neither of which Swift calls directly.
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>

// The window size of the terminal on fd: 0 with columns and rows filled, or -1 with errno.
static inline int sybil_window_size(int fd, int *columns, int *rows) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0) return -1;
    *columns = size.ws_col;
    *rows = size.ws_row;
    return 0;
}

// Sets the window size of a pseudo-terminal (tests resize the pty this way): 0 or -1 with errno.
static inline int sybil_set_window_size(int fd, int columns, int rows) {
    struct winsize size;
    size.ws_col = (unsigned short)columns;
    size.ws_row = (unsigned short)rows;
    size.ws_xpixel = 0;
    size.ws_ypixel = 0;
    return ioctl(fd, TIOCSWINSZ, &size);
}

// The size of a struct sigaction, for storage that sybil_signal_install saves into.
static inline unsigned long sybil_sigaction_size(void) { return sizeof(struct sigaction); }

// Installs handler for sig (SA_RESTART; SA_RESETHAND too when reset_after is non-zero), saving
// the action it replaces into previous (sybil_sigaction_size() bytes) unless that is NULL: 0 or
// -1 with errno.
static inline int sybil_signal_install(int sig, void (*handler)(int), int reset_after, void *previous) {
    struct sigaction action;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART | (reset_after ? SA_RESETHAND : 0);
    action.sa_handler = handler;
    return sigaction(sig, &action, (struct sigaction *)previous);
}

// Puts back an action saved by sybil_signal_install (async-signal-safe): 0 or -1 with errno.
static inline int sybil_signal_put_back(int sig, const void *previous) {
    return sigaction(sig, (const struct sigaction *)previous, (struct sigaction *)0);
}

// Puts sig back to its default disposition (async-signal-safe): 0 or -1 with errno.
static inline int sybil_signal_default(int sig) {
    struct sigaction action;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    action.sa_handler = SIG_DFL;
    return sigaction(sig, &action, (struct sigaction *)0);
}

// Opens a pseudo-terminal pair (the terminal layer's tests run a session on one): 0 with the
// master and slave descriptors (read-write, not a controlling terminal, close-on-exec), or -1
// with errno. glibc declares these only for _XOPEN_SOURCE or _GNU_SOURCE, so they are declared here.
#include <fcntl.h>
#include <stddef.h>
#include <unistd.h>
extern int posix_openpt(int flags);
extern int grantpt(int fd);
extern int unlockpt(int fd);
extern int ptsname_r(int fd, char *buffer, size_t length);
static inline int sybil_open_pty(int *master, int *slave) {
    char name[128];
    int primary = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (primary < 0) return -1;
    if (grantpt(primary) != 0 || unlockpt(primary) != 0 || ptsname_r(primary, name, sizeof name) != 0) {
        close(primary);
        return -1;
    }
    int secondary = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (secondary < 0) {
        close(primary);
        return -1;
    }
    *master = primary;
    *slave = secondary;
    return 0;
}

// Names the calling thread (at most 15 bytes; longer names fail with ERANGE). glibc declares
// pthread_setname_np only for _GNU_SOURCE, so it is declared here.
#include <pthread.h>
extern int pthread_setname_np(pthread_t thread, const char *name);
static inline int sybil_set_current_thread_name(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}
