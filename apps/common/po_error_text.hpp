#pragma once
// Boost.Program_options error messages that cannot hang, for every command line of ours (the apps'
// CommandLine and fk-bench's own). Header-only: fk-bench does not link fk_app_common.
#include <algorithm>
#include <boost/program_options.hpp>
#include <map>
#include <string>

namespace fk::app {

namespace po_error_detail {
// Reads the substitutions of a Boost error, which it keeps protected: a pointer to a protected
// member may be formed through a derived class.
struct Fields : boost::program_options::error_with_option_name {
  static const std::map<std::string, std::string>& substitutions(
      const boost::program_options::error_with_option_name& e) {
    return e.*(&Fields::m_substitutions);
  }
};
}  // namespace po_error_detail

// The message of a Boost.Program_options error; use it instead of what(). Boost 1.74's what()
// fills "%value%", "%option%" ... into its template by replacing each until none is left, so a
// value or an option name that holds its own placeholder ("topics = %value%" in a config file,
// --iters %value%) never returns. When a value or name given holds a '%', the message is made
// here instead (naming the option and the value as given).
inline std::string po_error_text(const boost::program_options::error& e) {
  namespace po = boost::program_options;
  const auto* named = dynamic_cast<const po::error_with_option_name*>(&e);
  if (!named) return e.what();
  const auto& subs = po_error_detail::Fields::substitutions(*named);
  if (std::none_of(subs.begin(), subs.end(),
                   [](const auto& s) { return s.second.find('%') != std::string::npos; }))
    return e.what();
  // get_option_name() builds the name without the template: it cannot loop.
  const std::string name = named->get_option_name();
  if (dynamic_cast<const po::unknown_option*>(&e)) return "unrecognised option '" + name + "'";
  const auto value = subs.find("value");
  if (value != subs.end())
    return "the argument ('" + value->second + "') for option '" + name + "' is invalid";
  return "option '" + name + "' cannot be used as given";
}

}  // namespace fk::app
