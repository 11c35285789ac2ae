// gfxq_bench: runs named cases at given sizes, prints JSON lines.
//   gfxq_bench [--cases SUBSTR[,SUBSTR...]] [--log2 20,24,28] [--repeats N] [--seed S] [--list]
//              [--pipeline-stats]
// Each line: case, backend, rows, seconds, bytes, items, GB/s, items/s, ceiling, ratio, device, date.
// --cases keeps the cases whose names contain one of the substrings (plus their ceilings): "sort"
// takes compute.sort_* and raster.sort_*; --list prints what a run would run, and runs nothing.
// --io-child ENGINE PATH: internal, one CSV load in a fresh process for the io.csv_* cases.
// --pipeline-stats: the Vulkan device captures its compiler's statistics of every pipeline
// (VK_KHR_pipeline_executable_properties: registers, spills, ...), printed after the cases as one
// line {"pipeline": name, "statistics": text} per pipeline the cases used.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <sstream>

#include "bench.h"
#include "gfxq/error.h"

namespace gfxq::bench {

std::vector<Case>& registry() {
  static std::vector<Case> cases;
  return cases;
}

}  // namespace gfxq::bench

namespace {

using gfxq::bench::Case;
using gfxq::bench::Env;
using gfxq::bench::Measurement;

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}

std::string today() {
  std::time_t t = std::time(nullptr);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

double rate(const Case& c, const Measurement& m) {
  return (c.by_items ? double(m.items) : double(m.bytes)) / m.seconds;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "--io-child") return gfxq::bench::io_child(argc - 2, argv + 2);
  std::vector<std::string> filters;
  std::vector<int> log2_sizes = {20, 24, 28};
  Env env;
  bool list = false;
  bool pipeline_stats = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--cases")
      filters = split(value());
    else if (a == "--log2") {
      log2_sizes.clear();
      for (const auto& s : split(value())) log2_sizes.push_back(std::stoi(s));
    } else if (a == "--repeats")
      env.repeats = std::stoi(value());
    else if (a == "--seed")
      env.seed = std::stoull(value());
    else if (a == "--list")
      list = true;
    else if (a == "--pipeline-stats")
      pipeline_stats = true;
    else {
      std::cerr << "unknown argument " << a << "\n";
      return 2;
    }
  }
  auto& cases = gfxq::bench::registry();
  auto selected = [&](const Case& c) {
    if (filters.empty()) return true;
    return std::any_of(filters.begin(), filters.end(),
                       [&](const std::string& f) { return c.name.find(f) != std::string::npos; });
  };
  // The cases that run, in order: ceilings first (each selected one, and each that a selected case
  // is measured against), so every other case's ratio is taken against the same run and size.
  std::vector<const Case*> order;
  for (const auto& c : cases)
    if (c.ceiling.empty() && (selected(c) || std::any_of(cases.begin(), cases.end(), [&](const Case& o) {
                                return o.ceiling == c.name && selected(o);
                              })))
      order.push_back(&c);
  for (const auto& c : cases)
    if (!c.ceiling.empty() && selected(c)) order.push_back(&c);
  if (list) {  // what a run with these --cases would run, to check a selection before a long run
    for (const Case* c : order)
      std::cout << c->name << " (" << c->backend << ", ceiling " << (c->ceiling.empty() ? "-" : c->ceiling) << ")\n";
    return 0;
  }

  std::unique_ptr<gfxq::vk::Device> vk;
  std::unique_ptr<gfxq::gl::Context> gl;
  std::string vk_name = "none", gl_name = "none";
  try {
    gfxq::vk::DeviceOptions options;
    options.pipeline_statistics = pipeline_stats;
    vk = gfxq::vk::Device::create(options);
    env.vk = vk.get();
    vk_name = vk->caps().device_name;
  } catch (const gfxq::Error& e) {
    std::cerr << "no Vulkan device: " << e.what() << "\n";
  }
  try {
    gl = gfxq::gl::Context::create_headless({});
    env.gl = gl.get();
    gl_name = gl->caps().renderer;
  } catch (const gfxq::Error& e) {
    std::cerr << "no GL context: " << e.what() << "\n";
  }

  const std::string date = today();
  for (int lg : log2_sizes) {
    const uint64_t rows = uint64_t(1) << lg;
    std::map<std::string, double> ceiling_rate;  // ceiling case name -> rate at this size
    auto run_case = [&](const Case& c) -> bool {
      if (c.backend == "raster" && gl) gl->make_current();
      Measurement m;
      try {
        m = c.run(env, rows);
      } catch (const gfxq::Error& e) {
        std::cout << "{\"case\":\"" << c.name << "\",\"rows\":" << rows << ",\"skipped\":\"" << json_escape(e.what())
                  << "\"}" << std::endl;
        return false;
      }
      const double r = rate(c, m);
      if (c.ceiling.empty()) ceiling_rate[c.name] = r;
      std::ostringstream line;
      line.precision(6);
      line << "{\"case\":\"" << c.name << "\",\"backend\":\"" << c.backend << "\",\"rows\":" << rows
           << ",\"seconds\":" << m.seconds << ",\"bytes\":" << m.bytes << ",\"items\":" << m.items
           << ",\"GBps\":" << double(m.bytes) / m.seconds / 1e9
           << ",\"Gitems_per_s\":" << double(m.items) / m.seconds / 1e9;
      if (!c.ceiling.empty() && ceiling_rate.count(c.ceiling))
        line << ",\"ceiling\":\"" << c.ceiling << "\",\"ratio\":" << r / ceiling_rate[c.ceiling];
      line << ",\"checked\":" << (m.checked ? "true" : "false") << ",\"note\":\"" << json_escape(m.note)
           << "\",\"device\":\"" << json_escape(c.backend == "raster" ? gl_name : vk_name) << "\",\"date\":\"" << date
           << "\"}";
      std::cout << line.str() << std::endl;
      return true;
    };
    for (const Case* c : order) run_case(*c);
  }
  if (pipeline_stats && vk)
    for (const std::string& name : vk->pipeline_names())
      std::cout << "{\"pipeline\":\"" << json_escape(name) << "\",\"statistics\":\""
                << json_escape(vk->pipeline_statistics(name)) << "\",\"device\":\"" << json_escape(vk_name) << "\"}"
                << std::endl;
  return 0;
}
