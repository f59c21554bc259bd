// Thin wrappers so Swift never imports libyuv's headers (C++-shaped, no pkg-config file).
#include "camfx_peers.h"
#include <libyuv.h>

int camfx_yuv_gray(uint8_t *argb, int stride, int width, int height) {
  return ARGBGray(argb, stride, 0, 0, width, height);
}

int camfx_yuv_mirror(const uint8_t *src, int src_stride, uint8_t *dst, int dst_stride, int width, int height) {
  return ARGBMirror(src, src_stride, dst, dst_stride, width, height);
}

int camfx_yuv_copy(const uint8_t *src, int src_stride, uint8_t *dst, int dst_stride, int width, int height) {
  return ARGBCopy(src, src_stride, dst, dst_stride, width, height);
}

int camfx_yuv_blend(const uint8_t *fg, int fg_stride, const uint8_t *bg, int bg_stride,
                    uint8_t *dst, int dst_stride, int width, int height) {
  return ARGBBlend(fg, fg_stride, bg, bg_stride, dst, dst_stride, width, height);
}

int camfx_yuv_attenuate(const uint8_t *src, int src_stride, uint8_t *dst, int dst_stride, int width, int height) {
  return ARGBAttenuate(src, src_stride, dst, dst_stride, width, height);
}

int camfx_yuv_argb_to_i420(const uint8_t *argb, int argb_stride, uint8_t *y, int y_stride,
                           uint8_t *u, int u_stride, uint8_t *v, int v_stride, int width, int height) {
  return ARGBToI420(argb, argb_stride, y, y_stride, u, u_stride, v, v_stride, width, height);
}

int camfx_yuv_yuy2_to_argb(const uint8_t *yuy2, int yuy2_stride, uint8_t *argb, int argb_stride,
                           int width, int height) {
  return YUY2ToARGB(yuy2, yuy2_stride, argb, argb_stride, width, height);
}

int camfx_yuv_yuy2_to_i420(const uint8_t *yuy2, int yuy2_stride, uint8_t *y, int y_stride,
                           uint8_t *u, int u_stride, uint8_t *v, int v_stride, int width, int height) {
  return YUY2ToI420(yuy2, yuy2_stride, y, y_stride, u, u_stride, v, v_stride, width, height);
}

int camfx_yuv_nv12_to_i420(const uint8_t *y, int y_stride, const uint8_t *uv, int uv_stride,
                           uint8_t *dst_y, int dst_y_stride, uint8_t *u, int u_stride, uint8_t *v, int v_stride,
                           int width, int height) {
  return NV12ToI420(y, y_stride, uv, uv_stride, dst_y, dst_y_stride, u, u_stride, v, v_stride, width, height);
}

int camfx_yuv_nv12_to_argb(const uint8_t *y, int y_stride, const uint8_t *uv, int uv_stride,
                           uint8_t *argb, int argb_stride, int width, int height) {
  return NV12ToARGB(y, y_stride, uv, uv_stride, argb, argb_stride, width, height);
}

int camfx_yuv_i420_to_argb(const uint8_t *y, int y_stride, const uint8_t *u, int u_stride,
                           const uint8_t *v, int v_stride, uint8_t *argb, int argb_stride, int width, int height) {
  return I420ToARGB(y, y_stride, u, u_stride, v, v_stride, argb, argb_stride, width, height);
}

static enum FilterMode filter_mode(camfx_peer_scale_method method) {
  switch (method) {
  case CAMFX_PEER_SCALE_AREA: return kFilterBox;
  case CAMFX_PEER_SCALE_POINT: return kFilterNone;
  default: return kFilterBilinear;
  }
}

int camfx_yuv_argb_scale(const uint8_t *src, int src_stride, int src_width, int src_height,
                         uint8_t *dst, int dst_stride, int dst_width, int dst_height, camfx_peer_scale_method method) {
  return ARGBScale(src, src_stride, src_width, src_height, dst, dst_stride, dst_width, dst_height, filter_mode(method));
}

int camfx_yuv_i420_scale(const uint8_t *const src[3], const int src_stride[3], int src_width, int src_height,
                         uint8_t *const dst[3], const int dst_stride[3], int dst_width, int dst_height,
                         camfx_peer_scale_method method) {
  return I420Scale(src[0], src_stride[0], src[1], src_stride[1], src[2], src_stride[2], src_width, src_height,
                   dst[0], dst_stride[0], dst[1], dst_stride[1], dst[2], dst_stride[2], dst_width, dst_height,
                   filter_mode(method));
}

int camfx_yuv_argb_rotate(const uint8_t *src, int src_stride, uint8_t *dst, int dst_stride, int width, int height,
                          int degrees) {
  return ARGBRotate(src, src_stride, dst, dst_stride, width, height, (enum RotationMode)degrees);
}

int camfx_yuv_i420_rotate(const uint8_t *const src[3], const int src_stride[3], uint8_t *const dst[3],
                          const int dst_stride[3], int width, int height, int degrees) {
  return I420Rotate(src[0], src_stride[0], src[1], src_stride[1], src[2], src_stride[2],
                    dst[0], dst_stride[0], dst[1], dst_stride[1], dst[2], dst_stride[2], width, height,
                    (enum RotationMode)degrees);
}
