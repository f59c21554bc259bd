#ifndef CAMFX_CTURBOJPEG_SHIM_H
#define CAMFX_CTURBOJPEG_SHIM_H
// libjpeg-turbo's TurboJPEG API (Debian libturbojpeg0-dev): JPEG straight from
// yuv420p planes or BGRA rows, with no setjmp/longjmp crossing into Swift (TurboJPEG
// catches libjpeg's errors itself and returns -1 with tjGetErrorStr2).
#include <turbojpeg.h>
#endif
