#ifndef CAMFX_CALSA_SHIM_H
#define CAMFX_CALSA_SHIM_H
#include <alsa/asoundlib.h>

// snd_pcm_hw_params_alloca is a macro around alloca; camfx uses the malloc'd
// snd_pcm_hw_params_malloc / _free pair instead, once per open (not per period).
#endif
