#pragma once
// The two ways gfxq-visual runs: in a GLFW window (keys, or a script for tests), or headless (EGL,
// ImGui rendered into a framebuffer object, one PNG written). Both return the process exit status.

#include "gfxq/table.h"
#include "visual/options.h"

namespace gfxq::visual {

//! Exit statuses.
enum ExitCode : int { kOk = 0, kFailure = 1, kBadInput = 2 };

//! Runs the demo in a GLFW window until Esc, the window's close button or the script's end.
//! With a script: kOk only when every run matched the CPU reference (and, with --debug, GL said nothing).
int run_window(const Options& options, Catalog catalog);

//! Renders the chosen pass headlessly into options.screenshot (and options.sidecar); kOk when
//! written and the run matched the CPU reference (and, with --debug, GL said nothing).
int run_headless(const Options& options, Catalog catalog);

}  // namespace gfxq::visual
