// The peers camfx is measured against, behind one small C surface the Swift benchmarks
// call: libyuv (Debian's libyuv-dev, which has no pkg-config file), libswscale and a
// libavfilter graph fed through buffersrc/buffersink.
//
// Pixel formats: libyuv's "ARGB" is a little-endian 32-bit word, so in memory it is
// B, G, R, A, the same bytes as camfx's BGRA; FFmpeg calls the same layout "bgra".
//
// Every function returns 0 on success and a negative code on failure (libyuv: -1;
// FFmpeg: an AVERROR, which camfx_peer_strerror turns into text).
#ifndef CAMFX_PEERS_H
#define CAMFX_PEERS_H

#include <stddef.h>
#include <stdint.h>

/// The resampling kernels the scale peers use (libyuv's FilterMode, libswscale's flags).
typedef enum {
  CAMFX_PEER_SCALE_BILINEAR = 0,
  CAMFX_PEER_SCALE_BICUBIC = 1,  // libswscale only
  CAMFX_PEER_SCALE_AREA = 2,     // libyuv kFilterBox, libswscale SWS_AREA
  CAMFX_PEER_SCALE_POINT = 3,
  CAMFX_PEER_SCALE_FAST_BILINEAR = 4,  // libswscale SWS_FAST_BILINEAR; libyuv has only kFilterBilinear
} camfx_peer_scale_method;

// MARK: libyuv

/// ARGBGray: in-place BT.601 luma written to B, G and R.
int camfx_yuv_gray(uint8_t *argb, int stride, int width, int height);
/// ARGBMirror: left-right mirror, source to a different destination.
int camfx_yuv_mirror(const uint8_t *src, int src_stride, uint8_t *dst, int dst_stride, int width, int height);
/// ARGBCopy: a rectangle copy (what a copying crop does).
int camfx_yuv_copy(const uint8_t *src, int src_stride, uint8_t *dst, int dst_stride, int width, int height);
/// ARGBBlend: premultiplied `fg` over `bg` into `dst` (dst may be bg: in place).
int camfx_yuv_blend(const uint8_t *fg, int fg_stride, const uint8_t *bg, int bg_stride,
                    uint8_t *dst, int dst_stride, int width, int height);
/// ARGBAttenuate: premultiplies alpha (done once on the mark, as camfx does at load).
int camfx_yuv_attenuate(const uint8_t *src, int src_stride, uint8_t *dst, int dst_stride, int width, int height);
/// ARGBToI420: BGRA to planar 4:2:0 (BT.601 limited range).
int camfx_yuv_argb_to_i420(const uint8_t *argb, int argb_stride, uint8_t *y, int y_stride,
                           uint8_t *u, int u_stride, uint8_t *v, int v_stride, int width, int height);
/// YUY2ToARGB: packed 4:2:2 (V4L2 YUYV) to BGRA.
int camfx_yuv_yuy2_to_argb(const uint8_t *yuy2, int yuy2_stride, uint8_t *argb, int argb_stride,
                           int width, int height);
/// YUY2ToI420: packed 4:2:2 to planar 4:2:0 (chroma: the rounded mean of two rows).
int camfx_yuv_yuy2_to_i420(const uint8_t *yuy2, int yuy2_stride, uint8_t *y, int y_stride,
                           uint8_t *u, int u_stride, uint8_t *v, int v_stride, int width, int height);
/// NV12ToI420: Y plane + interleaved UV plane to planar 4:2:0.
int camfx_yuv_nv12_to_i420(const uint8_t *y, int y_stride, const uint8_t *uv, int uv_stride,
                           uint8_t *dst_y, int dst_y_stride, uint8_t *u, int u_stride, uint8_t *v, int v_stride,
                           int width, int height);
/// NV12ToARGB: Y plane + interleaved UV plane to BGRA.
int camfx_yuv_nv12_to_argb(const uint8_t *y, int y_stride, const uint8_t *uv, int uv_stride,
                           uint8_t *argb, int argb_stride, int width, int height);
/// I420ToARGB: Y, U and V planes (4:2:0) to BGRA.
int camfx_yuv_i420_to_argb(const uint8_t *y, int y_stride, const uint8_t *u, int u_stride,
                           const uint8_t *v, int v_stride, uint8_t *argb, int argb_stride, int width, int height);

/// ARGBScale: BGRA from one size to another.
int camfx_yuv_argb_scale(const uint8_t *src, int src_stride, int src_width, int src_height,
                         uint8_t *dst, int dst_stride, int dst_width, int dst_height, camfx_peer_scale_method method);
/// I420Scale: yuv420p from one size to another.
int camfx_yuv_i420_scale(const uint8_t *const src[3], const int src_stride[3], int src_width, int src_height,
                         uint8_t *const dst[3], const int dst_stride[3], int dst_width, int dst_height,
                         camfx_peer_scale_method method);
/// ARGBRotate: BGRA turned clockwise by `degrees` (90, 180, 270).
int camfx_yuv_argb_rotate(const uint8_t *src, int src_stride, uint8_t *dst, int dst_stride, int width, int height,
                          int degrees);
/// I420Rotate: yuv420p turned clockwise by `degrees`.
int camfx_yuv_i420_rotate(const uint8_t *const src[3], const int src_stride[3], uint8_t *const dst[3],
                          const int dst_stride[3], int width, int height, int degrees);

// MARK: libswscale

/// The pixel formats the swscale peer converts between.
typedef enum {
  CAMFX_PEER_BGRA = 0,
  CAMFX_PEER_YUV420P = 1,
  CAMFX_PEER_YUYV422 = 2,
  CAMFX_PEER_NV12 = 3,
} camfx_peer_format;

typedef struct camfx_sws camfx_sws;
/// A same-size converter (SWS_BILINEAR, single-threaded, as a default sws_scale user).
camfx_sws *camfx_sws_create(int width, int height, camfx_peer_format src, camfx_peer_format dst);

/// A scaler between two sizes of one format (single-threaded).
camfx_sws *camfx_sws_create_scaled(int width, int height, int out_width, int out_height, camfx_peer_format format,
                                   camfx_peer_scale_method method);
int camfx_sws_convert(camfx_sws *sws, const uint8_t *const src[4], const int src_stride[4],
                      uint8_t *const dst[4], const int dst_stride[4]);
void camfx_sws_free(camfx_sws *sws);

// MARK: libavfilter

typedef struct camfx_avf camfx_avf;
/// Builds a single-threaded filter graph for BGRA frames of `width`x`height`.
///
/// `description` uses the labels `[in]` (the frame), `[out]` (the result) and, when
/// `mark` is not NULL, `[mark]`: a second BGRA input holding `mark` (straight alpha),
/// pushed once and then closed, so overlay repeats it on every frame, e.g.
/// `[in][mark]overlay=x=W-w-16:y=H-h-16:format=rgb[out]`.
/// On failure returns NULL and writes a one-line reason into `error`.
camfx_avf *camfx_avf_create(const char *description, int width, int height,
                            const uint8_t *mark, int mark_stride, int mark_width, int mark_height,
                            char *error, size_t error_size);
/// Pushes `frame` (wrapped, not copied; overlay writes into it) and pulls one result,
/// whose size lands in `out_width`/`out_height` and whose first pixel row is copied
/// nowhere: the result frame is released at once, as a consumer that only looks would.
/// If `copy_out` is not NULL, the result's rows are copied there (for checking).
int camfx_avf_run(camfx_avf *graph, uint8_t *frame, int stride, uint8_t *copy_out, int copy_out_stride,
                  int *out_width, int *out_height);
/// The same graph on frames of `format` (the mark, if any, is BGRA still).
camfx_avf *camfx_avf_create_format(const char *description, int width, int height, camfx_peer_format format,
                                   const uint8_t *mark, int mark_stride, int mark_width, int mark_height,
                                   char *error, size_t error_size);
/// Pushes a three-plane frame (yuv420p; wrapped, not copied) and pulls one result,
/// released at once.
int camfx_avf_run_planes(camfx_avf *graph, uint8_t *const planes[3], const int strides[3], int *out_width,
                         int *out_height);
void camfx_avf_free(camfx_avf *graph);

/// FFmpeg's text for an AVERROR code.
// libavcodec's MJPEG encoder from yuv420p planes at a fixed qscale (2 best ... 31):
// the encoded size in bytes, or an AVERROR.
typedef struct camfx_mjpeg camfx_mjpeg;
camfx_mjpeg *camfx_mjpeg_create(int width, int height, int qscale);
int camfx_mjpeg_encode(camfx_mjpeg *m, uint8_t *y, int y_stride, uint8_t *u, int u_stride, uint8_t *v, int v_stride);
void camfx_mjpeg_free(camfx_mjpeg *m);

void camfx_peer_strerror(int code, char *buffer, size_t size);

#endif
