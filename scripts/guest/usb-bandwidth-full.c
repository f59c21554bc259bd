// LD_PRELOAD library for the guest tests: libv4l2's VIDIOC_STREAMON fails with ENOSPC,
// as a UVC camera's does when its USB bus has no isochronous bandwidth left. No driver
// in the guest (vivid, v4l2loopback) ever returns it; every other ioctl goes through.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <linux/videodev2.h>

int v4l2_ioctl(int fd, unsigned long int request, ...) {
  va_list args;
  va_start(args, request);
  void *arg = va_arg(args, void *);
  va_end(args);
  if (request == VIDIOC_STREAMON) {
    errno = ENOSPC;
    return -1;
  }
  static int (*real)(int, unsigned long int, ...);
  if (!real) real = (int (*)(int, unsigned long int, ...))dlsym(RTLD_NEXT, "v4l2_ioctl");
  return real(fd, request, arg);
}
