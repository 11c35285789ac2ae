#pragma once
// The command line of gfxq-visual: tables, the query, and the mode (window, scripted window, or a
// headless screenshot).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gfxq/table.h"

namespace gfxq::visual {

//! What the user (a key, a button, a script) asks the demo to do.
enum class Command {
  Next,   //!< the next pass
  Prev,   //!< the previous pass
  First,  //!< the first pass
  Last,   //!< the last pass
  Play,   //!< one pass per frame until the last (scripts)
  Rerun,  //!< run the query again
  Quit,   //!< leave
};

//! The most rows the demo generates (every pass of every tile is kept as images).
constexpr uint64_t kMaxGeneratedRows = 20000000;

//! How the default tables are generated (without --table, or by the Generate button).
struct GeneratorSettings {
  uint64_t rows = 100000;                     //!< rows of t
  Distribution dist = Distribution::Uniform;  //!< distribution of every column of t
  uint64_t seed = 42;                         //!< generator seed
};

//! The parsed command line.
struct Options {
  std::vector<std::pair<std::string, std::string>> tables;  //!< --table NAME=PATH.csv, in order
  GeneratorSettings generator;                              //!< --rows, --dist, --seed
  std::string query;                                        //!< --query; empty: the first example
  std::string screenshot;                                   //!< --screenshot PATH.png: headless mode
  std::optional<size_t> pass;           //!< --pass N (1-based); empty: the last (screenshots), the first (window)
  uint64_t tile = 1;                    //!< --tile T (1-based)
  uint32_t width = 1280, height = 800;  //!< --size WxH
  std::string sidecar;                  //!< --sidecar PATH.json (screenshots)
  std::optional<std::vector<Command>> script;  //!< --script a,b,c (windowed mode)
  bool debug = false;                          //!< --debug: GL debug output; any message makes the exit status 1
  bool help = false;                           //!< --help
};

//! Thrown for a malformed command line; the message says what is wrong.
struct UsageError {
  std::string message;  //!< what is wrong
};

//! Parses argv (without the program name). UsageError on a malformed command line.
Options parse_options(const std::vector<std::string>& args);
//! Parses "next,prev,first,last,play,rerun,quit" (comma-separated). UsageError on an unknown word.
std::vector<Command> parse_script(const std::string& text);
//! The usage text.
const char* usage();

}  // namespace gfxq::visual
