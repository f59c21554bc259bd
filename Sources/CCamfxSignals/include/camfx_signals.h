#ifndef CAMFX_SIGNALS_H
#define CAMFX_SIGNALS_H

#include <stdint.h>

/// One signal as the handler saw it: its number and the process that sent it
/// (`si_pid`; 0 for the kernel, e.g. Ctrl-C from a terminal).
struct camfx_signal_record {
  int32_t signo;
  int32_t pid;
};

/// Catches `signo` with a handler that writes a `camfx_signal_record` to `fd` (a
/// pipe's write end) and does nothing else, so any thread may take the signal.
/// Returns 0, or -1 with errno set.
int camfx_signal_route(int signo, int fd);

/// Restores the default action for `signo` and forgets its descriptor.
int camfx_signal_unroute(int signo);

#endif
