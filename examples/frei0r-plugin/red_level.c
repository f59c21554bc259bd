/* A frei0r filter plugin to show how camfx runs one: it sets every pixel's red to
 * `level` (0...1 of full scale) and keeps green, blue and alpha.
 *
 *   cc -shared -fPIC -O2 -o red_level.so red_level.c
 *   FREI0R_PATH=$PWD camfx snapshot --filter frei0r=name=red_level:level=0.5 -o red.png
 *
 * It asks for RGBA8888, so camfx hands it red in the first byte of each pixel (and
 * swaps back to BGRA afterwards); a plugin that asks for BGRA8888 gets the frames as
 * they are. Any language that makes a shared object with these C functions works:
 * C++, Rust, or Swift with @_cdecl.
 */
#include <frei0r.h>
#include <stdlib.h>

typedef struct {
  unsigned int width, height;
  double level;
} red_level_t;

int f0r_init(void) { return 1; }
void f0r_deinit(void) {}

void f0r_get_plugin_info(f0r_plugin_info_t *info) {
  info->name = "red_level";
  info->author = "camfx";
  info->plugin_type = F0R_PLUGIN_TYPE_FILTER;
  info->color_model = F0R_COLOR_MODEL_RGBA8888;
  info->frei0r_version = FREI0R_MAJOR_VERSION;
  info->major_version = 1;
  info->minor_version = 0;
  info->num_params = 1;
  info->explanation = "Sets red to a level; keeps green, blue and alpha";
}

void f0r_get_param_info(f0r_param_info_t *info, int index) {
  if (index == 0) {
    info->name = "Level";
    info->type = F0R_PARAM_DOUBLE;
    info->explanation = "Red, 0...1 of full scale";
  }
}

f0r_instance_t f0r_construct(unsigned int width, unsigned int height) {
  red_level_t *self = calloc(1, sizeof *self);
  if (!self) return 0;
  self->width = width;
  self->height = height;
  self->level = 1.0;
  return self;
}

void f0r_destruct(f0r_instance_t instance) { free(instance); }

void f0r_set_param_value(f0r_instance_t instance, f0r_param_t param, int index) {
  if (index == 0) ((red_level_t *)instance)->level = *(double *)param;
}

void f0r_get_param_value(f0r_instance_t instance, f0r_param_t param, int index) {
  if (index == 0) *(double *)param = ((red_level_t *)instance)->level;
}

void f0r_update(f0r_instance_t instance, double time, const uint32_t *in, uint32_t *out) {
  (void)time;
  const red_level_t *self = instance;
  const unsigned char red = (unsigned char)(self->level * 255 + 0.5);
  const unsigned char *from = (const unsigned char *)in;
  unsigned char *to = (unsigned char *)out;
  for (size_t i = 0; i < (size_t)self->width * self->height; i++) {
    to[4 * i + 0] = red;               /* R: the first byte in RGBA8888 */
    to[4 * i + 1] = from[4 * i + 1];   /* G */
    to[4 * i + 2] = from[4 * i + 2];   /* B */
    to[4 * i + 3] = from[4 * i + 3];   /* A */
  }
}
