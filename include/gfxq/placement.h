#pragma once
//! \file placement.h
//! What auto placement knows of this machine (docs/RASTER.md "Placement by cost").

#include <string>

#include "gfxq/engine.h"

namespace gfxq {

//! The raster path's calibration (measured on first use, or read from its cache file) and the cost
//! models Backend::Auto compares for each backend (or why a backend is no candidate), as text: what
//! `gfxq info` prints. Starts GL and Vulkan contexts of its own with `options`.
std::string placement_figures(const EngineOptions& options = {});

}  // namespace gfxq
