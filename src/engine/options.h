#pragma once
//! \file options.h
//! The environment overrides of the backends' knobs (ComputeOptions, RasterOptions in
//! gfxq/engine.h), read once when an Engine's backends are made (Backends), never during a query.

#include "gfxq/engine.h"

namespace gfxq::engine {

//! `options` with each knob whose environment variable (named on the knob in gfxq/engine.h) is set
//! and not empty taking that variable's value. Error(InvalidInput) naming the variable, its value
//! and the knob when a value is not valid there.
EngineOptions with_environment(EngineOptions options);

}  // namespace gfxq::engine
