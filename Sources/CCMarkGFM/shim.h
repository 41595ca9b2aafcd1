#ifndef SYBIL_CCMARKGFM_SHIM_H
#define SYBIL_CCMARKGFM_SHIM_H

// cmark-gfm's parser, node tree and iterator, plus the GFM core extensions (table,
// strikethrough, autolink, tag filter, task list) and their table accessors.
#include <cmark-gfm.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm-core-extensions.h>

#endif
