// File: args.h
// A small command-line parser for devplace's subcommands: --name VALUE,
// --name=VALUE and --flag, declared per command, with generated --help text.
// Unknown or malformed arguments are usage errors (exit code 2).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace devplace::cli {

struct OptionSpec {
  std::string name;      // without the leading "--"
  std::string value;     // placeholder shown in help ("FILE"); empty for a flag
  std::string help;
  bool required = false;
  bool output = false;   // a file devplace writes: parse() checks it can be written, before any work
  std::string section = {};  // the help's heading for it ("options of rl, hierarchical"); empty: the command's own
};

struct CommandSpec {
  std::string usage;     // "devplace simulate --graph SRC ..."
  std::string summary;   // one paragraph
  std::vector<OptionSpec> options;
  bool positional = false;  // takes arguments that are not options (zoo list, cluster show CL)
};

class Args {
 public:
  // Parses argv (after the subcommand). --help sets help_requested().
  // Errors: an unknown option, an option given twice, an argument that is
  // not an option where the command takes none, and an output file
  // (OptionSpec::output) that cannot be written.
  static Result<Args> parse(const CommandSpec& spec, const std::vector<std::string>& argv);

  bool help_requested() const { return help_; }
  bool flag(const std::string& name) const { return values_.count(name) > 0; }
  std::optional<std::string> get(const std::string& name) const;
  std::string get_or(const std::string& name, const std::string& fallback) const;
  // Integer option; an error names the option.
  Result<int64_t> get_int_or(const std::string& name, int64_t fallback) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  bool help_ = false;
  std::map<std::string, std::string> values_;
  std::vector<std::string> positional_;
};

std::string help_text(const CommandSpec& spec);

// "a,b,,c" -> {"a", "b", "c"}: the items of a comma-separated option value.
std::vector<std::string> split_list_option(const std::string& text);

}  // namespace devplace::cli
