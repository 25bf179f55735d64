// File: args.cc
// Command-line parsing (see args.h).
#include "cli/args.h"

#include <algorithm>
#include <charconv>

#include "common/file_io.h"
#include "common/format.h"

namespace devplace::cli {

Result<Args> Args::parse(const CommandSpec& spec, const std::vector<std::string>& argv) {
  Args a;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      a.help_ = true;
      return a;
    }
    if (arg.rfind("--", 0) != 0) {
      if (!spec.positional)
        return invalid_input("unexpected argument '" + quoted_value(arg) + "' (options start with --; see --help)");
      a.positional_.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> inline_value;
    if (const size_t eq = name.find('='); eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const OptionSpec* opt = nullptr;
    for (const OptionSpec& o : spec.options) {
      if (o.name == name) opt = &o;
    }
    if (opt == nullptr) return invalid_input("unknown option '--" + quoted_value(name) + "' (see --help)");
    if (a.values_.count(name)) return invalid_input("option '--" + name + "' given twice");
    if (opt->value.empty()) {
      if (inline_value) return invalid_input("option '--" + name + "' takes no value");
      a.values_[name] = "";
    } else if (inline_value) {
      a.values_[name] = *inline_value;
    } else {
      if (i + 1 >= argv.size()) return invalid_input("option '--" + name + "' needs a value " + opt->value);
      a.values_[name] = argv[++i];
    }
  }
  for (const OptionSpec& o : spec.options) {
    if (o.required && !a.values_.count(o.name)) return invalid_input("missing required option '--" + o.name + " " + o.value + "' (see --help)");
    // Outputs are checked now, not after minutes of work.
    if (auto it = a.values_.find(o.name); o.output && it != a.values_.end())
      DEVPLACE_RETURN_IF_ERROR(check_output_path("--" + o.name, it->second));
  }
  return a;
}

std::optional<std::string> Args::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string Args::get_or(const std::string& name, const std::string& fallback) const {
  auto v = get(name);
  return v ? *v : fallback;
}

Result<int64_t> Args::get_int_or(const std::string& name, int64_t fallback) const {
  auto v = get(name);
  if (!v) return fallback;
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc() || ptr != v->data() + v->size()) return invalid_input("option '--" + name + "': expected an integer, got '" + *v + "'");
  return out;
}

std::string help_text(const CommandSpec& spec) {
  std::string s = "usage: " + spec.usage + "\n\n" + spec.summary + "\n";
  auto line = [](const OptionSpec& o) {
    std::string left = "  --" + o.name + (o.value.empty() ? "" : " " + o.value);
    if (left.size() < 26) left.resize(26, ' ');
    else left += "\n" + std::string(26, ' ');
    return left + o.help + (o.required ? " (required)" : "") + "\n";
  };
  // The command's own options, then each section's, in order of first appearance.
  s += "\noptions:\n";
  std::vector<std::string> sections;
  for (const OptionSpec& o : spec.options) {
    if (o.section.empty()) {
      s += line(o);
    } else if (std::find(sections.begin(), sections.end(), o.section) == sections.end()) {
      sections.push_back(o.section);
    }
  }
  s += "  --help                  show this help\n";
  for (const std::string& section : sections) {
    s += "\n" + section + ":\n";
    for (const OptionSpec& o : spec.options) {
      if (o.section == section) s += line(o);
    }
  }
  return s;
}

std::vector<std::string> split_list_option(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

}  // namespace devplace::cli
