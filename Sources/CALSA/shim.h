#ifndef CAMFX_CALSA_SHIM_H
#define CAMFX_CALSA_SHIM_H
#include <alsa/asoundlib.h>
#include <errno.h>

// snd_pcm_hw_params_alloca is a macro around alloca; camfx uses the malloc'd
// snd_pcm_hw_params_malloc / _free pair instead, once per open (not per period).

// alsa-lib prints its own diagnostics ("ALSA lib pcm.c:...: Unknown PCM hw:9") to
// stderr before returning an error code. camfx reports the code itself, in one line,
// so the library's handler is replaced by a silent one. The handler type is
// C-variadic, which Swift cannot define, hence this C function.
static void camfx_alsa_silent_error(const char *file, int line, const char *function, int err, const char *fmt, ...) {
  (void)file; (void)line; (void)function; (void)err; (void)fmt;
}
static inline void camfx_alsa_silence_errors(void) { snd_lib_error_set_handler(camfx_alsa_silent_error); }

static const int CAMFX_EPIPE = EPIPE;
static const int CAMFX_ESTRPIPE = ESTRPIPE;
#endif
