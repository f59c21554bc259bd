#ifndef CAMFX_CFFMPEG_SHIM_H
#define CAMFX_CFFMPEG_SHIM_H
// FFmpeg reports errors by return code (never longjmp), so Swift may call it directly.
// What Swift cannot import (function-like macros) is copied here.
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/samplefmt.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

/// AVERROR(EAGAIN): the codec wants more input / output first.
static const int CAMFX_AVERROR_EAGAIN = AVERROR(EAGAIN);
/// AVERROR_EOF: end of stream.
static const int CAMFX_AVERROR_EOF = AVERROR_EOF;
/// AVERROR_STREAM_NOT_FOUND: av_find_best_stream found no stream of the type.
static const int CAMFX_AVERROR_STREAM_NOT_FOUND = AVERROR_STREAM_NOT_FOUND;
/// AVERROR_DECODER_NOT_FOUND: no decoder for the stream's codec.
static const int CAMFX_AVERROR_DECODER_NOT_FOUND = AVERROR_DECODER_NOT_FOUND;
/// AVERROR_INVALIDDATA: corrupt or unrecognised input.
static const int CAMFX_AVERROR_INVALIDDATA = AVERROR_INVALIDDATA;
/// AVERROR_EXTERNAL: an external library (libx264, ...) failed.
static const int CAMFX_AVERROR_EXTERNAL = AVERROR_EXTERNAL;
static const int CAMFX_AV_ERROR_MAX_STRING_SIZE = AV_ERROR_MAX_STRING_SIZE;
static const int64_t CAMFX_AV_NOPTS_VALUE = AV_NOPTS_VALUE;

static inline int camfx_averror(int posix_errno) { return AVERROR(posix_errno); }

/// The SRT socket under an output that libavformat's `srt` protocol opened (avio_open2),
/// or -1. libavformat keeps its URLContext private; the first fields read here (its
/// class, protocol and protocol context, then the libsrt context's class and socket)
/// have kept their places since SRT came to FFmpeg (4.0), and both classes' names are
/// checked before the socket is read.
static inline int camfx_srt_socket(AVIOContext *pb) {
  if (!pb || !pb->opaque) return -1;
  struct camfx_url_head { const AVClass *av_class; const void *protocol; void *priv_data; };
  const struct camfx_url_head *url = (const struct camfx_url_head *)pb->opaque;
  if (!url->av_class || strcmp(url->av_class->class_name, "URLContext") != 0 || !url->priv_data) return -1;
  struct camfx_srt_head { const AVClass *av_class; int fd; };
  const struct camfx_srt_head *srt = (const struct camfx_srt_head *)url->priv_data;
  if (!srt->av_class || strcmp(srt->av_class->class_name, "libsrt") != 0) return -1;
  return srt->fd;
}

/// Bytes an SRT socket holds that its receiver has not acknowledged yet (libsrt's
/// `srt_getsndbuffer`, found in the libsrt libavformat loaded), or -1 if unknown.
static inline long long camfx_srt_unacknowledged_bytes(int socket) {
  typedef int (*getsndbuffer_fn)(int, size_t *, size_t *);
  // The global scope (RTLD_DEFAULT, which glibc declares only with _GNU_SOURCE).
  getsndbuffer_fn getsndbuffer = (getsndbuffer_fn)dlsym((void *)0, "srt_getsndbuffer");
  size_t blocks = 0, bytes = 0;
  if (!getsndbuffer || getsndbuffer(socket, &blocks, &bytes) < 0) return -1;
  return (long long)bytes;
}

/// How long the receiver of an SRT socket holds a packet before it hands it on, in
/// milliseconds (the negotiated `SRTO_PEERLATENCY`, 44 in srt.h: the values of that enum
/// are libsrt's ABI), or -1 if unknown.
static inline int camfx_srt_receiver_delay_ms(int socket) {
  typedef int (*getsockflag_fn)(int, int, void *, int *);
  getsockflag_fn getsockflag = (getsockflag_fn)dlsym((void *)0, "srt_getsockflag");
  int milliseconds = -1, length = sizeof(milliseconds);
  if (!getsockflag || getsockflag(socket, 44, &milliseconds, &length) < 0) return -1;
  return milliseconds;
}

/// True while an SRT socket is connected (`srt_getsockstate` says SRTS_CONNECTED, 5 in
/// srt.h); false when it is broken, closed or cannot be asked.
static inline int camfx_srt_is_connected(int socket) {
  typedef int (*getsockstate_fn)(int);
  getsockstate_fn getsockstate = (getsockstate_fn)dlsym((void *)0, "srt_getsockstate");
  return getsockstate && getsockstate(socket) == 5;
}
#endif
