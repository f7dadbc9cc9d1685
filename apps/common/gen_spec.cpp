#include "apps/common/gen_spec.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>

namespace fk::app {

void GenSpecText::fail(const std::string& message) const {
  throw UsageError("--input: gen:" + text + ": " + message);
}

std::int64_t GenSpecText::integer(const std::string& key, double v, double most) const {
  if (v != std::floor(v) || v < 0) fail("'" + key + "' needs a non-negative integer");
  if (v > most) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", most);
    fail("'" + key + "' must be at most " + buf);
  }
  return static_cast<std::int64_t>(v);
}

void GenSpecText::unknown(const std::string& key, const std::string& known) const {
  fail("unknown key '" + key + "' (known: " + known + ")");
}

GenSpecText split_gen_spec(const std::string& text,
                           const std::vector<std::pair<std::string, std::string>>& aliases) {
  GenSpecText out;
  out.text = text;
  const std::size_t colon = text.find(':');
  out.name = text.substr(0, colon);
  if (colon == std::string::npos) return out;
  std::stringstream parts(text.substr(colon + 1));
  std::string part;
  std::set<std::string> seen;
  while (std::getline(parts, part, ',')) {
    if (part.empty()) continue;  // "docs=5,,words=3" or a trailing comma
    const std::size_t eq = part.find('=');
    if (eq == std::string::npos) out.fail("expected key=value, got '" + part + "'");
    std::string key = part.substr(0, eq);
    const std::string val = part.substr(eq + 1);
    std::replace(key.begin(), key.end(), '_', '-');
    for (const auto& [old_name, name] : aliases)
      if (key == old_name) key = name;
    if (!seen.insert(key).second) out.fail("'" + key + "' given twice");
    char* end = nullptr;
    const double v = std::strtod(val.c_str(), &end);
    if (val.empty() || *end != '\0' || !std::isfinite(v))
      out.fail("'" + key + "' needs a number, got '" + val + "'");
    out.values.emplace_back(std::move(key), v);
  }
  return out;
}

}  // namespace fk::app
