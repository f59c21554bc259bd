#ifndef CAMFX_CV4L2_SHIM_H
#define CAMFX_CV4L2_SHIM_H
// V4L2 ioctl request codes are macros built with _IOWR, which Swift cannot import, and
// libv4l2's v4l2_open / v4l2_ioctl are C-variadic, which Swift cannot call. Both are
// wrapped here.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/videodev2.h>
#include <libv4l2.h>

static inline int camfx_v4l2_open(const char *path, int flags) { return v4l2_open(path, flags); }
/// Hands an fd opened with open(2) to libv4l2 (after camfx checked it is a camera).
static inline int camfx_v4l2_fd_open(int fd, int v4l2_flags) { return v4l2_fd_open(fd, v4l2_flags); }
/// Plain ioctl(2), for probing a node before libv4l2 sees it (ioctl is variadic too).
static inline int camfx_ioctl(int fd, unsigned long request, void *arg) { return ioctl(fd, request, arg); }
static inline int camfx_v4l2_close(int fd) { return v4l2_close(fd); }
static inline int camfx_v4l2_ioctl(int fd, unsigned long request, void *arg) {
  return v4l2_ioctl(fd, request, arg);
}
static inline void *camfx_v4l2_mmap(void *start, size_t length, int prot, int flags, int fd, int64_t offset) {
  return v4l2_mmap(start, length, prot, flags, fd, offset);
}
static inline int camfx_v4l2_munmap(void *start, size_t length) { return v4l2_munmap(start, length); }

static const unsigned long CAMFX_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
static const unsigned long CAMFX_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
static const unsigned long CAMFX_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
static const unsigned long CAMFX_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
static const unsigned long CAMFX_VIDIOC_G_FMT = VIDIOC_G_FMT;
static const unsigned long CAMFX_VIDIOC_S_FMT = VIDIOC_S_FMT;
static const unsigned long CAMFX_VIDIOC_TRY_FMT = VIDIOC_TRY_FMT;
static const unsigned long CAMFX_VIDIOC_G_PARM = VIDIOC_G_PARM;
static const unsigned long CAMFX_VIDIOC_S_PARM = VIDIOC_S_PARM;
static const unsigned long CAMFX_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
static const unsigned long CAMFX_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
static const unsigned long CAMFX_VIDIOC_QBUF = VIDIOC_QBUF;
static const unsigned long CAMFX_VIDIOC_DQBUF = VIDIOC_DQBUF;
static const unsigned long CAMFX_VIDIOC_STREAMON = VIDIOC_STREAMON;
static const unsigned long CAMFX_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;
static const unsigned long CAMFX_VIDIOC_QUERYCTRL = VIDIOC_QUERYCTRL;
static const unsigned long CAMFX_VIDIOC_QUERY_EXT_CTRL = VIDIOC_QUERY_EXT_CTRL;
static const unsigned long CAMFX_VIDIOC_QUERYMENU = VIDIOC_QUERYMENU;
static const unsigned long CAMFX_VIDIOC_G_CTRL = VIDIOC_G_CTRL;
static const unsigned long CAMFX_VIDIOC_S_CTRL = VIDIOC_S_CTRL;
static const unsigned long CAMFX_VIDIOC_G_EXT_CTRLS = VIDIOC_G_EXT_CTRLS;
static const unsigned long CAMFX_VIDIOC_S_EXT_CTRLS = VIDIOC_S_EXT_CTRLS;
static const unsigned long CAMFX_VIDIOC_ENUMINPUT = VIDIOC_ENUMINPUT;
static const unsigned long CAMFX_VIDIOC_S_INPUT = VIDIOC_S_INPUT;
#endif
