#pragma once
// The text of a generated input, --input gen:NAME[:key=value,...]: the NAME and each key's number,
// shared by the apps' parsers (fk-lda/fk-gap corpora, fk-als/fk-sfa ratings), which map the keys
// onto their generator's spec.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "apps/common/options.hpp"
#include "core/error.hpp"

namespace fk::app {

struct GenSpecText {
  std::string text;  // after "gen:", for messages
  std::string name;
  // Keys as given, '_' read as '-' (min_user_ratings is min-user-ratings, fk-datagen's option).
  std::vector<std::pair<std::string, double>> values;

  // The value of `key` as a non-negative integer up to `most`; UsageError naming --input
  // otherwise (a count past what its field holds must not wrap: topics=4294967298 gave 2).
  std::int64_t integer(const std::string& key, double v, double most = 9007199254740992.0) const;
  // UsageError naming --input: "unknown key 'k' (known: ...)".
  [[noreturn]] void unknown(const std::string& key, const std::string& known) const;
  // UsageError "--input: gen:TEXT: MESSAGE".
  [[noreturn]] void fail(const std::string& message) const;
  // f() (the preset's lookup, the generator's value checks) with its fk::Error made a usage error
  // of this input, as a bad key is.
  template <typename F>
  auto checked(F&& f) const -> decltype(f()) {
    try {
      return f();
    } catch (const UsageError&) {
      throw;
    } catch (const Error& e) {
      fail(e.what());
    }
  }
};

// Splits `text` (what follows "gen:"), each key of `aliases` (old name, name) stored by its name:
// a part that is no key=value, a key given twice (under either name) or a value that is no finite
// number is a UsageError naming --input.
GenSpecText split_gen_spec(const std::string& text,
                           const std::vector<std::pair<std::string, std::string>>& aliases = {});

}  // namespace fk::app
