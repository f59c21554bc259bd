// libswscale and libavfilter peers. Each handle has one owner (a Swift final class)
// whose deinit calls the matching _free.
#include "camfx_peers.h"

#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>
#include <libswscale/swscale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum AVPixelFormat av_format(camfx_peer_format f) {
  switch (f) {
  case CAMFX_PEER_BGRA: return AV_PIX_FMT_BGRA;
  case CAMFX_PEER_YUV420P: return AV_PIX_FMT_YUV420P;
  case CAMFX_PEER_YUYV422: return AV_PIX_FMT_YUYV422;
  case CAMFX_PEER_NV12: return AV_PIX_FMT_NV12;
  }
  return AV_PIX_FMT_NONE;
}

void camfx_peer_strerror(int code, char *buffer, size_t size) {
  if (av_strerror(code, buffer, size) < 0) snprintf(buffer, size, "error %d", code);
}

// MARK: libswscale

struct camfx_sws {
  struct SwsContext *context;
  int height;         // source rows
  int output_height;  // rows sws_scale returns
};

camfx_sws *camfx_sws_create(int width, int height, camfx_peer_format src, camfx_peer_format dst) {
  struct SwsContext *c = sws_getContext(width, height, av_format(src), width, height, av_format(dst),
                                        SWS_BILINEAR, NULL, NULL, NULL);
  if (!c) return NULL;
  camfx_sws *s = av_mallocz(sizeof *s);
  if (!s) { sws_freeContext(c); return NULL; }
  s->context = c;
  s->height = height;
  s->output_height = height;
  return s;
}

camfx_sws *camfx_sws_create_scaled(int width, int height, int out_width, int out_height, camfx_peer_format format,
                                   camfx_peer_scale_method method) {
  int flags = method == CAMFX_PEER_SCALE_BICUBIC ? SWS_BICUBIC
            : method == CAMFX_PEER_SCALE_AREA    ? SWS_AREA
            : method == CAMFX_PEER_SCALE_POINT   ? SWS_POINT
            : method == CAMFX_PEER_SCALE_FAST_BILINEAR ? SWS_FAST_BILINEAR
                                                 : SWS_BILINEAR;
  struct SwsContext *c = sws_getContext(width, height, av_format(format), out_width, out_height, av_format(format),
                                        flags, NULL, NULL, NULL);
  if (!c) return NULL;
  camfx_sws *s = av_mallocz(sizeof *s);
  if (!s) { sws_freeContext(c); return NULL; }
  s->context = c;
  s->height = height;
  s->output_height = out_height;
  return s;
}

int camfx_sws_convert(camfx_sws *s, const uint8_t *const src[4], const int src_stride[4],
                      uint8_t *const dst[4], const int dst_stride[4]) {
  int rows = sws_scale(s->context, src, src_stride, 0, s->height, dst, dst_stride);
  return rows == s->output_height ? 0 : (rows < 0 ? rows : AVERROR_BUG);
}

void camfx_sws_free(camfx_sws *s) {
  if (!s) return;
  sws_freeContext(s->context);
  av_free(s);
}

// MARK: libavfilter

struct camfx_avf {
  AVFilterGraph *graph;
  AVFilterContext *source;
  AVFilterContext *mark_source;
  AVFilterContext *sink;
  AVFrame *input;
  AVFrame *output;
  int width, height;
  enum AVPixelFormat format;
  int64_t next_pts;
};

// The frame memory belongs to the caller (a camfx PixelBuffer): nothing to free.
static void keep_caller_memory(void *opaque, uint8_t *data) { (void)opaque; (void)data; }

static int make_source(AVFilterGraph *graph, AVFilterContext **out, const char *name, int width, int height,
                       enum AVPixelFormat format) {
  char args[160];
  snprintf(args, sizeof args, "video_size=%dx%d:pix_fmt=%d:time_base=1/30:pixel_aspect=1/1",
           width, height, format);
  return avfilter_graph_create_filter(out, avfilter_get_by_name("buffer"), name, args, NULL, graph);
}

static camfx_avf *fail(camfx_avf *g, int code, const char *what, char *error, size_t error_size) {
  char text[128];
  camfx_peer_strerror(code, text, sizeof text);
  snprintf(error, error_size, "%s: %s", what, text);
  camfx_avf_free(g);
  return NULL;
}

camfx_avf *camfx_avf_create(const char *description, int width, int height,
                            const uint8_t *mark, int mark_stride, int mark_width, int mark_height,
                            char *error, size_t error_size) {
  return camfx_avf_create_format(description, width, height, CAMFX_PEER_BGRA, mark, mark_stride, mark_width,
                                 mark_height, error, error_size);
}

camfx_avf *camfx_avf_create_format(const char *description, int width, int height, camfx_peer_format format,
                                   const uint8_t *mark, int mark_stride, int mark_width, int mark_height,
                                   char *error, size_t error_size) {
  camfx_avf *g = av_mallocz(sizeof *g);
  if (!g) { snprintf(error, error_size, "out of memory"); return NULL; }
  g->width = width;
  g->height = height;
  g->format = av_format(format);
  g->graph = avfilter_graph_alloc();
  g->input = av_frame_alloc();
  g->output = av_frame_alloc();
  if (!g->graph || !g->input || !g->output) return fail(g, AVERROR(ENOMEM), "allocating the graph", error, error_size);
  // One core, as every other peer here: no slice threads.
  g->graph->nb_threads = 1;

  int ret = make_source(g->graph, &g->source, "in", width, height, g->format);
  if (ret < 0) return fail(g, ret, "creating buffer source", error, error_size);
  if (mark) {
    ret = make_source(g->graph, &g->mark_source, "mark", mark_width, mark_height, AV_PIX_FMT_BGRA);
    if (ret < 0) return fail(g, ret, "creating mark source", error, error_size);
  }
  ret = avfilter_graph_create_filter(&g->sink, avfilter_get_by_name("buffersink"), "out", NULL, NULL, g->graph);
  if (ret < 0) return fail(g, ret, "creating buffer sink", error, error_size);

  AVFilterInOut *outputs = avfilter_inout_alloc();
  AVFilterInOut *mark_output = mark ? avfilter_inout_alloc() : NULL;
  AVFilterInOut *inputs = avfilter_inout_alloc();
  if (!outputs || !inputs || (mark && !mark_output)) {
    avfilter_inout_free(&outputs); avfilter_inout_free(&mark_output); avfilter_inout_free(&inputs);
    return fail(g, AVERROR(ENOMEM), "allocating graph links", error, error_size);
  }
  outputs->name = av_strdup("in");
  outputs->filter_ctx = g->source;
  outputs->next = mark_output;
  if (mark_output) {
    mark_output->name = av_strdup("mark");
    mark_output->filter_ctx = g->mark_source;
  }
  inputs->name = av_strdup("out");
  inputs->filter_ctx = g->sink;
  ret = avfilter_graph_parse_ptr(g->graph, description, &inputs, &outputs, NULL);
  avfilter_inout_free(&inputs);
  avfilter_inout_free(&outputs);
  if (ret < 0) return fail(g, ret, description, error, error_size);
  ret = avfilter_graph_config(g->graph, NULL);
  if (ret < 0) return fail(g, ret, "configuring the graph", error, error_size);

  if (mark) {
    // The mark is pushed once (copied into a frame the graph owns) and the input closed:
    // overlay's default eof_action=repeat then blends it onto every main frame.
    AVFrame *m = av_frame_alloc();
    if (!m) return fail(g, AVERROR(ENOMEM), "allocating the mark", error, error_size);
    m->format = AV_PIX_FMT_BGRA;
    m->width = mark_width;
    m->height = mark_height;
    m->pts = 0;
    ret = av_frame_get_buffer(m, 0);
    if (ret >= 0) {
      for (int y = 0; y < mark_height; y++)
        memcpy(m->data[0] + (ptrdiff_t)y * m->linesize[0], mark + (ptrdiff_t)y * mark_stride, (size_t)mark_width * 4);
      ret = av_buffersrc_add_frame_flags(g->mark_source, m, 0);
    }
    av_frame_free(&m);
    if (ret < 0) return fail(g, ret, "pushing the mark", error, error_size);
    ret = av_buffersrc_close(g->mark_source, 1, 0);
    if (ret < 0) return fail(g, ret, "closing the mark input", error, error_size);
  }
  return g;
}

int camfx_avf_run(camfx_avf *g, uint8_t *frame, int stride, uint8_t *copy_out, int copy_out_stride,
                  int *out_width, int *out_height) {
  AVFrame *in = g->input;
  in->format = AV_PIX_FMT_BGRA;
  in->width = g->width;
  in->height = g->height;
  in->data[0] = frame;
  in->linesize[0] = stride;
  in->buf[0] = av_buffer_create(frame, (size_t)stride * g->height, keep_caller_memory, NULL, 0);
  if (!in->buf[0]) return AVERROR(ENOMEM);
  in->pts = g->next_pts++;
  // Without KEEP_REF the graph takes the reference: the frame stays writable, so
  // overlay blends in place instead of copying it first.
  int ret = av_buffersrc_add_frame_flags(g->source, in, 0);
  if (ret < 0) { av_frame_unref(in); return ret; }
  ret = av_buffersink_get_frame(g->sink, g->output);
  if (ret < 0) return ret;
  AVFrame *out = g->output;
  *out_width = out->width;
  *out_height = out->height;
  if (copy_out) {
    for (int y = 0; y < out->height; y++)
      memcpy(copy_out + (ptrdiff_t)y * copy_out_stride, out->data[0] + (ptrdiff_t)y * out->linesize[0],
             (size_t)out->width * 4);
  }
  av_frame_unref(out);
  return 0;
}

int camfx_avf_run_planes(camfx_avf *g, uint8_t *const planes[3], const int strides[3], int *out_width,
                         int *out_height) {
  AVFrame *in = g->input;
  in->format = g->format;
  in->width = g->width;
  in->height = g->height;
  for (int i = 0; i < 3; i++) {
    int rows = i == 0 ? g->height : (g->height + 1) / 2;
    in->data[i] = planes[i];
    in->linesize[i] = strides[i];
    in->buf[i] = av_buffer_create(planes[i], (size_t)strides[i] * rows, keep_caller_memory, NULL, 0);
    if (!in->buf[i]) { av_frame_unref(in); return AVERROR(ENOMEM); }
  }
  in->pts = g->next_pts++;
  int ret = av_buffersrc_add_frame_flags(g->source, in, 0);
  if (ret < 0) { av_frame_unref(in); return ret; }
  ret = av_buffersink_get_frame(g->sink, g->output);
  if (ret < 0) return ret;
  *out_width = g->output->width;
  *out_height = g->output->height;
  av_frame_unref(g->output);
  return 0;
}

void camfx_avf_free(camfx_avf *g) {
  if (!g) return;
  avfilter_graph_free(&g->graph);
  av_frame_free(&g->input);
  av_frame_free(&g->output);
  av_free(g);
}

// MARK: libavcodec's MJPEG encoder (the preview's peer)

#include <libavcodec/avcodec.h>

struct camfx_mjpeg {
  AVCodecContext *context;
  AVFrame *frame;
  AVPacket *packet;
};

camfx_mjpeg *camfx_mjpeg_create(int width, int height, int qscale) {
  const AVCodec *codec = avcodec_find_encoder(AV_CODEC_ID_MJPEG);
  if (!codec) return NULL;
  camfx_mjpeg *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->context = avcodec_alloc_context3(codec);
  m->frame = av_frame_alloc();
  m->packet = av_packet_alloc();
  if (!m->context || !m->frame || !m->packet) { camfx_mjpeg_free(m); return NULL; }
  m->context->width = width;
  m->context->height = height;
  // yuv420p planes as camfx holds them (limited range), as a JPEG decoder expects them
  // once marked: the encoder then writes the same picture TurboJPEG gets after its stretch.
  m->context->pix_fmt = AV_PIX_FMT_YUVJ420P;
  m->context->time_base = (AVRational){1, 30};
  m->context->flags |= AV_CODEC_FLAG_QSCALE;
  m->context->global_quality = FF_QP2LAMBDA * qscale;
  m->context->thread_count = 1;
  if (avcodec_open2(m->context, codec, NULL) < 0) { camfx_mjpeg_free(m); return NULL; }
  m->frame->width = width;
  m->frame->height = height;
  m->frame->format = AV_PIX_FMT_YUVJ420P;
  m->frame->quality = m->context->global_quality;
  return m;
}

int camfx_mjpeg_encode(camfx_mjpeg *m, uint8_t *y, int y_stride, uint8_t *u, int u_stride, uint8_t *v, int v_stride) {
  m->frame->data[0] = y; m->frame->linesize[0] = y_stride;
  m->frame->data[1] = u; m->frame->linesize[1] = u_stride;
  m->frame->data[2] = v; m->frame->linesize[2] = v_stride;
  int r = avcodec_send_frame(m->context, m->frame);
  if (r < 0) return r;
  r = avcodec_receive_packet(m->context, m->packet);
  if (r < 0) return r;
  int size = m->packet->size;
  av_packet_unref(m->packet);
  return size;
}

void camfx_mjpeg_free(camfx_mjpeg *m) {
  if (!m) return;
  avcodec_free_context(&m->context);
  av_frame_free(&m->frame);
  av_packet_free(&m->packet);
  free(m);
}
