#include "cli/shell.h"

#include <cctype>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <istream>
#include <ostream>
#include <sstream>
#include <vector>

#include "cli/cli.h"
#include "gfxq/column_file.h"
#include "gfxq/error.h"
#include "gfxq/sql.h"

namespace gfxq::cli {

namespace {

constexpr const char* kShellHelp = R"(Statements end with ';' and may span lines. Dot commands (one line each):
  .load NAME PATH        load a table from PATH (.csv or .gfxq); replaces a table of that name
  .drop NAME             forget a table
  .tables                the tables: rows, columns
  .schema NAME           a table's columns and types
  .backend cpu|raster|compute|auto
                         where statements run (auto: each plan node on compute when it can, else cpu)
  .explain on|off        print each statement's execution report (plan, placement, passes, times)
  .timer on|off          print each statement's wall time and GPU time (either one times every
                         GPU pass, which makes the host wait for each: wall times grow)
  .mode table|csv|json   how results print
  .read FILE             run the statements of FILE
  .help                  this text
  .quit                  leave (also .exit, or the end of the input)
)";

// A type's name as SQL writes it: "INT", "STRING", ...
std::string type_name(Type t) {
  std::string name = to_string(t);
  for (char& c : name) c = char(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

bool on_off(const std::vector<std::string>& w, const std::string& command) {
  if (w.size() != 2 || (w[1] != "on" && w[1] != "off"))
    throw Error(ErrorCode::InvalidInput, command + " takes on or off");
  return w[1] == "on";
}

class Shell {
 public:
  Shell(std::ostream& out, std::ostream& err, Catalog& catalog, Engine& engine, ShellOptions options)
      : out_(out), err_(err), catalog_(catalog), engine_(engine), options_(options) {}

  // Runs the statements and commands of `in`; false when `.quit` ended it.
  bool run(std::istream& in, int depth) {
    std::string pending;  // text of an unfinished statement
    std::string line;
    prompt(pending);
    while (std::getline(in, line)) {
      if (pending.find_first_not_of(" \t\r\n") == std::string::npos && !line.empty() && line[0] == '.') {
        pending.clear();
        if (!guard([&] { return command(line, depth); })) return false;
      } else {
        pending += line;
        pending += '\n';
        const auto statements = sql::split_script(pending);
        if (!statements.empty() && statements.back().terminated) {
          for (const auto& s : statements) guard([&] { return statement(s.text); });
          pending.clear();
        }
      }
      prompt(pending);
    }
    for (const auto& s : sql::split_script(pending)) guard([&] { return statement(s.text); });
    return true;
  }

  int status() const noexcept { return status_; }

 private:
  void prompt(const std::string& pending) {
    if (!options_.prompt) return;
    out_ << (pending.find_first_not_of(" \t\r\n") == std::string::npos ? "gfxq> " : "   ...> ") << std::flush;
  }

  // Runs `f`, turning an error into a message and the shell's status; returns f's result (true on error).
  template <class F>
  bool guard(F&& f) {
    try {
      return f();
    } catch (const Error& e) {
      err_ << "Error: " << to_string(e.code()) << ": " << e.what() << "\n";
      if (status_ == kOk) status_ = exit_code(e.code());
    } catch (const std::exception& e) {
      err_ << "Error: internal: " << e.what() << "\n";
      if (status_ == kOk) status_ = kFailure;
    }
    return true;
  }

  bool statement(const std::string& sql) {
    const auto start = std::chrono::steady_clock::now();
    const Result r = engine_.execute_sql(sql, catalog_, options_.backend);
    const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    write_result(out_, r.table, options_.format);
    if (explain_) err_ << r.report.text();
    if (timer_) {
      double gpu = 0;
      bool any = false;
      for (const auto& p : r.report.passes)
        if (p.gpu_ms) gpu += *p.gpu_ms, any = true;
      err_ << std::fixed << std::setprecision(3) << "Run Time: wall " << wall << " ms";
      if (any) err_ << ", GPU " << gpu << " ms";
      err_ << " (" << to_string(r.report.backend) << ")\n" << std::defaultfloat;
    }
    return true;
  }

  bool command(const std::string& line, int depth) {
    const auto w = words_of(line);
    const std::string& c = w[0];
    if (c == ".quit" || c == ".exit") return false;
    if (c == ".help") {
      out_ << kShellHelp;
    } else if (c == ".load") {
      if (w.size() != 3) throw Error(ErrorCode::InvalidInput, ".load takes NAME PATH");
      catalog_.add(w[1], read_table_file(w[2]));
      const Table& t = catalog_.get(w[1]);
      out_ << "loaded " << w[1] << ": " << t.rows() << " rows, " << t.columns.size() << " columns\n";
    } else if (c == ".drop") {
      if (w.size() != 2) throw Error(ErrorCode::InvalidInput, ".drop takes NAME");
      catalog_.remove(w[1]);
    } else if (c == ".tables") {
      Table listing;
      listing.columns = {Column::make("name", Type::String), Column::make("rows", Type::Int64),
                         Column::make("columns", Type::Int64)};
      std::vector<std::string> names = catalog_.names();
      for (const auto& n : names) {
        listing.columns[1].push(int64_t(catalog_.get(n).rows()));
        listing.columns[2].push(int64_t(catalog_.get(n).columns.size()));
      }
      listing.columns[0] = Column::strings("name", names);
      write_result(out_, listing, options_.format);
    } else if (c == ".schema") {
      if (w.size() != 2) throw Error(ErrorCode::InvalidInput, ".schema takes NAME");
      for (const Column& col : catalog_.get(w[1]).columns) out_ << col.name << " " << type_name(col.type) << "\n";
    } else if (c == ".backend") {
      if (w.size() != 2) throw Error(ErrorCode::InvalidInput, ".backend takes cpu, raster, compute or auto");
      options_.backend = parse_backend(w[1]);
    } else if (c == ".explain") {
      explain_ = on_off(w, c);
      engine_.set_gpu_timing(explain_ || timer_);
    } else if (c == ".timer") {
      timer_ = on_off(w, c);
      engine_.set_gpu_timing(explain_ || timer_);
    } else if (c == ".mode") {
      if (w.size() != 2) throw Error(ErrorCode::InvalidInput, ".mode takes table, csv or json");
      const auto f = format_named(w[1]);
      if (!f) throw Error(ErrorCode::InvalidInput, ".mode takes table, csv or json, got '" + excerpt(w[1]) + "'");
      options_.format = *f;
    } else if (c == ".read") {
      if (w.size() != 2) throw Error(ErrorCode::InvalidInput, ".read takes FILE");
      if (depth >= 16) throw Error(ErrorCode::InvalidInput, ".read nested more than 16 deep");
      std::ifstream file(w[1]);
      if (!file) throw Error(ErrorCode::Io, "cannot open '" + w[1] + "'");
      const bool prompt = options_.prompt;
      options_.prompt = false;
      const bool go_on = run(file, depth + 1);
      options_.prompt = prompt;
      return go_on;
    } else {
      throw Error(ErrorCode::InvalidInput, "unknown command '" + excerpt(c) + "' (.help lists the commands)");
    }
    return true;
  }

  std::ostream& out_;
  std::ostream& err_;
  Catalog& catalog_;
  Engine& engine_;
  ShellOptions options_;
  bool explain_ = false;
  bool timer_ = false;
  int status_ = kOk;
};

}  // namespace

int run_shell(std::istream& in, std::ostream& out, std::ostream& err, Catalog& catalog, Engine& engine,
              ShellOptions options) {
  Shell shell(out, err, catalog, engine, options);
  shell.run(in, 0);
  return shell.status();
}

}  // namespace gfxq::cli
