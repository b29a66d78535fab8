/* The registry's rows, one per language folder. */
#ifndef SEAM_LG_INTERNAL_H
#define SEAM_LG_INTERNAL_H

#include "seam_languages.h"

extern const lg_language lg_python;

#endif
