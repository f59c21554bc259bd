#ifndef CAMFX_CFREI0R_SHIM_H
#define CAMFX_CFREI0R_SHIM_H
// frei0r plugins are shared objects loaded at run time (dlopen); camfx links none of
// them. This header gives Swift the API's types and the plugins' entry points as
// function-pointer types to cast dlsym's results to.
#include <frei0r.h>

typedef int (*camfx_f0r_init_t)(void);
typedef void (*camfx_f0r_deinit_t)(void);
typedef void (*camfx_f0r_get_plugin_info_t)(f0r_plugin_info_t *info);
typedef void (*camfx_f0r_get_param_info_t)(f0r_param_info_t *info, int param_index);
typedef f0r_instance_t (*camfx_f0r_construct_t)(unsigned int width, unsigned int height);
typedef void (*camfx_f0r_destruct_t)(f0r_instance_t instance);
typedef void (*camfx_f0r_set_param_value_t)(f0r_instance_t instance, f0r_param_t param, int param_index);
typedef void (*camfx_f0r_update_t)(f0r_instance_t instance, double time, const uint32_t *inframe, uint32_t *outframe);

static const int CAMFX_F0R_PLUGIN_TYPE_FILTER = F0R_PLUGIN_TYPE_FILTER;
static const int CAMFX_F0R_COLOR_MODEL_BGRA8888 = F0R_COLOR_MODEL_BGRA8888;
static const int CAMFX_F0R_COLOR_MODEL_RGBA8888 = F0R_COLOR_MODEL_RGBA8888;
static const int CAMFX_F0R_COLOR_MODEL_PACKED32 = F0R_COLOR_MODEL_PACKED32;
static const int CAMFX_F0R_PARAM_BOOL = F0R_PARAM_BOOL;
static const int CAMFX_F0R_PARAM_DOUBLE = F0R_PARAM_DOUBLE;
static const int CAMFX_F0R_PARAM_COLOR = F0R_PARAM_COLOR;
static const int CAMFX_F0R_PARAM_POSITION = F0R_PARAM_POSITION;
static const int CAMFX_F0R_PARAM_STRING = F0R_PARAM_STRING;
#endif
