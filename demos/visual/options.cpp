#include "visual/options.h"

#include <charconv>

#include "gfxq/error.h"

namespace gfxq::visual {

namespace {

uint64_t parse_u64(const std::string& text, const std::string& flag) {
  uint64_t v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc{} || r.ptr != text.data() + text.size())
    throw UsageError{flag + " needs a non-negative integer, got '" + text + "'"};
  return v;
}

std::pair<uint32_t, uint32_t> parse_size(const std::string& text) {
  const auto x = text.find('x');
  if (x == std::string::npos) throw UsageError{"--size needs WxH, got '" + text + "'"};
  const uint64_t w = parse_u64(text.substr(0, x), "--size");
  const uint64_t h = parse_u64(text.substr(x + 1), "--size");
  if (w < 800 || h < 600 || w > 8192 || h > 8192)
    throw UsageError{"--size must be between 800x600 and 8192x8192, got '" + text + "'"};
  return {uint32_t(w), uint32_t(h)};
}

}  // namespace

const char* usage() {
  return R"(usage: gfxq-visual [--table NAME=PATH.csv]... [--rows N] [--dist D] [--seed S] [--query SQL]
                   [--screenshot OUT.png [--pass N|last] [--tile T] [--sidecar OUT.json]]
                   [--script CMDS] [--size WxH] [--debug]
  Watch a query run on the raster backend pass by pass (GLFW window, Dear ImGui).
  --table NAME=PATH.csv  load a CSV table (repeatable); without one, tables t and s are generated
  --rows N --dist D --seed S  the generated table t (default 100000 rows, uniform, seed 42);
                         D is uniform|skewed|sorted|all-equal
  --query SQL            the query to run first (default: the first example)
  --pass N --tile T      the pass and tile shown first (1-based)
  --screenshot OUT.png   headless (EGL, no display): render pass N (default: the last) of tile T
                         into a WxH PNG (default 1280x800) and exit
  --sidecar OUT.json     with --screenshot: the shown pass's exact counts and where the stencil
                         view lies in the image
  --script CMDS          windowed: run commands, one per frame, then exit (0 when the query ran and
                         matched the CPU reference): next, prev, first, last, play (to the last
                         pass), rerun, quit
  --debug                GL debug output; any message makes the exit status 1
  keys: space next pass, backspace previous, R rerun, Esc quit
)";
}

std::vector<Command> parse_script(const std::string& text) {
  std::vector<Command> commands;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(',', start), text.size());
    const std::string word = text.substr(start, end - start);
    if (word == "next")
      commands.push_back(Command::Next);
    else if (word == "prev")
      commands.push_back(Command::Prev);
    else if (word == "first")
      commands.push_back(Command::First);
    else if (word == "last")
      commands.push_back(Command::Last);
    else if (word == "play")
      commands.push_back(Command::Play);
    else if (word == "rerun")
      commands.push_back(Command::Rerun);
    else if (word == "quit")
      commands.push_back(Command::Quit);
    else
      throw UsageError{"--script: unknown command '" + word + "' (next, prev, first, last, play, rerun, quit)"};
    start = end + 1;
  }
  return commands;
}

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError{a + " needs a value"};
      return args[++i];
    };
    if (a == "--help" || a == "-h") {
      o.help = true;
    } else if (a == "--table") {
      const std::string& v = value();
      const auto eq = v.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
        throw UsageError{"--table needs NAME=PATH.csv, got '" + v + "'"};
      o.tables.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (a == "--rows") {
      o.generator.rows = parse_u64(value(), a);
      if (o.generator.rows > kMaxGeneratedRows)
        throw UsageError{"--rows: at most " + std::to_string(kMaxGeneratedRows)};
    } else if (a == "--seed") {
      o.generator.seed = parse_u64(value(), a);
    } else if (a == "--dist") {
      try {
        o.generator.dist = parse_distribution(value());
      } catch (const Error& e) {
        throw UsageError{std::string("--dist: ") + e.what()};
      }
    } else if (a == "--query") {
      o.query = value();
    } else if (a == "--screenshot") {
      o.screenshot = value();
    } else if (a == "--pass") {
      const std::string& v = value();
      if (v == "last") {
        o.pass.reset();
      } else {
        o.pass = parse_u64(v, a);
        if (*o.pass == 0) throw UsageError{"--pass counts from 1"};
      }
    } else if (a == "--tile") {
      o.tile = parse_u64(value(), a);
      if (o.tile == 0) throw UsageError{"--tile counts from 1"};
    } else if (a == "--size") {
      std::tie(o.width, o.height) = parse_size(value());
    } else if (a == "--sidecar") {
      o.sidecar = value();
    } else if (a == "--script") {
      o.script = parse_script(value());
    } else if (a == "--debug") {
      o.debug = true;
    } else {
      throw UsageError{"unknown argument '" + a + "'"};
    }
  }
  if (!o.sidecar.empty() && o.screenshot.empty()) throw UsageError{"--sidecar needs --screenshot"};
  if (o.script && !o.screenshot.empty()) throw UsageError{"--script is for the window; --screenshot is headless"};
  return o;
}

}  // namespace gfxq::visual
