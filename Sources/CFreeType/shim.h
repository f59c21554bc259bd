#ifndef CAMFX_CFREETYPE_SHIM_H
#define CAMFX_CFREETYPE_SHIM_H
// FreeType's headers are included through macros (FT_FREETYPE_H), which a module map
// cannot name; this header does it for Swift.
#include <ft2build.h>
#include FT_FREETYPE_H

// Load flags are macros built from shifts: copied as constants of the type
// FT_Load_Char takes.
static const FT_Int32 CAMFX_FT_LOAD_RENDER = FT_LOAD_RENDER;
static const FT_Int32 CAMFX_FT_LOAD_DEFAULT = FT_LOAD_DEFAULT;
#endif
