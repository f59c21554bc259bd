#ifndef CAMFX_CFFMPEG_SHIM_H
#define CAMFX_CFFMPEG_SHIM_H
// FFmpeg reports errors by return code (never longjmp), so Swift may call it directly.
// What Swift cannot import (function-like macros) is copied here.
#include <errno.h>
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
#endif
