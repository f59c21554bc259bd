// Signal handlers cannot be written in Swift (nothing in it is async-signal-safe to
// call from one): this one only writes the signal's number and sender to a pipe.
#include "camfx_signals.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

// The write end of each signal's pipe, plus one (0: none).
static volatile sig_atomic_t camfx_signal_fds[NSIG];

static void camfx_signal_handler(int signo, siginfo_t *info, void *context) {
  (void)context;
  int saved = errno;
  int fd = signo > 0 && signo < NSIG ? (int)camfx_signal_fds[signo] - 1 : -1;
  if (fd >= 0) {
    struct camfx_signal_record record = {signo, info ? (int32_t)info->si_pid : 0};
    // A full pipe drops the record: a flood of signals is not worth blocking for.
    ssize_t written = write(fd, &record, sizeof record);
    (void)written;
  }
  errno = saved;
}

int camfx_signal_route(int signo, int fd) {
  if (signo <= 0 || signo >= NSIG || fd < 0) {
    errno = EINVAL;
    return -1;
  }
  camfx_signal_fds[signo] = fd + 1;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = camfx_signal_handler;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  return sigaction(signo, &action, NULL);
}

int camfx_signal_unroute(int signo) {
  if (signo <= 0 || signo >= NSIG) {
    errno = EINVAL;
    return -1;
  }
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  int result = sigaction(signo, &action, NULL);
  camfx_signal_fds[signo] = 0;
  return result;
}
