#pragma once
// Helpers of the fk-lda tests: running the app in-process (as its main does) and reading what it
// wrote (tests/apps/app_test_util.hpp).
#include <algorithm>
#include <string>
#include <vector>

#include "apps/lda/lda_app.hpp"
#include "tests/apps/app_test_util.hpp"

namespace fk::test {

using LdaRun = AppRun;

// Runs `fk-lda ARGS...` in this process through the same wrapper as the executable's main,
// single-threaded unless the test passes --threads (or asks for `infer` alone, its usage error).
inline LdaRun run_lda(const std::vector<std::string>& args) {
  const bool infer = !args.empty() && args[0] == "infer";
  return run_app_main("fk-lda", lda::lda_main, args,
                      std::find(args.begin(), args.end(), "--threads") == args.end() &&
                          !(infer && args.size() == 1));
}

}  // namespace fk::test
